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

    /// Elements (slices along `axis`) of `a` drawn at random (`Generator.choice(a, size,
    /// replace, p, axis, shuffle)`): uniformly, or with probabilities `p` (1-D, one per slice,
    /// summing to 1); with replacement, or distinct without. The result has shape
    /// `a.shape[:axis] + size + a.shape[axis + 1:]`. Without replacement the sample is always
    /// in random order (`shuffle` is accepted and has no effect: NumPy leaves the order of an
    /// unshuffled sample unspecified).
    pub fn choice_from(
        &self,
        a: &Array,
        size: &[usize],
        replace: bool,
        p: Option<&Array>,
        axis: isize,
        shuffle: bool,
    ) -> Result<Array> {
        let _ = shuffle;
        if a.ndim() == 0 {
            return Err(Error::invalid("a must be 1-dimensional or an integer"));
        }
        let (ax, n) = axis_len(a, axis)?;
        let idx = self.choice_indices(n, size, replace, p)?;
        crate::take(a, &idx.into(), Some(ax as isize), crate::TakeMode::Clip)
    }

    /// Indices of `0..n` drawn as [`Generator::choice_from`] draws them: uniform (`p` `None`,
    /// see [`Generator::choice`]) or with probabilities `p`: with replacement by inverting the
    /// cumulative sum (a binary search per draw), without by the `size` smallest of `E_i / p_i`
    /// for standard exponentials `E_i` (exponential races: the same law as NumPy's successive
    /// draws without replacement).
    pub fn choice_indices(
        &self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: Option<&Array>,
    ) -> Result<Array> {
        let k: usize = size.iter().product();
        if n == 0 && k > 0 {
            return Err(Error::invalid(
                "a cannot be empty unless no samples are taken",
            ));
        }
        let Some(p) = p else {
            return self.choice(n, size, replace);
        };
        let probs = check_probabilities(p, n)?;
        if !replace && k > n {
            return Err(Error::invalid(
                "Cannot take a larger sample than population when replace is False",
            ));
        }
        let device = Device::current()?;
        let int = device.default_int();
        if k == 0 {
            return crate::creation::zeros(size, Some(int));
        }
        let fdt = if device.supports(DType::F64) {
            DType::F64
        } else {
            DType::F32
        };
        if replace {
            // The normalised cumulative sum, exactly 1 from the last positive probability on
            // (so a uniform below 1 never lands on a trailing zero-probability entry).
            let total: f64 = probs.iter().sum();
            let last = probs.iter().rposition(|&q| q > 0.0).unwrap_or(0);
            let mut acc = 0.0;
            let cdf: Vec<f64> = probs
                .iter()
                .enumerate()
                .map(|(i, &q)| {
                    acc += q;
                    if i >= last {
                        1.0
                    } else {
                        acc / total
                    }
                })
                .collect();
            let cdf = Array::from_slice(&cdf, &[n])?.astype(fdt)?;
            let u = self.random(size, Some(fdt))?;
            let idx = crate::searchsorted(&cdf, &u.ravel()?, crate::sort::Side::Right, None)?;
            return idx.astype(int)?.reshape(&signed(size));
        }
        let positive = probs.iter().filter(|&&q| q > 0.0).count();
        if positive < k {
            return Err(Error::invalid("Fewer non-zero entries in p than size"));
        }
        let pa = Array::from_slice(&probs, &[n])?.astype(fdt)?;
        let keys = crate::ufuncs::divide(self.standard_exponential(&[n], Some(fdt))?, &pa)?;
        let order = crate::argsort(&keys, Some(0), Some("stable"))?;
        let first = crate::take(
            &order,
            &crate::arange(0, k as i64, 1, Some(DType::I32))?.into(),
            Some(0),
            crate::TakeMode::Clip,
        )?;
        first.astype(int)?.reshape(&signed(size))
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn signed(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

/// `p` read back and checked as NumPy checks `choice`'s probabilities.
#[cfg(not(target_arch = "wasm32"))]
fn check_probabilities(p: &Array, n: usize) -> Result<Vec<f64>> {
    if p.ndim() != 1 {
        return Err(Error::invalid("p must be 1-dimensional"));
    }
    if p.size() != n {
        return Err(Error::invalid("a and p must have same size"));
    }
    let probs = super::multivariate::read_f64(p)?;
    if probs.iter().any(|q| q.is_nan()) {
        return Err(Error::invalid("Probabilities contain NaN"));
    }
    if probs.iter().any(|&q| q < 0.0) {
        return Err(Error::invalid("Probabilities are not non-negative"));
    }
    let eps = if p.dtype() == DType::F32 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    if (probs.iter().sum::<f64>() - 1.0).abs() > eps.sqrt().max(f64::EPSILON.sqrt()) {
        return Err(Error::invalid(
            "Probabilities do not sum to 1. See Notes section of docstring for more information.",
        ));
    }
    Ok(probs)
}
