//! Elementwise functions (NumPy ufuncs) with broadcasting and NEP 50 promotion. Every one of
//! them is lazy: it returns an expression that fuses with its neighbours.

use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use crate::scalar::{Operand, Scalar};
use kupfer_core::codegen;
use kupfer_core::expr::OperandType;
use kupfer_core::layout::{broadcast_shapes, size_of};
use kupfer_core::{BinaryOp, DType, Error, Result, UnaryOp};

/// Resolves the device of a set of operands (the arrays' common device, else current).
fn device_of(ops: &[&Operand]) -> Result<Device> {
    let mut dev: Option<Device> = None;
    for op in ops {
        if let Operand::Array(a) = op {
            match &dev {
                None => dev = Some(a.device().clone()),
                Some(d) => d.same(a.device())?,
            }
        }
    }
    match dev {
        Some(d) => Ok(d),
        None => Device::current(),
    }
}

/// A scalar on its own becomes a 0-d array of NumPy's default dtype for it.
fn strongest(op: Operand, device: &Device) -> Result<Operand> {
    match op {
        Operand::Scalar(s) => Ok(Operand::Array(crate::creation::full_on(
            device,
            &[],
            s,
            Some(s.default_dtype(device)),
        )?)),
        a => Ok(a),
    }
}

fn operand_type(op: &Operand) -> OperandType {
    match op {
        Operand::Array(a) => OperandType::Strong(a.dtype()),
        Operand::Scalar(s) => OperandType::Weak(s.kind()),
    }
}

fn shape_of(op: &Operand) -> &[usize] {
    match op {
        Operand::Array(a) => a.shape(),
        Operand::Scalar(_) => &[],
    }
}

/// The operand as an expression of dtype `to`.
fn operand_expr(
    op: &Operand,
    to: DType,
    nodes: usize,
    leaves: usize,
    shape: &[usize],
) -> Result<Lazy> {
    match op {
        Operand::Array(a) => Ok(a.operand_within(nodes, leaves, shape)?.cast(to)),
        Operand::Scalar(s) => Ok(Lazy::scalar(s.encode(to)?, to)),
    }
}

fn shape_error(op: &str, e: Error) -> Error {
    match e {
        Error::ShapeMismatch { lhs, rhs, .. } => Error::ShapeMismatch {
            op: op.to_string(),
            lhs,
            rhs,
        },
        e => e,
    }
}

/// Applies a binary primitive with NumPy semantics.
pub fn binary(op: BinaryOp, a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Array> {
    let (mut a, mut b) = (a.into(), b.into());
    let device = device_of(&[&a, &b])?;
    // Two Python scalars: NumPy gives both their default dtypes (True * 3 is int64).
    if matches!((&a, &b), (Operand::Scalar(_), Operand::Scalar(_))) {
        a = strongest(a, &device)?;
        b = strongest(b, &device)?;
    }
    let (compute, out) = op.signature(operand_type(&a), operand_type(&b))?;
    device.check(compute)?;
    device.check(out)?;
    let shape =
        broadcast_shapes(shape_of(&a), shape_of(&b)).map_err(|e| shape_error(op.name(), e))?;
    if let Some(value) = out_of_range_comparison(op, &a, &b, compute) {
        return crate::creation::full_on(&device, &shape, value, Some(DType::Bool));
    }
    let half_nodes =
        (Array::max_nodes().saturating_sub(codegen::binary_weight(op, compute)) / 2).max(1);
    let half_leaves = (Array::max_leaves(&device) / 2).max(1);
    // Comparisons that would round in the common dtype take their operands as they are.
    let (ca, cb) = match (&a, &b) {
        (Operand::Array(x), Operand::Array(y)) if op.compares_mixed(x.dtype(), y.dtype()) => {
            (x.dtype(), y.dtype())
        }
        _ => (compute, compute),
    };
    if op == BinaryOp::Power && out.is_int() && size_of(&shape) > 0 {
        check_integer_exponent(&device, &b)?;
    }
    let x = operand_expr(&a, ca, half_nodes, half_leaves, &shape)?;
    let y = operand_expr(&b, cb, half_nodes, half_leaves, &shape)?;
    Ok(Array::from_lazy(device, shape, Lazy::binary(op, x, y, out)))
}

/// NumPy's error for an integer power with a negative exponent.
const NEGATIVE_POWER: &str = "Integers to negative integer powers are not allowed.";

/// Integer `power` refuses negative exponents as NumPy does: a Python int at once; an array
/// of a signed integer dtype through a deferred check (`checks.rs`), reported at the
/// device's next sync, since its values are on the device.
fn check_integer_exponent(device: &Device, exponent: &Operand) -> Result<()> {
    match exponent {
        Operand::Scalar(Scalar::Int(e)) if *e < 0 => Err(Error::invalid(NEGATIVE_POWER)),
        Operand::Array(e) if e.dtype().is_signed_int() && e.size() > 0 => {
            let flag = any_negative_flag(device, e)?;
            device.checks.push(flag, 0, NEGATIVE_POWER);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A device word that becomes non-zero when any element of the signed integer array `e` is
/// negative (`shaders/sign_flag.wgsl`), computed by kernels queued with the other work: one
/// per stretch of the array that one binding can hold.
fn any_negative_flag(device: &Device, e: &Array) -> Result<std::sync::Arc<kupfer_wgpu::GpuBuffer>> {
    let e = e.ascontiguousarray()?;
    let (src, layout) = e.read_buffer_and_layout()?;
    let ctx = device.context();
    let flag = ctx.upload(&[0u8; 16])?;
    let pipeline = ctx.pipeline(kupfer_core::flags::SIGN_FLAG_WGSL)?;
    let element = e.dtype().gpu_size() as u64;
    let align = ctx.binding_alignment();
    let per_binding = (ctx.max_binding_size() - align) / element;
    let max_dim = u64::from(ctx.max_workgroups_per_dim());
    let mut done = 0u64;
    let total = e.size() as u64;
    while done < total {
        let count = (total - done).min(per_binding).min(max_dim * max_dim * 256);
        let start = (layout.offset as u64 + done) * element;
        let base = start - start % align;
        let bytes = start - base + count * element;
        let groups = count.div_ceil(256);
        let gx = groups.min(max_dim);
        let gy = groups.div_ceil(gx);
        let params: Vec<u8> = [count, element / 4, gx, (start - base) / 4]
            .iter()
            .flat_map(|&w| (w as u32).to_le_bytes())
            .collect();
        ctx.dispatch(
            &pipeline,
            &params,
            vec![
                kupfer_wgpu::Binding {
                    buffer: src.clone(),
                    offset: base,
                    size: bytes,
                },
                kupfer_wgpu::Binding {
                    buffer: flag.clone(),
                    offset: 0,
                    size: 16,
                },
            ],
            [gx as u32, gy as u32, 1],
        )?;
        done += count;
    }
    Ok(flag)
}

/// The range of an integer dtype, as Python ints compare with it.
fn int_range(d: DType) -> Option<(i128, i128)> {
    d.int_range()
}

/// A Python int outside the range of the integer dtype it meets, as `(value, above the range)`.
fn outside(op: &Operand, compute: DType) -> Option<bool> {
    let (lo, hi) = int_range(compute)?;
    let v = match op {
        Operand::Scalar(s @ (Scalar::Int(_) | Scalar::BigInt(_))) => s.as_i128()?,
        _ => return None,
    };
    (v < lo || v > hi).then_some(v > hi)
}

/// NumPy 2 compares integer arrays with Python ints outside their dtype's range (the answer is
/// the same for every element: `uint32 < -1` is all False) instead of raising as arithmetic does.
fn out_of_range_comparison(
    op: BinaryOp,
    a: &Operand,
    b: &Operand,
    compute: DType,
) -> Option<Scalar> {
    use BinaryOp::*;
    if !matches!(
        op,
        Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual
    ) {
        return None;
    }
    // A bool array meets the int as int64: NumPy raises for an int beyond int64 (so does the
    // conversion this leaves it to) and compares any other exactly (`bool < 2**40` is True).
    if [a, b]
        .iter()
        .any(|o| matches!(o, Operand::Array(x) if x.dtype() == DType::Bool))
        && (outside(a, DType::I64).is_some() || outside(b, DType::I64).is_some())
    {
        return None;
    }
    // `x op v` with v above (or below) every x; `v op x` is the mirrored comparison.
    let (above, mirrored) = match (outside(a, compute), outside(b, compute)) {
        (None, Some(above)) => (above, false),
        (Some(above), None) => (above, true),
        _ => return None,
    };
    let x_less_than_v = above;
    let result = match (op, mirrored) {
        (Equal, _) => false,
        (NotEqual, _) => true,
        (Less | LessEqual, false) | (Greater | GreaterEqual, true) => x_less_than_v,
        (Greater | GreaterEqual, false) | (Less | LessEqual, true) => !x_less_than_v,
        _ => return None,
    };
    Some(Scalar::Bool(result))
}

/// Applies a unary primitive with NumPy semantics.
pub fn unary(op: UnaryOp, x: impl Into<Operand>) -> Result<Array> {
    let x = x.into();
    let device = device_of(&[&x])?;
    let x = strongest(x, &device)?;
    let Operand::Array(arr) = &x else {
        unreachable!("strongest() returns an array")
    };
    let (compute, out) = op.signature(arr.dtype())?;
    device.check(compute)?;
    device.check(out)?;
    let room = Array::max_nodes().saturating_sub(1 + codegen::unary_weight(op, compute));
    let e = operand_expr(&x, compute, room, usize::MAX, arr.shape())?;
    Ok(Array::from_lazy(
        device,
        arr.shape().to_vec(),
        Lazy::unary(op, e, out),
    ))
}

/// The public functions of one table row: the first name of its `fns` column, documented by
/// the row's doc, then its aliases.
macro_rules! ufunc_fns {
    ($kind:ident $op:ident [$($doc:tt)*]) => {};
    (unary $op:ident [$($doc:tt)*] $first:ident $(, $alias:ident)*) => {
        $($doc)*
        pub fn $first(x: impl Into<Operand>) -> Result<Array> {
            unary(UnaryOp::$op, x)
        }
        $(
            #[doc = concat!("Alias of [`", stringify!($first), "`].")]
            pub fn $alias(x: impl Into<Operand>) -> Result<Array> {
                unary(UnaryOp::$op, x)
            }
        )*
    };
    (binary $op:ident [$($doc:tt)*] $first:ident $(, $alias:ident)*) => {
        $($doc)*
        pub fn $first(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Array> {
            binary(BinaryOp::$op, a, b)
        }
        $(
            #[doc = concat!("Alias of [`", stringify!($first), "`].")]
            pub fn $alias(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Array> {
                binary(BinaryOp::$op, a, b)
            }
        )*
    };
}

/// The functions of kupfer-core's op table (`kupfer_core::ops`), for `unary` or `binary` rows.
macro_rules! table_fns {
    ($arity:ident;
     $($(#[doc = $doc:literal])* $variant:ident $name:literal fns [$($fns:ident),*]
        eval [$($eval:literal),*] kinds [$($kind:ident),*] rule $rule:ident
        body $body:ident $(($arg:literal))? complex $complex:literal goldens $goldens:literal;)*
    ) => {
        $(ufunc_fns!($arity $variant [$(#[doc = $doc])*] $($fns),*);)*
    };
}

macro_rules! unary_table_fns {
    ($($rows:tt)*) => {
        table_fns!(unary; $($rows)*);
    };
}

macro_rules! binary_table_fns {
    ($($rows:tt)*) => {
        table_fns!(binary; $($rows)*);
    };
}

kupfer_core::unary_op_table!(unary_table_fns);
kupfer_core::binary_op_table!(binary_table_fns);

/// `(mantissa, exponent)` with `x = mantissa * 2**exponent` and `0.5 <= |mantissa| < 1`
/// (zeros, infinities and NaN keep themselves with exponent 0); the exponent is int32.
///
/// ```
/// # use kupfer as kp;
/// let (m, e) = kp::frexp(&kp::Array::from_slice(&[8.0f32, -0.375], &[2])?)?;
/// assert_eq!(m.to_vec::<f32>()?, vec![0.5, -0.75]);
/// assert_eq!(e.to_vec::<i32>()?, vec![4, -1]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn frexp(x: impl Into<Operand>) -> Result<(Array, Array)> {
    let x = x.into();
    Ok((
        unary(UnaryOp::FrexpMantissa, x.clone())?,
        unary(UnaryOp::FrexpExponent, x)?,
    ))
}

/// `+x`: a copy with the same dtype (NumPy's `positive`).
pub fn positive(x: impl Into<Operand>) -> Result<Array> {
    let x = x.into();
    let device = device_of(&[&x])?;
    match strongest(x, &device)? {
        Operand::Array(a) => {
            if a.dtype() == DType::Bool {
                return Err(Error::unsupported(
                    "ufunc 'positive' did not contain a loop with signature matching types bool",
                ));
            }
            Ok(a)
        }
        Operand::Scalar(_) => unreachable!("strongest() returns an array"),
    }
}

/// Rounds to `decimals` decimal places, halves to even (NumPy's `round` / `around`).
///
/// Integers keep their dtype (NumPy 2): a copy for `decimals >= 0`, else rounded to a multiple
/// of 10^-decimals. Bools round only with `decimals == 0` (to float16, as `rint`).
pub fn round(x: impl Into<Operand>, decimals: i32) -> Result<Array> {
    let x = x.into();
    let device = device_of(&[&x])?;
    let Operand::Array(a) = strongest(x, &device)? else {
        unreachable!("strongest() returns an array")
    };
    let dtype = a.dtype();
    if dtype == DType::Bool && decimals != 0 {
        return Err(Error::unsupported(
            "round of a bool array with decimals != 0 (NumPy cannot cast the result to bool)",
        ));
    }
    if dtype.is_int() {
        if decimals >= 0 {
            return Ok(a);
        }
        return round_int(&a, decimals.unsigned_abs());
    }
    if decimals == 0 {
        return rint(&a);
    }
    let f = 10f64.powi(decimals);
    if decimals > 0 {
        divide(rint(multiply(&a, f)?)?, f)
    } else {
        multiply(rint(divide(&a, 1.0 / f)?)?, 1.0 / f)
    }
}

/// An integer array rounded to a multiple of 10^k, halves to even. NumPy goes through float64;
/// int64 does too (for the same results beyond 2^53), 32-bit integers round exactly in their
/// own dtype (float64 is exact for them, so the results agree).
fn round_int(a: &Array, k: u32) -> Result<Array> {
    let dtype = a.dtype();
    let f = 10i64
        .checked_pow(k)
        .ok_or_else(|| Error::invalid("decimals out of range"))?;
    if matches!(dtype, DType::I64 | DType::U64) {
        let q = multiply(rint(divide(a, f as f64)?)?, f as f64)?;
        return q.astype(dtype);
    }
    let max = if dtype == DType::U32 {
        i64::from(u32::MAX)
    } else {
        i64::from(i32::MAX)
    };
    if f > max {
        // |x| < f / 2: everything rounds to 0.
        return multiply(a, 0);
    }
    let q = floor_divide(a, f)?;
    let twice_r = multiply(remainder(a, f)?, 2)?;
    let odd = equal(remainder(&q, 2)?, 1)?;
    let up = logical_or(
        greater(&twice_r, f)?,
        logical_and(equal(&twice_r, f)?, odd)?,
    )?;
    multiply(add(q, up)?, f)
}

/// Limits values to `[lo, hi]` (NumPy's `clip`; NaN propagates).
pub fn clip(
    x: impl Into<Operand>,
    lo: impl Into<Operand>,
    hi: impl Into<Operand>,
) -> Result<Array> {
    let (x, lo, hi) = (x.into(), lo.into(), hi.into());
    // NumPy 2 lets a Python int bound lie beyond the array's integer range on the side where
    // it clips nothing (clip(uint32, -3, 5)); such a bound is simply dropped.
    let int_dtype = match &x {
        Operand::Array(a) => int_range(a.dtype()).map(|_| a.dtype()),
        Operand::Scalar(_) => None,
    };
    let drop_lo = int_dtype.is_some_and(|d| outside(&lo, d) == Some(false));
    let drop_hi = int_dtype.is_some_and(|d| outside(&hi, d) == Some(true));
    match (drop_lo, drop_hi) {
        (true, true) => positive(x),
        (true, false) => minimum(x, hi),
        (false, true) => maximum(x, lo),
        (false, false) => minimum(maximum(x, lo)?, hi),
    }
}

/// `where(cond, a, b)`: elements of `a` where `cond` is true, else of `b`, broadcast together.
pub fn where_(
    cond: impl Into<Operand>,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
) -> Result<Array> {
    let (c, mut a, mut b) = (cond.into(), a.into(), b.into());
    let device = device_of(&[&c, &a, &b])?;
    if matches!((&a, &b), (Operand::Scalar(_), Operand::Scalar(_))) {
        a = strongest(a, &device)?;
        b = strongest(b, &device)?;
    }
    let dtype = kupfer_core::expr::common_type(operand_type(&a), operand_type(&b))?;
    device.check(dtype)?;
    let shape = broadcast_shapes(shape_of(&c), shape_of(&a))
        .and_then(|s| broadcast_shapes(&s, shape_of(&b)))
        .map_err(|e| shape_error("where", e))?;
    let third_nodes = Array::max_nodes() / 3;
    let third_leaves = (Array::max_leaves(&device) / 3).max(1);
    let ce = operand_expr(&c, DType::Bool, third_nodes, third_leaves, &shape)?;
    let ae = operand_expr(&a, dtype, third_nodes, third_leaves, &shape)?;
    let be = operand_expr(&b, dtype, third_nodes, third_leaves, &shape)?;
    Ok(Array::from_lazy(
        device,
        shape,
        Lazy::select(ce, ae, be, dtype),
    ))
}

impl Scalar {
    /// This scalar as a 0-d array on `device` with NumPy's default dtype for it.
    pub fn to_array(&self, device: &Device) -> Result<Array> {
        crate::creation::full_on(device, &[], *self, Some(self.default_dtype(device)))
    }
}
