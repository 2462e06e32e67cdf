//! Permutations and sampling without replacement: element `e` of a random permutation of
//! [0, n) is a keyed bijection of `e` computed where it is used (see
//! [`kupfer_core::random`]: a Feistel network walked along its cycles), so `permutation(n)`
//! is one kernel with no sort, and `choice(n, k, replace=False)` computes only its k elements.

use super::Generator;
use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use kupfer_core::random::RandomOp;
use kupfer_core::{DType, Error, Result};

fn population(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::unsupported(format!(
            "permutations of more than 2^32 - 1 elements ({n} requested)"
        ))
    })
}

impl Generator {
    /// A random permutation of `0..n` (`Generator.permutation(n)`): int64 where the adapter
    /// has it, else int32.
    ///
    /// ```
    /// let p = kupfer::random::default_rng(Some(1)).permutation(10)?;
    /// let mut v = p.astype(kupfer::DType::I32)?.to_vec::<i32>()?;
    /// v.sort();
    /// assert_eq!(v, (0..10).collect::<Vec<i32>>());
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn permutation(&self, n: usize) -> Result<Array> {
        self.sample_without_replacement(n, &[n])
    }

    /// `size` distinct integers of `0..n` in random order: the first elements of a random
    /// permutation (`Generator.choice(n, size, replace=False)`).
    pub fn sample_without_replacement(&self, n: usize, size: &[usize]) -> Result<Array> {
        let k: usize = size.iter().product();
        if k > n {
            return Err(Error::invalid(
                "Cannot take a larger sample than population when replace is False",
            ));
        }
        let n32 = population(n)?;
        let param = Lazy::scalar(n32.to_le_bytes().to_vec(), DType::U32);
        let p = self.draw(RandomOp::Permute, size, DType::U32, vec![param])?;
        p.astype(Device::current()?.default_int())
    }

    /// Integers of `0..n` (`Generator.choice(n, size, replace)`): uniform with replacement,
    /// or distinct without.
    pub fn choice(&self, n: usize, size: &[usize], replace: bool) -> Result<Array> {
        let k: usize = size.iter().product();
        if n == 0 && k > 0 {
            return Err(Error::invalid(
                "a cannot be empty unless no samples are taken",
            ));
        }
        if !replace {
            return self.sample_without_replacement(n, size);
        }
        if k == 0 {
            let dtype = Device::current()?.default_int();
            return crate::creation::zeros(size, Some(dtype));
        }
        self.integers(0, Some(n as i64), size, None, false)
    }
}

/// The length of `x` along `axis` (NumPy's AxisError wording when out of range).
#[cfg(not(target_arch = "wasm32"))]
fn axis_len(x: &Array, axis: isize) -> Result<(usize, usize)> {
    let ax = kupfer_core::layout::normalize_axis(axis, x.ndim())?;
    Ok((ax, x.shape()[ax]))
}

#[cfg(not(target_arch = "wasm32"))]
impl Generator {
    /// A copy of `x` with its slices along `axis` in random order (`Generator.permutation(x,
    /// axis)` for an array): one gather through a random permutation of the axis.
    pub fn permutation_of(&self, x: &Array, axis: isize) -> Result<Array> {
        if x.ndim() == 0 {
            return Err(Error::invalid(
                "axis 0 is out of bounds for array of dimension 0",
            ));
        }
        let (ax, n) = axis_len(x, axis)?;
        let p = self.permutation(n)?;
        crate::take(x, &p.into(), Some(ax as isize), crate::TakeMode::Clip)
    }

    /// Shuffles `x` in place along `axis` (`Generator.shuffle(x, axis)`): the slices along
    /// the axis are put in a random order (the permuted copy is materialised, then written
    /// back, so `x` may be any writable array or view).
    ///
    /// ```
    /// let x = kupfer::arange(0, 10, 1, Some(kupfer::DType::I32))?;
    /// kupfer::random::default_rng(Some(3)).shuffle(&x, 0)?;
    /// let mut v = x.to_vec::<i32>()?;
    /// v.sort();
    /// assert_eq!(v, (0..10).collect::<Vec<i32>>());
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn shuffle(&self, x: &Array, axis: isize) -> Result<()> {
        if x.ndim() == 0 {
            return Err(Error::invalid("len() of unsized object"));
        }
        let y = self.permutation_of(x, axis)?;
        y.eval()?;
        crate::copyto(x, &y, crate::Casting::Unsafe, None)
    }

    /// `x` with each 1-D slice along `axis` shuffled independently (`Generator.permuted(x,
    /// axis)`), or all elements shuffled when `axis` is `None` (the result has `x`'s shape).
    /// Each slice gets its own keyed permutation (no sort): one kernel for the indices, one
    /// gather.
    pub fn permuted(&self, x: &Array, axis: Option<isize>) -> Result<Array> {
        let Some(axis) = axis else {
            let flat = x.ravel()?;
            let p = self.permutation(flat.size())?;
            return crate::take(&flat, &p.into(), Some(0), crate::TakeMode::Clip)?
                .reshape(&x.shape().iter().map(|&d| d as isize).collect::<Vec<_>>());
        };
        if x.ndim() == 0 {
            return Err(Error::invalid(format!(
                "axis {axis} is out of bounds for array of dimension 0"
            )));
        }
        let (ax, n) = axis_len(x, axis)?;
        let last = x.ndim() as isize - 1;
        let moved = crate::moveaxis(x, &[ax as isize], &[last])?;
        let n32 = population(n)?;
        let param = Lazy::scalar(n32.to_le_bytes().to_vec(), DType::U32);
        let idx = self.draw(
            RandomOp::PermuteRows,
            moved.shape(),
            DType::U32,
            vec![param],
        )?;
        let idx = idx.astype(Device::current()?.default_int())?;
        let y = crate::take_along_axis(&moved, &idx, Some(last))?;
        crate::moveaxis(&y, &[last], &[ax as isize])
    }

    /// [`Generator::permuted`] written into `out` (NumPy's `permuted(x, axis, out=out)`):
    /// `out` must have `x`'s shape ("out must have the same shape as x") and `x` must cast to
    /// it safely; `out` may be `x` itself (an in-place shuffle). Returns `out`.
    ///
    /// ```
    /// let x = kupfer::arange(0, 6, 1, Some(kupfer::DType::I32))?.reshape(&[2, 3])?;
    /// let rng = kupfer::random::default_rng(Some(2));
    /// rng.permuted_into(&x, Some(1), &x)?; // each row shuffled in place
    /// let mut v = x.to_vec::<i32>()?;
    /// v[..3].sort();
    /// assert_eq!(v[..3], [0, 1, 2]);
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn permuted_into(&self, x: &Array, axis: Option<isize>, out: &Array) -> Result<Array> {
        if out.shape() != x.shape() {
            return Err(Error::invalid("out must have the same shape as x"));
        }
        let y = self.permuted(x, axis)?;
        y.eval()?;
        crate::copyto(out, &y, crate::Casting::Safe, None)?;
        Ok(out.clone())
    }
}

impl Generator {
    /// Elements (slices along `axis`) of `a` drawn at random (`Generator.choice(a, size,
    /// replace, p, axis, shuffle)`): uniformly, or with probabilities `p` (1-D, one per slice,
    /// summing to 1); with replacement, or distinct without. The result has shape
    /// `a.shape[:axis] + size + a.shape[axis + 1:]`. Without replacement the sample is always
    /// in random order (`shuffle` is accepted and has no effect: NumPy leaves the order of an
    /// unshuffled sample unspecified). Reads `p` back: native only; see
    /// [`Generator::choice_from_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn choice_from(
        &self,
        a: &Array,
        size: &[usize],
        replace: bool,
        p: Option<&Array>,
        axis: isize,
        shuffle: bool,
    ) -> Result<Array> {
        pollster::block_on(self.choice_from_async(a, size, replace, p, axis, shuffle))
    }

    /// [`Generator::choice_from`] with asynchronous read-backs (wasm32 and native).
    pub async fn choice_from_async(
        &self,
        a: &Array,
        size: &[usize],
        replace: bool,
        p: Option<&Array>,
        axis: isize,
        shuffle: bool,
    ) -> Result<Array> {
        let probs = match p {
            None => None,
            Some(p) => Some(read_probabilities(p).await?),
        };
        let probs = probs.as_ref().map(|(v, d)| (v.as_slice(), *d));
        self.choice_from_probabilities(a, size, replace, probs, axis, shuffle)
            .await
    }

    /// [`Generator::choice_from`] with the probabilities given on the host (`p` and the dtype
    /// whose precision the sum-to-1 check allows for): no read-back before the gather, so the
    /// browser can draw with a literal `p`.
    pub async fn choice_from_probabilities(
        &self,
        a: &Array,
        size: &[usize],
        replace: bool,
        p: Option<(&[f64], DType)>,
        axis: isize,
        shuffle: bool,
    ) -> Result<Array> {
        let _ = shuffle;
        if a.ndim() == 0 {
            return Err(Error::invalid("a must be 1-dimensional or an integer"));
        }
        let ax = kupfer_core::layout::normalize_axis(axis, a.ndim())?;
        let n = a.shape()[ax];
        let idx = self.choice_indices_probabilities(n, size, replace, p)?;
        crate::take_async(a, &idx.into(), Some(ax as isize), crate::TakeMode::Clip).await
    }

    /// Indices of `0..n` drawn as [`Generator::choice_from`] draws them (reads `p` back:
    /// native only; [`Generator::choice_indices_async`] everywhere).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn choice_indices(
        &self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: Option<&Array>,
    ) -> Result<Array> {
        pollster::block_on(self.choice_indices_async(n, size, replace, p))
    }

    /// [`Generator::choice_indices`] with an asynchronous read-back of `p`.
    pub async fn choice_indices_async(
        &self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: Option<&Array>,
    ) -> Result<Array> {
        let probs = match p {
            None => None,
            Some(p) => Some(read_probabilities(p).await?),
        };
        let probs = probs.as_ref().map(|(v, d)| (v.as_slice(), *d));
        self.choice_indices_probabilities(n, size, replace, probs)
    }

    /// Indices of `0..n` drawn uniformly (`p` `None`, see [`Generator::choice`]) or with the
    /// host probabilities `p` (values and the dtype they came in, checked as NumPy checks
    /// them): with replacement by inverting the float64 cumulative sum in exact fixed point
    /// (NumPy's `cdf.searchsorted(u, side='right')` for a 53-bit uniform `u`), without by the
    /// `size` smallest of `E_i / p_i` for standard exponentials `E_i` (exponential races: the
    /// same law as NumPy's successive draws without replacement). Nothing is read back, and a
    /// seed gives the same indices on every adapter (see `random/weighted.rs`).
    pub fn choice_indices_probabilities(
        &self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: Option<(&[f64], DType)>,
    ) -> Result<Array> {
        let k: usize = size.iter().product();
        if n == 0 && k > 0 {
            return Err(Error::invalid(
                "a cannot be empty unless no samples are taken",
            ));
        }
        let Some((probs, p_dtype)) = p else {
            return self.choice(n, size, replace);
        };
        check_probabilities(probs, p_dtype, n)?;
        if !replace && k <= n && probs.iter().filter(|&&q| q > 0.0).count() < k {
            return Err(Error::invalid("Fewer non-zero entries in p than size"));
        }
        if k == 0 {
            let dtype = Device::current()?.default_int();
            return crate::creation::zeros(size, Some(dtype));
        }
        self.weighted_from_host(probs, size, replace)
    }
}

impl Generator {
    /// [`Generator::choice_from`] with a device `p` read nothing back (see
    /// [`Generator::choice_indices_unchecked`]: only shapes are checked): the browser's path.
    pub async fn choice_from_unchecked(
        &self,
        a: &Array,
        size: &[usize],
        replace: bool,
        p: &Array,
        axis: isize,
    ) -> Result<Array> {
        if a.ndim() == 0 {
            return Err(Error::invalid("a must be 1-dimensional or an integer"));
        }
        let ax = kupfer_core::layout::normalize_axis(axis, a.ndim())?;
        let idx = self.choice_indices_unchecked(a.shape()[ax], size, replace, p)?;
        crate::take_async(a, &idx.into(), Some(ax as isize), crate::TakeMode::Clip).await
    }

    /// Indices of `0..n` drawn with the probabilities `p` (a device array, read as float32)
    /// without reading anything back: the cumulative sum is taken in float32 in an order fixed
    /// by n, divided by its total exactly into fixed-point thresholds and inverted by a binary
    /// search, or, without replacement, the `size` smallest `E_i / p_i` are taken. A seed and
    /// a float32 `p` give the same indices on every adapter with replacement (as long as no
    /// cumulative sum is subnormal, which WGSL may flush to zero); without, the driver divides
    /// by `p_i` (WGSL allows 2.5 ulp), so keys may differ in their last bit between drivers.
    /// The host path ([`Generator::choice_indices`]) gives the same indices as this one when
    /// the float32 and float64 cumulative sums agree (e.g. a `p` of a few binary digits).
    /// Only the shapes are checked — NumPy's checks of
    /// the values (non-negative, summing to 1, enough non-zero entries) need a read-back —
    /// so this is the browser's path for a `p` array; natively
    /// [`Generator::choice_indices`] checks them.
    ///
    /// ```
    /// let rng = kupfer::random::default_rng(Some(1));
    /// let p = kupfer::Array::from_slice(&[0.0f32, 1.0, 0.0], &[3])?;
    /// let k = rng.choice_indices_unchecked(3, &[4], true, &p)?;
    /// assert_eq!(k.astype(kupfer::DType::I32)?.to_vec::<i32>()?, vec![1; 4]);
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn choice_indices_unchecked(
        &self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: &Array,
    ) -> Result<Array> {
        if p.ndim() != 1 {
            return Err(Error::invalid("p must be 1-dimensional"));
        }
        if p.size() != n {
            return Err(Error::invalid("a and p must have same size"));
        }
        let k: usize = size.iter().product();
        if n == 0 && k > 0 {
            return Err(Error::invalid(
                "a cannot be empty unless no samples are taken",
            ));
        }
        if !replace && k > n {
            return Err(Error::invalid(
                "Cannot take a larger sample than population when replace is False",
            ));
        }
        if k == 0 {
            let dtype = Device::current()?.default_int();
            return crate::creation::zeros(size, Some(dtype));
        }
        self.weighted_from_device(p, size, replace)
    }
}

/// `p` read back as float64 values with its dtype ("p must be 1-dimensional" first).
async fn read_probabilities(p: &Array) -> Result<(Vec<f64>, DType)> {
    if p.ndim() != 1 {
        return Err(Error::invalid("p must be 1-dimensional"));
    }
    let v = if p.dtype() == DType::F64 {
        p.to_vec_async::<f64>().await?
    } else {
        let v = p.astype(DType::F32)?.to_vec_async::<f32>().await?;
        v.into_iter().map(f64::from).collect()
    };
    Ok((v, p.dtype()))
}

/// NumPy's checks of `choice`'s probabilities `probs` (of dtype `dtype`) for `n` elements.
fn check_probabilities(probs: &[f64], dtype: DType, n: usize) -> Result<()> {
    if probs.len() != n {
        return Err(Error::invalid("a and p must have same size"));
    }
    if probs.iter().any(|q| q.is_nan()) {
        return Err(Error::invalid("Probabilities contain NaN"));
    }
    if probs.iter().any(|&q| q < 0.0) {
        return Err(Error::invalid("Probabilities are not non-negative"));
    }
    let eps = if dtype == DType::F32 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    if (probs.iter().sum::<f64>() - 1.0).abs() > eps.sqrt().max(f64::EPSILON.sqrt()) {
        return Err(Error::invalid(
            "Probabilities do not sum to 1. See Notes section of docstring for more information.",
        ));
    }
    Ok(())
}
