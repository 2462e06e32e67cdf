//! Accurate transcendental functions in WGSL, appended to generated kernels that call them.
//!
//! Builtins such as `sin` or `exp` are approximate on many drivers (NVIDIA's `sin` loses all
//! accuracy for large arguments, and Vulkan defines no f64 transcendentals at all), so kupfer
//! carries its own: `kp_<name>_f32` and `kp_<name>_f64` for sin, cos, tan, arcsin, arccos,
//! arctan, arctan2, sinh, cosh, tanh, arcsinh, arccosh, arctanh, exp, exp2, expm1, log, log2,
//! log10, log1p, cbrt, hypot and power. They use only correctly rounded arithmetic (with their
//! own range reduction), so results are the same on every backend. The sources live in
//! `shaders/libm_f32.wgsl` and `shaders/libm_f64.wgsl`; the accuracy is checked against NumPy's
//! umath validation sets in `tests/umath_validation.rs`.

/// The f32 library (also used by f16, which computes in f32 and rounds once, and complex64).
pub const LIBM_F32: &str = include_str!("../../../shaders/libm_f32.wgsl");
/// The f64 library (needs `SHADER_F64`).
pub const LIBM_F64: &str = include_str!("../../../shaders/tmp_shim/f64.wgsl");
