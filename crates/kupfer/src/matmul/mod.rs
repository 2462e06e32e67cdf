//! Matrix multiplication with NumPy's semantics (`np.matmul`, the `@` operator).
//!
//! - 1-D operands: a 1-D left operand is a row vector `(1, K)` and a 1-D right operand a
//!   column vector `(K, 1)`; the added axis is removed from the result.
//! - N-d operands are stacks of matrices in the last two axes; the batch axes broadcast.
//! - Transposed, sliced, negatively strided and broadcast views are read in place through
//!   their strides (no copy first); lazy operands are materialised once.
//! - Products of stacks of matrices are deferred (`deferred.rs`): an elementwise expression
//!   over a product that nothing else holds runs as the matmul kernel's epilogue.
//! - dtypes promote as kupfer's binary ops do; float16 accumulates in float32, integers wrap
//!   as NumPy's do, bool is `any(a & b)`.
//!
//! Kernels (`launch.rs`): a tiled SIMT GEMM for float16/float32/float64 with a tile
//! configuration autotuned per adapter and shape class (`tune.rs`), a bandwidth-bound gemv for
//! matrix-vector shapes, tensor cores through cooperative matrices for float16 (and float32 in
//! the opt-in [`MatmulPrecision::ReducedF16`] mode) where the adapter has them, and a simple
//! one-thread-per-output kernel for the other dtypes. Large complex products run as real
//! products of their parts on the tiled kernel (`complex_parts.rs`). Products whose k loop
//! would run too long for one thread are sums of products of K slices (`split_k.rs`).

mod complex_parts;
mod deferred;
mod launch;
mod split_k;
mod tune;
mod tune_store;

pub(crate) use deferred::Pending;
pub(crate) use launch::{subtract_product_in_place, Geometry, UpdatePlace};

#[doc(hidden)]
pub use kupfer_core::matmul::{CoopConfig, TileConfig};
#[doc(hidden)]
pub use launch::Force;

use crate::array::Array;
use kupfer_core::layout::{broadcast_shapes, size_of};
use kupfer_core::{promote, DType, Error, Layout, Result};

/// Precision of float32 matrix products (CuPy's `CUPY_TF32` counterpart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MatmulPrecision {
    /// float32 products are computed in float32 (the SIMT kernel). The default.
    #[default]
    Exact,
    /// float32 operands may be rounded to float16 and multiplied on tensor cores with float32
    /// accumulation, where the adapter has cooperative matrices (about 3 decimal digits per
    /// product instead of 7; much faster). Elsewhere the same as `Exact`. Large complex64
    /// products, computed as float32 products of their parts, are rounded the same way.
    /// Chosen for [`matmul`] by the device's [`crate::config::MatmulConfig::f16_operands`]
    /// (`KUPFER_MATMUL_F16_OPERANDS=1`, or the deprecated alias `KUPFER_TF32=1`).
    ReducedF16,
}

/// Matrix product with NumPy's `matmul` semantics (`a @ b`).
///
/// ```no_run
/// use kupfer as kp;
/// let a = kp::arange(0.0, 6.0, 1.0, Some(kp::DType::F32))?.reshape(&[2, 3])?;
/// let b = kp::ones(&[3, 4], Some(kp::DType::F32))?;
/// let c = kp::matmul(&a, &b)?; // shape [2, 4]
/// let v = kp::matmul(&a, &kp::ones(&[3], Some(kp::DType::F32))?)?; // shape [2]
/// let t = kp::matmul(&a.t()?, &a)?; // the transpose is read in place
/// # Ok::<(), kp::Error>(())
/// ```
///
/// Errors: a 0-d operand, mismatched inner dimensions (the message names both shapes),
/// batch axes that do not broadcast, a dtype the adapter cannot run.
///
/// float32 products are exact (float32 multiplies) unless the device's config asks for
/// float16 operands ([`crate::config::MatmulConfig::f16_operands`]); [`matmul_with`] chooses
/// per call.
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    let precision = if a.device().config().matmul.f16_operands {
        MatmulPrecision::ReducedF16
    } else {
        MatmulPrecision::Exact
    };
    matmul_with(a, b, precision)
}

/// [`matmul`] with an explicit float32 [`MatmulPrecision`].
pub fn matmul_with(a: &Array, b: &Array, precision: MatmulPrecision) -> Result<Array> {
    let plan = Plan::new(a, b)?;
    let device = a.device();
    if plan.is_empty() {
        return crate::creation::full_on(device, &plan.out_shape, 0i64, Some(plan.out));
    }
    if complex_parts::applies(&plan) {
        return complex_parts::matmul(a, b, plan.out, precision);
    }
    if Pending::defers(&plan) {
        // Runs on first use, or with the elementwise expression around it as its epilogue.
        let shape = plan.out_shape.clone();
        return Ok(Array::from_lazy(
            device.clone(),
            shape,
            crate::fusion::Lazy::deferred(std::sync::Arc::new(Pending::new(plan, precision))),
        ));
    }
    launch::run(&plan, precision)
}

/// [`matmul_with`] on a kernel chosen by the caller (tests and benchmarks compare kernels
/// with it). The forced kernel must suit the operands (e.g. [`Force::Gemv`] needs M or N of
/// 1, [`Force::Coop`] an adapter with cooperative matrices).
#[doc(hidden)]
pub fn matmul_forced(
    a: &Array,
    b: &Array,
    precision: MatmulPrecision,
    force: Force,
) -> Result<Array> {
    let plan = Plan::new(a, b)?;
    if plan.is_empty() {
        return crate::creation::full_on(a.device(), &plan.out_shape, 0i64, Some(plan.out));
    }
    launch::run_forced(&plan, precision, Some(force))
}

impl Array {
    /// `self @ other`: [`matmul`] as a method.
    pub fn matmul(&self, other: &Array) -> Result<Array> {
        matmul(self, other)
    }
}

/// Shapes as NumPy prints them: `(2, 3)`, `(5,)`.
fn tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// One operand: its buffer and a layout of shape `batch + [rows, cols]`.
#[derive(Clone)]
pub(crate) struct Operand {
    pub(crate) array: Array,
    pub(crate) buffer: std::sync::Arc<kupfer_wgpu::GpuBuffer>,
    pub(crate) layout: Layout,
}

/// A checked matmul: both operands as `batch + [M, K]` and `batch + [K, N]` layouts.
pub(crate) struct Plan {
    pub(crate) a: Operand,
    pub(crate) b: Operand,
    pub(crate) batch: Vec<usize>,
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) k: usize,
    pub(crate) out: DType,
    pub(crate) out_shape: Vec<usize>,
}

impl Plan {
    fn new(a: &Array, b: &Array) -> Result<Plan> {
        a.device().same(b.device())?;
        for (i, x) in [a, b].iter().enumerate() {
            if x.ndim() == 0 {
                return Err(Error::invalid(format!(
                    "matmul: input operand {i} does not have enough dimensions (a 0-d array; \
                     use multiply for scalars)"
                )));
            }
        }
        let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
        let k = sa[sa.len() - 1];
        let kb = if sb.len() == 1 {
            sb[0]
        } else {
            sb[sb.len() - 2]
        };
        if k != kb {
            return Err(Error::invalid(format!(
                "matmul: mismatched inner dimensions: {} @ {} ({k} != {kb})",
                tuple(&sa),
                tuple(&sb)
            )));
        }
        let out = promote::result_type(a.dtype(), b.dtype())?;
        a.device().check(out)?;
        let (ba, bb) = (
            &sa[..sa.len().saturating_sub(2)],
            &sb[..sb.len().saturating_sub(2)],
        );
        let batch = broadcast_shapes(ba, bb).map_err(|_| {
            Error::invalid(format!(
                "matmul: batch dimensions of {} and {} cannot be broadcast together",
                tuple(&sa),
                tuple(&sb)
            ))
        })?;
        let m = if sa.len() == 1 { 1 } else { sa[sa.len() - 2] };
        let n = if sb.len() == 1 { 1 } else { sb[sb.len() - 1] };
        let mut out_shape = batch.clone();
        if sa.len() > 1 {
            out_shape.push(m);
        }
        if sb.len() > 1 {
            out_shape.push(n);
        }
        let operand = |x: &Array, rows: usize, cols: usize, vector_axis: isize| {
            let (buffer, layout) = x.read_buffer_and_layout()?;
            let layout = if x.ndim() == 1 {
                layout.expand_dims(vector_axis)?
            } else {
                layout
            };
            let mut full = batch.clone();
            full.extend([rows, cols]);
            Ok::<_, Error>(Operand {
                array: x.clone(),
                buffer,
                layout: layout.broadcast_to(&full)?,
            })
        };
        Ok(Plan {
            a: operand(a, m, k, 0)?,
            b: operand(b, k, n, 1)?,
            batch,
            m,
            n,
            k,
            out,
            out_shape,
        })
    }

    fn is_empty(&self) -> bool {
        size_of(&self.out_shape) == 0 || self.k == 0
    }

    /// Number of matrices in the batch.
    pub(crate) fn batch_size(&self) -> usize {
        size_of(&self.batch)
    }
}
