//! `sort`, `argsort`, `sort_complex` and `lexsort` along any axis (see the [module
//! docs](super) for the order, the kinds and the algorithm).

use super::engine::{self, Perm};
use crate::array::Array;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Error, Layout, Result};

/// An array viewed as rows along one axis: contiguous `(nrows, rowlen)` data, the shape
/// with the axis last, and the axes that move it back.
pub(crate) struct Rows {
    pub(crate) data: Array,
    pub(crate) nrows: usize,
    pub(crate) rowlen: usize,
    pub(crate) moved_shape: Vec<usize>,
    pub(crate) back: Option<Vec<isize>>,
}

impl Rows {
    /// `a` with `axis` last (None: flattened), materialised C-contiguous.
    pub(crate) fn along(a: &Array, axis: Option<isize>) -> Result<Rows> {
        let (moved, back) = match axis {
            None => (a.reshape(&[-1])?, None),
            Some(ax) => {
                let ax = normalize_axis(ax, a.ndim())?;
                let nd = a.ndim();
                if ax == nd - 1 {
                    (a.clone(), None)
                } else {
                    let mut perm: Vec<isize> =
                        (0..nd as isize).filter(|&k| k != ax as isize).collect();
                    perm.push(ax as isize);
                    let mut back = vec![0isize; nd];
                    for (pos, &k) in perm.iter().enumerate() {
                        back[k as usize] = pos as isize;
                    }
                    (a.transpose(Some(&perm))?, Some(back))
                }
            }
        };
        let moved_shape = moved.shape().to_vec();
        let rowlen = moved_shape.last().copied().unwrap_or(1);
        let nrows = moved.size().checked_div(rowlen).unwrap_or(0);
        Ok(Rows {
            data: moved.ascontiguousarray()?,
            nrows,
            rowlen,
            moved_shape,
            back,
        })
    }

    /// A `(nrows, rowlen)`-shaped contiguous result in the input's axis order.
    pub(crate) fn restore(&self, result: Array) -> Result<Array> {
        let shape: Vec<isize> = self.moved_shape.iter().map(|&s| s as isize).collect();
        let r = result.reshape(&shape)?;
        match &self.back {
            Some(back) => r.transpose(Some(back)),
            None => Ok(r),
        }
    }

    /// The stable sorting permutation of every row.
    pub(crate) fn perm(&self) -> Result<Perm> {
        engine::sort_rows(&self.data, self.nrows, self.rowlen)
    }

    /// The rows sorted (nrows, rowlen), from a permutation.
    pub(crate) fn gather(&self, perm: &Perm) -> Result<Array> {
        let n = self.nrows * self.rowlen;
        let (buf, local) = match perm {
            Perm::Local(b) => (b, true),
            Perm::Global(b) => (b, false),
        };
        engine::take_rows(
            &self.data,
            self.rowlen,
            buf,
            n,
            local,
            self.nrows,
            self.rowlen,
            self.rowlen,
        )
    }

    /// Positions within the rows (default integer dtype) from a permutation.
    pub(crate) fn positions(&self, perm: Perm) -> Result<Array> {
        let device = self.data.device();
        let n = self.nrows * self.rowlen;
        let layout = Layout::contiguous(&[n]);
        let int = device.default_int();
        match perm {
            Perm::Local(b) => Array::from_buffer(device.clone(), DType::U32, b, layout).astype(int),
            Perm::Global(b) => {
                let flat = Array::from_buffer(device.clone(), DType::U32, b, layout);
                if self.nrows == 1 {
                    return flat.astype(int);
                }
                crate::ufuncs::remainder(&flat, self.rowlen as u32)?.astype(int)
            }
        }
    }
}

/// Whether `KUPFER_SORT_KEYS=payload` (read once) sends every `sort` through the sorting
/// permutation and a gather, and `argsort` through u32 positions and a cast (the paths the
/// keys-only sorts and the int64 positions replaced, for timing).
fn payload_knob() -> bool {
    static PAYLOAD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PAYLOAD.get_or_init(|| std::env::var("KUPFER_SORT_KEYS").is_ok_and(|v| v == "payload"))
}

/// A sorted copy of `a` along `axis` (`None`: the flattened array), as `numpy.sort`. NaN
/// sorts last, -0.0 equals 0.0, complex values order by real then imaginary part. `kind`:
/// `'quicksort'`, `'mergesort'`, `'heapsort'`, `'stable'` or None; elements keep their bits
/// (NaN payloads, -0.0). The stable kinds keep NumPy's stable order; the others may order
/// -0.0 before 0.0 and NaNs by their bits, as NumPy's unstable kinds may (see the
/// [module docs](super)).
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3.0f32, f32::NAN, -1.0, 2.0], &[2, 2])?;
/// let rows = kp::sort(&a, Some(-1), None)?; // [[3, nan], [-1, 2]]
/// assert_eq!(kp::sort(&a, None, None)?.to_vec::<f32>()?[..3], [-1.0, 2.0, 3.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn sort(a: &Array, axis: Option<isize>, kind: Option<&str>) -> Result<Array> {
    let stable = super::check_kind(kind)?;
    let rows = Rows::along(a, axis)?;
    if rows.nrows * rows.rowlen == 0 {
        return rows.restore(
            rows.data
                .reshape(&[rows.nrows as isize, rows.rowlen as isize])?,
        );
    }
    let device = a.device();
    // Keys alone where the order of equal keys cannot show: the unstable kinds, and integers
    // (whose equal keys are identical values) of every kind.
    let keys_alone = (!stable || a.dtype().is_int()) && !payload_knob();
    if keys_alone
        && rows.nrows == 1
        && rows.rowlen > engine::row_limit(device)
        && engine::keys_only_dtype(a.dtype())
    {
        return rows.restore(engine::sort_keys_only(&rows.data)?);
    }
    if keys_alone
        && let Some(sorted) = super::rows_keys::sort_rows_keys(&rows.data, rows.nrows, rows.rowlen)?
    {
        return rows.restore(sorted);
    }
    let perm = rows.perm()?;
    rows.restore(rows.gather(&perm)?)
}

/// The indices that sort `a` along `axis` (`None`: the flattened array), as
/// `numpy.argsort`: positions along the axis, in the default integer dtype (int64 where the
/// adapter has it). Stable for every `kind`: equal values keep their order.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3i32, 1, 2, 1], &[4])?;
/// assert_eq!(kp::argsort(&a, Some(-1), Some("stable"))?.astype(kp::DType::I32)?
///     .to_vec::<i32>()?, vec![1, 3, 2, 0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn argsort(a: &Array, axis: Option<isize>, kind: Option<&str>) -> Result<Array> {
    super::check_kind(kind)?;
    let rows = Rows::along(a, axis)?;
    if rows.nrows * rows.rowlen == 0 {
        let z = crate::creation::full_on(
            a.device(),
            &[rows.nrows, rows.rowlen],
            0i64,
            Some(a.device().default_int()),
        )?;
        return rows.restore(z);
    }
    if rows.nrows == 1
        && !payload_knob()
        && let Some(positions) = engine::argsort_int64(&rows.data)?
    {
        return rows.restore(positions);
    }
    let perm = rows.perm()?;
    rows.restore(rows.positions(perm)?)
}

/// `numpy.sort_complex`: `a` sorted along its last axis as complex values. Real float64 and
/// int64 input gives complex128; 32-bit and smaller real input gives complex64 (NumPy gives
/// complex128: kupfer never widens 32-bit types implicitly).
pub fn sort_complex(a: &Array) -> Result<Array> {
    let d = a.dtype();
    let c = match d {
        DType::Complex64 | DType::Complex128 => d,
        DType::F64 | DType::I64 | DType::U64 => DType::Complex128,
        _ => DType::Complex64,
    };
    let a = if a.ndim() == 0 {
        a.reshape(&[1])?
    } else {
        a.clone()
    };
    sort(&a.astype(c)?, Some(-1), None)
}

/// `numpy.lexsort`: the indices that sort by the last key first, then by the one before it,
/// and so on (each key an array of the same shape), along `axis` (normally -1); stable.
///
/// ```
/// use kupfer as kp;
/// let first = kp::Array::from_slice(&[1i32, 5, 1, 4], &[4])?;
/// let last = kp::Array::from_slice(&[9i32, 4, 0, 4], &[4])?;
/// let idx = kp::lexsort(&[first, last], -1)?; // sorted by `last`, ties by `first`
/// assert_eq!(idx.astype(kp::DType::I32)?.to_vec::<i32>()?, vec![2, 3, 1, 0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn lexsort(keys: &[Array], axis: isize) -> Result<Array> {
    let Some(first) = keys.first() else {
        return Err(Error::invalid(
            "need sequence of keys with len > 0 in lexsort",
        ));
    };
    for k in keys {
        if k.shape() != first.shape() {
            return Err(Error::ShapeMismatch {
                op: "lexsort: all keys need to be the same shape".into(),
                lhs: first.shape().to_vec(),
                rhs: k.shape().to_vec(),
            });
        }
    }
    let axis = if first.ndim() == 0 { None } else { Some(axis) };
    let rows: Vec<Rows> = keys
        .iter()
        .map(|k| Rows::along(k, axis))
        .collect::<Result<_>>()?;
    let r0 = &rows[rows.len() - 1];
    if r0.nrows * r0.rowlen == 0 {
        let z = crate::creation::full_on(
            first.device(),
            &[r0.nrows, r0.rowlen],
            0i64,
            Some(first.device().default_int()),
        )?;
        return r0.restore(z);
    }
    let primary_first: Vec<&Array> = rows.iter().rev().map(|r| &r.data).collect();
    let perm = engine::lexsort_rows(&primary_first, r0.nrows, r0.rowlen)?;
    let out = r0.positions(perm)?;
    if first.ndim() == 0 {
        return out.reshape(&[]);
    }
    r0.restore(out)
}

/// Checks NumPy's `kth` of `partition` against the axis length `n`.
fn check_kth(kth: &[isize], n: usize) -> Result<()> {
    for &k in kth {
        let k2 = if k < 0 { k + n as isize } else { k };
        if k2 < 0 || k2 >= n as isize {
            return Err(Error::invalid(format!("kth(={k2}) out of bounds ({n})")));
        }
    }
    Ok(())
}

fn axis_len(a: &Array, axis: Option<isize>) -> Result<usize> {
    Ok(match axis {
        None => a.size(),
        Some(ax) => a.shape()[normalize_axis(ax, a.ndim())?],
    })
}

/// `numpy.partition(a, kth, axis)` (`axis` None: the flattened array): each `kth` position
/// (an int or several; negative counts from the end) holds the value a sort would put
/// there, with smaller-or-equal values before it and larger-or-equal after (NumPy's order
/// inside the parts is unspecified, and so is kupfer's). Rows of at least 1024 elements with
/// at most 8 distinct `kth` are partitioned by radix selection and one bucket scatter (see
/// `sort/partition.rs`), anything else by a sort, which satisfies the contract too.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3i32, 4, 2, 1], &[4])?;
/// let p = kp::partition(&a, &[2], Some(-1))?;
/// assert_eq!(p.to_vec::<i32>()?[2], 3);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn partition(a: &Array, kth: &[isize], axis: Option<isize>) -> Result<Array> {
    check_kth(kth, axis_len(a, axis)?)?;
    if let Some(p) = super::partition::by_selection(a, kth, axis, false)? {
        return Ok(p);
    }
    sort(a, axis, None)
}

/// `numpy.argpartition(a, kth, axis)`: positions along `axis` (default integer dtype) that
/// partition `a` as [`partition`] does, by selection where [`partition`] selects and
/// otherwise the stable sorting indices.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3i32, 4, 2, 1], &[4])?;
/// let idx = kp::argpartition(&a, &[1], None)?.astype(kp::DType::I32)?.to_vec::<i32>()?;
/// assert_eq!(idx[1], 2); // a[2] == 2 is the second smallest
/// # Ok::<(), kp::Error>(())
/// ```
pub fn argpartition(a: &Array, kth: &[isize], axis: Option<isize>) -> Result<Array> {
    check_kth(kth, axis_len(a, axis)?)?;
    if let Some(p) = super::partition::by_selection(a, kth, axis, true)? {
        return Ok(p);
    }
    argsort(a, axis, None)
}

/// The whole array as an assignment target (`a[...]`).
fn everything() -> [crate::indexing::Index; 1] {
    [crate::indexing::Index::Basic(crate::SliceArg::Ellipsis)]
}

impl Array {
    /// NumPy's `a.sort(axis, kind)`, in place, async (the browser's form): `a` is sorted along
    /// `axis` (an axis is required: NumPy's method has no flattening form) as [`sort`] sorts,
    /// and the result is written into `a`'s memory through the assignment path
    /// (`a[...] = sorted`), so every view of the same memory sees it: sorting `a[::2]`, a
    /// column `a[:, 1]` or the transpose `a.T` changes `a` as NumPy's method does. No
    /// read-back. A 0-d array has no axis to sort along (NumPy's `AxisError`).
    pub async fn sort_in_place_async(&self, axis: isize, kind: Option<&str>) -> Result<()> {
        let sorted = sort(self, Some(axis), kind)?;
        if self.size() == 0 {
            return Ok(());
        }
        self.set_async(&everything(), sorted).await
    }

    /// NumPy's `a.sort(axis, kind)`, in place; see [`Array::sort_in_place_async`].
    ///
    /// ```
    /// use kupfer as kp;
    /// let a = kp::Array::from_slice(&[5i32, 1, 4, 2, 3, 0], &[6])?;
    /// let evens = a.slice(&[kp::SliceArg::Slice { start: None, stop: None, step: Some(2) }])?;
    /// evens.sort_in_place(-1, None)?; // a[::2].sort(): 5, 4, 3 become 3, 4, 5
    /// assert_eq!(a.to_vec::<i32>()?, vec![3, 1, 4, 2, 5, 0]);
    /// # Ok::<(), kp::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort_in_place(&self, axis: isize, kind: Option<&str>) -> Result<()> {
        pollster::block_on(self.sort_in_place_async(axis, kind))
    }

    /// NumPy's `a.partition(kth, axis)`, in place, async: `a` is partitioned along `axis` as
    /// [`partition`] does (each `kth` position holds the value a sort would put there,
    /// smaller-or-equal values before it, larger-or-equal after, in no particular order) and
    /// written into `a`'s memory like [`Array::sort_in_place_async`]. An array with no
    /// elements is left as it is whatever `kth` is (as NumPy does).
    pub async fn partition_in_place_async(&self, kth: &[isize], axis: isize) -> Result<()> {
        let n = axis_len(self, Some(axis))?;
        if self.size() == 0 {
            return Ok(());
        }
        check_kth(kth, n)?;
        let parted = partition(self, kth, Some(axis))?;
        self.set_async(&everything(), parted).await
    }

    /// NumPy's `a.partition(kth, axis)`, in place; see [`Array::partition_in_place_async`].
    ///
    /// ```
    /// use kupfer as kp;
    /// let a = kp::Array::from_slice(&[3i32, 4, 2, 1], &[4])?;
    /// a.partition_in_place(&[2], -1)?;
    /// let v = a.to_vec::<i32>()?;
    /// assert_eq!(v[2], 3);
    /// assert!(v[..2].iter().all(|&x| x <= 3) && v[3] >= 3);
    /// # Ok::<(), kp::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn partition_in_place(&self, kth: &[isize], axis: isize) -> Result<()> {
        pollster::block_on(self.partition_in_place_async(kth, axis))
    }
}
