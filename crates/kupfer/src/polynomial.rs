//! NumPy's polynomial helpers on coefficient arrays, highest power first (`polyval`,
//! `polyadd`, `polysub`, `polymul`, `polyder`, `polyint`) and the Vandermonde matrix
//! (`vander`), on the device.

use crate::array::Array;
use crate::creation::arange;
use crate::scalar::Operand;
use crate::ufuncs as uf;
use kupfer_core::{Error, Result, SliceArg};

fn vector(p: &Array, name: &str) -> Result<()> {
    if p.ndim() != 1 {
        return Err(Error::invalid(format!(
            "{name}: the coefficients must be a 1-d array, got {} dimensions",
            p.ndim()
        )));
    }
    Ok(())
}

/// `a` placed at `offset` in a vector of length `len` of zeros: `out[offset + i] = a[i]`
/// (a masked sum over a small (len, a.len) grid: polynomials are short).
fn placed(a: &Array, len: usize, offset: usize) -> Result<Array> {
    if offset == 0 && a.shape()[0] == len {
        return Ok(a.clone());
    }
    let rows =
        arange(0.0, len as f64, 1.0, Some(kupfer_core::DType::I32))?.reshape(&[len as isize, 1])?;
    let cols = arange(
        offset as f64,
        (offset + a.shape()[0]) as f64,
        1.0,
        Some(kupfer_core::DType::I32),
    )?
    .reshape(&[1, a.shape()[0] as isize])?;
    let hit = uf::equal(&rows, &cols)?;
    let grid = uf::where_(hit, a, 0)?;
    crate::reduce::sum(&grid, 1, false)
}

/// The exponents `n, n - 1, ..., 1` in the device's default integer dtype (NumPy's
/// `arange(n, 0, -1)`).
fn powers(p: &Array, n: usize) -> Result<Array> {
    arange(n as f64, 0.0, -1.0, Some(p.device().default_int()))
}

/// The polynomial `p` at `x`: Horner's rule `y = y * x + p[i]` (NumPy's `polyval`).
///
/// ```
/// # use kupfer as kp;
/// let p = kp::Array::from_slice(&[3.0f64, 0.0, 1.0], &[3])?;
/// let y = kp::polyval(&p, 5.0)?;
/// assert_eq!(y.to_vec::<f64>()?, vec![76.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn polyval(p: &Array, x: impl Into<Operand>) -> Result<Array> {
    vector(p, "polyval")?;
    let x = match x.into() {
        Operand::Scalar(s) => s.to_array(p.device())?,
        Operand::Array(a) => a,
    };
    let mut y = crate::creation::zeros_like(&x, None)?;
    for i in 0..p.shape()[0] {
        let c = p.slice(&[SliceArg::Index(i as isize)])?;
        y = uf::add(uf::multiply(&y, &x)?, c)?;
        if (i + 1) % 32 == 0 {
            y.eval()?;
        }
    }
    Ok(y)
}

/// The two coefficient vectors aligned at their ends (the shorter padded with leading zeros).
fn aligned(a1: &Array, a2: &Array, name: &str) -> Result<(Array, Array)> {
    vector(a1, name)?;
    vector(a2, name)?;
    let n = a1.shape()[0].max(a2.shape()[0]);
    Ok((
        placed(a1, n, n - a1.shape()[0])?,
        placed(a2, n, n - a2.shape()[0])?,
    ))
}

/// The sum of two polynomials (NumPy's `polyadd`).
pub fn polyadd(a1: &Array, a2: &Array) -> Result<Array> {
    let (x, y) = aligned(a1, a2, "polyadd")?;
    uf::add(x, y)
}

/// The difference of two polynomials (NumPy's `polysub`).
pub fn polysub(a1: &Array, a2: &Array) -> Result<Array> {
    let (x, y) = aligned(a1, a2, "polysub")?;
    uf::subtract(x, y)
}

/// The product of two polynomials: their full convolution (NumPy's `polymul`).
pub fn polymul(a1: &Array, a2: &Array) -> Result<Array> {
    vector(a1, "polymul")?;
    vector(a2, "polymul")?;
    crate::signal::convolve(
        a1,
        a2,
        crate::signal::Mode::Full,
        crate::signal::Method::Direct,
    )
}

/// The `m`-th derivative (NumPy's `polyder`).
pub fn polyder(p: &Array, m: usize) -> Result<Array> {
    vector(p, "polyder")?;
    let mut p = p.clone();
    for _ in 0..m {
        let n = p.shape()[0].saturating_sub(1);
        let head = p.slice(&[SliceArg::Slice {
            start: None,
            stop: Some(-1),
            step: None,
        }])?;
        p = uf::multiply(head, powers(&p, n)?)?;
    }
    Ok(p)
}

/// The `m`-th antiderivative with integration constants `k` (one per integration, the first
/// used first; missing ones are 0), as NumPy's `polyint`.
pub fn polyint(p: &Array, m: usize, k: &[f64]) -> Result<Array> {
    vector(p, "polyint")?;
    if k.len() > m && m > 0 {
        return Err(Error::invalid(
            "k must be a scalar or a rank-1 array of length 1 or m.",
        ));
    }
    let mut p = p.clone();
    for i in 0..m {
        let n = p.shape()[0];
        let divided = uf::divide(&p, powers(&p, n)?)?;
        let grown = placed(&divided, n + 1, 0)?;
        let last = uf::equal(arange(0.0, (n + 1) as f64, 1.0, None)?, n as i64)?;
        p = uf::where_(last, k.get(i).copied().unwrap_or(0.0), grown)?;
    }
    Ok(p)
}

/// The Vandermonde matrix of `x` (NumPy's `vander`): column `j` holds `x ** (N - 1 - j)`
/// (`x ** j` when `increasing`), `N` columns (`len(x)` by default), as running products of
/// `x` (NumPy's `multiply.accumulate`, so integer powers are exact). Integer and bool input
/// below 32 bits gives the default integer (int64), as NumPy; 32-bit integers stay 32-bit
/// (kupfer's rule); floats and complex keep their dtype.
///
/// ```
/// # use kupfer as kp;
/// let x = kp::Array::from_slice(&[1i64, 2, 3, 5], &[4])?;
/// let v = kp::vander(&x, Some(3), false)?;
/// assert_eq!(v.to_vec::<i64>()?, vec![1, 1, 1, 4, 2, 1, 9, 3, 1, 25, 5, 1]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn vander(x: &Array, n: Option<usize>, increasing: bool) -> Result<Array> {
    if x.ndim() != 1 {
        return Err(Error::invalid(
            "x must be a one-dimensional array or sequence.",
        ));
    }
    let d = x.dtype();
    let dtype = if d.is_float() || d.is_complex() || d.is_64bit() || d.host_size() == 4 {
        d
    } else {
        x.device().default_int()
    };
    let len = x.shape()[0];
    let n = n.unwrap_or(len);
    let device = x.device();
    if n == 0 || len == 0 {
        return crate::creation::full_on(device, &[len, n], 0i64, Some(dtype));
    }
    let ones = crate::creation::full_on(device, &[len, 1], 1i64, Some(dtype))?;
    let columns = x
        .astype(dtype)?
        .reshape(&[len as isize, 1])?
        .broadcast_to(&[len, n - 1])?;
    let both = crate::manip::concatenate(&[ones, columns], Some(1), None)?;
    let rising = crate::scan::cumprod(&both, Some(1), Some(dtype))?;
    if increasing {
        Ok(rising)
    } else {
        crate::manip::flip(&rising, Some(&[1]))
    }
}
