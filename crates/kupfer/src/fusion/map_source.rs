use crate::device::Device;
use kupfer_core::expr::{Access, InputSpec, Node, Program};
use kupfer_core::layout::{collapse_axes, contiguous_strides};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::sync::Arc;

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
                .map(|((_, _, d), &access)| InputSpec {
                    dtype: *d,
                    access,
                    packed: false,
                })
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
