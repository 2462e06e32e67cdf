//! `ufunc.at`: unbuffered accumulation through an index (`np.add.at(a, idx, v)`), where
//! repeated indices all count. One kernel with 32-bit atomics (WGSL has no others):
//! `atomicAdd`/`Sub`/`Max`/`Min` for int32 and uint32, `atomicOr`/`And` for bool, and a
//! compare-exchange loop on the bit pattern for float32 (and for integer products) and for
//! float16 (on the 32-bit word holding the element), bounded at
//! [`AT_RETRIES`](kupfer_core::indexing::AT_RETRIES) retries per element (an element updated
//! by more threads at once than that would lose updates; real contention is far lower).
//! complex64 adds and subtracts one float32 loop per part; int64 adds and subtracts with two
//! 32-bit atomic adds (the low word's returns the carry). Float sums therefore add in an
//! unspecified order (as CuPy's do). The other combinations (float64, complex128, products
//! and extrema of int64 and complex64) would need 64-bit atomics, which WGSL lacks: they
//! sort the offsets and scan each run instead (`segments.rs`), in NumPy's order. A family
//! of its own: it builds on indexing's resolution and kernels and on sort's radix sort.

mod segments;

use crate::array::Array;
use crate::indexing::index::{Adv, Index};
use crate::indexing::launch::{launch_into, layout_offset, Dst};
use crate::indexing::readers;
use crate::indexing::resolve::{offsets, resolve, Resolved};
use crate::scalar::Operand;
use kupfer_core::casting::{can_cast, Casting};
use kupfer_core::expr::{common_type, OperandType};
use kupfer_core::indexing::{AtOp, IndexKernel};
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::{Error, Result};

/// `np.<op>.at(a, index, values)`, async. See [`ufunc_at`].
pub async fn ufunc_at_async(
    op: AtOp,
    a: &Array,
    index: &[Index],
    values: impl Into<Operand>,
) -> Result<()> {
    let values = values.into();
    let device = a.device().clone();
    let dtype = a.dtype();
    let (value_type, vlazy, vshape) = match &values {
        Operand::Scalar(s) => (
            OperandType::Weak(s.kind()),
            crate::fusion::Lazy::scalar(s.encode(dtype)?, dtype),
            vec![],
        ),
        Operand::Array(v) => {
            v.device().same(&device)?;
            (
                OperandType::Strong(v.dtype()),
                v.lazy()?.cast(dtype),
                v.shape().to_vec(),
            )
        }
    };
    if dtype == kupfer_core::DType::Bool && op == AtOp::Subtract {
        return Err(Error::invalid(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, \
             the `^` operator, or the logical_xor function instead.",
        ));
    }
    let result = common_type(OperandType::Strong(dtype), value_type)?;
    if !can_cast(result, dtype, Casting::SameKind) {
        return Err(Error::invalid(format!(
            "Cannot cast ufunc '{}' output from dtype('{result}') to dtype('{dtype}') with \
             casting rule 'same_kind'",
            op.name()
        )));
    }
    // Packed int8/uint8/int16/uint16 storage is written in place (compare-exchange on the
    // word); an index array sharing it is copied first. Resolving the index may have turned
    // the storage into words (an index array viewing it), so the buffer is taken after.
    let layout = a.layout()?;
    let (off, shape) = match resolve(a, &layout, index, false).await? {
        Resolved::Basic(args) => {
            let view = layout.slice(&args)?;
            (layout_offset(&view), view.shape)
        }
        Resolved::Plan(mut p) => {
            for adv in p.adv.iter_mut() {
                if let Adv::Device(x) = adv {
                    if x.shares_storage(a)? {
                        *x = x.copy()?;
                    }
                }
            }
            (offsets(&p)?, p.shape.clone())
        }
    };
    let (buffer, kind) = match a.packed_for_write()? {
        Some((p, _)) => (p.buffer().clone(), IndexKernel::AccumulatePacked(op)),
        None => (a.buffer_and_layout()?.0, IndexKernel::Accumulate(op)),
    };
    match broadcast_shapes(&vshape, &shape) {
        Ok(s) if s == shape => {}
        _ => {
            return Err(Error::invalid(format!(
            "operands could not be broadcast together with remapped shapes [original->remapped]: \
                 {vshape:?} and requested shape {shape:?}"
        )))
        }
    }
    // A value reading the destination is computed first (the kernel binds it atomically).
    let vlazy = if crate::indexing::set::reads_dst(&vlazy, &buffer) {
        let copy = Array::from_lazy(device.clone(), vshape.clone(), vlazy);
        copy.eval()?;
        copy.lazy()?
    } else {
        vlazy
    };
    readers::before_write(&buffer, &[])?;
    if kupfer_core::at_segments::segmented(op, dtype) {
        return segments::accumulate(&device, op, dtype, &buffer, &off, &vlazy, &vshape, &shape);
    }
    let pred = crate::fusion::Lazy::scalar(1u32.to_le_bytes().to_vec(), kupfer_core::DType::Bool);
    let dst = Dst { buffer, same: None };
    launch_into(
        &device,
        kind,
        dtype,
        &[&pred, &off, &vlazy],
        &shape,
        &dst,
        vec![],
    )
}

/// `np.<op>.at(a, index, values)`: `a[index] = op(a[index], values)` with every repeated
/// index applied (unbuffered), in place. `op` is add, subtract, multiply, maximum or
/// minimum; `a` of any dtype (bool: no subtract; int8/uint8/int16/uint16 wrap around as
/// NumPy's do, updating their packed storage in place). Values broadcast to the selection
/// and must cast to `a`'s dtype under `same_kind`. Float32, float16,
/// complex64 sums and 32-bit and int64 sums accumulate atomically (float sums in an
/// unspecified order); float64, complex128 and the products and extrema of int64 and
/// complex64 apply repeated indices in NumPy's order through a sort.
///
/// ```
/// use kupfer as kp;
/// let a = kp::zeros(&[4], Some(kp::DType::F32))?;
/// kp::ufunc_at(kp::AtOp::Add, &a, &kp::idx![vec![0i64, 0, 2]], 1.0)?;
/// assert_eq!(a.to_vec::<f32>()?, vec![2.0, 0.0, 1.0, 0.0]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn ufunc_at(op: AtOp, a: &Array, index: &[Index], values: impl Into<Operand>) -> Result<()> {
    pollster::block_on(ufunc_at_async(op, a, index, values))
}

/// `np.add.at(a, index, values)`; see [`ufunc_at`].
#[cfg(not(target_arch = "wasm32"))]
pub fn add_at(a: &Array, index: &[Index], values: impl Into<Operand>) -> Result<()> {
    ufunc_at(AtOp::Add, a, index, values)
}
