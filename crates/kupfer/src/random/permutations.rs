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
