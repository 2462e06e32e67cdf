//! NumPy's module-level random functions (`np.random.rand`, `randn`, `randint`, ...) on one
//! process-wide [`Generator`], reseeded by [`seed`]. Unlike NumPy's legacy `RandomState`
//! (Mersenne Twister) they draw from Philox like every kupfer generator.

use super::Generator;
use crate::array::Array;
use crate::scalar::Operand;
use kupfer_core::{DType, Result};
use std::sync::{Mutex, OnceLock};

fn global() -> &'static Mutex<Generator> {
    static GLOBAL: OnceLock<Mutex<Generator>> = OnceLock::new();
    GLOBAL.get_or_init(|| Mutex::new(Generator::from_entropy()))
}

/// The process-wide generator the module functions draw from (a handle sharing its state).
pub fn global_generator() -> Generator {
    global().lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Reseeds the process-wide generator (`np.random.seed`); `None` seeds from entropy.
pub fn seed(seed: Option<u64>) {
    *global().lock().unwrap_or_else(|p| p.into_inner()) = super::default_rng(seed);
}

/// Uniform float32 in [0, 1) of shape `shape` (`np.random.rand(d0, d1, ...)`).
pub fn rand(shape: &[usize]) -> Result<Array> {
    global_generator().random(shape, None)
}

/// Standard normal float32 of shape `shape` (`np.random.randn(d0, d1, ...)`).
pub fn randn(shape: &[usize]) -> Result<Array> {
    global_generator().standard_normal(shape, None)
}

/// Integers in [low, high), or [0, low) without `high` (`np.random.randint`).
pub fn randint(low: i64, high: Option<i64>, size: &[usize], dtype: Option<DType>) -> Result<Array> {
    global_generator().integers(low, high, size, dtype, false)
}

/// [`randint`] with array bounds that broadcast with each other and with `size`
/// (`np.random.randint([1, 5], 10)`), on the global generator
/// ([`Generator::integers_broadcast`]).
pub fn randint_broadcast(
    low: Operand,
    high: Option<Operand>,
    size: Option<&[usize]>,
    dtype: Option<DType>,
) -> Result<Array> {
    global_generator().integers_broadcast(low, high, size, dtype, false)
}

/// Uniform float32 in [0, 1) (`np.random.random_sample` / `np.random.random`).
pub fn random_sample(size: &[usize]) -> Result<Array> {
    global_generator().random(size, None)
}

/// Uniform floats in [low, high) (`np.random.uniform`).
pub fn uniform(
    low: impl Into<Operand>,
    high: impl Into<Operand>,
    size: Option<&[usize]>,
) -> Result<Array> {
    global_generator().uniform(low, high, size)
}

/// Normal floats (`np.random.normal`).
pub fn normal(
    loc: impl Into<Operand>,
    scale: impl Into<Operand>,
    size: Option<&[usize]>,
) -> Result<Array> {
    global_generator().normal(loc, scale, size)
}

/// Standard normal float32 (`np.random.standard_normal`).
pub fn standard_normal(size: &[usize]) -> Result<Array> {
    global_generator().standard_normal(size, None)
}

/// A random permutation of `0..n` (`np.random.permutation(n)`).
pub fn permutation(n: usize) -> Result<Array> {
    global_generator().permutation(n)
}

/// Integers of `0..n`, with or without replacement (`np.random.choice(n, size, replace)`).
pub fn choice(n: usize, size: &[usize], replace: bool) -> Result<Array> {
    global_generator().choice(n, size, replace)
}

/// Uniform float32 in [0, 1) (`np.random.random`, an alias of [`random_sample`]).
pub fn random(size: &[usize]) -> Result<Array> {
    random_sample(size)
}

/// Shuffles `x` in place along its first axis (`np.random.shuffle`).
#[cfg(not(target_arch = "wasm32"))]
pub fn shuffle(x: &Array) -> Result<()> {
    global_generator().shuffle(x, 0)
}

/// Elements of the 1-D array `a` drawn at random, with probabilities `p` when given
/// (`np.random.choice(a, size, replace, p)`).
#[cfg(not(target_arch = "wasm32"))]
pub fn choice_from(a: &Array, size: &[usize], replace: bool, p: Option<&Array>) -> Result<Array> {
    if a.ndim() != 1 {
        return Err(kupfer_core::Error::invalid("a must be 1-dimensional"));
    }
    global_generator().choice_from(a, size, replace, p, 0, true)
}

/// Zipf counts of exponent `a > 1` (`np.random.zipf`).
pub fn zipf(a: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
    global_generator().zipf(a, size)
}

/// Hypergeometric counts (`np.random.hypergeometric`): as [`Generator::hypergeometric`], but
/// `nsample` must be at least 1, as in NumPy's legacy function.
pub fn hypergeometric(
    ngood: impl Into<Operand>,
    nbad: impl Into<Operand>,
    nsample: impl Into<Operand>,
    size: Option<&[usize]>,
) -> Result<Array> {
    let nsample = nsample.into();
    let below_one = match &nsample {
        Operand::Scalar(s) => s.as_f64() < 1.0 || s.as_f64().is_nan(),
        #[cfg(not(target_arch = "wasm32"))]
        Operand::Array(a) if a.size() > 0 => matches!(
            crate::reduce::any(&crate::ufuncs::less(a, 1)?, crate::reduce::Axis::All, false)?
                .item()?,
            crate::Scalar::Bool(true)
        ),
        Operand::Array(_) => false,
    };
    if below_one {
        let msg = if matches!(nsample, Operand::Scalar(_)) {
            "nsample < 1 or nsample is NaN"
        } else {
            "nsample < 1 or nsample contains NaNs"
        };
        return Err(kupfer_core::Error::invalid(msg));
    }
    global_generator().hypergeometric(ngood, nbad, nsample, size)
}
