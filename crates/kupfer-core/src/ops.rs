//! The table of elementwise operations: one row per [`UnaryOp`](crate::UnaryOp) and
//! [`BinaryOp`](crate::BinaryOp), from which everything that lists the operations is
//! generated or iterated.
//!
//! The table is two callback macros, [`unary_op_table!`](crate::unary_op_table) and
//! [`binary_op_table!`](crate::binary_op_table): `unary_op_table!(my_macro)` expands to
//! `my_macro! { rows }`. kupfer-core expands them into the IR enums with their match-based
//! predicates (`name`, `rule`, `body`, `is_libm`, ...) and `ALL` slices (`expr.rs`); kupfer into
//! its public ufunc functions (`ufuncs.rs`); kupfer eval into its elementwise registry; the
//! tests iterate `ALL` (codegen's naga test, the goldens, the umath validation).
//!
//! A row reads
//!
//! ```text
//! /// doc of the public function (and of the enum variant)
//! Variant "numpy_name" fns [rust_fn, rust_alias, ...] eval ["numpy_name", "alias", ...]
//!     kinds [Bool, Int, Float, Complex] rule Rule body Body complex bool goldens bool;
//! ```
//!
//! - `fns`: the public functions of kupfer (the first one documented by the row's doc, the
//!   others as its aliases); empty for ops with no function of their own (frexp's halves).
//! - `eval`: the names `kupfer eval` registers for the first function (empty: not registered
//!   by the table).
//! - `kinds`: the operand kinds (the common kind of a binary op's operands) the op accepts;
//!   others are NumPy's "ufunc '...' not supported for the input type" error.
//! - `rule`: the result-dtype rule ([`Rule`]); `Custom` ones are spelled out in `expr.rs`.
//! - `body`: how codegen computes it ([`Body`]); `Custom` ones are spelled out in `codegen.rs`.
//! - `complex`: (unary) a complex form `kp_<name>_c64` / `_c128` exists in
//!   `shaders/complex_f32.wgsl`.
//! - `goldens`: checked against NumPy by `tests/goldens.rs` (which hands `tests/goldens/gen.py`
//!   the list).
//!
//! Adding an operation whose math exists (a libm function, a WGSL expression) is one row plus
//! its tests.

use crate::dtype::Kind;

/// How an elementwise op's compute and result dtypes follow from its operand dtype (unary) or
/// its operands' common dtype (binary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Computed in and returning the operand dtype.
    Same,
    /// Computed in and returning the float dtype `promote::float_result` names; a complex
    /// operand keeps its dtype where the op has a complex form and is refused otherwise.
    Float,
    /// Computed in the operand dtype, returning bool (the comparisons, `isnan`, ...).
    ToBool,
    /// Operands cast to bool, returning bool (`logical_and`, `logical_not`, ...).
    Logical,
    /// Written out in `expr.rs`'s `signature`.
    Custom,
}

/// How codegen computes an elementwise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A float-only accurate transcendental of the WGSL libm, `kp_<numpy name>_<f32|f64>`,
    /// checked against NumPy's umath validation sets (`tests/umath_validation.rs`).
    Libm,
    /// Another function of the WGSL libm, `kp_<this name>_<f32|f64>`, on floats.
    Call(&'static str),
    /// A WGSL expression of the operand(s) `{x}` (unary) or `{a}` and `{b}` (binary), with
    /// `{t}` the WGSL type name of the compute dtype, for the kinds the op accepts.
    Wgsl(&'static str),
    /// Written out in `codegen.rs`.
    Custom,
}

/// True when `kind` is among `kinds` (a row's `kinds` column).
pub(crate) fn accepts(kinds: &[Kind], kind: Kind) -> bool {
    kinds.contains(&kind)
}

/// The unary rows (see the [module documentation](crate::ops)): `unary_op_table!(cb)` expands
/// to `cb! { rows }`.
#[macro_export]
macro_rules! unary_op_table {
    ($callback:ident) => {
        $callback! {
            /// `-x`.
            Negative "negative" fns [negative] eval ["negative"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// |x| (the magnitude for complex).
            Absolute "absolute" fns [absolute, abs] eval ["absolute", "abs"]
                kinds [Bool, Int, Float, Complex] rule Custom body Custom complex false
                goldens true;
            /// -1, 0 or 1 (NaN stays NaN).
            Sign "sign" fns [sign] eval ["sign"]
                kinds [Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// e^x.
            Exp "exp" fns [exp] eval ["exp"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// 2^x.
            Exp2 "exp2" fns [exp2] eval ["exp2"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// e^x - 1, accurate near 0.
            Expm1 "expm1" fns [expm1] eval ["expm1"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Natural logarithm.
            Log "log" fns [log] eval ["log"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// ln(1 + x), accurate near 0.
            Log1p "log1p" fns [log1p] eval ["log1p"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Base-2 logarithm.
            Log2 "log2" fns [log2] eval ["log2"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Base-10 logarithm.
            Log10 "log10" fns [log10] eval ["log10"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Square root.
            Sqrt "sqrt" fns [sqrt] eval ["sqrt"]
                kinds [Bool, Int, Float, Complex] rule Float body Wgsl("sqrt({x})") complex true
                goldens true;
            /// Cube root.
            Cbrt "cbrt" fns [cbrt] eval ["cbrt"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// x².
            Square "square" fns [square] eval ["square"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// 1/x.
            Reciprocal "reciprocal" fns [reciprocal] eval ["reciprocal"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// Sine (accurate for large arguments on every backend).
            Sin "sin" fns [sin] eval ["sin"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Cosine (accurate for large arguments on every backend).
            Cos "cos" fns [cos] eval ["cos"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Tangent.
            Tan "tan" fns [tan] eval ["tan"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Inverse sine.
            Arcsin "arcsin" fns [arcsin] eval ["arcsin", "asin"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Inverse cosine.
            Arccos "arccos" fns [arccos] eval ["arccos", "acos"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Inverse tangent.
            Arctan "arctan" fns [arctan] eval ["arctan", "atan"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Hyperbolic sine.
            Sinh "sinh" fns [sinh] eval ["sinh"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Hyperbolic cosine.
            Cosh "cosh" fns [cosh] eval ["cosh"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Hyperbolic tangent.
            Tanh "tanh" fns [tanh] eval ["tanh"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex true goldens true;
            /// Inverse hyperbolic sine.
            Arcsinh "arcsinh" fns [arcsinh] eval ["arcsinh", "asinh"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Inverse hyperbolic cosine.
            Arccosh "arccosh" fns [arccosh] eval ["arccosh", "acosh"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Inverse hyperbolic tangent.
            Arctanh "arctanh" fns [arctanh] eval ["arctanh", "atanh"]
                kinds [Bool, Int, Float, Complex] rule Float body Libm complex false
                goldens true;
            /// Largest integer ≤ x.
            Floor "floor" fns [floor] eval ["floor"]
                kinds [Bool, Int, Float] rule Same body Custom complex false goldens true;
            /// Smallest integer ≥ x.
            Ceil "ceil" fns [ceil] eval ["ceil"]
                kinds [Bool, Int, Float] rule Same body Custom complex false goldens true;
            /// x rounded toward zero.
            Trunc "trunc" fns [trunc] eval ["trunc", "fix"]
                kinds [Bool, Int, Float] rule Same body Custom complex false goldens true;
            /// x rounded to the nearest integer, halves to even.
            Rint "rint" fns [rint] eval ["rint"]
                kinds [Bool, Int, Float, Complex] rule Custom body Custom complex false
                goldens true;
            /// True where x is NaN.
            IsNan "isnan" fns [isnan] eval ["isnan"]
                kinds [Bool, Int, Float, Complex] rule ToBool body Custom complex false
                goldens true;
            /// True where x is ±inf.
            IsInf "isinf" fns [isinf] eval ["isinf"]
                kinds [Bool, Int, Float, Complex] rule ToBool body Custom complex false
                goldens true;
            /// True where x is neither NaN nor ±inf.
            IsFinite "isfinite" fns [isfinite] eval ["isfinite"]
                kinds [Bool, Int, Float, Complex] rule ToBool body Custom complex false
                goldens true;
            /// Logical NOT of truth values.
            LogicalNot "logical_not" fns [logical_not] eval ["logical_not"]
                kinds [Bool, Int, Float, Complex] rule Logical body Custom complex false
                goldens true;
            /// Bitwise NOT (`~x`; logical NOT for bool).
            BitwiseNot "invert" fns [bitwise_not, invert]
                eval ["invert", "bitwise_not", "bitwise_invert"]
                kinds [Bool, Int] rule Same body Custom complex false goldens true;
            /// Real part.
            Real "real" fns [real] eval ["real"]
                kinds [Bool, Int, Float, Complex] rule Custom body Custom complex false
                goldens true;
            /// Imaginary part.
            Imag "imag" fns [imag] eval ["imag"]
                kinds [Bool, Int, Float, Complex] rule Custom body Custom complex false
                goldens true;
            /// Complex conjugate.
            Conj "conjugate" fns [conjugate, conj] eval ["conjugate", "conj"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// True where the sign bit of x is set (-0.0 and negative NaNs included).
            Signbit "signbit" fns [signbit] eval ["signbit"]
                kinds [Bool, Int, Float] rule Custom body Wgsl("kp_signbit_{t}({x})")
                complex false goldens false;
            /// The distance from x to the adjacent float away from zero (NumPy's `spacing`).
            Spacing "spacing" fns [spacing] eval ["spacing"]
                kinds [Bool, Int, Float] rule Float body Custom complex false goldens false;
            /// frexp's mantissa.
            FrexpMantissa "frexp" fns [] eval []
                kinds [Bool, Int, Float] rule Float body Call("frexp_m") complex false
                goldens false;
            /// frexp's exponent.
            FrexpExponent "frexp" fns [] eval []
                kinds [Bool, Int, Float] rule Custom body Custom complex false goldens false;
            /// The modified Bessel function of the first kind, order 0 (NumPy's `i0`).
            I0 "i0" fns [i0] eval []
                kinds [Bool, Int, Float] rule Float body Call("i0") complex false goldens false;
            /// The number of 1 bits in |x| (integers; uint32 where NumPy gives uint8).
            BitwiseCount "bitwise_count" fns [bitwise_count] eval ["bitwise_count"]
                kinds [Bool, Int] rule Custom body Custom complex false goldens false;
        }
    };
}

/// The binary rows (see the [module documentation](crate::ops)): `binary_op_table!(cb)`
/// expands to `cb! { rows }`. Binary rows have no complex forms (`complex false` throughout:
/// their complex arithmetic is written out in `codegen.rs`).
#[macro_export]
macro_rules! binary_op_table {
    ($callback:ident) => {
        $callback! {
            /// `a + b`.
            Add "add" fns [add] eval ["add"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// `a - b`.
            Subtract "subtract" fns [subtract] eval ["subtract"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// `a * b`.
            Multiply "multiply" fns [multiply] eval ["multiply"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// `a / b` (true division: integers divide to float).
            TrueDivide "divide" fns [divide, true_divide] eval ["divide", "true_divide"]
                kinds [Bool, Int, Float, Complex] rule Custom body Custom complex false
                goldens true;
            /// `a // b`, rounding toward negative infinity (Python semantics).
            FloorDivide "floor_divide" fns [floor_divide] eval ["floor_divide"]
                kinds [Bool, Int, Float] rule Same body Custom complex false goldens true;
            /// `a % b` with the sign of the divisor (Python semantics).
            Remainder "remainder" fns [remainder, mod_] eval ["remainder", "mod"]
                kinds [Bool, Int, Float] rule Same body Custom complex false goldens true;
            /// C's `fmod`: the remainder of truncated division, with the sign of the dividend
            /// (exact for floats; integers by a zero divisor give 0, as NumPy).
            Fmod "fmod" fns [fmod] eval ["fmod"]
                kinds [Bool, Int, Float] rule Same body Custom complex false goldens true;
            /// `a ** b`.
            Power "power" fns [power] eval ["power", "pow"]
                kinds [Bool, Int, Float, Complex] rule Same body Libm complex false goldens true;
            /// Elementwise maximum, propagating NaN.
            Maximum "maximum" fns [maximum] eval ["maximum"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// Elementwise minimum, propagating NaN.
            Minimum "minimum" fns [minimum] eval ["minimum"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// Elementwise maximum, ignoring NaN.
            Fmax "fmax" fns [fmax] eval ["fmax"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// Elementwise minimum, ignoring NaN.
            Fmin "fmin" fns [fmin] eval ["fmin"]
                kinds [Bool, Int, Float, Complex] rule Same body Custom complex false goldens true;
            /// Quadrant-aware arctan(a / b).
            Arctan2 "arctan2" fns [arctan2] eval ["arctan2", "atan2"]
                kinds [Bool, Int, Float] rule Float body Libm complex false goldens true;
            /// sqrt(a² + b²) without intermediate overflow.
            Hypot "hypot" fns [hypot] eval ["hypot"]
                kinds [Bool, Int, Float] rule Float body Libm complex false goldens true;
            /// `a == b`.
            Equal "equal" fns [equal] eval ["equal"]
                kinds [Bool, Int, Float, Complex] rule ToBool body Custom complex false
                goldens true;
            /// `a != b`.
            NotEqual "not_equal" fns [not_equal] eval ["not_equal"]
                kinds [Bool, Int, Float, Complex] rule ToBool body Custom complex false
                goldens true;
            /// `a < b`.
            Less "less" fns [less] eval ["less"]
                kinds [Bool, Int, Float] rule ToBool body Custom complex false goldens true;
            /// `a <= b`.
            LessEqual "less_equal" fns [less_equal] eval ["less_equal"]
                kinds [Bool, Int, Float] rule ToBool body Custom complex false goldens true;
            /// `a > b`.
            Greater "greater" fns [greater] eval ["greater"]
                kinds [Bool, Int, Float] rule ToBool body Custom complex false goldens true;
            /// `a >= b`.
            GreaterEqual "greater_equal" fns [greater_equal] eval ["greater_equal"]
                kinds [Bool, Int, Float] rule ToBool body Custom complex false goldens true;
            /// Logical AND of truth values.
            LogicalAnd "logical_and" fns [logical_and] eval ["logical_and"]
                kinds [Bool, Int, Float, Complex] rule Logical body Custom complex false
                goldens true;
            /// Logical OR of truth values.
            LogicalOr "logical_or" fns [logical_or] eval ["logical_or"]
                kinds [Bool, Int, Float, Complex] rule Logical body Custom complex false
                goldens true;
            /// Logical XOR of truth values.
            LogicalXor "logical_xor" fns [logical_xor] eval ["logical_xor"]
                kinds [Bool, Int, Float, Complex] rule Logical body Custom complex false
                goldens true;
            /// Bitwise AND (integers and bool).
            BitwiseAnd "bitwise_and" fns [bitwise_and] eval ["bitwise_and"]
                kinds [Bool, Int] rule Same body Custom complex false goldens true;
            /// Bitwise OR (integers and bool).
            BitwiseOr "bitwise_or" fns [bitwise_or] eval ["bitwise_or"]
                kinds [Bool, Int] rule Same body Custom complex false goldens true;
            /// Bitwise XOR (integers and bool).
            BitwiseXor "bitwise_xor" fns [bitwise_xor] eval ["bitwise_xor"]
                kinds [Bool, Int] rule Same body Custom complex false goldens true;
            /// `a << b` (shifts of the type's width or more give 0).
            LeftShift "left_shift" fns [left_shift] eval ["left_shift", "bitwise_left_shift"]
                kinds [Bool, Int] rule Same body Wgsl("kp_left_shift_{t}({a}, {b})")
                complex false goldens true;
            /// `a >> b` (arithmetic for signed integers).
            RightShift "right_shift" fns [right_shift]
                eval ["right_shift", "bitwise_right_shift"]
                kinds [Bool, Int] rule Same body Wgsl("kp_right_shift_{t}({a}, {b})")
                complex false goldens true;
            /// |a| with the sign bit of `b` (floats; integers compute in their float dtype).
            Copysign "copysign" fns [copysign] eval ["copysign"]
                kinds [Bool, Int, Float] rule Float body Wgsl("kp_copysign_{t}({a}, {b})")
                complex false goldens false;
            /// The float next to `a` in the direction of `b`, exactly (NumPy's `nextafter`).
            Nextafter "nextafter" fns [nextafter] eval ["nextafter"]
                kinds [Bool, Int, Float] rule Float body Custom complex false goldens false;
            /// `a * 2**b` for an integer `b`, exactly; the result has `a`'s float dtype.
            Ldexp "ldexp" fns [ldexp] eval ["ldexp"]
                kinds [Bool, Int, Float] rule Custom body Call("ldexp") complex false
                goldens false;
            /// Greatest common divisor of |a| and |b| (integers).
            Gcd "gcd" fns [gcd] eval ["gcd"]
                kinds [Bool, Int] rule Same body Wgsl("kp_gcd_{t}({a}, {b})") complex false
                goldens false;
            /// Least common multiple of |a| and |b| (integers; 0 when either is 0).
            Lcm "lcm" fns [lcm] eval ["lcm"]
                kinds [Bool, Int] rule Same body Wgsl("kp_lcm_{t}({a}, {b})") complex false
                goldens false;
            /// The complex number `re + i im` from real parts (complex64 from 32-bit and smaller
            /// parts, complex128 from 64-bit ones); exact, signed zeros and infinities kept.
            Complex "complex" fns [make_complex] eval []
                kinds [Bool, Int, Float] rule Custom body Custom complex false goldens false;
        }
    };
}
