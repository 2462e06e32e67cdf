//! Custom kernels in WGSL, as CuPy has them in CUDA C: [`ElementwiseKernel`] (a snippet per
//! element that fuses with the ops around it), [`ReductionKernel`] (map / reduce / post-map
//! snippets on the machinery of `sum`), [`RawKernel`] and [`RawModule`] (whole WGSL modules
//! launched with an explicit grid), and — in `fuse.rs` — [`crate::fuse()`].
//!
//! Snippets are WGSL: `y = 1.0 / (1.0 + exp(-x))`, not `1.0f / (1.0f + expf(-x))`. A WGSL
//! error in a snippet is an [`Error::Compile`] with naga's message and
//! the line and column in the snippet as written.
//!
//! Loops in user code: software Vulkan (Mesa's lavapipe) ends an invocation's loops after
//! 65535 iterations counted over all of them, silently. kupfer's own kernels stay far below
//! that (DESIGN.md, "Runtime checks"); a RawKernel that loops longer per thread gives partial
//! results there, so spread long loops over more threads.

mod assign;
mod elementwise;
mod raw;
mod reduction;

pub use elementwise::ElementwiseKernel;
pub use raw::{RawKernel, RawModule};
pub use reduction::ReductionKernel;

use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use crate::scalar::Operand;
use kupfer_core::custom::{Bindings, Features, Param, ParamType};
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::wgpu;

/// The optional WGSL features of `device`, for validating user code.
pub(crate) fn features(device: &Device) -> Features {
    let f = device.info().features;
    Features {
        f16: f.contains(wgpu::Features::SHADER_F16),
        f64: f.contains(wgpu::Features::SHADER_F64),
        i64: f.contains(wgpu::Features::SHADER_INT64),
        subgroups: f.contains(wgpu::Features::SUBGROUP),
    }
}

/// The common device of the array arguments (the current device when there are none).
pub(crate) fn device_of<'a>(arrays: impl Iterator<Item = &'a Array>) -> Result<Device> {
    let mut dev: Option<Device> = None;
    for a in arrays {
        match &dev {
            None => dev = Some(a.device().clone()),
            Some(d) => d.same(a.device())?,
        }
    }
    match dev {
        Some(d) => Ok(d),
        None => Device::current(),
    }
}

/// Binds placeholder `p` to `d`, or checks that it is already `d`.
fn bind(bindings: &mut Bindings, kernel: &str, param: &Param, p: &str, d: DType) -> Result<()> {
    match bindings.get(p) {
        Some(&b) if b != d => Err(Error::invalid(format!(
            "kernel '{kernel}': type placeholder {p} is {b} from an earlier argument but \
             argument '{}' is {d}",
            param.name
        ))),
        _ => {
            bindings.insert(p.to_string(), d);
            Ok(())
        }
    }
}

/// The argument checks of an elementwise-style call, all before any dispatch: placeholders
/// bound by the arrays (then by passed-in outputs, then defaulted from scalars), concrete
/// dtypes matched exactly, and the broadcast shape. Returns the device, the bindings, each
/// input's dtype and the shape of the iteration.
pub(crate) struct Resolved {
    pub device: Device,
    pub bindings: Bindings,
    pub in_dtypes: Vec<DType>,
    pub out_dtypes: Vec<DType>,
    pub shape: Vec<usize>,
}

pub(crate) fn resolve_call(
    kernel: &str,
    inputs: &[Param],
    outputs: &[Param],
    args: &[Operand],
    outs: &[Array],
) -> Result<Resolved> {
    let arrays = args
        .iter()
        .filter_map(|a| match a {
            Operand::Array(x) => Some(x),
            Operand::Scalar(_) => None,
        })
        .chain(outs.iter());
    let device = device_of(arrays)?;
    let mut bindings = Bindings::new();
    let bind_array = |bindings: &mut Bindings, p: &Param, a: &Array, what: &str| match &p.ty {
        ParamType::Concrete(d) if *d != a.dtype() => Err(Error::invalid(format!(
            "kernel '{kernel}': {what} '{}' is declared {d} but the array passed is {}",
            p.name,
            a.dtype()
        ))),
        ParamType::Concrete(_) => Ok(()),
        ParamType::Placeholder(t) => bind(bindings, kernel, p, t, a.dtype()),
    };
    for (p, a) in inputs.iter().zip(args) {
        if let Operand::Array(a) = a {
            bind_array(&mut bindings, p, a, "input")?;
        }
    }
    for (p, a) in outputs.iter().zip(outs) {
        bind_array(&mut bindings, p, a, "output")?;
    }
    for (p, a) in inputs.iter().zip(args) {
        if let (Operand::Scalar(s), ParamType::Placeholder(t)) = (a, &p.ty)
            && !bindings.contains_key(t)
        {
            bindings.insert(t.clone(), s.default_dtype(&device));
        }
    }
    let dtype_of = |p: &Param| -> Result<DType> {
        kupfer_core::custom::resolve(&p.ty, &bindings).ok_or_else(|| {
            Error::invalid(format!(
                "kernel '{kernel}': the type placeholder of '{}' is not bound by any argument \
                 (pass an array of that type or the output array)",
                p.name
            ))
        })
    };
    let in_dtypes = inputs.iter().map(dtype_of).collect::<Result<Vec<_>>>()?;
    let out_dtypes = outputs.iter().map(dtype_of).collect::<Result<Vec<_>>>()?;
    for &d in in_dtypes.iter().chain(&out_dtypes) {
        device.check(d)?;
    }
    let mut shape: Vec<usize> = Vec::new();
    for (p, a) in inputs.iter().zip(args) {
        if let Operand::Array(a) = a {
            shape = broadcast_shapes(&shape, a.shape()).map_err(|_| Error::ShapeMismatch {
                op: format!("kernel '{kernel}' (argument '{}')", p.name),
                lhs: shape.clone(),
                rhs: a.shape().to_vec(),
            })?;
        }
    }
    if let Some(first) = outs.first() {
        let target = first.shape().to_vec();
        for (p, o) in outputs.iter().zip(outs) {
            if o.shape() != target.as_slice() {
                return Err(Error::ShapeMismatch {
                    op: format!("kernel '{kernel}' (output '{}')", p.name),
                    lhs: target,
                    rhs: o.shape().to_vec(),
                });
            }
        }
        match broadcast_shapes(&shape, &target) {
            Ok(s) if s == target => shape = target,
            _ => {
                return Err(Error::ShapeMismatch {
                    op: format!("kernel '{kernel}': inputs cannot be broadcast to the output"),
                    lhs: shape,
                    rhs: target,
                })
            }
        }
    }
    Ok(Resolved {
        device,
        bindings,
        in_dtypes,
        out_dtypes,
        shape,
    })
}

/// The arguments as expression operands of their parameters' dtypes (arrays as they are,
/// scalars encoded into the uniform block), keeping the fused tree within the fusion bounds.
/// Lazy random draws stay lazy only in a kernel whose output has their shape (`shape`; `None`
/// for reductions, which walk their input in their own order).
pub(crate) fn arg_exprs(
    kernel: &str,
    args: &[Operand],
    extra: &[Array],
    dtypes: &[DType],
    device: &Device,
    shape: Option<&[usize]>,
) -> Result<Vec<Lazy>> {
    // No array has this shape: every lazy draw is materialised.
    let never = [usize::MAX];
    let shape = shape.unwrap_or(&never);
    let n_arrays = args
        .iter()
        .filter(|a| matches!(a, Operand::Array(_)))
        .count()
        + extra.len();
    let max_leaves = Array::max_leaves(device);
    if n_arrays > max_leaves {
        return Err(Error::unsupported(format!(
            "kernel '{kernel}' takes {n_arrays} arrays; this adapter binds at most {max_leaves} \
             per kernel"
        )));
    }
    let per_nodes = (Array::max_nodes() / (n_arrays + 1)).max(1);
    let per_leaves = (max_leaves / n_arrays.max(1)).max(1);
    let mut out = Vec::with_capacity(args.len() + extra.len());
    for (a, &d) in args.iter().zip(dtypes) {
        out.push(match a {
            Operand::Array(x) => x.operand_within(per_nodes, per_leaves, shape)?,
            Operand::Scalar(s) => Lazy::scalar(s.encode(d)?, d),
        });
    }
    for x in extra {
        out.push(x.operand_within(per_nodes, per_leaves, shape)?);
    }
    Ok(out)
}

/// Builds a slice of kernel arguments ([`Operand`]s) from arrays and scalars:
/// `kernel.call(kupfer::args![&x, 2.0, &y])`.
#[macro_export]
macro_rules! args {
    ($($a:expr),* $(,)?) => {
        &[$($crate::Operand::from($a)),*][..]
    };
}
