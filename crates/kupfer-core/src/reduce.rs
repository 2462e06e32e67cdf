//! Reductions: the combining operations, their accumulator and result dtypes, and WGSL
//! generation from `shaders/reduce.wgsl`. The value reduced is a fused elementwise
//! [`Program`] (the "map"), so `sum(x * x)` never writes `x * x`.

use crate::codegen::{self, Needs, ParamLayout, Target};
use crate::custom::UserReduce;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::expr::{Access, Node, Program};
use crate::template::Template;
use std::fmt::Write;
use std::sync::Arc;

const TEMPLATE: &str = include_str!("../../../shaders/reduce.wgsl");

/// Threads per workgroup of reduction kernels.
pub const WORKGROUP_SIZE: u32 = 256;

/// How values are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combine {
    /// a + b
    Sum,
    /// a * b
    Prod,
    /// NaN-propagating maximum.
    Max,
    /// NaN-propagating minimum.
    Min,
    /// Index of the maximum (first on ties, first NaN wins).
    ArgMax,
    /// Index of the minimum (first on ties, first NaN wins).
    ArgMin,
    /// (count, mean, M2) moments merged by Chan's formula; finalised as the variance with
    /// `ddof` (a uniform extra).
    Moments,
    /// Maximum ignoring NaN (NaN only when every value is NaN).
    NanMax,
    /// Minimum ignoring NaN (NaN only when every value is NaN).
    NanMin,
    /// Index of the maximum ignoring NaN (an all-NaN slice gives index 2^32 - 1).
    NanArgMax,
    /// Index of the minimum ignoring NaN (an all-NaN slice gives index 2^32 - 1).
    NanArgMin,
    /// Moments of the non-NaN values.
    NanMoments,
}

impl Combine {
    fn is_arg(self) -> bool {
        matches!(
            self,
            Combine::ArgMax | Combine::ArgMin | Combine::NanArgMax | Combine::NanArgMin
        )
    }

    fn is_moments(self) -> bool {
        matches!(self, Combine::Moments | Combine::NanMoments)
    }

    fn is_max(self) -> bool {
        matches!(self, Combine::ArgMax | Combine::NanArgMax)
    }
}

/// Kernel layout of a reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// A workgroup per (output, slice); for contiguous reduced axes.
    Inner,
    /// A thread per output, a grid row per slice; for contiguous kept axes.
    Outer,
}

/// A reduction kernel's structure (the pipeline-cache key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReduceProgram {
    /// The map: its output node is the value reduced. In a second pass (`partials`), a single
    /// load of input 0, which then holds accumulators.
    pub map: Program,
    /// True when input 0 holds partial accumulators of a first pass.
    pub partials: bool,
    /// How values combine.
    pub combine: Combine,
    /// Accumulator component dtype (the sum's dtype; f32/f64 for moments). Arg-reductions of
    /// 32-bit and float16 values use u32 (a (key, inverted index) pair); of 64-bit values, the
    /// value's dtype (a (value, index) pair, index -1 for "no value yet").
    pub acc: DType,
    /// Dtype written by this pass when it is the last (`finalize`).
    pub out: DType,
    /// Whether this pass writes final values (else partial accumulators).
    pub finalize: bool,
    /// Kernel layout.
    pub strategy: Strategy,
    /// A user's reduction (`ReductionKernel`): its combine, identity and post-map replace
    /// `combine`'s; the map's value already has the accumulator dtype.
    pub custom: Option<Arc<UserReduce>>,
}

impl ReduceProgram {
    /// True for an arg-reduction of 64-bit values: a (value, index) accumulator.
    fn wide_arg(&self) -> bool {
        self.combine.is_arg() && self.acc.is_64bit()
    }

    /// WGSL type of the accumulator (and of partial results).
    pub fn acc_type(&self) -> String {
        if self.wide_arg() {
            format!("vec2<{}>", self.acc.wgsl_value())
        } else if self.combine.is_arg() {
            "vec2<u32>".into()
        } else if self.combine.is_moments() {
            format!("vec4<{}>", self.acc.wgsl_value())
        } else {
            self.acc.wgsl_value().into()
        }
    }

    /// Bytes of one partial accumulator.
    pub fn acc_size(&self) -> usize {
        if self.wide_arg() {
            16
        } else if self.combine.is_arg() {
            8
        } else if self.combine.is_moments() {
            4 * self.acc.gpu_size()
        } else {
            self.acc.gpu_size()
        }
    }

    /// Bytes of one element this pass writes.
    pub fn out_size(&self) -> usize {
        if self.finalize {
            self.out.gpu_size()
        } else {
            self.acc_size()
        }
    }
}

/// Checks that `combine` can reduce values of `d`.
pub fn check_input(combine: Combine, d: DType) -> Result<()> {
    match combine {
        Combine::Sum | Combine::Prod => Ok(()),
        // Complex max/min (and their NaN-ignoring forms) combine in NumPy's lexicographic
        // order; the arg forms of complex arrays are computed from them by the caller.
        Combine::Max | Combine::Min | Combine::NanMax | Combine::NanMin => Ok(()),
        _ if d.is_complex() => Err(Error::unsupported(format!(
            "the arg and moment reductions of {d} arrays in one kernel"
        ))),
        _ => Ok(()),
    }
}

fn identity(rp: &ReduceProgram) -> String {
    if rp.custom.is_some() {
        return "kp_user_identity()".into();
    }
    let acc = rp.acc;
    let t = acc.wgsl_value();
    if rp.wide_arg() && acc == DType::U64 {
        // Index 2**64 - 1 (unsigned -1): no value yet.
        return format!("vec2<{t}>(0lu, {WIDE_ARG_EMPTY_U64})");
    }
    if rp.wide_arg() {
        // Index -1: no value yet (loses against every element).
        return format!("vec2<{t}>({t}(0), {t}(-1))");
    }
    match (rp.combine, acc.kind()) {
        (Combine::Prod, Kind::Complex) => format!("{t}(1.0, 0.0)"),
        // -inf - inf j loses against every value in the lexicographic order; NaN + NaN j is
        // what fmax/fmin replace first.
        (Combine::Max, Kind::Complex) => {
            let x = neg_inf(acc.real_part());
            format!("{t}({x}, {x})")
        }
        (Combine::Min, Kind::Complex) => {
            let x = neg_inf(acc.real_part());
            format!("{t}(-({x}), -({x}))")
        }
        (Combine::NanMax | Combine::NanMin, Kind::Complex) => {
            let x = nan(acc.real_part());
            format!("{t}({x}, {x})")
        }
        (Combine::Sum, _) => format!("{t}(0)"),
        (Combine::Prod, _) => format!("{t}(1)"),
        (Combine::Max, Kind::Float) => neg_inf(acc),
        (Combine::Min, Kind::Float) => format!("-({})", neg_inf(acc)),
        (Combine::NanMax | Combine::NanMin, Kind::Float) => nan(acc),
        (Combine::Max | Combine::NanMax, _) => int_limit(acc, false),
        (Combine::Min | Combine::NanMin, _) => int_limit(acc, true),
        // Key 0 and index 0xffffffff - k = 0: loses against every real element.
        (c, _) if c.is_arg() => "vec2<u32>(0u, 0u)".into(),
        _ => format!("vec4<{t}>({t}(0), {t}(0), {t}(0), {t}(0))"),
    }
}

fn combine_body(rp: &ReduceProgram) -> String {
    if rp.custom.is_some() {
        return "    return kp_user_combine(a, b);".into();
    }
    let t = rp.acc.wgsl_value();
    if rp.wide_arg() {
        // (value, index) pairs: an empty side loses; NaN beats numbers (NaN-ignoring variants
        // never lift a NaN); then the larger (smaller) value; then the smaller index.
        let nan = if rp.acc.kind() == Kind::Float {
            "    let an = !(a.x == a.x);
    let bn = !(b.x == b.x);
    if (an != bn) {
        return select(b, a, an);
    }
    if (an && bn) {
        return select(b, a, a.y < b.y);
    }
"
        } else {
            ""
        };
        let better = if rp.combine.is_max() { ">" } else { "<" };
        let empty = |v: &str| {
            if rp.acc == DType::U64 {
                format!("{v}.y == {WIDE_ARG_EMPTY_U64}")
            } else {
                format!("{v}.y < {t}(0)")
            }
        };
        let (empty_a, empty_b) = (empty("a"), empty("b"));
        return format!(
            "    if ({empty_a}) {{
        return b;
    }}
    if ({empty_b}) {{
        return a;
    }}
{nan}    if (a.x != b.x) {{
        return select(b, a, a.x {better} b.x);
    }}
    return select(b, a, a.y < b.y);"
        );
    }
    match (rp.combine, rp.acc.kind()) {
        (Combine::Prod, Kind::Complex) => {
            format!("    return {};", crate::codegen::cmul_expr(t, "a", "b"))
        }
        // NumPy's lexicographic maximum/minimum (a NaN first operand kept) and fmax/fmin.
        (c @ (Combine::Max | Combine::Min | Combine::NanMax | Combine::NanMin), Kind::Complex) => {
            let f = match c {
                Combine::Max => "cmaximum",
                Combine::Min => "cminimum",
                Combine::NanMax => "cfmax",
                _ => "cfmin",
            };
            format!(
                "    return kp_{f}_{}(a, b);",
                crate::codegen::complex_suffix(rp.acc)
            )
        }
        (Combine::Sum, _) => "    return a + b;".into(),
        (Combine::Prod, _) => "    return a * b;".into(),
        (Combine::Max, Kind::Float) => format!("    return kp_maximum_{t}(a, b);"),
        (Combine::Min, Kind::Float) => format!("    return kp_minimum_{t}(a, b);"),
        (Combine::NanMax, Kind::Float) => format!("    return kp_fmax_{t}(a, b);"),
        (Combine::NanMin, Kind::Float) => format!("    return kp_fmin_{t}(a, b);"),
        (Combine::Max | Combine::NanMax, _) => "    return max(a, b);".into(),
        (Combine::Min | Combine::NanMin, _) => "    return min(a, b);".into(),
        // Lexicographic maximum of (key, 0xffffffff - index): larger key, then smaller index.
        (c, _) if c.is_arg() => "    if (a.x != b.x) {
        return select(b, a, a.x > b.x);
    }
    return select(b, a, a.y > b.y);"
            .into(),
        _ => format!(
            "    let n = a.x + b.x;
    if (n == {t}(0)) {{
        return a;
    }}
    let d = b.y - a.y;
    let mean = a.y + d * (b.x / n);
    let m2 = a.z + b.z + d * d * (a.x * b.x / n);
    return vec4<{t}>(n, mean, m2, {t}(0));"
        ),
    }
}

/// The order-preserving u32 key of a value for arg-reductions (NaN largest, -0 == +0).
fn arg_key(value: &str, d: DType, max: bool) -> String {
    let key = match d {
        DType::F32 | DType::F16 => {
            let v = if d == DType::F16 {
                format!("f32({value})")
            } else {
                value.to_string()
            };
            format!("kp_float_key({v}, {max})")
        }
        DType::I8 | DType::I16 | DType::I32 => format!("(bitcast<u32>({value}) ^ 0x80000000u)"),
        DType::U8 | DType::U16 | DType::U32 => value.to_string(),
        DType::Bool => format!("select(0u, 1u, {value})"),
        _ => "0u".into(),
    };
    if matches!(d, DType::F32 | DType::F16) || max {
        key
    } else {
        format!("(~{key})")
    }
}

const FLOAT_KEY: &str = "
// Order-preserving key of an f32 for arg-reductions: NaN is the largest key (the first NaN
// wins, as in NumPy), -0 equals +0; for a minimum the order is reversed (NaN still largest).
fn kp_float_key(v: f32, for_max: bool) -> u32 {
    let b = bitcast<u32>(v);
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return 0xffffffffu;
    }
    var k = select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
    if ((b & 0x7fffffffu) == 0u) {
        k = 0x80000000u;
    }
    // Keys of real values stay below 0xffffffff so NaN always wins.
    k = min(k, 0xfffffffeu);
    return select(0xfffffffeu - k, k, for_max);
}
";

fn lift(rp: &ReduceProgram, value_type: DType) -> String {
    if rp.partials || rp.custom.is_some() {
        return "v".into();
    }
    let t = rp.acc.wgsl_value();
    let is_nan = match value_type {
        DType::F16 | DType::F32 => "kp_isnan_f32(f32(v))",
        DType::F64 => "kp_isnan_f64(v)",
        _ => "false",
    };
    if rp.wide_arg() {
        let pair = format!(
            "vec2<{t}>(v, {})",
            codegen::cast_expr("k", DType::U32, rp.acc)
        );
        return match rp.combine {
            Combine::NanArgMax | Combine::NanArgMin => {
                format!("select({pair}, {}, {is_nan})", identity(rp))
            }
            _ => pair,
        };
    }
    let key = |max: bool| {
        format!(
            "vec2<u32>({}, 0xffffffffu - k)",
            arg_key("v", value_type, max)
        )
    };
    // Moments of v - shift, where shift is the output's first value: the variance is
    // shift-invariant and the shifted values are small, so f32 keeps its precision when the
    // mean is large relative to the spread.
    let moments = format!(
        "vec4<{t}>({t}(1), {} - shift, {t}(0), {t}(0))",
        codegen::cast_expr("v", value_type, rp.acc)
    );
    match rp.combine {
        Combine::ArgMax => key(true),
        Combine::ArgMin => key(false),
        // A NaN lifts to the identity, which loses against every real value.
        Combine::NanArgMax => format!("select({}, vec2<u32>(0u, 0u), {is_nan})", key(true)),
        Combine::NanArgMin => format!("select({}, vec2<u32>(0u, 0u), {is_nan})", key(false)),
        Combine::Moments => moments,
        Combine::NanMoments => {
            format!("select({moments}, vec4<{t}>({t}(0), {t}(0), {t}(0), {t}(0)), {is_nan})")
        }
        _ => codegen::cast_expr("v", value_type, rp.acc),
    }
}

fn finalize(rp: &ReduceProgram) -> String {
    let store = match rp.combine {
        _ if rp.custom.is_some() => "kp_user_post(acc)".to_string(),
        _ if rp.wide_arg() => codegen::cast_expr("acc.y", rp.acc, rp.out),
        c if c.is_arg() => codegen::cast_expr("(0xffffffffu - acc.y)", DType::U32, rp.out),
        c if c.is_moments() => {
            // NumPy's degrees of freedom: var divides M2 by max(n - ddof, 0) (so inf, or NaN
            // for M2 = 0, when ddof >= n); nanvar gives NaN when n - ddof <= 0.
            let t = rp.acc.wgsl_value();
            let den = format!("(acc.x - {t}(P.ddof))");
            let q = format!("(acc.z / max({den}, {t}(1)))");
            let nan = nan(rp.acc);
            let degenerate = if c == Combine::NanMoments {
                nan.clone()
            } else {
                format!("select({nan}, -({}), acc.z > {t}(0))", neg_inf(rp.acc))
            };
            // A line with an infinity: NumPy's x - mean is inf - inf = NaN. The merged mean
            // is then inf or NaN (and stays so), while M2 may still be inf.
            let max = match rp.acc {
                DType::F64 => "1.7976931348623157e308lf",
                _ => "3.4028234663852886e38f",
            };
            let v = format!(
                "select({nan}, select({degenerate}, {q}, {den} > {t}(0)), abs(acc.y) <= {max})"
            );
            codegen::cast_expr(&v, rp.acc, rp.out)
        }
        _ => codegen::cast_expr("acc", rp.acc, rp.out),
    };
    if rp.out == DType::Bool {
        format!("select(0u, 1u, {store})")
    } else {
        store
    }
}

/// A quiet NaN of a float dtype. The bits go through [`RUNTIME_BITS`]'s function: WebGPU
/// rejects constant expressions that are not finite.
fn nan(d: DType) -> String {
    match d {
        // Through f32: a u64 literal would need SHADER_INT64.
        DType::F64 => "f64(bitcast<f32>(kp_runtime_bits(0x7fc00000u)))".into(),
        DType::F16 => "f16(bitcast<f32>(kp_runtime_bits(0x7fc00000u)))".into(),
        _ => "bitcast<f32>(kp_runtime_bits(0x7fc00000u))".into(),
    }
}

/// -inf of a float dtype, written so that no constant evaluation divides by zero or
/// overflows (see [`nan`]).
fn neg_inf(d: DType) -> String {
    match d {
        DType::F64 => "f64(bitcast<f32>(kp_runtime_bits(0xff800000u)))".into(),
        DType::F16 => "f16(bitcast<f32>(kp_runtime_bits(0xff800000u)))".into(),
        _ => "bitcast<f32>(kp_runtime_bits(0xff800000u))".into(),
    }
}

/// A user function call is never a constant expression: NaN and infinity built from its
/// result are runtime values, which WebGPU accepts (it rejects non-finite constants).
const RUNTIME_BITS: &str = "
fn kp_runtime_bits(x: u32) -> u32 { return x; }
";

/// The index of an empty uint64 (value, index) arg accumulator.
const WIDE_ARG_EMPTY_U64: &str = "18446744073709551615lu";

fn int_limit(d: DType, max: bool) -> String {
    match (d.compute(), max) {
        (DType::I32, false) => "i32(-2147483647 - 1)".into(),
        (DType::I32, true) => "i32(2147483647)".into(),
        (DType::U32, false) => "0u".into(),
        (DType::U32, true) => "4294967295u".into(),
        (DType::I64, false) => "i64(-9223372036854775807li - 1li)".into(),
        (DType::I64, true) => "i64(9223372036854775807li)".into(),
        (DType::U64, false) => "0lu".into(),
        (DType::U64, true) => "18446744073709551615lu".into(),
        (_, false) => "0u".into(),
        (_, true) => "1u".into(),
    }
}

/// Generates a reduction kernel. Bindings: 0 uniforms, 1.. the map's inputs, last the output.
/// Uniform extras, in order: `m` (outputs), `r` (values per output), `splits`, `chunk`, `ddof`.
pub fn generate(rp: &ReduceProgram, target: &Target) -> Result<(String, ParamLayout)> {
    let map = &rp.map;
    for d in map.dtypes().chain([rp.acc, rp.out]) {
        target.check(d, "this adapter")?;
    }
    if map.vector {
        return Err(Error::invalid("reduction maps are scalar programs"));
    }
    let acc_type = rp.acc_type();
    // Partial accumulators as stored: a bool accumulator (a custom reduction's) is a u32 in
    // storage, as bool arrays are (WGSL has no host-shareable bool).
    let bool_acc = acc_type == "bool";
    let acc_stored = if bool_acc {
        "u32".to_string()
    } else {
        acc_type.clone()
    };
    let (fields, layout) = codegen::param_block(map, &["m", "r", "splits", "chunk", "ddof"]);
    let mut bindings = String::new();
    for (k, input) in map.inputs.iter().enumerate() {
        let ty = if rp.partials {
            acc_stored.clone()
        } else {
            input.dtype.wgsl_storage().to_string()
        };
        let _ = writeln!(
            bindings,
            "@group(0) @binding({}) var<storage, read> in{k}: array<{ty}>;",
            k + 1
        );
    }
    let out_type = if rp.finalize {
        rp.out.wgsl_storage().to_string()
    } else {
        acc_stored.clone()
    };
    let _ = writeln!(
        bindings,
        "@group(0) @binding({}) var<storage, read_write> out: array<{out_type}>;",
        map.inputs.len() + 1
    );

    let mut needs = Needs::for_target(target);
    let mut body = String::from("    let i0 = g;\n    let g0 = g;\n");
    if map.rank > 0 && map.inputs.iter().any(|i| i.access == Access::Strided) {
        body.push_str("    var r0 = g0;\n");
        for j in (1..map.rank).rev() {
            let _ = writeln!(body, "    let c{j}_0 = r0 % P.d{j};\n    r0 = r0 / P.d{j};");
        }
        body.push_str("    let c0_0 = r0;\n");
    }
    let value_type = map.out_dtype();
    let value_wgsl = if rp.partials {
        acc_type.clone()
    } else {
        value_type.wgsl_value().to_string()
    };
    if rp.partials {
        let index = match map.inputs[0].access {
            Access::Contiguous => "P.o0 + i0".to_string(),
            Access::Broadcast => "P.o0".to_string(),
            Access::Strided => {
                let mut s = "P.o0".to_string();
                for j in 0..map.rank {
                    let _ = write!(s, " + c{j}_0 * P.t0_{j}");
                }
                s
            }
        };
        if bool_acc {
            let _ = writeln!(body, "    return in0[{index}] != 0u;");
        } else {
            let _ = writeln!(body, "    return in0[{index}];");
        }
    } else {
        for (idx, (node, dtype)) in map.nodes.iter().enumerate() {
            let expr = codegen::node_expr(map, node, *dtype, 0, &mut needs)?;
            let _ = writeln!(body, "    let n{idx}_0: {} = {expr};", dtype.wgsl_value());
        }
        let _ = writeln!(body, "    return n{}_0;", map.output);
    }
    if rp.acc.kind() == Kind::Float {
        needs.float.insert(rp.acc);
    }
    if rp.acc.is_complex() && !matches!(rp.combine, Combine::Sum | Combine::Prod) {
        needs.complex.insert(rp.acc);
    }
    let mut helpers = needs.render()?;
    if rp.combine.is_arg() {
        helpers.push_str(FLOAT_KEY);
    }
    if matches!(
        rp.combine,
        Combine::NanArgMax | Combine::NanArgMin | Combine::NanMoments
    ) && matches!(value_type, DType::F16 | DType::F32)
        && !needs.float.contains(&DType::F32)
    {
        needs.float.insert(DType::F32);
        helpers = needs.render()? + if rp.combine.is_arg() { FLOAT_KEY } else { "" };
    }
    if value_type == DType::F64 && !needs.float.contains(&DType::F64) {
        needs.float.insert(DType::F64);
        helpers = needs.render()? + if rp.combine.is_arg() { FLOAT_KEY } else { "" };
    }
    if let Some(user) = &rp.custom {
        if user.acc != rp.acc || user.out != rp.out {
            return Err(Error::invalid(
                "custom reduction types differ from the program's",
            ));
        }
        if !user.preamble.is_empty() && !needs.user.iter().any(|f| f.preamble == user.preamble) {
            helpers.push_str(&user.preamble);
            helpers.push('\n');
        }
        helpers.push_str(&user.helpers());
    }
    let store = if rp.finalize {
        finalize(rp)
    } else if bool_acc {
        "select(0u, 1u, acc)".to_string()
    } else {
        "acc".to_string()
    };
    let identity = identity(rp);
    let shift = if rp.combine == Combine::Moments && !rp.partials {
        codegen::cast_expr("kp_value(o * P.r)", value_type, rp.acc)
    } else if rp.combine == Combine::NanMoments && !rp.partials {
        let first = codegen::cast_expr("kp_value(o * P.r)", value_type, rp.acc);
        format!(
            "select({first}, {t}(0), kp_isnan_{t}({first}))",
            t = rp.acc.wgsl_value()
        )
    } else {
        format!("{}(0)", rp.acc.wgsl_value())
    };
    let strategy = match rp.strategy {
        Strategy::Inner => format!(
            "    let w = wid.x + wid.y * nwg.x;
    if (w >= P.m * P.splits) {{
        return;
    }}
    let o = w / P.splits;
    let s = w % P.splits;
    let begin = s * P.chunk;
    let end = min(P.r, begin + P.chunk);
    let shift = {shift};
    var acc = {identity};
    // Four loads in flight per thread before they are combined (in index order, so
    // arg-reductions keep the first index), then the remainder one at a time.
    let base = o * P.r;
    var k = begin + lid;
    for (; k + 768u < end; k = k + 1024u) {{
        let v0 = kp_lift(kp_value(base + k), k, shift);
        let v1 = kp_lift(kp_value(base + k + 256u), k + 256u, shift);
        let v2 = kp_lift(kp_value(base + k + 512u), k + 512u, shift);
        let v3 = kp_lift(kp_value(base + k + 768u), k + 768u, shift);
        acc = kp_combine(acc, kp_combine(kp_combine(v0, v1), kp_combine(v2, v3)));
    }}
    for (; k < end; k = k + 256u) {{
        acc = kp_combine(acc, kp_lift(kp_value(base + k), k, shift));
    }}
    partial[lid] = acc;
    workgroupBarrier();
    for (var width = 128u; width > 0u; width = width / 2u) {{
        if (lid < width) {{
            partial[lid] = kp_combine(partial[lid], partial[lid + width]);
        }}
        workgroupBarrier();
    }}
    if (lid == 0u) {{
        acc = partial[0];
        out[w] = {store};
    }}"
        ),
        Strategy::Outer => format!(
            "    let o = wid.x * 256u + lid;
    let s = wid.y;
    if (o >= P.m) {{
        return;
    }}
    let begin = s * P.chunk;
    let end = min(P.r, begin + P.chunk);
    let shift = {shift};
    var acc = {identity};
    let base = o * P.r;
    var k = begin;
    for (; k + 3u < end; k = k + 4u) {{
        let v0 = kp_lift(kp_value(base + k), k, shift);
        let v1 = kp_lift(kp_value(base + k + 1u), k + 1u, shift);
        let v2 = kp_lift(kp_value(base + k + 2u), k + 2u, shift);
        let v3 = kp_lift(kp_value(base + k + 3u), k + 3u, shift);
        acc = kp_combine(acc, kp_combine(kp_combine(v0, v1), kp_combine(v2, v3)));
    }}
    for (; k < end; k = k + 1u) {{
        acc = kp_combine(acc, kp_lift(kp_value(base + k), k, shift));
    }}
    out[s * P.m + o] = {store};"
        ),
    };
    let enables = codegen::enables(map.dtypes().chain([rp.acc, rp.out]));
    let wgsl = Template::new(TEMPLATE)
        .set("ENABLES", enables)
        .set("PARAMS", fields.trim_end())
        .set("BINDINGS", bindings.trim_end())
        .set("HELPERS", &(helpers + RUNTIME_BITS))
        .set("VALUE", &value_wgsl)
        .set("ACC", &acc_type)
        .set("ACC_COMPONENT", rp.acc.wgsl_value())
        .set("MAP", body.trim_end())
        .set("LIFT", lift(rp, value_type))
        .set("COMBINE", combine_body(rp))
        .set("STRATEGY", &strategy)
        .render();
    Ok((wgsl, layout))
}

/// Accumulator dtype NumPy uses for `sum`/`prod` of `d` (bool and small ints accumulate in
/// the default int, int64 or uint64 in NumPy: int32 or uint32 here by the no-widening rule;
/// float16 accumulates in float32).
pub fn sum_acc(d: DType) -> DType {
    match d {
        DType::Bool | DType::I8 | DType::I16 => DType::I32,
        DType::U8 | DType::U16 => DType::U32,
        DType::F16 => DType::F32,
        d => d,
    }
}

/// Result dtype of `sum`/`prod` of `d`.
pub fn sum_result(d: DType) -> DType {
    match d {
        DType::Bool | DType::I8 | DType::I16 => DType::I32,
        DType::U8 | DType::U16 => DType::U32,
        d => d,
    }
}

/// Loads input 0 (of dtype `d`) as the whole map: the map of a second pass over partials.
pub fn identity_map(d: DType, access: Access, rank: usize) -> Program {
    Program {
        nodes: vec![(Node::Load(0), d)],
        inputs: vec![crate::expr::InputSpec {
            dtype: d,
            access,
            packed: false,
        }],
        scalars: vec![],
        output: 0,
        rank,
        vector: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validate(wgsl: &str) {
        crate::naga_check::validate(wgsl, naga::valid::Capabilities::empty());
    }

    /// Every (combine, accumulator, result) the library's reductions request for input `d`
    /// (crates/kupfer/src/reduce.rs and nanfuncs.rs; the accumulator in its compute type, as
    /// `reduce_raw` passes it), refused inputs left out.
    fn requested(d: DType) -> Vec<(Combine, DType, DType)> {
        use Combine::*;
        // `float_types` of mean/var: the accumulator.
        let float_acc = match d {
            DType::Complex64 | DType::Complex128 => d,
            DType::F64 | DType::I64 | DType::U64 => DType::F64,
            _ => DType::F32,
        };
        // max/min (and any/all on bool), nanmax/nanmin.
        let extreme_acc = if d == DType::Bool { DType::U32 } else { d };
        let arg_acc = if d.is_64bit() { d } else { DType::U32 };
        let nan_moments_acc = if d == DType::F64 {
            DType::F64
        } else {
            DType::F32
        };
        let mut out = vec![
            (Sum, sum_acc(d), sum_result(d)),
            (Prod, sum_acc(d), sum_result(d)),
            (Sum, float_acc, float_acc),
            (Sum, sum_acc(d), sum_acc(d)),
            (Max, extreme_acc, d),
            (Min, extreme_acc, d),
            (NanMax, extreme_acc, d),
            (NanMin, extreme_acc, d),
            (Moments, float_acc, float_acc),
            (NanMoments, nan_moments_acc, nan_moments_acc),
        ];
        for default_int in [DType::I64, DType::I32] {
            for arg in [ArgMax, ArgMin, NanArgMax, NanArgMin] {
                out.push((arg, arg_acc, default_int));
            }
            if d == DType::Bool {
                // count_nonzero.
                out.push((Sum, default_int, default_int));
            }
        }
        let mut unique = Vec::new();
        for (combine, acc, result) in out {
            let entry = (combine, acc.compute(), result);
            if check_input(combine, d).is_ok() && !unique.contains(&entry) {
                unique.push(entry);
            }
        }
        unique
    }

    /// Every requested (combine, accumulator, result) of every dtype, in both strategies, as
    /// the first pass (finalized or writing partials, over a strided, contiguous or broadcast
    /// input) and as the second pass over the first one's partials. The input's access changes
    /// only the load, so it is crossed with the dtypes under one combine per accumulator shape
    /// (sum, arg, moments) rather than with every combine.
    #[test]
    fn every_requested_reduction_validates() {
        let all = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        // Every combine is requested for some dtype (the `match` stops compiling when one is
        // added: list it here and in `requested`).
        use Combine::*;
        for combine in [
            Sum, Prod, Max, Min, ArgMax, ArgMin, Moments, NanMax, NanMin, NanArgMax, NanArgMin,
            NanMoments,
        ] {
            match combine {
                Sum | Prod | Max | Min | ArgMax | ArgMin | Moments | NanMax | NanMin
                | NanArgMax | NanArgMin | NanMoments => {}
            }
            assert!(
                DType::ALL
                    .iter()
                    .any(|&d| requested(d).iter().any(|r| r.0 == combine)),
                "{combine:?}"
            );
        }
        let mut checked = 0;
        for d in DType::ALL {
            for (combine, acc, out) in requested(d) {
                let accesses: &[(Access, usize)] = match combine {
                    Combine::Sum | Combine::ArgMax | Combine::Moments => &[
                        (Access::Strided, 2),
                        (Access::Strided, 1),
                        (Access::Contiguous, 0),
                        (Access::Broadcast, 0),
                    ],
                    _ => &[(Access::Strided, 2)],
                };
                for strategy in [Strategy::Inner, Strategy::Outer] {
                    let mut passes: Vec<(Program, bool, bool)> = accesses
                        .iter()
                        .flat_map(|&(access, rank)| {
                            [true, false]
                                .map(|finalize| (identity_map(d, access, rank), false, finalize))
                        })
                        .collect();
                    passes.push((identity_map(acc, Access::Contiguous, 0), true, true));
                    passes.push((identity_map(acc, Access::Strided, 2), true, true));
                    for (map, partials, finalize) in passes {
                        let rp = ReduceProgram {
                            map,
                            partials,
                            combine,
                            acc,
                            out,
                            finalize,
                            strategy,
                            custom: None,
                        };
                        let (wgsl, _) = generate(&rp, &all)
                            .unwrap_or_else(|e| panic!("{d} {combine:?} {acc} {out}: {e}"));
                        validate(&wgsl);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// A random draw fused into a reduction's map (the library fuses one when the kernel walks
    /// it in C order): every op and dtype it produces, in both strategies.
    #[test]
    fn random_draws_fused_into_reductions_validate() {
        let all = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        for op in crate::naga_check::random_ops() {
            for d in DType::ALL {
                if op.check(d).is_err() {
                    continue;
                }
                use crate::random::ziggurat::{with_table_source, ALL_SOURCES};
                for strategy in [Strategy::Inner, Strategy::Outer] {
                    for (access, source) in [Access::Strided, Access::Contiguous]
                        .into_iter()
                        .zip(ALL_SOURCES.into_iter().cycle().skip(strategy as usize))
                    {
                        let rp = ReduceProgram {
                            map: crate::naga_check::random_program(op, d, access),
                            partials: false,
                            combine: Combine::Sum,
                            acc: sum_acc(d),
                            out: sum_result(d),
                            finalize: true,
                            strategy,
                            custom: None,
                        };
                        with_table_source(source, || validate(&generate(&rp, &all).unwrap().0));
                    }
                }
            }
        }
    }
}
