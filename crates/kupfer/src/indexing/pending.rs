//! Gathers as deferred producers of the lazy engine: `x[idx]`, `take(x, i)` and `roll`
//! return a lazy array holding a [`PendingGather`]. Used as it is, the gather runs on first
//! use as its own kernel (`get.rs`'s gather, or the family's own for [`PendingGather::map`]);
//! inside an elementwise expression that nothing else shares, the
//! expression becomes the gather's epilogue (`x[idx] * 2 + y` is one kernel: each thread
//! computes its offset, loads the element and evaluates the rest, and the gathered values
//! never go through memory). Bounds checks of device index arrays stay in the kernel that
//! runs; a sync runs a gather still pending first (`checks.rs`), so its errors are reported
//! by the sync that follows it, as before.

use crate::array::Array;
use crate::device::Device;
use crate::fusion::{Deferred, Expr, Lazy};
use crate::indexing::index::Plan;
use crate::indexing::launch::{launch_gather_map, whole, Gathered};
use crate::indexing::resolve::{bounds_words, offsets};
use kupfer_core::layout::size_of;
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::GpuBuffer;
use std::sync::{Arc, Mutex};

/// A gather not run yet.
pub(crate) struct PendingGather {
    dtype: DType,
    shape: Vec<usize>,
    state: Mutex<State>,
    /// The thread that recorded the gather: its bounds errors are that thread's, whichever
    /// thread runs the kernel (`checks::on_behalf_of`).
    owner: std::thread::ThreadId,
}

/// What a pending gather reads.
enum Source {
    /// `source[plan]`, run alone by `get.rs`'s gather.
    Index { source: Array, plan: Box<Plan> },
    /// Element `off` (a u32 expression of the output index, always in bounds) of the
    /// buffer, run alone by `standalone`.
    Map { off: Lazy, standalone: Standalone },
}

/// A family's own kernel computing a mapped gather alone.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type Standalone = Box<dyn Fn() -> Result<Array> + Send + Sync>;
/// A family's own kernel computing a mapped gather alone.
#[cfg(target_arch = "wasm32")]
pub(crate) type Standalone = Box<dyn Fn() -> Result<Array>>;

enum State {
    /// The source's buffer and what is read from it; `fused` once an epilogue ran it
    /// (nothing reads the result itself then).
    Waiting {
        buffer: Arc<GpuBuffer>,
        source: Source,
        fused: bool,
    },
    /// The gathered values (C-contiguous).
    Done(Arc<GpuBuffer>),
}

impl std::fmt::Debug for PendingGather {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PendingGather({:?} {})", self.shape, self.dtype)
    }
}

impl PendingGather {
    /// `source[plan]` as a lazy array (`buffer` is the source's buffer); a sync runs it if
    /// it is still pending then.
    pub(crate) fn array(source: &Array, buffer: Arc<GpuBuffer>, plan: Box<Plan>) -> Array {
        let shape = plan.shape.clone();
        let what = Source::Index {
            source: source.clone(),
            plan,
        };
        PendingGather::lazy(source, buffer, shape, what)
    }

    /// A gather of `shape` reading element `off` of `source`'s buffer at each output element
    /// (`off`: a u32 expression of the output index, in bounds by construction, as a roll's
    /// wrapped coordinates are), computed alone by `standalone` (the family's own kernel).
    pub(crate) fn map(
        source: &Array,
        shape: Vec<usize>,
        off: Lazy,
        standalone: Standalone,
    ) -> Result<Array> {
        let buffer = source.read_whole_buffer()?;
        let what = Source::Map { off, standalone };
        Ok(PendingGather::lazy(source, buffer, shape, what))
    }

    fn lazy(source: &Array, buffer: Arc<GpuBuffer>, shape: Vec<usize>, what: Source) -> Array {
        let device = source.device().clone();
        let pending = Arc::new(PendingGather {
            dtype: source.dtype(),
            shape: shape.clone(),
            state: Mutex::new(State::Waiting {
                buffer,
                source: what,
                fused: false,
            }),
            owner: crate::checks::recording_thread(),
        });
        let weak: std::sync::Weak<dyn Deferred> = Arc::downgrade(&pending) as _;
        device.checks.push_producer(weak);
        Array::from_lazy(device, shape, Lazy::deferred(pending))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Deferred for PendingGather {
    fn dtype(&self) -> DType {
        self.dtype
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn takes_epilogue(&self) -> bool {
        matches!(*self.lock(), State::Waiting { fused: false, .. })
    }

    fn buffer(&self) -> Result<Arc<GpuBuffer>> {
        crate::checks::on_behalf_of(self.owner, || self.run_alone())
    }

    /// Runs `expr` (of `shape`, reading this gather as `this`) in the gather's kernel; None
    /// when it cannot (too many arrays for one kernel, ...): the caller then runs both.
    fn with_epilogue(
        &self,
        device: &Device,
        expr: &Arc<Expr>,
        this: &Arc<Expr>,
        shape: &[usize],
    ) -> Result<Option<Arc<GpuBuffer>>> {
        crate::checks::on_behalf_of(self.owner, || {
            self.run_with_epilogue(device, expr, this, shape)
        })
    }
}

impl PendingGather {
    /// [`Deferred::buffer`] on the recording thread's behalf.
    fn run_alone(&self) -> Result<Arc<GpuBuffer>> {
        let mut state = self.lock();
        let out = match &*state {
            State::Done(b) => return Ok(b.clone()),
            State::Waiting {
                buffer,
                source: Source::Index { source, plan },
                ..
            } => {
                super::get::gather(source, buffer, plan)?
                    .buffer_and_layout()?
                    .0
            }
            State::Waiting {
                source: Source::Map { standalone, .. },
                ..
            } => standalone()?.buffer_and_layout()?.0,
        };
        *state = State::Done(out.clone());
        Ok(out)
    }

    /// [`Deferred::with_epilogue`] on the recording thread's behalf.
    fn run_with_epilogue(
        &self,
        device: &Device,
        expr: &Arc<Expr>,
        this: &Arc<Expr>,
        shape: &[usize],
    ) -> Result<Option<Arc<GpuBuffer>>> {
        let mut state = self.lock();
        let State::Waiting {
            buffer,
            source,
            fused,
        } = &mut *state
        else {
            return Ok(None);
        };
        if *fused || shape != self.shape.as_slice() {
            return Ok(None);
        }
        let (off, words, report) = match source {
            Source::Index { plan, .. } => {
                let (words, report) = bounds_words(plan)?;
                (offsets(plan)?, words, Some(report))
            }
            Source::Map { off, .. } => (off.clone(), vec![], None),
        };
        let checks = u8::try_from(words.len() / 2)
            .map_err(|_| Error::unsupported("more than 255 index arrays"))?;
        let dtype = expr.dtype();
        let n = size_of(shape);
        let out = Arc::new(
            device
                .context()
                .alloc((n.max(1) * dtype.gpu_size()).div_ceil(16) as u64 * 16)?,
        );
        let mut extra = vec![whole(&out)];
        let err = if checks > 0 {
            let err = device.context().upload(&vec![0u8; 8 * checks as usize])?;
            extra.push(whole(&err));
            Some(err)
        } else {
            None
        };
        let val = Lazy {
            root: expr.clone(),
            nodes: 0,
            leaves: 0,
            products: false,
            random: false,
        };
        let mut roots: Vec<&Lazy> = vec![&off, &val];
        roots.extend(words.iter());
        let gathered = Gathered {
            product: this,
            buffer: buffer.clone(),
            dtype: self.dtype,
        };
        if launch_gather_map(device, &roots, shape, gathered, checks, extra).is_err() {
            return Ok(None);
        }
        if let (Some(err), Some(report)) = (err, report) {
            device.checks.push_words(
                err,
                0,
                2 * u64::from(checks),
                Box::new(move |w| report.describe(w)),
            );
        }
        *fused = true;
        Ok(Some(out))
    }
}
