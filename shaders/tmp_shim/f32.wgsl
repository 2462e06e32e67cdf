fn kp_sin_f32(x: f32) -> f32 { return sin(x); }
fn kp_cos_f32(x: f32) -> f32 { return cos(x); }
fn kp_tan_f32(x: f32) -> f32 { return tan(x); }
fn kp_arcsin_f32(x: f32) -> f32 { return asin(x); }
fn kp_arccos_f32(x: f32) -> f32 { return acos(x); }
fn kp_arctan_f32(x: f32) -> f32 { return atan(x); }
fn kp_sinh_f32(x: f32) -> f32 { return sinh(x); }
fn kp_cosh_f32(x: f32) -> f32 { return cosh(x); }
fn kp_tanh_f32(x: f32) -> f32 { return tanh(x); }
fn kp_arcsinh_f32(x: f32) -> f32 { return asinh(x); }
fn kp_arccosh_f32(x: f32) -> f32 { return acosh(x); }
fn kp_arctanh_f32(x: f32) -> f32 { return atanh(x); }
fn kp_exp_f32(x: f32) -> f32 { return exp(x); }
fn kp_exp2_f32(x: f32) -> f32 { return exp2(x); }
fn kp_log_f32(x: f32) -> f32 { return log(x); }
fn kp_log2_f32(x: f32) -> f32 { return log2(x); }
fn kp_expm1_f32(x: f32) -> f32 { return kp_exp_f32(x) - f32(1); }
fn kp_log1p_f32(x: f32) -> f32 { return kp_log_f32(f32(1) + x); }
fn kp_log10_f32(x: f32) -> f32 { return kp_log_f32(x) / kp_log_f32(f32(10)); }
fn kp_cbrt_f32(x: f32) -> f32 { return sign(x) * kp_exp2_f32(kp_log2_f32(abs(x)) / f32(3)); }
fn kp_arctan2_f32(y: f32, x: f32) -> f32 { return f32(atan2(f32(y), f32(x))); }
fn kp_hypot_f32(x: f32, y: f32) -> f32 { return sqrt(x * x + y * y); }
fn kp_power_f32(x: f32, y: f32) -> f32 { return pow(x, y); }
