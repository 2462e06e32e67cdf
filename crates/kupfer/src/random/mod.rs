//! Random numbers (`numpy.random` / `cupy.random`): a [`Generator`] on the counter-based
//! Philox4x32-10 bit generator that draws the same numbers on every GPU and in the browser.
//!
//! ```
//! use kupfer as kp;
//! let rng = kp::random::default_rng(Some(42));
//! let x = rng.random(&[1000], None)?;               // float32 in [0, 1), lazy
//! let y = (&x * 2.0 - 1.0).to_vec::<f32>()?;         // one kernel: draw and affine map
//! assert!(y.iter().all(|v| (-1.0..1.0).contains(v)));
//! # Ok::<(), kp::Error>(())
//! ```
//!
//! - this file: [`Generator`], [`default_rng`], seeding, `spawn` and `jumped`, and the draw
//!   that every distribution starts from.
//! - `distributions.rs`: the continuous and discrete distributions (Generator methods).
//! - `bytes.rs`: `bytes(n)` (the byte layout of the Philox stream).
//! - `counts.rs`: `zipf` and `hypergeometric` (deterministic rejection samplers, in float64
//!   where the adapter has it), and `multivariate_hypergeometric` by marginals from the
//!   hypergeometric sampler.
//! - `permutations.rs`: `permutation(n)` and `choice` without replacement (no sort).
//! - `weighted.rs`: `choice` with probabilities, in exact integer arithmetic (the same indices
//!   on every adapter).
//! - `multivariate.rs`: `multivariate_normal` (a host Cholesky of the covariance, or the
//!   device's svd/eigh/cholesky with `method=`; one matmul).
//! - `legacy.rs`: NumPy's module functions (`seed`, `rand`, `randn`, `randint`, ...) on a
//!   global generator.
//!
//! # Reproducibility
//!
//! Each call that draws takes the generator's next 64-bit draw number; element `e` of the
//! draw is a function of (key, draw number, `e`) only, computed inside whatever kernel uses it
//! (the draw is a lazy expression leaf, so `rng.random(n) * 2 - 1` runs as one kernel, and
//! evaluating the same lazy draw twice gives the same values). Bits, integers, float32
//! uniforms, Poisson counts, `choice` with probabilities and float32 gamma are identical on
//! every backend. So are standard normals and exponentials, float32 and float64: ziggurats
//! (16384 layers for the float32 normal, `KUPFER_ZIG_NORMAL32=4096` or `8192` for fewer, each
//! count its own bits; 256 for the others; an exact multiply by a table value and an integer test; the tables in a
//! read-only buffer that every kernel drawing from them shares; the rare slow path fenced
//! against fused multiply-adds), with `normal(loc, scale)` and `lognormal` fenced too. Every
//! other distribution is drawn with deterministic arithmetic in float32 and float64
//! (`philox::transforms`, `philox::transforms64`; results below the smallest normal float may
//! be flushed by a float32 driver), unless `KUPFER_RANDDET=off` asks for the libm forms. The
//! Box-Muller normals (`KUPFER_RANDN=lean`, `accurate`; or `philox::set_normal_form` before
//! the first draw) and the libm forms may differ by an ulp or a
//! few between drivers that contract products into fused multiply-adds differently;
//! `KUPFER_RANDN=fenced` gives identical Box-Muller normals.
//! The counter layout and transforms are documented in [`kupfer_core::random`]. NumPy's own
//! streams (PCG64) are not reproduced: the same seed gives different numbers than NumPy.

mod bytes;
mod counts;
mod distributions;
mod legacy;
#[cfg(not(target_arch = "wasm32"))]
mod multivariate;
mod permutations;
mod weighted;

/// The bit generator (Philox4x32-10), the counter layout, the transforms and their CPU
/// reference (`kupfer_core::random`).
pub use kupfer_core::random as philox;
pub use legacy::*;
#[cfg(not(target_arch = "wasm32"))]
pub use multivariate::{CheckValid, MvnMethod};

use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use crate::scalar::Operand;
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::random::{child_key, seed_key, RandomOp};
use kupfer_core::{DType, Error, Result};
use std::sync::{Arc, Mutex};

/// A random generator (NumPy's `numpy.random.Generator`) on Philox4x32-10.
///
/// Clones share the state: a draw from either advances both.
#[derive(Clone, Debug)]
pub struct Generator {
    state: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    key: [u32; 2],
    next_draw: u64,
    spawned: u64,
}

/// Draw numbers a [`Generator::jumped`] generator starts above its parent's (per jump).
pub const JUMP: u64 = 1 << 48;

/// A generator seeded with `seed`, or from the process's entropy when `None`
/// (`numpy.random.default_rng`).
pub fn default_rng(seed: Option<u64>) -> Generator {
    match seed {
        Some(s) => Generator::new(s),
        None => Generator::from_entropy(),
    }
}

impl Generator {
    /// A generator whose key is SplitMix64 of `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator::from_key(seed_key(seed), 0)
    }

    /// A generator with an explicit Philox key, starting at draw number `first_draw`.
    pub fn from_key(key: [u32; 2], first_draw: u64) -> Generator {
        Generator {
            state: Arc::new(Mutex::new(State {
                key,
                next_draw: first_draw,
                spawned: 0,
            })),
        }
    }

    /// A generator seeded from the process's entropy (std's random hasher keys and a
    /// process-wide counter).
    pub fn from_entropy() -> Generator {
        use std::hash::{BuildHasher, Hasher};
        use std::sync::atomic::{AtomicU64, Ordering};
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
        Generator::new(h.finish())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The Philox key.
    pub fn key(&self) -> [u32; 2] {
        self.lock().key
    }

    /// The draw number the next draw takes.
    pub fn next_draw(&self) -> u64 {
        self.lock().next_draw
    }

    /// Takes the next draw number.
    fn take_draw(&self) -> ([u32; 2], u64) {
        let mut s = self.lock();
        let d = s.next_draw;
        s.next_draw = s.next_draw.wrapping_add(1);
        (s.key, d)
    }

    /// `n` independent child generators (NumPy's `Generator.spawn`): each has its own key,
    /// derived from this key and the child's number (children of later calls continue the
    /// numbering).
    pub fn spawn(&self, n: usize) -> Vec<Generator> {
        let mut s = self.lock();
        let first = s.spawned;
        s.spawned += n as u64;
        (0..n as u64)
            .map(|i| Generator::from_key(child_key(s.key, first + i), 0))
            .collect()
    }

    /// A generator with this key whose draw numbers start `jumps` x 2^48 above this one's
    /// next (NumPy's `BitGenerator.jumped`): the streams do not meet for 2^48 draws.
    pub fn jumped(&self, jumps: u64) -> Generator {
        let s = self.lock();
        Generator::from_key(s.key, s.next_draw.wrapping_add(jumps.wrapping_mul(JUMP)))
    }

    /// A lazy draw of `op` over `shape` with the op's parameters (already of its dtypes).
    pub(crate) fn draw(
        &self,
        op: RandomOp,
        shape: &[usize],
        dtype: DType,
        params: Vec<Lazy>,
    ) -> Result<Array> {
        let device = Device::current()?;
        device.check(dtype)?;
        op.check(dtype)?;
        let n: usize = shape.iter().product();
        if n > u32::MAX as usize {
            return Err(Error::unsupported(format!(
                "random draws of more than 2^32 elements ({n} requested)"
            )));
        }
        let (key, d) = self.take_draw();
        let word = |v: u32| Lazy::scalar(v.to_le_bytes().to_vec(), DType::U32);
        let mut args = vec![
            word(key[0]),
            word(key[1]),
            word(d as u32),
            word((d >> 32) as u32),
        ];
        args.extend(params);
        Ok(Array::from_lazy(
            device,
            shape.to_vec(),
            Lazy::random(op, args, dtype),
        ))
    }
}

/// The float dtype of a draw: float32 unless `dtype` says float64 (NumPy's "Unsupported dtype"
/// error otherwise).
pub(crate) fn float_dtype(dtype: Option<DType>, what: &str) -> Result<DType> {
    match dtype.unwrap_or(DType::F32) {
        d @ (DType::F32 | DType::F64) => Ok(d),
        d => Err(Error::invalid(format!(
            "Unsupported dtype {} for {what}",
            d.name()
        ))),
    }
}

/// The shape of a draw: `size` when given (every parameter must broadcast to it), else the
/// parameters' broadcast shape.
pub(crate) fn out_shape(size: Option<&[usize]>, params: &[&Operand]) -> Result<Vec<usize>> {
    let mut shape: Vec<usize> = Vec::new();
    for p in params {
        if let Operand::Array(a) = p {
            shape = broadcast_shapes(&shape, a.shape()).map_err(|_| {
                Error::invalid(
                    "shape mismatch: objects cannot be broadcast to a single shape".to_string(),
                )
            })?;
        }
    }
    match size {
        None => Ok(shape),
        Some(size) => {
            let b = broadcast_shapes(&shape, size).ok();
            if b.as_deref() != Some(size) {
                return Err(Error::invalid(format!(
                    "shape mismatch: objects cannot be broadcast to a single shape; the \
                     parameters' shape {shape:?} does not broadcast to size {size:?}"
                )));
            }
            Ok(size.to_vec())
        }
    }
}
