//! Reductions: the combining operations, their accumulator and result dtypes, and WGSL
//! generation from `shaders/reduce.wgsl`. The value reduced is a fused elementwise
//! [`Program`] (the "map"), so `sum(x * x)` never writes `x * x`.

use crate::codegen::{self, Needs, ParamLayout, Target};
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::expr::{Access, Node, Program};
use std::fmt::Write;

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
    /// The map: its output node is the value reduced (before conversion to `acc`).
    pub map: Program,
    /// How values combine.
    pub combine: Combine,
    /// Accumulator dtype (also the dtype of partial results).
    pub acc: DType,
    /// Dtype written by this pass.
    pub out: DType,
    /// Kernel layout.
    pub strategy: Strategy,
}

impl Combine {
    fn identity(self, acc: DType) -> String {
        let t = acc.wgsl_value();
        let _ = &t;
        match (self, acc.kind()) {
            (Combine::Sum, _) => format!("{t}(0)"),
            (Combine::Prod, _) => format!("{t}(1)"),
            (Combine::Max, Kind::Float) => neg_inf(acc),
            (Combine::Min, Kind::Float) => format!("-({})", neg_inf(acc)),
            (Combine::Max, _) => int_limit(acc, false),
            (Combine::Min, _) => int_limit(acc, true),
        }
    }

    fn expr(self, acc: DType) -> String {
        let t = acc.wgsl_value();
        match (self, acc.kind()) {
            (Combine::Sum, _) => "a + b".into(),
            (Combine::Prod, _) => "a * b".into(),
            (Combine::Max, Kind::Float) => format!("kp_maximum_{t}(a, b)"),
            (Combine::Min, Kind::Float) => format!("kp_minimum_{t}(a, b)"),
            (Combine::Max, _) => "max(a, b)".into(),
            (Combine::Min, _) => "min(a, b)".into(),
        }
    }
}

/// -inf of a float dtype, written so that no constant evaluation divides by zero.
fn neg_inf(d: DType) -> String {
    match d {
        DType::F64 => "bitcast<f64>(0xfff0000000000000lu)".into(),
        DType::F16 => "f16(bitcast<f32>(0xff800000u))".into(),
        _ => "bitcast<f32>(0xff800000u)".into(),
    }
}

fn int_limit(d: DType, max: bool) -> String {
    match (d, max) {
        (DType::I32, false) => "i32(-2147483647 - 1)".into(),
        (DType::I32, true) => "i32(2147483647)".into(),
        (DType::U32, false) => "0u".into(),
        (DType::U32, true) => "4294967295u".into(),
        (DType::I64, false) => "i64(-9223372036854775807li - 1li)".into(),
        (DType::I64, true) => "i64(9223372036854775807li)".into(),
        (_, false) => "0u".into(),
        (_, true) => "1u".into(),
    }
}

/// Generates a reduction kernel. Bindings: 0 uniforms, 1.. the map's inputs, last the output.
/// Uniform extras, in order: `m` (outputs), `r` (values per output), `splits`, `chunk`.
pub fn generate(rp: &ReduceProgram, target: &Target) -> Result<(String, ParamLayout)> {
    let map = &rp.map;
    for d in map.dtypes().chain([rp.acc, rp.out]) {
        target.check(d, "this adapter")?;
    }
    if map.vector {
        return Err(Error::invalid("reduction maps are scalar programs"));
    }
    let (fields, layout) = codegen::param_block(map, &["m", "r", "splits", "chunk"]);
    let mut bindings = String::new();
    for (k, input) in map.inputs.iter().enumerate() {
        let _ = writeln!(
            bindings,
            "@group(0) @binding({}) var<storage, read> in{k}: array<{}>;",
            k + 1,
            input.dtype.wgsl_storage()
        );
    }
    let _ = writeln!(
        bindings,
        "@group(0) @binding({}) var<storage, read_write> out: array<{}>;",
        map.inputs.len() + 1,
        rp.out.wgsl_storage()
    );

    let mut needs = Needs::default();
    let mut body = String::from("    let i0 = g;\n    let g0 = g;\n");
    if map.rank > 0 && map.inputs.iter().any(|i| i.access == Access::Strided) {
        body.push_str("    var r0 = g0;\n");
        for j in (1..map.rank).rev() {
            let _ = writeln!(body, "    let c{j}_0 = r0 % P.d{j};\n    r0 = r0 / P.d{j};");
        }
        body.push_str("    let c0_0 = r0;\n");
    }
    for (idx, (node, dtype)) in map.nodes.iter().enumerate() {
        let expr = codegen::node_expr(map, node, *dtype, 0, &mut needs)?;
        let _ = writeln!(body, "    let n{idx}_0: {} = {expr};", dtype.wgsl_value());
    }
    let value = format!("n{}_0", map.output);
    let _ = writeln!(
        body,
        "    return {};",
        codegen::cast_expr(&value, map.out_dtype(), rp.acc)
    );
    if rp.acc.kind() == Kind::Float {
        needs.float.insert(rp.acc);
    }
    let store = codegen::cast_expr("acc", rp.acc, rp.out);
    let store = if rp.out == DType::Bool {
        format!("select(0u, 1u, {store})")
    } else {
        store
    };
    let identity = rp.combine.identity(rp.acc);
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
    var acc = {identity};
    for (var k = begin + lid; k < end; k = k + 256u) {{
        acc = kp_combine(acc, kp_map(o * P.r + k));
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
    var acc = {identity};
    for (var k = begin; k < end; k = k + 1u) {{
        acc = kp_combine(acc, kp_map(o * P.r + k));
    }}
    out[s * P.m + o] = {store};"
        ),
    };
    let mut enables = String::new();
    if map
        .dtypes()
        .chain([rp.acc, rp.out])
        .any(|d| d == DType::F16)
    {
        enables.push_str("enable f16;\n");
    }
    let wgsl = TEMPLATE
        .replace("{{ENABLES}}", &enables)
        .replace("{{PARAMS}}", fields.trim_end())
        .replace("{{BINDINGS}}", bindings.trim_end())
        .replace("{{HELPERS}}", &needs.render()?)
        .replace("{{ACC}}", rp.acc.wgsl_value())
        .replace("{{MAP}}", body.trim_end())
        .replace("{{COMBINE}}", &rp.combine.expr(rp.acc))
        .replace("{{STRATEGY}}", &strategy);
    Ok((wgsl, layout))
}

/// Accumulator dtype NumPy uses for `sum`/`prod` of `d` (bool and small ints accumulate in
/// the default int — int32 here by the no-widening rule; float16 accumulates in float32).
pub fn sum_acc(d: DType) -> DType {
    match d {
        DType::Bool => DType::I32,
        DType::F16 => DType::F32,
        d => d,
    }
}

/// Result dtype of `sum`/`prod` of `d`.
pub fn sum_result(d: DType) -> DType {
    match d {
        DType::Bool => DType::I32,
        d => d,
    }
}

/// Loads input 0 (of dtype `d`) as the whole map: the map of a second pass over partials.
pub fn identity_map(d: DType, access: Access, rank: usize) -> Program {
    Program {
        nodes: vec![(Node::Load(0), d)],
        inputs: vec![crate::expr::InputSpec { dtype: d, access }],
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
        let module = naga::front::wgsl::parse_str(wgsl)
            .unwrap_or_else(|e| panic!("{}\n---\n{wgsl}", e.emit_to_string(wgsl)));
        let caps = naga::valid::Capabilities::SHADER_FLOAT16
            | naga::valid::Capabilities::FLOAT64
            | naga::valid::Capabilities::SHADER_INT64;
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}\n---\n{wgsl}", e.emit_to_string(wgsl)));
    }

    #[test]
    fn every_combine_dtype_and_strategy_validates() {
        let all = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        for combine in [Combine::Sum, Combine::Prod, Combine::Max, Combine::Min] {
            for d in DType::ALL {
                if d == DType::Complex64 || d == DType::Bool {
                    continue;
                }
                for strategy in [Strategy::Inner, Strategy::Outer] {
                    for access in [Access::Contiguous, Access::Strided] {
                        let acc = sum_acc(d);
                        let rp = ReduceProgram {
                            map: identity_map(d, access, 2),
                            combine,
                            acc,
                            out: d,
                            strategy,
                        };
                        let (wgsl, _) = generate(&rp, &all).unwrap();
                        validate(&wgsl);
                    }
                }
            }
        }
    }
}
