//! `choice` with probabilities in exact integer arithmetic (`shaders/random_choice.wgsl`), so
//! that a seed picks the same indices on every adapter, float64 or not:
//!
//! - with replacement, each draw compares its 53-bit integer uniform with the fixed-point
//!   thresholds `ceil(cdf_i 2^53)` of the cumulative distribution (a binary search over
//!   `(high, low)` word pairs). Host probabilities get their thresholds on the host, from the
//!   float64 cumulative sum NumPy takes, so the indices are NumPy's inversion of that
//!   distribution for that uniform exactly. A device `p` is summed in float32 on the device in
//!   an order fixed by its length (chunks of [`kupfer_core::random::choice_chunk`]) and
//!   divided exactly.
//! - without replacement, the `size` smallest race keys `E_i / p_i` (exponential races), with
//!   `E_i` through a logarithm fenced against fused multiply-adds; host probabilities come as
//!   float32 `1 / p_i` computed on the host (the keys are then identical everywhere), a device
//!   `p` is divided by the driver (WGSL allows 2.5 ulp, so a key may differ in its last bit
//!   between drivers, and the sample only where two keys are that close).

use super::Generator;
use crate::array::Array;
use crate::device::Device;
use kupfer_core::random::{choice_chunk, choice_race_weight, choice_thresholds, choice_wgsl};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::Arc;

/// A device `p` longer than this is refused: its cumulative sum's threads would add more
/// than 2^15 terms each (lavapipe's loop budget is 65535 iterations).
const DEVICE_P_MAX: usize = 1 << 28;

/// The pieces of one launch of a `random_choice.wgsl` entry point.
struct Launch<'a> {
    device: &'a Device,
    key: [u32; 2],
    draw: u64,
    n: usize,
}

impl Launch<'_> {
    /// Runs `entry` over `threads` threads with the parameters `m`, `chunk`, `divide` and the
    /// numbered storage bindings.
    fn run(
        &self,
        entry: &str,
        threads: usize,
        m: usize,
        chunk: usize,
        divide: u32,
        bindings: Vec<(u32, Binding)>,
    ) -> Result<()> {
        let ctx = self.device.context();
        let src = choice_wgsl(ctx.target().i64);
        let pipeline = ctx.pipeline_with(&src, entry, ShaderChecks::Trusted)?;
        let groups = threads.div_ceil(256).max(1);
        let gx = groups.min(ctx.max_workgroups_per_dim() as usize);
        let gy = groups.div_ceil(gx);
        let words = [
            self.n as u32,
            m as u32,
            chunk as u32,
            gx as u32,
            self.key[0],
            self.key[1],
            self.draw as u32,
            (self.draw >> 32) as u32,
            divide,
            0,
            0,
            0,
        ];
        let params: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        ctx.dispatch_with(
            &pipeline,
            Some(&params),
            bindings,
            [gx as u32, gy as u32, 1],
        )?;
        Ok(())
    }

    /// A new buffer of `words` 32-bit words, within the adapter's largest binding.
    fn alloc(&self, words: usize) -> Result<Arc<GpuBuffer>> {
        let bytes = (words.max(1) * 4) as u64;
        let max = self.device.context().max_binding_size();
        if bytes > max {
            return Err(Error::unsupported(format!(
                "choice with p of {} entries needs a buffer of {bytes} bytes, more than this \
                 adapter's largest binding ({max} bytes)",
                self.n
            )));
        }
        Ok(Arc::new(self.device.context().alloc(bytes)?))
    }
}

fn binding(buffer: &Arc<GpuBuffer>, words: usize) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: (words.max(1) * 4) as u64,
    }
}

/// The buffer of a 1-D float32 or uint32 array, contiguous from its start (copied if not).
fn whole_buffer(a: &Array) -> Result<Arc<GpuBuffer>> {
    let (buffer, layout) = a.buffer_and_layout()?;
    if layout.offset == 0 && layout.is_c_contiguous() {
        return Ok(buffer);
    }
    Ok(a.copy()?.buffer_and_layout()?.0)
}

fn signed(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

impl Generator {
    fn launch<'a>(&self, device: &'a Device, n: usize) -> Launch<'a> {
        let (key, draw) = self.take_draw();
        Launch {
            device,
            key,
            draw,
            n,
        }
    }

    /// Indices of `0..n` (`size` of them, with replacement) drawn with the thresholds `thresh`
    /// (`(high, low)` words per category, `n` of them).
    fn draw_thresholds(
        &self,
        device: &Device,
        n: usize,
        thresh: &Arc<GpuBuffer>,
        size: &[usize],
    ) -> Result<Array> {
        let m: usize = size.iter().product();
        let launch = self.launch(device, n);
        let picks = launch.alloc(m)?;
        launch.run(
            "draw",
            m,
            m,
            0,
            0,
            vec![(4, binding(thresh, 2 * n)), (5, binding(&picks, m))],
        )?;
        let idx = Array::from_buffer(device.clone(), DType::U32, picks, Layout::contiguous(&[m]));
        idx.astype(device.default_int())?.reshape(&signed(size))
    }

    /// The first `k` of the categories ordered by their race keys (`weights`: the host's
    /// `1 / p`, or a device `p` when `divide`).
    fn race(
        &self,
        device: &Device,
        n: usize,
        weights: &Arc<GpuBuffer>,
        divide: bool,
        size: &[usize],
    ) -> Result<Array> {
        let k: usize = size.iter().product();
        let launch = self.launch(device, n);
        let keys = launch.alloc(n)?;
        launch.run(
            "race_keys",
            n,
            0,
            0,
            u32::from(divide),
            vec![(1, binding(weights, n)), (3, binding(&keys, n))],
        )?;
        let keys = Array::from_buffer(device.clone(), DType::F32, keys, Layout::contiguous(&[n]));
        let order = crate::argsort(&keys, Some(0), Some("stable"))?;
        let first = order.slice(&[kupfer_core::layout::SliceArg::Slice {
            start: Some(0),
            stop: Some(k as isize),
            step: None,
        }])?;
        first.astype(device.default_int())?.reshape(&signed(size))
    }

    /// `size` indices of `0..n` drawn with the host probabilities `probs` (already checked as
    /// NumPy checks them; `size` not empty): with replacement by the float64 thresholds, without
    /// by races on the host's `1 / p`.
    pub(super) fn weighted_from_host(
        &self,
        probs: &[f64],
        size: &[usize],
        replace: bool,
    ) -> Result<Array> {
        let device = Device::current()?;
        let n = probs.len();
        if replace {
            let words: Vec<u32> = choice_thresholds(probs).into_iter().flatten().collect();
            let thresh = Array::from_slice(&words, &[words.len()])?;
            return self.draw_thresholds(&device, n, &whole_buffer(&thresh)?, size);
        }
        let weights: Vec<f32> = probs.iter().map(|&q| choice_race_weight(q)).collect();
        let weights = Array::from_slice(&weights, &[n])?;
        self.race(&device, n, &whole_buffer(&weights)?, false, size)
    }

    /// `size` indices of `0..n` drawn with the device probabilities `p` (1-D, n entries, read
    /// as float32; nothing is checked or read back; `size` not empty).
    pub(super) fn weighted_from_device(
        &self,
        p: &Array,
        size: &[usize],
        replace: bool,
    ) -> Result<Array> {
        let device = Device::current()?;
        let n = p.size();
        let pf = whole_buffer(&p.astype(DType::F32)?)?;
        if !replace {
            return self.race(&device, n, &pf, true, size);
        }
        if n > DEVICE_P_MAX {
            return Err(Error::unsupported(format!(
                "choice with a device p of more than 2^28 entries ({n} given)"
            )));
        }
        let chunk = choice_chunk(n);
        let chunks = n.div_ceil(chunk);
        // The cumulative sums take no draw number: only `draw` below does.
        let sums_launch = Launch {
            device: &device,
            key: [0, 0],
            draw: 0,
            n,
        };
        let totals = sums_launch.alloc(chunks)?;
        let sums = sums_launch.alloc(n)?;
        let thresh = sums_launch.alloc(2 * n)?;
        sums_launch.run(
            "chunk_totals",
            chunks,
            chunks,
            chunk,
            0,
            vec![(1, binding(&pf, n)), (2, binding(&totals, chunks))],
        )?;
        sums_launch.run(
            "cumulate",
            chunks,
            chunks,
            chunk,
            0,
            vec![
                (1, binding(&pf, n)),
                (2, binding(&totals, chunks)),
                (3, binding(&sums, n)),
            ],
        )?;
        sums_launch.run(
            "thresholds",
            n,
            0,
            0,
            0,
            vec![(3, binding(&sums, n)), (4, binding(&thresh, 2 * n))],
        )?;
        self.draw_thresholds(&device, n, &thresh, size)
    }
}
