//! NumPy's index functions on top of indexing and compaction: `nonzero`, `argwhere`,
//! `flatnonzero`, `compress`, `extract`, `take`, `take_along_axis`, `put`,
//! `put_along_axis`, `place`, `putmask`, `copyto`, `choose`, `select`, `indices`, `ix_`,
//! `unravel_index`, `ravel_multi_index`, `diag_indices`, `diag_indices_from`, `tril_indices`,
//! `triu_indices`.
//!
//! Each has an `_async` form (the browser's); the blocking form exists natively. Index
//! results have the device's default integer dtype (int64 where the adapter has it, as
//! NumPy's intp). Sync points: results sized by the data (`nonzero`, `argwhere`,
//! `flatnonzero`, `compress`, `extract`, `place`) read their count back once; functions
//! taking device index arrays read the arrays' min and max back once to check bounds.

use crate::array::Array;
use crate::device::Device;
use crate::indexing::compact::compact;
use crate::indexing::index::Index;
use crate::indexing::resolve::nonzero_async as nonzero_device;
use crate::scalar::{Operand, Scalar};
use crate::ufuncs;
use kupfer_core::casting::{can_cast, Casting};
use kupfer_core::layout::{broadcast_shapes, normalize_axis, size_of};
use kupfer_core::{DType, Error, Result, SliceArg};

macro_rules! blocking {
    ($(#[$m:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty => $async_name:ident) => {
        $(#[$m])*
        #[cfg(not(target_arch = "wasm32"))]
        pub fn $name($($arg: $ty),*) -> $ret {
            pollster::block_on($async_name($($arg),*))
        }
    };
}

fn int_array(device: &Device, values: &[i64], shape: &[usize]) -> Result<Array> {
    match device.default_int() {
        DType::I64 => Array::from_slice_on(device, values, shape),
        _ => {
            let v: Vec<i32> = values.iter().map(|&x| x as i32).collect();
            Array::from_slice_on(device, &v, shape)
        }
    }
}

fn arange_on(device: &Device, n: usize) -> Result<Array> {
    let v: Vec<i64> = (0..n as i64).collect();
    int_array(device, &v, &[n])
}

/// `np.nonzero(a)`: one index array per axis of the elements that are not zero (NaN counts
/// as nonzero), async. 0-d input is NumPy 2's error.
pub async fn nonzero_async(a: &Array) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::invalid(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() \
             instead. If the context of this error is of the form `arr[nonzero(cond)]`, just \
             use `arr[cond]`.",
        ));
    }
    nonzero_device(a).await
}

blocking!(
    /// `np.nonzero(a)` (also `np.where(a)` with one argument).
    ///
    /// ```
    /// use kupfer as kp;
    /// let a = kp::Array::from_slice(&[0.0f32, 1.5, 0.0, -2.0], &[2, 2])?;
    /// let ix = kp::nonzero(&a)?;
    /// assert_eq!(ix[0].astype(kp::DType::I32)?.to_vec::<i32>()?, vec![0, 1]);
    /// assert_eq!(ix[1].astype(kp::DType::I32)?.to_vec::<i32>()?, vec![1, 1]);
    /// # Ok::<(), kp::Error>(())
    /// ```
    fn nonzero(a: &Array) -> Result<Vec<Array>> => nonzero_async
);

/// `np.flatnonzero(a)`: indices of the nonzero elements of the flattened array, async.
pub async fn flatnonzero_async(a: &Array) -> Result<Array> {
    let device = a.device().clone();
    let flag = ufuncs::not_equal(a, false)?.lazy()?;
    let shape = a.shape().to_vec();
    let index = crate::fusion::Lazy::index().cast(device.default_int());
    compact(&device, &flag, &index, &shape)?
        .finish_async()
        .await
}

blocking!(
    /// `np.flatnonzero(a)`.
    fn flatnonzero(a: &Array) -> Result<Array> => flatnonzero_async
);

/// `np.argwhere(a)`: the indices of nonzero elements as rows, shape `(N, a.ndim)`, async.
pub async fn argwhere_async(a: &Array) -> Result<Array> {
    let device = a.device().clone();
    let nd = a.ndim();
    if nd == 0 {
        let nz = usize::from(a.item_async().await?.as_f64() != 0.0 || is_nan(a).await?);
        return crate::creation::full_on(&device, &[nz, 0], 0i64, Some(device.default_int()));
    }
    let flat = flatnonzero_async(a).await?;
    let n = flat.size();
    let shape = a.shape();
    let inner: Vec<i64> = (0..nd)
        .map(|j| shape[j + 1..].iter().product::<usize>() as i64)
        .collect();
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let inner = int_array(&device, &inner, &[1, nd])?;
    let dims = int_array(&device, &dims, &[1, nd])?;
    let col = flat.reshape(&[n as isize, 1])?;
    let out = ufuncs::remainder(ufuncs::floor_divide(&col, &inner)?, &dims)?;
    out.eval()?;
    Ok(out)
}

async fn is_nan(a: &Array) -> Result<bool> {
    if !a.dtype().is_float() && !a.dtype().is_complex() {
        return Ok(false);
    }
    Ok(ufuncs::isnan(a)?.item_async().await?.as_f64() != 0.0)
}

blocking!(
    /// `np.argwhere(a)`.
    fn argwhere(a: &Array) -> Result<Array> => argwhere_async
);

/// `np.extract(condition, a)`: the elements of `a` (flattened) where `condition` is
/// nonzero, one fused compaction, async.
pub async fn extract_async(condition: &Array, a: &Array) -> Result<Array> {
    if condition.size() != a.size() {
        // NumPy takes ravel(a)[nonzero(ravel(condition))]: indices past `a` are an error.
        let idx = flatnonzero_async(condition).await?;
        return a.reshape(&[-1])?.get_async(&[Index::Array(idx)]).await;
    }
    let flag = ufuncs::not_equal(&condition.reshape(&[-1])?, false)?.lazy()?;
    let values = a.reshape(&[-1])?.lazy()?;
    compact(a.device(), &flag, &values, &[a.size()])?
        .finish_async()
        .await
}

blocking!(
    /// `np.extract(condition, a)`.
    fn extract(condition: &Array, a: &Array) -> Result<Array> => extract_async
);

/// `np.compress(condition, a, axis)`: slices of `a` along `axis` (flattened when `None`)
/// where the 1-D `condition` is true, async.
pub async fn compress_async(condition: &Array, a: &Array, axis: Option<isize>) -> Result<Array> {
    if condition.ndim() != 1 {
        return Err(Error::invalid("condition must be a 1-d array"));
    }
    let idx = flatnonzero_async(condition).await?;
    match axis {
        None => a.reshape(&[-1])?.get_async(&[Index::Array(idx)]).await,
        Some(ax) => take_async(a, &Operand::Array(idx), Some(ax), TakeMode::Raise).await,
    }
}

/// `np.compress(condition, a, axis)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn compress(condition: &Array, a: &Array, axis: Option<isize>) -> Result<Array> {
    pollster::block_on(compress_async(condition, a, axis))
}

/// Out-of-bounds handling of `take` / `put` / `choose` (`mode=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TakeMode {
    /// An out-of-bounds index is an error (NumPy's default).
    Raise,
    /// Indices wrap around (`i mod n`).
    Wrap,
    /// Indices are clipped to `[0, n - 1]` (negative indices clip to 0).
    Clip,
}

impl TakeMode {
    /// From NumPy's `mode=` string.
    pub fn parse(s: &str) -> Result<TakeMode> {
        match s {
            "raise" => Ok(TakeMode::Raise),
            "wrap" => Ok(TakeMode::Wrap),
            "clip" => Ok(TakeMode::Clip),
            _ => Err(Error::invalid(format!(
                "clipmode must be one of 'clip', 'raise', or 'wrap' (got '{s}')"
            ))),
        }
    }
}

/// Applies `mode` to index values for an axis of length `n`.
fn moded(indices: &Operand, n: usize, mode: TakeMode, device: &Device) -> Result<Index> {
    let arr = match indices {
        Operand::Scalar(Scalar::Int(i)) if mode == TakeMode::Raise => {
            return Ok(Index::Basic(SliceArg::Index(*i as isize)))
        }
        Operand::Scalar(s) => {
            crate::creation::full_on(device, &[], *s, Some(device.default_int()))?
        }
        Operand::Array(a) => a.clone(),
    };
    if arr.dtype() == DType::Bool || !arr.dtype().is_int() {
        return Err(Error::invalid(format!(
            "Cannot cast array data from dtype('{}') to dtype('int64') according to the rule \
             'safe'",
            arr.dtype()
        )));
    }
    if n == 0 && mode != TakeMode::Raise && arr.size() > 0 {
        return Err(Error::invalid(
            "cannot do a non-empty take from an empty axes.",
        ));
    }
    let arr = match mode {
        TakeMode::Raise => arr,
        TakeMode::Wrap => ufuncs::remainder(&arr, n as i64)?,
        TakeMode::Clip => ufuncs::clip(&arr, 0i64, (n as i64 - 1).max(0))?,
    };
    if arr.ndim() == 0 {
        // a 0-d index removes the axis, as an integer does
        return Ok(Index::Array(arr));
    }
    Ok(Index::Array(arr))
}

/// `np.take(a, indices, axis, mode)`, async.
pub async fn take_async(
    a: &Array,
    indices: &Operand,
    axis: Option<isize>,
    mode: TakeMode,
) -> Result<Array> {
    let (src, ax) = match axis {
        None => (a.reshape(&[-1])?, 0usize),
        Some(x) => (a.clone(), normalize_axis(x, a.ndim())?),
    };
    let idx = moded(indices, src.shape()[ax], mode, a.device())?;
    let mut index: Vec<Index> = vec![Index::Basic(SliceArg::FULL); ax];
    index.push(idx);
    src.get_async(&index).await
}

/// `np.take(a, indices, axis, mode)`: elements (or slices along `axis`) at `indices`.
///
/// ```
/// use kupfer as kp;
/// let a = kp::arange(0, 6, 1, Some(kp::DType::I32))?.reshape(&[2, 3])?;
/// let t = kp::take(&a, &kp::Array::from_slice(&[2i32, 0], &[2])?.into(), Some(1), kp::TakeMode::Raise)?;
/// assert_eq!(t.to_vec::<i32>()?, vec![2, 0, 5, 3]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn take(a: &Array, indices: &Operand, axis: Option<isize>, mode: TakeMode) -> Result<Array> {
    pollster::block_on(take_async(a, indices, axis, mode))
}

/// The fancy index of `take_along_axis` / `put_along_axis`: `indices` at `axis`, aranges
/// shaped to broadcast along every other axis.
fn along_axis_index(a: &Array, indices: &Array, axis: usize) -> Result<Vec<Index>> {
    if indices.ndim() != a.ndim() {
        return Err(Error::invalid(
            "`indices` and `arr` must have the same number of dimensions",
        ));
    }
    if !indices.dtype().is_int() {
        return Err(Error::invalid("`indices` must be an integer array"));
    }
    let nd = a.ndim();
    let mut index = Vec::with_capacity(nd);
    for d in 0..nd {
        if d == axis {
            index.push(Index::Array(indices.clone()));
        } else {
            let mut shape = vec![1isize; nd];
            shape[d] = a.shape()[d] as isize;
            index.push(Index::Array(
                arange_on(a.device(), a.shape()[d])?.reshape(&shape)?,
            ));
        }
    }
    Ok(index)
}

/// `np.take_along_axis(a, indices, axis)` (`axis = None`: over the flattened array), async.
pub async fn take_along_axis_async(
    a: &Array,
    indices: &Array,
    axis: Option<isize>,
) -> Result<Array> {
    match axis {
        None => {
            if indices.ndim() != 1 {
                return Err(Error::invalid(
                    "when axis=None, `indices` must have a single dimension.",
                ));
            }
            a.reshape(&[-1])?
                .get_async(&[Index::Array(indices.clone())])
                .await
        }
        Some(ax) => {
            let ax = normalize_axis(ax, a.ndim())?;
            let index = along_axis_index(a, indices, ax)?;
            a.get_async(&index).await
        }
    }
}

/// `np.take_along_axis(a, indices, axis)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn take_along_axis(a: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    pollster::block_on(take_along_axis_async(a, indices, axis))
}

/// `np.put_along_axis(a, indices, values, axis)`, in place, async.
pub async fn put_along_axis_async(
    a: &Array,
    indices: &Array,
    values: impl Into<Operand>,
    axis: Option<isize>,
) -> Result<()> {
    match axis {
        None => put_async(a, &Operand::Array(indices.clone()), values, TakeMode::Raise).await,
        Some(ax) => {
            let ax = normalize_axis(ax, a.ndim())?;
            let index = along_axis_index(a, indices, ax)?;
            a.set_async(&index, values).await
        }
    }
}

/// `np.put_along_axis(a, indices, values, axis)`, in place.
#[cfg(not(target_arch = "wasm32"))]
pub fn put_along_axis(
    a: &Array,
    indices: &Array,
    values: impl Into<Operand>,
    axis: Option<isize>,
) -> Result<()> {
    pollster::block_on(put_along_axis_async(a, indices, values, axis))
}

/// `values` (flattened) repeated cyclically to `n` elements, as NumPy's `put`, `place` and
/// `putmask` repeat a short value array.
fn cycled(values: &Array, n: usize) -> Result<Array> {
    let flat = values.reshape(&[-1])?;
    if flat.size() == n {
        return Ok(flat);
    }
    let idx = ufuncs::remainder(&arange_on(values.device(), n)?, flat.size() as i64)?;
    idx.eval()?;
    pollster_free_gather(&flat, &idx)
}

/// `flat[idx]` for indices known to be in bounds (no read-back).
fn pollster_free_gather(flat: &Array, idx: &Array) -> Result<Array> {
    let index = [Index::Array(idx.clone())];
    // In-bounds by construction, but the generic path checks bounds with a read-back; run
    // it to completion.
    block(flat.get_async(&index))
}

#[cfg(not(target_arch = "wasm32"))]
fn block<T>(f: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    pollster::block_on(f)
}

#[cfg(target_arch = "wasm32")]
fn block<T>(f: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(r) => r,
        std::task::Poll::Pending => Err(Error::unsupported(
            "repeating a short value array in the browser",
        )),
    }
}

fn value_array(values: impl Into<Operand>, device: &Device, dtype: DType) -> Result<Array> {
    match values.into() {
        Operand::Array(a) => Ok(a),
        Operand::Scalar(s) => crate::creation::full_on(device, &[1], s, Some(dtype)),
    }
}

/// `np.put(a, ind, v, mode)`: `a.flat[ind] = v`, `v` repeated if shorter, in place, async.
/// Into a C-contiguous `a` it writes through the flat view; any other `a` (a transposed,
/// reversed or strided view) is put into a C-ordered copy written back through the view.
pub async fn put_async(
    a: &Array,
    ind: &Operand,
    values: impl Into<Operand>,
    mode: TakeMode,
) -> Result<()> {
    let layout = a.layout()?;
    if !layout.is_c_contiguous() {
        // Flat indices count in C order: put into a C-ordered copy, then write it back
        // through the view (every view of the memory sees the writes).
        let copy = a.copy()?;
        Box::pin(put_async(&copy, ind, values, mode)).await?;
        return a.set_async(&[Index::Basic(SliceArg::Ellipsis)], copy).await;
    }
    let flat = a.reshape(&[-1])?;
    let idx = moded(ind, a.size(), mode, a.device())?;
    let n = match &idx {
        Index::Array(x) => x.size(),
        _ => 1,
    };
    if n == 0 {
        return Ok(());
    }
    let v = value_array(values, a.device(), a.dtype())?;
    if v.size() == 0 {
        return Ok(());
    }
    let shape: Vec<isize> = match &idx {
        Index::Array(x) => x.shape().iter().map(|&d| d as isize).collect(),
        _ => vec![],
    };
    let v = cycled(&v, n)?.reshape(&shape)?;
    flat.set_async(&[idx], v).await
}

/// `np.put(a, ind, v, mode)`, in place.
#[cfg(not(target_arch = "wasm32"))]
pub fn put(a: &Array, ind: &Operand, values: impl Into<Operand>, mode: TakeMode) -> Result<()> {
    pollster::block_on(put_async(a, ind, values, mode))
}

/// `np.place(arr, mask, vals)`: `arr[mask] = vals` with `vals` repeated cyclically to the
/// number of true entries (one read-back), in place, async.
pub async fn place_async(arr: &Array, mask: &Array, vals: impl Into<Operand>) -> Result<()> {
    if mask.size() != arr.size() {
        return Err(Error::invalid("place: mask and data must be the same size"));
    }
    let mask = ufuncs::not_equal(
        &mask.reshape(&arr.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?,
        false,
    )?;
    let v = value_array(vals, arr.device(), arr.dtype())?;
    let count = crate::reduce::count_nonzero(&mask, crate::reduce::Axis::All, false)?
        .item_async()
        .await?
        .as_f64() as usize;
    if count == 0 {
        return Ok(());
    }
    if v.size() == 0 {
        return Err(Error::invalid("Cannot insert from an empty array!"));
    }
    let v = cycled(&v, count)?;
    arr.set_async(&[Index::Array(mask)], v).await
}

/// `np.place(arr, mask, vals)`, in place.
#[cfg(not(target_arch = "wasm32"))]
pub fn place(arr: &Array, mask: &Array, vals: impl Into<Operand>) -> Result<()> {
    pollster::block_on(place_async(arr, mask, vals))
}

/// `np.putmask(a, mask, values)`: `a.flat[n] = values[n]` where `mask.flat[n]`, `values`
/// repeated cyclically; one predicated kernel over `a` (no read-back), in place.
pub fn putmask(a: &Array, mask: &Array, values: impl Into<Operand>) -> Result<()> {
    let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
    if mask.size() != a.size() {
        return Err(Error::invalid(
            "putmask: mask and data must be the same size",
        ));
    }
    let mask = ufuncs::not_equal(&mask.reshape(&shape)?, false)?;
    let v = match values.into() {
        Operand::Scalar(s) => crate::creation::full_on(a.device(), a.shape(), s, Some(a.dtype()))?,
        Operand::Array(v) => {
            if v.size() == 0 {
                if a.size() == 0 {
                    return Ok(());
                }
                return Err(Error::invalid("putmask: values must not be empty"));
            }
            if v.size() == 1 {
                v.reshape(&[])?.broadcast_to(a.shape())?
            } else {
                cycled(&v, a.size())?.reshape(&shape)?
            }
        }
    };
    let v = if v.dtype() != a.dtype() {
        v.astype(a.dtype())?
    } else {
        v
    };
    a.update_masked(&mask, move |_| Ok(v))
}

/// `np.copyto(dst, src, casting, where)`: `src` broadcast into `dst` in place where `where_`
/// is true (everywhere when `None`), checked against `casting`.
pub fn copyto(
    dst: &Array,
    src: impl Into<Operand>,
    casting: Casting,
    where_: Option<&Array>,
) -> Result<()> {
    let src = src.into();
    let src = match src {
        Operand::Array(s) => {
            if !can_cast(s.dtype(), dst.dtype(), casting) {
                return Err(Error::invalid(format!(
                    "Cannot cast array data from dtype('{}') to dtype('{}') according to the \
                     rule '{}'",
                    s.dtype(),
                    dst.dtype(),
                    casting_name(casting)
                )));
            }
            let shape = broadcast_shapes(s.shape(), dst.shape())?;
            if shape != dst.shape() {
                return Err(Error::invalid(format!(
                    "could not broadcast input array from shape {:?} into shape {:?}",
                    s.shape(),
                    dst.shape()
                )));
            }
            s.astype(dst.dtype())?.broadcast_to(dst.shape())?
        }
        Operand::Scalar(s) => {
            crate::creation::full_on(dst.device(), dst.shape(), s, Some(dst.dtype()))?
        }
    };
    let mask = match where_ {
        None => crate::creation::full_on(dst.device(), dst.shape(), true, Some(DType::Bool))?,
        Some(w) => {
            let w = if w.dtype() == DType::Bool {
                w.clone()
            } else {
                if !can_cast(w.dtype(), DType::Bool, Casting::Safe) {
                    return Err(Error::invalid(format!(
                        "Cannot cast array data from dtype('{}') to dtype('bool') according to \
                         the rule 'safe'",
                        w.dtype()
                    )));
                }
                w.clone()
            };
            w.broadcast_to(dst.shape())?
        }
    };
    dst.update_masked(&mask, move |_| Ok(src))
}

fn casting_name(c: Casting) -> &'static str {
    match c {
        Casting::No => "no",
        Casting::Equiv => "equiv",
        Casting::Safe => "safe",
        Casting::SameKind => "same_kind",
        Casting::Unsafe => "unsafe",
    }
}

/// `np.select(condlist, choicelist, default)`: the first choice whose condition holds, else
/// `default`; one lazy expression (nested `where`), no read-back.
pub fn select(
    condlist: &[Array],
    choicelist: &[Operand],
    default: impl Into<Operand>,
) -> Result<Array> {
    if condlist.len() != choicelist.len() {
        return Err(Error::invalid(
            "list of cases must be same length as list of conditions",
        ));
    }
    for (k, c) in condlist.iter().enumerate() {
        if c.dtype() != DType::Bool {
            return Err(Error::invalid(format!(
                "invalid entry {k} in condlist: should be boolean ndarray"
            )));
        }
    }
    let mut out: Operand = default.into();
    // Result dtype: of all choices and the default together.
    for (c, v) in condlist.iter().zip(choicelist).rev() {
        out = Operand::Array(ufuncs::where_(c, v.clone(), out)?);
    }
    match out {
        Operand::Array(a) => Ok(a),
        Operand::Scalar(s) => s.to_array(&Device::current()?),
    }
}

/// `np.choose(a, choices, mode)`: element `i` from `choices[a[i]]`, broadcast together; one
/// lazy expression (nested `where`); `mode='raise'` reads `a`'s min and max back.
pub async fn choose_async(a: &Array, choices: &[Operand], mode: TakeMode) -> Result<Array> {
    let n = choices.len();
    if n == 0 {
        return Err(Error::invalid("0-length sequence."));
    }
    if !a.dtype().is_int() && a.dtype() != DType::Bool {
        return Err(Error::invalid(format!(
            "Cannot cast array data from dtype('{}') to dtype('int64') according to the rule \
             'safe'",
            a.dtype()
        )));
    }
    let idx = match mode {
        TakeMode::Raise => {
            if a.size() > 0 {
                let lo = crate::reduce::min(a, crate::reduce::Axis::All, false)?;
                let hi = crate::reduce::max(a, crate::reduce::Axis::All, false)?;
                let (lo, hi) = (
                    lo.item_async().await?.as_f64(),
                    hi.item_async().await?.as_f64(),
                );
                if lo < 0.0 || hi >= n as f64 {
                    return Err(Error::invalid("invalid entry in choice array"));
                }
            }
            a.clone()
        }
        TakeMode::Wrap => ufuncs::remainder(a, n as i64)?,
        TakeMode::Clip => ufuncs::clip(a, 0i64, n as i64 - 1)?,
    };
    let mut out = choices[n - 1].clone();
    for k in (0..n - 1).rev() {
        out = Operand::Array(ufuncs::where_(
            ufuncs::equal(&idx, k as i64)?,
            choices[k].clone(),
            out,
        )?);
    }
    let out = match out {
        Operand::Array(x) => x,
        Operand::Scalar(s) => s.to_array(a.device())?,
    };
    // The result has the broadcast shape of a and every choice.
    let mut shape = a.shape().to_vec();
    for c in choices {
        if let Operand::Array(x) = c {
            shape = broadcast_shapes(&shape, x.shape())?;
        }
    }
    if out.shape() != shape.as_slice() {
        return out.broadcast_to(&shape)?.copy();
    }
    Ok(out)
}

/// `np.choose(a, choices, mode)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn choose(a: &Array, choices: &[Operand], mode: TakeMode) -> Result<Array> {
    pollster::block_on(choose_async(a, choices, mode))
}

/// `np.indices(dimensions, dtype)`: the grid of indices, shape `(len(dimensions), *dimensions)`;
/// with `sparse`, one array per axis shaped to broadcast.
pub fn indices(dimensions: &[usize], dtype: Option<DType>, sparse: bool) -> Result<Vec<Array>> {
    let device = Device::current()?;
    let dt = dtype.unwrap_or_else(|| device.default_int());
    let nd = dimensions.len();
    let mut out = Vec::with_capacity(nd);
    for (k, &d) in dimensions.iter().enumerate() {
        let mut shape = vec![1isize; nd];
        shape[k] = d as isize;
        let a = arange_on(&device, d)?.astype(dt)?.reshape(&shape)?;
        out.push(if sparse {
            a
        } else {
            a.broadcast_to(dimensions)?
        });
    }
    if sparse {
        return Ok(out);
    }
    // Dense: one array of shape (nd, *dimensions) as NumPy returns; views stacked by copy.
    let mut full = vec![nd];
    full.extend_from_slice(dimensions);
    let grid = crate::creation::full_on(&device, &full, 0i64, Some(dt))?;
    grid.eval()?;
    for (k, a) in out.iter().enumerate() {
        // A basic index: the write needs no read-back, so this completes at once.
        let index = [Index::Basic(SliceArg::Index(k as isize))];
        block(grid.set_async(&index, a))?;
    }
    Ok(vec![grid])
}

/// `np.ix_(*args)`: open-mesh index arrays; boolean sequences become their nonzero indices.
pub async fn ix_async(args: &[Array]) -> Result<Vec<Array>> {
    let nd = args.len();
    let mut out = Vec::with_capacity(nd);
    for (k, a) in args.iter().enumerate() {
        if a.ndim() != 1 {
            return Err(Error::invalid("Cross index must be 1 dimensional"));
        }
        let a = if a.dtype() == DType::Bool {
            nonzero_async(a).await?.remove(0)
        } else if a.dtype().is_int() {
            a.clone()
        } else if a.size() == 0 {
            a.astype(a.device().default_int())?
        } else {
            return Err(Error::invalid(
                "arrays used as indices must be of integer (or boolean) type",
            ));
        };
        let mut shape = vec![1isize; nd];
        shape[k] = a.size() as isize;
        out.push(a.reshape(&shape)?);
    }
    Ok(out)
}

/// `np.ix_(*args)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn ix_(args: &[Array]) -> Result<Vec<Array>> {
    pollster::block_on(ix_async(args))
}

/// Which axis varies fastest in a flat index (`order=` of `unravel_index` and
/// `ravel_multi_index`): `C` (the last axis, NumPy's default) or `F` (the first axis).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexOrder {
    /// Row-major: the last axis varies fastest.
    #[default]
    C,
    /// Column-major (Fortran): the first axis varies fastest.
    F,
}

impl IndexOrder {
    /// From NumPy's `order=` string (`'C'` or `'F'`).
    pub fn parse(s: &str) -> Result<IndexOrder> {
        match s {
            "C" => Ok(IndexOrder::C),
            "F" => Ok(IndexOrder::F),
            _ => Err(Error::invalid("only 'C' or 'F' order is permitted")),
        }
    }

    /// The flat-index stride of each axis of `dims` in this order.
    fn strides(self, dims: &[usize]) -> Vec<usize> {
        (0..dims.len())
            .map(|j| match self {
                IndexOrder::C => dims[j + 1..].iter().product(),
                IndexOrder::F => dims[..j].iter().product(),
            })
            .collect()
    }

    /// The axis whose coordinate needs no `mod` (the slowest-varying one).
    fn outermost(self, ndim: usize) -> usize {
        match self {
            IndexOrder::C => 0,
            IndexOrder::F => ndim.saturating_sub(1),
        }
    }
}

fn only_int_indices(a: &Array) -> Result<()> {
    if a.dtype().is_int() || a.dtype() == DType::Bool {
        Ok(())
    } else {
        Err(Error::invalid("only int indices permitted"))
    }
}

/// `np.unravel_index(indices, shape)` (C order): one coordinate array per axis, async (reads
/// the indices' min and max back to check them).
pub async fn unravel_index_async(indices: &Array, shape: &[usize]) -> Result<Vec<Array>> {
    unravel_index_order_async(indices, shape, IndexOrder::C).await
}

/// `np.unravel_index(indices, shape, order)`: one coordinate array per axis (dtype: the
/// device's default integer), async (reads the indices' min and max back to check them, one
/// sync, as NumPy raises on an out-of-bounds index).
pub async fn unravel_index_order_async(
    indices: &Array,
    shape: &[usize],
    order: IndexOrder,
) -> Result<Vec<Array>> {
    only_int_indices(indices)?;
    let size = size_of(shape);
    if indices.size() > 0 {
        let lo = crate::reduce::min(indices, crate::reduce::Axis::All, false)?
            .item_async()
            .await?;
        let hi = crate::reduce::max(indices, crate::reduce::Axis::All, false)?
            .item_async()
            .await?;
        for v in [lo, hi] {
            let v = v.as_f64() as i64;
            if v < 0 || v >= size as i64 {
                return Err(Error::invalid(format!(
                    "index {v} is out of bounds for array with size {size}"
                )));
            }
        }
    }
    let dt = indices.device().default_int();
    let x = indices.astype(dt)?;
    let strides = order.strides(shape);
    let outer = order.outermost(shape.len());
    let mut out = Vec::with_capacity(shape.len());
    for j in 0..shape.len() {
        let mut c = x.clone();
        if strides[j] > 1 {
            c = ufuncs::floor_divide(&c, strides[j] as i64)?;
        }
        if j != outer && shape[j] > 0 {
            c = ufuncs::remainder(&c, shape[j] as i64)?;
        }
        out.push(c);
    }
    Ok(out)
}

/// `np.unravel_index(indices, shape)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn unravel_index(indices: &Array, shape: &[usize]) -> Result<Vec<Array>> {
    pollster::block_on(unravel_index_async(indices, shape))
}

/// `np.unravel_index(indices, shape, order)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn unravel_index_order(
    indices: &Array,
    shape: &[usize],
    order: IndexOrder,
) -> Result<Vec<Array>> {
    pollster::block_on(unravel_index_order_async(indices, shape, order))
}

/// `np.ravel_multi_index(multi_index, dims, mode)` (C order), async (`mode='raise'` reads the
/// coordinates' bounds back).
pub async fn ravel_multi_index_async(
    multi_index: &[Array],
    dims: &[usize],
    mode: TakeMode,
) -> Result<Array> {
    ravel_multi_index_modes_async(multi_index, dims, &[mode], IndexOrder::C).await
}

/// `np.ravel_multi_index(multi_index, dims, mode, order)` with NumPy's full `mode=`: one
/// [`TakeMode`] for every axis, or one per axis (`modes.len() == dims.len()`). The coordinate
/// arrays broadcast together; the result has the device's default integer dtype. Async: every
/// axis in `Raise` mode reads its coordinates' min and max back (one sync per such axis).
pub async fn ravel_multi_index_modes_async(
    multi_index: &[Array],
    dims: &[usize],
    modes: &[TakeMode],
    order: IndexOrder,
) -> Result<Array> {
    if multi_index.len() != dims.len() {
        return Err(Error::invalid(format!(
            "parameter multi_index must be a sequence of length {}",
            dims.len()
        )));
    }
    if modes.len() != 1 && modes.len() != dims.len() {
        return Err(Error::invalid(format!(
            "list of clipmodes has wrong length ({} instead of {})",
            modes.len(),
            dims.len()
        )));
    }
    let device = Device::current()?;
    let dt = device.default_int();
    let strides = order.strides(dims);
    let mut acc: Option<Array> = None;
    for (j, (c, &d)) in multi_index.iter().zip(dims).enumerate() {
        only_int_indices(c)?;
        let mode = modes[if modes.len() == 1 { 0 } else { j }];
        let c = c.astype(dt)?;
        let c = match mode {
            TakeMode::Raise => {
                if c.size() > 0 {
                    let lo = crate::reduce::min(&c, crate::reduce::Axis::All, false)?
                        .item_async()
                        .await?;
                    let hi = crate::reduce::max(&c, crate::reduce::Axis::All, false)?
                        .item_async()
                        .await?;
                    if lo.as_f64() < 0.0 || hi.as_f64() >= d as f64 {
                        return Err(Error::invalid("invalid entry in coordinates array"));
                    }
                }
                c
            }
            _ if d == 0 && c.size() > 0 => {
                return Err(Error::invalid(
                    "cannot unravel if shape has zero entries (is empty).",
                ))
            }
            _ if d == 0 => c,
            TakeMode::Wrap => ufuncs::remainder(&c, d as i64)?,
            TakeMode::Clip => ufuncs::clip(&c, 0i64, d as i64 - 1)?,
        };
        let term = ufuncs::multiply(&c, strides[j] as i64)?;
        acc = Some(match acc {
            None => term,
            Some(a) => ufuncs::add(&a, &term)?,
        });
    }
    match acc {
        Some(a) => Ok(a),
        None => Err(Error::invalid(
            "ravel_multi_index needs at least one dimension",
        )),
    }
}

/// `np.ravel_multi_index(multi_index, dims, mode)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn ravel_multi_index(multi_index: &[Array], dims: &[usize], mode: TakeMode) -> Result<Array> {
    pollster::block_on(ravel_multi_index_async(multi_index, dims, mode))
}

/// `np.ravel_multi_index(multi_index, dims, mode, order)` with a mode per axis.
#[cfg(not(target_arch = "wasm32"))]
pub fn ravel_multi_index_modes(
    multi_index: &[Array],
    dims: &[usize],
    modes: &[TakeMode],
    order: IndexOrder,
) -> Result<Array> {
    pollster::block_on(ravel_multi_index_modes_async(
        multi_index,
        dims,
        modes,
        order,
    ))
}

/// `np.diag_indices(n, ndim)`: `ndim` copies of `arange(n)`.
pub fn diag_indices(n: usize, ndim: usize) -> Result<Vec<Array>> {
    let device = Device::current()?;
    let a = arange_on(&device, n)?;
    Ok(vec![a; ndim])
}

/// `np.diag_indices_from(a)`: the indices of the main diagonal of `a` (at least 2-d, every
/// dimension of one length), on `a`'s device.
///
/// ```
/// let a = kupfer::zeros(&[3, 3], None)?;
/// let ix = kupfer::diag_indices_from(&a)?;
/// assert_eq!(ix.len(), 2);
/// assert_eq!(ix[1].astype(kupfer::DType::I32)?.to_vec::<i32>()?, vec![0, 1, 2]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn diag_indices_from(a: &Array) -> Result<Vec<Array>> {
    if a.ndim() < 2 {
        return Err(Error::invalid("input array must be at least 2-d"));
    }
    let n = a.shape()[0];
    if a.shape().iter().any(|&d| d != n) {
        return Err(Error::invalid(
            "All dimensions of input must be of equal length",
        ));
    }
    let ix = arange_on(a.device(), n)?;
    Ok(vec![ix; a.ndim()])
}

fn triangle(n: usize, k: i64, m: Option<usize>, lower: bool) -> Result<Vec<Array>> {
    let m = m.unwrap_or(n);
    let mut rows = Vec::new();
    let mut cols = Vec::new();
    for i in 0..n as i64 {
        for j in 0..m as i64 {
            let keep = if lower { j - i <= k } else { j - i >= k };
            if keep {
                rows.push(i);
                cols.push(j);
            }
        }
    }
    let device = Device::current()?;
    let len = rows.len();
    Ok(vec![
        int_array(&device, &rows, &[len])?,
        int_array(&device, &cols, &[len])?,
    ])
}

/// `np.tril_indices(n, k, m)`: row and column indices of the lower triangle (computed on the
/// host and uploaded).
pub fn tril_indices(n: usize, k: i64, m: Option<usize>) -> Result<Vec<Array>> {
    triangle(n, k, m, true)
}

/// `np.triu_indices(n, k, m)`: row and column indices of the upper triangle.
pub fn triu_indices(n: usize, k: i64, m: Option<usize>) -> Result<Vec<Array>> {
    triangle(n, k, m, false)
}
