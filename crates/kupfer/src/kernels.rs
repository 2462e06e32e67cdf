//! Compiled kernels of a device, cached by program structure, and [`MapSource`]: the fused
//! elementwise input that reductions and scans read through.

use crate::device::Device;
use kupfer_core::codegen::{ParamLayout, Target};
use kupfer_core::convolve::ConvProgram;
use kupfer_core::expr::{Access, InputSpec, Node, Program};
use kupfer_core::histogram::{HistParams, HistProgram};
use kupfer_core::layout::{collapse_axes, contiguous_strides};
use kupfer_core::reduce::ReduceProgram;
use kupfer_core::scan::ScanProgram;
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// A compiled pipeline and the layout of its uniform block.
pub(crate) type Compiled<P> = (Arc<Pipeline>, Arc<P>);

/// A compiled kernel whose uniform block is laid out by kupfer-core's `param_block`.
pub(crate) type CompiledKernel = Compiled<ParamLayout>;

type Cache<K, P> = Mutex<HashMap<K, Compiled<P>>>;

/// Compiled kernels of a device, one map per kernel family, keyed by program structure (never
/// by constant values, which travel in the uniform block).
#[derive(Default)]
pub(crate) struct KernelCache {
    pub(crate) elementwise: Cache<Program, ParamLayout>,
    pub(crate) reductions: Cache<ReduceProgram, ParamLayout>,
    pub(crate) scans: Cache<ScanProgram, ParamLayout>,
    pub(crate) histograms: Cache<HistProgram, HistParams>,
    pub(crate) indexing: Cache<kupfer_core::indexing::IndexProgram, ParamLayout>,
    pub(crate) matmul: Cache<kupfer_core::matmul::MatmulProgram, ()>,
    /// Tuned matmul kernels per shape class (see `matmul/tune.rs`).
    pub(crate) matmul_tiles:
        Mutex<HashMap<crate::matmul::TuneKey, kupfer_core::matmul::MatmulKernel>>,
    pub(crate) convolutions: Cache<ConvProgram, ()>,
    pub(crate) ffts: Cache<kupfer_core::fft::FftPass, ()>,
    pub(crate) fft_plans: crate::fft::plan::PlanCache,
    /// Joining kernels of `manip` (concatenate and friends).
    pub(crate) joins: Cache<kupfer_core::manip::JoinKernel, ()>,
    /// Per-axis gathers of `manip` (pad, roll, tile, repeat, ...).
    pub(crate) gathers: Cache<kupfer_core::manip::GatherKernel, ()>,
}

/// The kernel of `key` from `cache`; on a miss, `generate` writes its WGSL for the device's
/// target and the pipeline is compiled (and remembered) once.
pub(crate) fn compiled<K: Eq + Hash + Clone, P>(
    device: &Device,
    cache: &Cache<K, P>,
    key: &K,
    generate: impl FnOnce(&Target) -> Result<(String, P)>,
) -> Result<Compiled<P>> {
    if let Some(k) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(key) {
        return Ok(k.clone());
    }
    let ctx = device.context();
    let (wgsl, params) = generate(&ctx.target())?;
    // kupfer's own kernels run without wgpu's bounds checks and loop bounding; anything
    // holding a user's snippet keeps them.
    let checks = if wgsl.contains(kupfer_core::custom::USER_CODE_MARK) {
        ShaderChecks::Checked
    } else {
        ShaderChecks::Trusted
    };
    let entry = (ctx.pipeline_with(&wgsl, "main", checks)?, Arc::new(params));
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key.clone(), entry.clone());
    Ok(entry)
}

/// A flattened elementwise expression read along a permuted shape `pshape` (the axes a
/// reduction or scan runs along come last): the map of a reduction or scan kernel.
pub(crate) struct MapSource<'a> {
    /// Input buffers with their layouts (already permuted to `pshape`) and dtypes.
    pub(crate) inputs: Vec<(Arc<GpuBuffer>, Layout, DType)>,
    /// The expression's nodes.
    pub(crate) nodes: &'a [(Node, DType)],
    /// The node whose value is read.
    pub(crate) output: usize,
    /// Uniform scalars of the expression.
    pub(crate) scalars: &'a [(DType, Vec<u8>)],
    /// The permuted shape.
    pub(crate) pshape: Vec<usize>,
    /// True when input 0 holds a first pass's partial accumulators.
    pub(crate) partials: bool,
}

impl MapSource<'_> {
    /// The map as a [`Program`] over the collapsed axes of `pshape`, with the collapsed shape
    /// and strides (the contiguous output's strides first, then each input's).
    pub(crate) fn program(&self) -> (Program, Vec<usize>, Vec<Vec<isize>>) {
        let mut all = vec![contiguous_strides(&self.pshape)];
        all.extend(self.inputs.iter().map(|(_, l, _)| l.strides.clone()));
        let (cshape, cstrides) = collapse_axes(&self.pshape, &all);
        let access: Vec<Access> = cstrides[1..]
            .iter()
            .map(|s| {
                if *s == cstrides[0] {
                    Access::Contiguous
                } else if s.iter().all(|&x| x == 0) {
                    Access::Broadcast
                } else {
                    Access::Strided
                }
            })
            .collect();
        let rank = if access.contains(&Access::Strided) {
            cshape.len()
        } else {
            0
        };
        let program = Program {
            nodes: self.nodes.to_vec(),
            inputs: self
                .inputs
                .iter()
                .zip(&access)
                .map(|((_, _, d), &access)| InputSpec { dtype: *d, access })
                .collect(),
            scalars: self.scalars.iter().map(|(d, _)| *d).collect(),
            output: self.output,
            rank,
            vector: false,
        };
        (program, cshape, cstrides)
    }

    /// One whole-buffer binding per input and the inputs' element offsets. Kernels that read
    /// through a map bind each input whole, so a buffer above the adapter's largest binding is
    /// refused (`doing` names the operation in the error, e.g. "reducing").
    pub(crate) fn bindings(
        &self,
        device: &Device,
        doing: &str,
    ) -> Result<(Vec<Binding>, Vec<u32>)> {
        let max_binding = device.context().max_binding_size();
        let mut bindings = Vec::with_capacity(self.inputs.len() + 2);
        let mut offsets = Vec::with_capacity(self.inputs.len());
        for (buffer, l, _) in &self.inputs {
            if buffer.size() > max_binding {
                return Err(Error::unsupported(format!(
                    "{doing} an array of {} bytes, more than this adapter's largest binding \
                     ({max_binding} bytes)",
                    buffer.size()
                )));
            }
            bindings.push(Binding {
                buffer: buffer.clone(),
                offset: 0,
                size: buffer.size(),
            });
            offsets.push(l.offset as u32);
        }
        Ok((bindings, offsets))
    }
}
