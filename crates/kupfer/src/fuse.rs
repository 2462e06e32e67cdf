//! [`fuse`]: a closure of array ops run as ONE kernel, CuPy's `cupy.fuse` — the explicit
//! form of what lazy fusion does implicitly.
//!
//! The closure's elementwise ops build one expression; the call materialises it as a single
//! generated kernel. The kernel is compiled on the first call for each dtype combination (and
//! layout class: contiguous, broadcast, strided) and reused after: kupfer's kernel cache keys
//! kernels by expression structure, never by values, so later calls only record a dispatch.

use crate::array::Array;
use kupfer_core::{Error, Result};
use std::marker::PhantomData;

/// What a fused closure may return: an array, or a `Result` of one.
pub trait FusedOutput {
    /// The array, or the closure's error.
    fn into_result(self) -> Result<Array>;
}

impl FusedOutput for Array {
    fn into_result(self) -> Result<Array> {
        Ok(self)
    }
}

impl FusedOutput for Result<Array> {
    fn into_result(self) -> Result<Array> {
        self
    }
}

/// A closure of 1 to 4 `&Array` arguments (the `Args` marker is the arity as a tuple type).
pub trait FusableFn<Args> {
    /// Number of arguments.
    const ARITY: usize;
    /// Calls the closure with `args` (exactly [`FusableFn::ARITY`] of them).
    fn apply(&self, args: &[&Array]) -> Result<Array>;
}

macro_rules! fusable {
    ($n:expr; $($a:ident),*) => {
        impl<F, R> FusableFn<($(PhantomData<$a>,)*)> for F
        where
            F: Fn($(&$a),*) -> R,
            R: FusedOutput,
        {
            const ARITY: usize = $n;
            #[allow(non_snake_case)]
            fn apply(&self, args: &[&Array]) -> Result<Array> {
                let mut it = args.iter();
                $(let $a: &Array = it.next().expect("arity checked");)*
                self($($a),*).into_result()
            }
        }
    };
}

// One type parameter name per argument; all are `Array`.
type A1 = Array;
type A2 = Array;
type A3 = Array;
type A4 = Array;
fusable!(1; A1);
fusable!(2; A1, A2);
fusable!(3; A1, A2, A3);
fusable!(4; A1, A2, A3, A4);

/// A fused function (see [`fuse`]).
pub struct Fused<F, Args> {
    f: F,
    _args: PhantomData<fn(Args)>,
}

impl<F, Args> std::fmt::Debug for Fused<F, Args> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Fused")
    }
}

/// Compiles a closure of elementwise array ops into a single kernel, per dtype combination,
/// reused across calls (`@cupy.fuse`).
///
/// ```no_run
/// use kupfer as kp;
/// let chain5 = kp::fuse(|x: &kp::Array, y: &kp::Array| (x * 2.0 + y * 3.0) / (x + y + 1.0));
/// let x = kp::ones(&[1 << 20], Some(kp::DType::F32))?;
/// let y = kp::ones(&[1 << 20], Some(kp::DType::F32))?;
/// let z = chain5.call(&[&x, &y])?; // one kernel
/// # Ok::<(), kp::Error>(())
/// ```
pub fn fuse<Args, F: FusableFn<Args>>(f: F) -> Fused<F, Args> {
    Fused {
        f,
        _args: PhantomData,
    }
}

impl<Args, F: FusableFn<Args>> Fused<F, Args> {
    /// Number of arguments the fused function takes.
    pub fn arity(&self) -> usize {
        F::ARITY
    }

    /// Runs the fused function: the closure's ops become one kernel, launched now (the
    /// result is materialised; the GPU runs it in queue order).
    pub fn call(&self, args: &[&Array]) -> Result<Array> {
        if args.len() != F::ARITY {
            return Err(Error::invalid(format!(
                "fused function takes {} arguments; got {}",
                F::ARITY,
                args.len()
            )));
        }
        let out = self.f.apply(args)?;
        out.eval()?;
        Ok(out)
    }

    /// Runs the fused function and returns the result still lazy, so that it fuses further
    /// with what consumes it.
    pub fn call_lazy(&self, args: &[&Array]) -> Result<Array> {
        if args.len() != F::ARITY {
            return Err(Error::invalid(format!(
                "fused function takes {} arguments; got {}",
                F::ARITY,
                args.len()
            )));
        }
        self.f.apply(args)
    }
}
