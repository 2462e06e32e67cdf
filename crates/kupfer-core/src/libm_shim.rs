//! TEMPORARY stand-in until the real libm lands (not committed).
/// f32 libm.
pub const LIBM_F32: &str = include_str!("../../../shaders/tmp_shim/f32.wgsl");
/// f64 libm.
pub const LIBM_F64: &str = include_str!("../../../shaders/tmp_shim/f64.wgsl");
