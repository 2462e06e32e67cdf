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
//! sort the offsets and scan each run instead (`segments.rs`), in NumPy's order. Any other
//! elementwise op (`np.negative.at`, `np.power.at`) applies repeated indices in rounds of
//! distinct elements (`rounds.rs`, [`ufunc_at_with`]). A family
//! of its own: it builds on indexing's resolution and kernels and on sort's radix sort.

mod loops;
mod rounds;
mod segments;

#[cfg(not(target_arch = "wasm32"))]
pub use rounds::ufunc_at_with;
pub use rounds::ufunc_at_with_async;

use crate::array::Array;
use crate::fusion::Lazy;
use crate::indexing::index::{Adv, Index};
use crate::indexing::launch::{launch_into, layout_offset, whole, Dst};
use crate::indexing::readers;
use crate::indexing::resolve::{offsets, resolve, Resolved};
use crate::indexing::set::claim_window;
use crate::scalar::{Operand, Scalar};
use kupfer_core::dtype::Kind;
use kupfer_core::indexing::{AtOp, IndexKernel};
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::{DType, Error, Result};
use loops::Route;

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
    if let Operand::Array(v) = &values {
        v.device().same(&device)?;
    }
    let mut value_dtype = loops::value_dtype(&device, &values)?;
    // A Python int into uint64: NumPy's int64 loop with uint64 is float64, exact for the
    // values float64 holds; kupfer keeps it in uint64 (sums and products wrap alike; a
    // non-negative int for the extrema).
    if let (DType::U64, Operand::Scalar(s @ (Scalar::Int(_) | Scalar::BigInt(_)))) =
        (dtype, &values)
    {
        let extremum = matches!(op, AtOp::Maximum | AtOp::Minimum);
        if !op.is_bitwise() && (!extremum || s.as_i128().is_some_and(|i| i >= 0)) {
            value_dtype = DType::U64;
        }
    }
    if dtype == DType::Bool && value_dtype == DType::Bool && op == AtOp::Subtract {
        return Err(Error::invalid(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, \
             the `^` operator, or the logical_xor function instead.",
        ));
    }
    if op.is_bitwise()
        && [dtype, value_dtype]
            .iter()
            .any(|d| d.is_float() || d.is_complex())
    {
        return Err(kupfer_core::indexing::bitwise_refusal(op, dtype));
    }
    let route = loops::route(&device, op, dtype, value_dtype)?;
    let vshape = match &values {
        Operand::Scalar(_) => vec![],
        Operand::Array(v) => v.shape().to_vec(),
    };
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
                if let Adv::Device(x) = adv
                    && x.shares_storage(a)?
                {
                    *x = x.copy()?;
                }
            }
            (offsets(&p)?, p.shape.clone())
        }
    };
    let packed = a.packed_for_write()?;
    let buffer = match &packed {
        Some((p, _)) => p.buffer().clone(),
        None => a.buffer_and_layout()?.0,
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
    // The values as the kernels read them (a value reading the destination is computed
    // first: the kernel binds it atomically).
    let detach = |lazy: Lazy| -> Result<Lazy> {
        if crate::indexing::set::reads_dst(&lazy, &buffer) {
            let copy = Array::from_lazy(device.clone(), vshape.clone(), lazy);
            copy.eval()?;
            copy.lazy()
        } else {
            Ok(lazy)
        }
    };
    let pred = Lazy::scalar(1u32.to_le_bytes().to_vec(), DType::Bool);
    let dst = Dst {
        buffer: buffer.clone(),
        same: None,
    };
    let is_packed = packed.is_some();
    match route {
        Route::Direct => {
            let vlazy = detach(direct_values(&values, dtype)?)?;
            readers::before_write(&buffer, &[])?;
            if kupfer_core::at_segments::segmented(op, dtype) {
                return segments::accumulate(
                    &device, op, dtype, &buffer, &off, &vlazy, &vshape, &shape,
                );
            }
            let kind = if is_packed {
                IndexKernel::AccumulatePacked(op)
            } else {
                IndexKernel::Accumulate(op)
            };
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
        Route::Wide(l) => {
            let vlazy = match &values {
                Operand::Scalar(s) => Lazy::scalar(s.encode(l)?, l),
                Operand::Array(v) => v.lazy()?.cast(l),
            };
            let vlazy = detach(vlazy)?;
            readers::before_write(&buffer, &[])?;
            let kind = IndexKernel::AccumulateWide {
                op,
                packed: is_packed,
            };
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
        Route::Extrema => {
            let (replaces, c) = loops::extrema_steps(&device, op, dtype, &values)?;
            let replaces = detach(replaces)?;
            let c = detach(c)?;
            readers::before_write(&buffer, &[])?;
            let elements = if is_packed {
                (buffer.size() as usize / 4) * kupfer_core::packing::per_word(dtype)
            } else {
                (buffer.size() as usize).div_ceil(dtype.gpu_size())
            };
            // The last replacing step of each element writes its value; the extrema of the
            // steps after it follow.
            let win = claim_window(&device, dtype, &replaces, &off, &shape, elements)?;
            let scatter = if is_packed {
                IndexKernel::ScatterPacked { claimed: true }
            } else {
                IndexKernel::ScatterClaimed
            };
            let roots = [&replaces, &off, &c];
            launch_into(
                &device,
                scatter,
                dtype,
                &roots,
                &shape,
                &dst,
                vec![whole(&win)],
            )?;
            let rest = Lazy::unary(
                kupfer_core::UnaryOp::LogicalNot,
                replaces.clone(),
                DType::Bool,
            );
            let kind = IndexKernel::AccumulateAfterClaim {
                op,
                packed: is_packed,
            };
            launch_into(
                &device,
                kind,
                dtype,
                &[&rest, &off, &c],
                &shape,
                &dst,
                vec![whole(&win)],
            )
        }
    }
}

/// The values of a [`Route::Direct`] `ufunc.at` in the destination's dtype: an array cast, a
/// Python int into an integer destination wrapped as NumPy's int64 loop wraps it back.
fn direct_values(values: &Operand, dtype: DType) -> Result<Lazy> {
    Ok(match values {
        Operand::Scalar(s) => {
            let s = match (s, dtype.kind()) {
                (Scalar::Int(_) | Scalar::BigInt(_), Kind::Int) => {
                    loops::wrap_int(s.as_i128().unwrap_or_default(), dtype)
                }
                _ => *s,
            };
            Lazy::scalar(s.encode(dtype)?, dtype)
        }
        Operand::Array(v) => v.lazy()?.cast(dtype),
    })
}

/// `np.<op>.at(a, index, values)`: `a[index] = op(a[index], values)` with every repeated
/// index applied (unbuffered), in place. `op` is add, subtract, multiply, maximum,
/// minimum, bitwise_and, bitwise_or or bitwise_xor (bool and integers); `a` of any dtype (bool: no subtract; int8/uint8/int16/uint16 wrap around as
/// NumPy's do, updating their packed storage in place). Values broadcast to the selection.
/// As in NumPy 2.4, each step computes in the loop dtype of `a`'s and the values' dtypes (a
/// Python int is int64, or uint64 from 2**63; a float float64) and its result is cast back
/// into `a` unsafely (wrapping; floats to integers as x86-64 converts), so
/// `np.maximum.at(uint8, i, 300)` writes 44 and float values may go into integer arrays (see
/// `accumulate/loops.rs` for the three routes). Float32, float16, complex64 sums and 32-bit
/// and int64 sums accumulate atomically (float sums in an unspecified order); float64,
/// complex128 and the products and extrema of int64 and complex64 apply repeated indices in
/// NumPy's order through a sort. Extrema with values beyond `a`'s range apply in NumPy's
/// order; sums and products whose steps truncate (floats into integers, numbers into bool)
/// apply one element's repeated steps in an unspecified order. Destinations of 64 bits
/// whose loop is wider or of another kind (int64 with float values) are
/// `Error::Unsupported` ([`ufunc_at_with`] computes them, and any other elementwise op); a
/// Python int beyond 64 bits is NumPy's OverflowError message.
///
/// ```
/// use kupfer as kp;
/// let a = kp::zeros(&[4], Some(kp::DType::F32))?;
/// kp::ufunc_at(kp::AtOp::Add, &a, &kp::idx![vec![0i64, 0, 2]], 1.0)?;
/// assert_eq!(a.to_vec::<f32>()?, vec![2.0, 0.0, 1.0, 0.0]);
/// // Computed in int64, cast back: max(1, 300) = 300 is 44 in uint8.
/// let b = kp::Array::from_slice(&[1u8, 2, 3], &[3])?;
/// let v = kp::Array::from_slice(&[300i64, 5], &[2])?;
/// kp::ufunc_at(kp::AtOp::Maximum, &b, &kp::idx![vec![0i64, 1]], &v)?;
/// assert_eq!(b.to_vec::<u8>()?, vec![44, 5, 3]);
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
