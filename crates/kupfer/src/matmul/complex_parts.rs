//! Complex matrix products as real ones: `(Ar + i·Ai) @ (Br + i·Bi)` is
//! `(Ar@Br − Ai@Bi) + i·(Ar@Bi + Ai@Br)`, four products on the tiled SIMT kernel (float32 for
//! complex64, float64 for complex128) instead of the one-thread-per-output complex kernel, as
//! BLAS's cgemm/zgemm do the same flops. A real operand contributes one part, so a real @
//! complex product is two real products.

use super::{MatmulPrecision, Plan};
use crate::array::Array;
use crate::scalar::Scalar;
use crate::ufuncs;
use kupfer_core::{DType, Error, Result};

/// Products of at least this many multiply-adds (M·N·K) go through the real parts; smaller
/// ones stay one complex kernel (four launches would cost more than they save).
const MIN_WORK: usize = 64 * 64 * 64;

/// Whether `plan` runs as real products: a complex result of two matrices (M, N > 1; vector
/// shapes take the bandwidth-bound kernel) large enough to gain from the tiled kernel.
pub(super) fn applies(plan: &Plan) -> bool {
    plan.out.is_complex()
        && plan.m > 1
        && plan.n > 1
        && plan.m.saturating_mul(plan.n).saturating_mul(plan.k) >= MIN_WORK
}

/// The real and imaginary parts of `x` in `real` (no imaginary part for a real operand).
fn parts(x: &Array, real: DType) -> Result<(Array, Option<Array>)> {
    if x.dtype().is_complex() {
        Ok((
            ufuncs::real(x)?.astype(real)?,
            Some(ufuncs::imag(x)?.astype(real)?),
        ))
    } else {
        Ok((x.astype(real)?, None))
    }
}

/// `a @ b` for a complex result through real products of its parts.
pub(super) fn matmul(
    a: &Array,
    b: &Array,
    out: DType,
    precision: MatmulPrecision,
) -> Result<Array> {
    let real = out.real_part();
    let (ar, ai) = parts(a, real)?;
    let (br, bi) = parts(b, real)?;
    let mm = |x: &Array, y: &Array| super::matmul_with(x, y, precision);
    // Real part: Ar@Br − Ai@Bi; imaginary part: Ar@Bi + Ai@Br (absent terms left out).
    let re = match (&ai, &bi) {
        (Some(ai), Some(bi)) => ufuncs::subtract(&mm(&ar, &br)?, &mm(ai, bi)?)?,
        _ => mm(&ar, &br)?,
    };
    let im = match (&ai, &bi) {
        (Some(ai), Some(bi)) => ufuncs::add(&mm(&ar, bi)?, &mm(ai, &br)?)?,
        (Some(ai), None) => mm(ai, &br)?,
        (None, Some(bi)) => mm(&ar, bi)?,
        (None, None) => {
            return Err(Error::invalid(
                "matmul: a complex result without a complex operand",
            ))
        }
    };
    let i = Scalar::Complex { re: 0.0, im: 1.0 };
    ufuncs::add(&re.astype(out)?, &ufuncs::multiply(&im.astype(out)?, i)?)
}
