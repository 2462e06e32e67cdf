//! Array creation with CuPy's names: zeros, ones, full, empty, *_like, arange, linspace, eye,
//! identity, meshgrid, asarray.

use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use crate::host::Element;
use crate::scalar::Scalar;
use kupfer_core::layout::{checked_size, TOO_BIG};
use kupfer_core::{BinaryOp, DType, Error, Layout, Result, UnaryOp};

/// Uploads a slice as a 1-D array on the current device (`cp.asarray`).
pub fn asarray<T: Element>(data: &[T]) -> Result<Array> {
    Array::from_slice(data, &[data.len()])
}

/// An array of `shape` filled with `value` on `device`. The default dtype is NumPy's for the
/// value (bool, int64, float64, complex64; 32-bit where the adapter lacks 64-bit types).
/// Lazy: it costs nothing until used, and fuses into expressions.
pub fn full_on(
    device: &Device,
    shape: &[usize],
    value: impl Into<Scalar>,
    dtype: Option<DType>,
) -> Result<Array> {
    let value = value.into();
    let dtype = dtype.unwrap_or_else(|| value.default_dtype(device));
    device.check(dtype)?;
    checked_size(shape, dtype.host_size())?;
    Ok(Array::from_lazy(
        device.clone(),
        shape.to_vec(),
        Lazy::scalar(value.encode(dtype)?, dtype),
    ))
}

/// An array of `shape` filled with `value` on the current device (`cp.full`).
pub fn full(shape: &[usize], value: impl Into<Scalar>, dtype: Option<DType>) -> Result<Array> {
    full_on(&Device::current()?, shape, value, dtype)
}

/// Zeros (`cp.zeros`; dtype defaults to float64, or float32 without SHADER_F64).
pub fn zeros(shape: &[usize], dtype: Option<DType>) -> Result<Array> {
    let d = Device::current()?;
    let dt = dtype.unwrap_or_else(|| d.default_float());
    full_on(&d, shape, 0i64, Some(dt))
}

/// Ones (`cp.ones`).
pub fn ones(shape: &[usize], dtype: Option<DType>) -> Result<Array> {
    let d = Device::current()?;
    let dt = dtype.unwrap_or_else(|| d.default_float());
    full_on(&d, shape, 1i64, Some(dt))
}

/// An uninitialised array (`cp.empty`): a pooled buffer whose contents are undefined.
pub fn empty(shape: &[usize], dtype: Option<DType>) -> Result<Array> {
    let d = Device::current()?;
    let dt = dtype.unwrap_or_else(|| d.default_float());
    d.check(dt)?;
    let n = checked_size(shape, dt.host_size())?;
    if crate::packed::packs(dt) {
        // int8/uint8/int16/uint16: packed storage, as every other array of them.
        let words = kupfer_core::packing::packed_words(dt, n).max(1);
        let buffer = std::sync::Arc::new(d.context().alloc(words as u64 * 4)?);
        return Ok(Array::from_packed(
            d,
            dt,
            buffer,
            n,
            Layout::contiguous(shape),
        ));
    }
    let bytes = n
        .checked_mul(dt.gpu_size())
        .ok_or_else(|| Error::invalid(TOO_BIG))?;
    let buffer = d.context().alloc(bytes as u64)?;
    Ok(Array::from_buffer(
        d,
        dt,
        std::sync::Arc::new(buffer),
        Layout::contiguous(shape),
    ))
}

/// Zeros with the shape (and dtype, unless given) of `a`.
pub fn zeros_like(a: &Array, dtype: Option<DType>) -> Result<Array> {
    full_on(
        a.device(),
        a.shape(),
        0i64,
        Some(dtype.unwrap_or(a.dtype())),
    )
}

/// Ones with the shape (and dtype, unless given) of `a`.
pub fn ones_like(a: &Array, dtype: Option<DType>) -> Result<Array> {
    full_on(
        a.device(),
        a.shape(),
        1i64,
        Some(dtype.unwrap_or(a.dtype())),
    )
}

/// `value` with the shape (and dtype, unless given) of `a`.
pub fn full_like(a: &Array, value: impl Into<Scalar>, dtype: Option<DType>) -> Result<Array> {
    full_on(
        a.device(),
        a.shape(),
        value,
        Some(dtype.unwrap_or(a.dtype())),
    )
}

/// Uninitialised with the shape (and dtype, unless given) of `a`.
pub fn empty_like(a: &Array, dtype: Option<DType>) -> Result<Array> {
    let _guard = a.device().use_device();
    empty(a.shape(), Some(dtype.unwrap_or(a.dtype())))
}

fn is_int(s: &Scalar) -> bool {
    matches!(s, Scalar::Int(_) | Scalar::Bool(_))
}

/// Evenly spaced values in `[start, stop)` (`cp.arange(start, stop, step)`); as NumPy, the
/// dtype defaults to int64 when all arguments are integers, else float64, and values are
/// `start + i * delta` computed in the result dtype (f16 in f32).
///
/// ```no_run
/// let x = kupfer::arange(0, 5, 1, None)?;
/// assert_eq!(x.shape(), &[5]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn arange(
    start: impl Into<Scalar>,
    stop: impl Into<Scalar>,
    step: impl Into<Scalar>,
    dtype: Option<DType>,
) -> Result<Array> {
    let (start, stop, step) = (start.into(), stop.into(), step.into());
    let device = Device::current()?;
    let all_int = is_int(&start) && is_int(&stop) && is_int(&step);
    if matches!(start, Scalar::Complex { .. })
        || matches!(stop, Scalar::Complex { .. })
        || matches!(step, Scalar::Complex { .. })
    {
        return Err(Error::unsupported("arange with complex arguments"));
    }
    let dtype = dtype.unwrap_or(if all_int {
        device.default_int()
    } else {
        device.default_float()
    });
    device.check(dtype)?;
    if step.as_f64() == 0.0 {
        return Err(Error::invalid("arange: step must not be zero"));
    }
    // Integer bounds count exactly (Python ints past 2**53 too, as NumPy does).
    let len = match (start.as_i128(), stop.as_i128(), step.as_i128()) {
        (Some(a), Some(b), Some(s)) => {
            let (d, s) = if s < 0 { (a - b, -s) } else { (b - a, s) };
            (d + s - 1).div_euclid(s) as f64
        }
        _ => ((stop.as_f64() - start.as_f64()) / step.as_f64()).ceil(),
    };
    // NumPy's errors: a NaN length, then one past the index range.
    if len.is_nan() {
        return Err(Error::invalid("arange: cannot compute length"));
    }
    if len >= isize::MAX as f64 {
        return Err(Error::invalid("Maximum allowed size exceeded"));
    }
    let len = if len <= 0.0 { 0usize } else { len as usize };
    checked_size(&[len], dtype.host_size())?;
    if len > u32::MAX as usize {
        return Err(Error::invalid(format!(
            "arange of {len} elements is too large"
        )));
    }
    let compute = if dtype == DType::F16 {
        DType::F32
    } else {
        dtype
    };
    if dtype == DType::Bool {
        if len > 2 {
            return Err(Error::invalid(
                "arange() is only supported for booleans when the result has at most length 2.",
            ));
        }
        let host: Vec<bool> = (0..len)
            .map(|i| start.as_f64() + i as f64 * step.as_f64() != 0.0)
            .collect();
        return Array::from_slice_on(&device, &host, &[len]);
    }
    // NumPy: the first two values in the target dtype, `dtype(start)` and
    // `dtype(start + step)` (floats truncated toward zero for integer dtypes), then
    // `first + i * (second - first)` in that dtype.
    let (first, delta): (Scalar, Scalar) = match (start, step) {
        (Scalar::Int(a), Scalar::Int(s)) if compute.is_int() => (Scalar::Int(a), Scalar::Int(s)),
        _ if compute.is_int() => {
            let a = start.as_f64().trunc() as i64;
            let b = (start.as_f64() + step.as_f64()).trunc() as i64;
            (Scalar::Int(a), Scalar::Int(b.wrapping_sub(a)))
        }
        _ => {
            let a = round_to(start.as_f64(), compute);
            let b = round_to(start.as_f64() + step.as_f64(), compute);
            (Scalar::Float(a), Scalar::Float(round_to(b - a, compute)))
        }
    };
    let idx = Lazy::index().cast(compute);
    // A negative step of an unsigned dtype wraps (NumPy's `first + i * delta` modulo 2^bits).
    let delta_bytes = match (delta, compute) {
        (Scalar::Int(d), DType::U32) if d < 0 => (d as u32).to_le_bytes().to_vec(),
        (Scalar::Int(d), DType::U64) if d < 0 => (d as u64).to_le_bytes().to_vec(),
        _ => delta.encode(compute)?,
    };
    let d = Lazy::scalar(delta_bytes, compute);
    let s = Lazy::scalar(first.encode(compute)?, compute);
    let e = Lazy::binary(
        BinaryOp::Add,
        s,
        Lazy::binary(BinaryOp::Multiply, idx, d, compute),
        compute,
    )
    .cast(dtype);
    let a = Array::from_lazy(device, vec![len], e);
    a.eval()?;
    Ok(a)
}

fn round_to(x: f64, d: DType) -> f64 {
    match d {
        DType::F32 | DType::F16 | DType::Complex64 => f64::from(x as f32),
        _ => x,
    }
}

/// `num` evenly spaced samples over `[start, stop]` (`cp.linspace`), computed in float64 (or
/// float32 without SHADER_F64) as `start + i * step`, the last one exactly `stop`.
pub fn linspace(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: Option<DType>,
) -> Result<Array> {
    let device = Device::current()?;
    let dtype = dtype.unwrap_or_else(|| device.default_float());
    device.check(dtype)?;
    checked_size(&[num], dtype.host_size())?;
    if num > u32::MAX as usize {
        return Err(Error::unsupported(format!(
            "linspace of {num} elements (at most 2^32 - 1)"
        )));
    }
    let compute = device.default_float();
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let delta = stop - start;
    let step = if div > 0 {
        delta / div as f64
    } else {
        f64::NAN
    };
    if compute != DType::F64 {
        return linspace_on_host(&device, start, stop, num, endpoint, dtype);
    }
    let idx = Lazy::index().cast(compute);
    let body = if div > 0 && step != 0.0 {
        Lazy::binary(
            BinaryOp::Multiply,
            idx,
            Lazy::scalar(Scalar::Float(step).encode(compute)?, compute),
            compute,
        )
    } else if div > 0 {
        let q = Lazy::binary(
            BinaryOp::TrueDivide,
            idx,
            Lazy::scalar(Scalar::Float(div as f64).encode(compute)?, compute),
            compute,
        );
        Lazy::binary(
            BinaryOp::Multiply,
            q,
            Lazy::scalar(Scalar::Float(delta).encode(compute)?, compute),
            compute,
        )
    } else {
        Lazy::binary(
            BinaryOp::Multiply,
            idx,
            Lazy::scalar(Scalar::Float(delta).encode(compute)?, compute),
            compute,
        )
    };
    let mut y = Lazy::binary(
        BinaryOp::Add,
        body,
        Lazy::scalar(Scalar::Float(start).encode(compute)?, compute),
        compute,
    );
    if endpoint && num > 1 {
        let last = Lazy::binary(
            BinaryOp::Equal,
            Lazy::index(),
            Lazy::scalar(Scalar::Int(num as i64 - 1).encode(DType::U32)?, DType::U32),
            DType::Bool,
        );
        y = Lazy::select(
            last,
            Lazy::scalar(Scalar::Float(stop).encode(compute)?, compute),
            y,
            compute,
        );
    }
    // NumPy floors the values for an integer dtype (instead of truncating them).
    if dtype.is_int() {
        y = Lazy::unary(UnaryOp::Floor, y, compute);
    }
    let a = Array::from_lazy(device, vec![num], y.cast(dtype));
    a.eval()?;
    Ok(a)
}

/// `linspace` on an adapter without float64 (GL, WebGPU, Metal): float32 arithmetic on the
/// device would lose up to tens of ULPs where the values cross zero (`start + i * step`
/// cancels), so the values are computed in float64 on the host as NumPy computes them, rounded
/// once to `dtype`, and uploaded.
fn linspace_on_host(
    device: &Device,
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: DType,
) -> Result<Array> {
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let delta = stop - start;
    let step = delta / div as f64;
    let values: Vec<f64> = (0..num)
        .map(|i| {
            let i_f = i as f64;
            let v = if endpoint && num > 1 && i == num - 1 {
                stop
            } else if div > 0 && step != 0.0 {
                i_f * step + start
            } else if div > 0 {
                i_f / div as f64 * delta + start
            } else {
                i_f * delta + start
            };
            if dtype.is_int() {
                v.floor()
            } else {
                v
            }
        })
        .collect();
    let shape = [num];
    match dtype {
        DType::Bool => {
            let v: Vec<bool> = values.iter().map(|&x| x != 0.0).collect();
            Array::from_slice_on(device, &v, &shape)
        }
        DType::I32 => {
            let v: Vec<i32> = values.iter().map(|&x| x as i32).collect();
            Array::from_slice_on(device, &v, &shape)
        }
        DType::U32 => {
            let v: Vec<u32> = values.iter().map(|&x| x as u32).collect();
            Array::from_slice_on(device, &v, &shape)
        }
        DType::F16 => {
            let v: Vec<half::f16> = values.iter().map(|&x| half::f16::from_f64(x)).collect();
            Array::from_slice_on(device, &v, &shape)
        }
        DType::Complex64 => {
            let v: Vec<num_complex::Complex32> = values
                .iter()
                .map(|&x| num_complex::Complex32::new(x as f32, 0.0))
                .collect();
            Array::from_slice_on(device, &v, &shape)
        }
        _ => {
            let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            Array::from_slice_on(device, &v, &shape)?.astype(dtype)
        }
    }
}

/// Ones on the `k`-th diagonal of an `n × m` matrix (`cp.eye`).
pub fn eye(n: usize, m: Option<usize>, k: isize, dtype: Option<DType>) -> Result<Array> {
    let device = Device::current()?;
    let dtype = dtype.unwrap_or_else(|| device.default_float());
    device.check(dtype)?;
    let m = m.unwrap_or(n);
    checked_size(&[n, m], dtype.host_size())?;
    if n.checked_mul(m).is_none_or(|s| s > u32::MAX as usize) {
        return Err(Error::invalid(format!("eye({n}, {m}) is too large")));
    }
    let u = |v: u32| Lazy::scalar(v.to_le_bytes().to_vec(), DType::U32);
    let cols = m.max(1) as u32;
    let row = Lazy::binary(BinaryOp::FloorDivide, Lazy::index(), u(cols), DType::U32);
    let col = Lazy::binary(BinaryOp::Remainder, Lazy::index(), u(cols), DType::U32);
    let diff = Lazy::binary(BinaryOp::Subtract, col, row, DType::U32);
    let on = Lazy::binary(BinaryOp::Equal, diff, u(k as i32 as u32), DType::Bool);
    let a = Array::from_lazy(device, vec![n, m], on.cast(dtype));
    a.eval()?;
    Ok(a)
}

/// The `n × n` identity matrix (`cp.identity`).
pub fn identity(n: usize, dtype: Option<DType>) -> Result<Array> {
    eye(n, None, 0, dtype)
}

/// Coordinate matrices from coordinate vectors (`cp.meshgrid`; `indexing` is "xy" or "ij").
/// The results are broadcast views of the inputs.
pub fn meshgrid(xs: &[Array], indexing: &str) -> Result<Vec<Array>> {
    let xy = match indexing {
        "xy" => true,
        "ij" => false,
        other => {
            return Err(Error::invalid(format!(
                "indexing must be 'xy' or 'ij', got '{other}'"
            )))
        }
    };
    let mut shape: Vec<usize> = xs.iter().map(Array::size).collect();
    if xy && xs.len() >= 2 {
        shape.swap(0, 1);
    }
    xs.iter()
        .enumerate()
        .map(|(i, x)| {
            let mut axis = i;
            if xy && xs.len() >= 2 && i < 2 {
                axis = 1 - i;
            }
            let mut s = vec![1isize; xs.len()];
            s[axis] = -1;
            x.ravel()?.reshape(&s)?.broadcast_to(&shape)
        })
        .collect()
}
