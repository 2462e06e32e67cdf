//! The nonsymmetric eigenproblem's kernels (`shaders/linalg_eig.wgsl`): Householder
//! reduction to Hessenberg form, Francis double-shift (real) and single-shift (complex) QR to
//! the Schur form, the real Schur form made complex triangular, and the eigenvectors by back
//! substitution and back-transformation; and the complex LU and Cholesky factorizations
//! (`shaders/linalg_cplx.wgsl`). One workgroup of 64 threads per matrix; entry
//! points `hess_real`, `hess_cplx`, `qr_real`, `qr_cplx`, `to_complex`, `backsub`, `vecs`.

use crate::codegen::Target;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::template::Template;

const EIG: &str = include_str!("../../../shaders/linalg_eig.wgsl");
const CPLX: &str = include_str!("../../../shaders/linalg_cplx.wgsl");

/// Byte size of the complex factorizations' uniform block (n, batch0, k0, k1, m, xc, and
/// two words of padding).
pub const CPLX_PARAMS_SIZE: usize = 32;

/// Byte size of the kernels' uniform block (n, batch0, steps, mode, maxits, k0, k1, part).
pub const PARAMS_SIZE: usize = 32;

/// The entry points of the module.
pub const ENTRIES: [&str; 7] = [
    "hess_real",
    "hess_cplx",
    "qr_real",
    "qr_cplx",
    "to_complex",
    "backsub",
    "vecs",
];

/// The eigenproblem kernels computing in the real dtype `real` (float32, or float64 where
/// the adapter has SHADER_F64; complex matrices are pairs of it). Bindings: 0 uniforms, 1
/// and 2 the real H and Z, 3 and 4 the complex T and Z, 5 a reflector scratch (2n per
/// matrix), 6 the i32 state (8 words per matrix), 7 the triangular eigenvectors, 8 the
/// output vectors; each entry point binds only what it uses.
pub fn eig(real: DType, target: &Target) -> Result<String> {
    target.check(real, "this adapter")?;
    let (ty, eps, safmin) = match real {
        DType::F32 => ("f32", "1.1920929e-7", "1.1754944e-38"),
        DType::F64 => ("f64", "2.220446049250313e-16", "2.2250738585072014e-308"),
        d => {
            return Err(Error::unsupported(format!(
                "eigenvalues of {d} matrices on the GPU (float32, float64 and complex)"
            )))
        }
    };
    Ok(Template::new(EIG)
        .set_if_held("ENABLES", "")
        .set("T", ty)
        .set("EPS", eps)
        .set("SAFMIN", safmin)
        .render())
}

/// Complex LU with partial pivoting (`lu_cplx`), Cholesky (`chol_cplx`) and Householder QR
/// (`qr_cplx`, `formq_cplx`) in the real dtype `real` of the complex parts
/// (`shaders/linalg_cplx.wgsl`). Bindings: 0 uniforms, 1 the matrices (in place), 2 the i32
/// pivots (n per matrix) or info (one per matrix), 3 QR's tau, 4 the matrices Q is formed
/// in; each entry point binds only what it uses.
pub fn complex_factor(real: DType, target: &Target) -> Result<String> {
    target.check(real, "this adapter")?;
    let ty = match real {
        DType::F32 => "f32",
        DType::F64 => "f64",
        d => {
            return Err(Error::unsupported(format!(
                "complex factorizations with {d} parts (float32 and float64)"
            )))
        }
    };
    Ok(Template::new(CPLX)
        .set_if_held("ENABLES", "")
        .set("T", ty)
        .render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naga_check::validate;
    use naga::valid::Capabilities;

    #[test]
    fn both_variants_validate() {
        let t = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        for d in [DType::F32, DType::F64] {
            validate(&eig(d, &t).unwrap(), Capabilities::empty());
            validate(&complex_factor(d, &t).unwrap(), Capabilities::empty());
        }
        assert!(eig(DType::I32, &t).is_err());
        let no64 = Target { f64: false, ..t };
        assert!(eig(DType::F64, &no64).is_err());
    }
}
