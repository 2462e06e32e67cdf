//! `ufunc.at` without atomics (`shaders/at_segments.wgsl`): for the dtypes and ops that
//! WGSL's 32-bit atomics cannot accumulate (float64, complex128, and products and extrema of
//! int64 and complex64). The host sorts the target offsets stably; a segmented inclusive
//! scan then combines each run of equal offsets in NumPy's order, starting from the old
//! value, and one plain write per run stores the result. Entry points `first`, `level`,
//! `carry` and `apply` (see the template); every thread loops at most [`AT_CHUNK`] times.

use crate::codegen::{self, Needs, Target};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::expr::BinaryOp;
use crate::indexing::AtOp;
use crate::template::Template;

const TEMPLATE: &str = include_str!("../../../shaders/at_segments.wgsl");

/// Elements one thread scans sequentially (per level).
pub const AT_CHUNK: u32 = 64;

/// Threads per workgroup of the segmented kernels.
pub const AT_WORKGROUP: u32 = 64;

/// True when `np.<op>.at` on `data` runs through the sorted, segmented kernels rather than
/// the atomic accumulation of [`crate::indexing`] (bool and the 8- and 16-bit integers
/// never do).
pub fn segmented(op: AtOp, data: DType) -> bool {
    data != DType::Bool && !data.is_small_int() && !crate::indexing::atomic_at(op, data)
}

/// The WGSL of the segmented `ufunc.at` kernels for `op` on `data`.
pub fn generate(op: AtOp, data: DType, target: &Target) -> Result<String> {
    target.check(data, "this adapter")?;
    if data == DType::Bool || data.is_small_int() {
        return Err(Error::invalid(format!(
            "segmented ufunc.at kernels take 32- and 64-bit elements, not {data}"
        )));
    }
    let mut needs = Needs::for_target(target);
    // Subtracting is adding the negated values (exact in IEEE arithmetic and modulo 2^64).
    let (binary, prepare) = match op {
        AtOp::Add => (BinaryOp::Add, "vals[perm[i]]"),
        AtOp::Subtract if data == DType::U32 => (BinaryOp::Add, "(0u - vals[perm[i]])"),
        AtOp::Subtract if data == DType::U64 => (BinaryOp::Add, "(0lu - vals[perm[i]])"),
        AtOp::Subtract => (BinaryOp::Add, "-vals[perm[i]]"),
        AtOp::Multiply => (BinaryOp::Multiply, "vals[perm[i]]"),
        AtOp::Maximum => (BinaryOp::Maximum, "vals[perm[i]]"),
        AtOp::Minimum => (BinaryOp::Minimum, "vals[perm[i]]"),
        op => return Err(crate::indexing::bitwise_refusal(op, data)),
    };
    let combine = codegen::binary_expr(binary, "a", "b", data, &mut needs)?;
    if data.is_float() || data.kind() == crate::dtype::Kind::Complex {
        needs.float.insert(data.real_part());
    }
    Ok(Template::new(TEMPLATE)
        .set("ENABLES", codegen::enables([data].into_iter()))
        .set("T", data.wgsl_storage())
        .set("HELPERS", needs.render()?)
        .set("CHUNK", AT_CHUNK)
        .set("COMBINE", combine)
        .set("PREPARE", prepare)
        .render())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Target = Target {
        f16: true,
        f64: true,
        i64: true,
    };

    #[test]
    fn every_variant_validates() {
        let ops = [
            AtOp::Add,
            AtOp::Subtract,
            AtOp::Multiply,
            AtOp::Maximum,
            AtOp::Minimum,
        ];
        for d in [
            DType::I32,
            DType::U32,
            DType::I64,
            DType::F16,
            DType::F32,
            DType::F64,
            DType::Complex64,
            DType::Complex128,
        ] {
            for op in ops {
                let wgsl = generate(op, d, &ALL).unwrap();
                crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
            }
        }
    }

    #[test]
    fn the_atomic_gaps_are_segmented() {
        for d in [DType::F64, DType::Complex128] {
            assert!(segmented(AtOp::Add, d));
        }
        for d in [DType::I64, DType::Complex64] {
            assert!(!segmented(AtOp::Add, d));
            assert!(!segmented(AtOp::Subtract, d));
            assert!(segmented(AtOp::Multiply, d));
            assert!(segmented(AtOp::Maximum, d));
            assert!(segmented(AtOp::Minimum, d));
        }
        assert!(!segmented(AtOp::Multiply, DType::F32));
    }
}
