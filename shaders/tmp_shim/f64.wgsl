fn kp_sin_f64(x: f64) -> f64 { return f64(sin(f32(x))); }
fn kp_cos_f64(x: f64) -> f64 { return f64(cos(f32(x))); }
fn kp_tan_f64(x: f64) -> f64 { return f64(tan(f32(x))); }
fn kp_arcsin_f64(x: f64) -> f64 { return f64(asin(f32(x))); }
fn kp_arccos_f64(x: f64) -> f64 { return f64(acos(f32(x))); }
fn kp_arctan_f64(x: f64) -> f64 { return f64(atan(f32(x))); }
fn kp_sinh_f64(x: f64) -> f64 { return f64(sinh(f32(x))); }
fn kp_cosh_f64(x: f64) -> f64 { return f64(cosh(f32(x))); }
fn kp_tanh_f64(x: f64) -> f64 { return f64(tanh(f32(x))); }
fn kp_arcsinh_f64(x: f64) -> f64 { return f64(asinh(f32(x))); }
fn kp_arccosh_f64(x: f64) -> f64 { return f64(acosh(f32(x))); }
fn kp_arctanh_f64(x: f64) -> f64 { return f64(atanh(f32(x))); }
fn kp_exp_f64(x: f64) -> f64 { return f64(exp(f32(x))); }
fn kp_exp2_f64(x: f64) -> f64 { return f64(exp2(f32(x))); }
fn kp_log_f64(x: f64) -> f64 { return f64(log(f32(x))); }
fn kp_log2_f64(x: f64) -> f64 { return f64(log2(f32(x))); }
fn kp_expm1_f64(x: f64) -> f64 { return kp_exp_f64(x) - f64(1); }
fn kp_log1p_f64(x: f64) -> f64 { return kp_log_f64(f64(1) + x); }
fn kp_log10_f64(x: f64) -> f64 { return kp_log_f64(x) / kp_log_f64(f64(10)); }
fn kp_cbrt_f64(x: f64) -> f64 { return sign(x) * kp_exp2_f64(kp_log2_f64(abs(x)) / f64(3)); }
fn kp_arctan2_f64(y: f64, x: f64) -> f64 { return f64(atan2(f32(y), f32(x))); }
fn kp_hypot_f64(x: f64, y: f64) -> f64 { return sqrt(x * x + y * y); }
fn kp_power_f64(x: f64, y: f64) -> f64 { return f64(pow(f32(x), f32(y))); }
