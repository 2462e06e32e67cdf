//! Scans (cumulative sums and products): accumulator dtypes and WGSL generation from
//! `shaders/scan.wgsl`. Like a reduction, a scan consumes a fused elementwise [`Program`] as
//! its map, so `cumsum(x * 2)` reads `x` once and never writes `x * 2`.
//!
//! Long lines use reduce-then-scan: a "reduce" pass writes one total per segment of a line,
//! the totals are scanned exclusively (by this same generator, recursively, on the host side),
//! and a "scan" pass scans every segment starting from its prefix. This needs no forward-
//! progress guarantee between workgroups, so it is correct on every adapter.

use crate::codegen::{self, Needs, ParamLayout, Target};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::expr::{Access, Program};
use crate::template::Template;
use std::fmt::Write;

const TEMPLATE: &str = include_str!("../../../shaders/scan.wgsl");

/// Threads per workgroup of scan kernels.
pub const WORKGROUP_SIZE: u32 = 256;

/// Values a workgroup of the "inner" layout handles per round (256 threads x 4).
pub const ROUND: u32 = 1024;

/// How values combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScanOp {
    /// Running sum.
    Sum,
    /// Running product.
    Prod,
}

/// Which pass of reduce-then-scan a kernel is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScanPhase {
    /// Write one total per segment (accumulator dtype).
    Reduce,
    /// Write the scan of every value, starting from the segment's prefix.
    Scan,
}

/// Kernel layout of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScanLayout {
    /// A workgroup per segment (lines along a contiguous axis).
    Inner,
    /// A thread per (line, segment) (lines along a strided axis, or many short lines).
    Outer,
}

/// A scan kernel's structure (the pipeline-cache key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScanProgram {
    /// The map: its output node is the value scanned. With `partials`, a single load of
    /// input 0, which then holds accumulators.
    pub map: Program,
    /// True when input 0 holds accumulators (the scan of segment totals).
    pub partials: bool,
    /// How values combine.
    pub op: ScanOp,
    /// Accumulator dtype (never bool or float16: those accumulate in uint32 / float32).
    pub acc: DType,
    /// Dtype of the final result.
    pub out: DType,
    /// Which pass.
    pub phase: ScanPhase,
    /// Kernel layout.
    pub layout: ScanLayout,
    /// The scan pass reads one exclusive prefix per segment (a binding before the output).
    pub prefix: bool,
    /// Exclusive scan (element k gets the combination of values before k).
    pub exclusive: bool,
    /// Write `out` values (else accumulators).
    pub finalize: bool,
    /// Use subgroup operations for the workgroup scan (with a shared-memory fallback inside
    /// the kernel when subgroups are not full). Only for 32-bit accumulators.
    pub subgroups: bool,
    /// Load (and store) 4 values at a time: the map's inputs are contiguous or broadcast,
    /// contiguous ones 4-byte; the host guarantees 4-aligned lines and offsets.
    pub vector: bool,
}

impl ScanProgram {
    /// Dtype written by this pass.
    pub fn written(&self) -> DType {
        match self.phase {
            ScanPhase::Scan if self.finalize => self.out,
            _ => self.acc,
        }
    }
}

/// NumPy's accumulation dtype for `cumsum`/`cumprod` of `d` under kupfer's no-widening rule:
/// (accumulator, result). bool and int32 give int32, uint32 uint32, int64 int64, float16
/// (uint64 uint64) accumulates in float32 and returns float16, float32 and float64 keep theirs.
pub fn scan_types(d: DType) -> Result<(DType, DType)> {
    match d {
        DType::Bool | DType::I8 | DType::I16 | DType::I32 => Ok((DType::I32, DType::I32)),
        DType::U8 | DType::U16 | DType::U32 => Ok((DType::U32, DType::U32)),
        DType::I64 => Ok((DType::I64, DType::I64)),
        DType::U64 => Ok((DType::U64, DType::U64)),
        DType::F16 => Ok((DType::F32, DType::F16)),
        DType::F32 => Ok((DType::F32, DType::F32)),
        DType::F64 => Ok((DType::F64, DType::F64)),
        DType::Complex64 | DType::Complex128 => Ok((d, d)),
    }
}

/// Accumulator and result dtypes when the caller names the result dtype (`dtype=`).
pub fn scan_types_for(requested: DType) -> Result<(DType, DType)> {
    match requested {
        DType::Bool => Ok((DType::U32, DType::Bool)),
        DType::F16 => Ok((DType::F32, DType::F16)),
        // Small integers accumulate in 32 bits; the stored result wraps as NumPy's does.
        d => Ok((d.compute(), d)),
    }
}

fn subgroup_capable(sp: &ScanProgram) -> bool {
    matches!(sp.acc, DType::F32 | DType::I32 | DType::U32)
}

fn wg_scan_shared() -> String {
    "    kp_sh[tid] = x;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off = off * 2u) {
        var y = kp_sh[tid];
        if (tid >= off) {
            y = kp_combine(kp_sh[tid - off], y);
        }
        workgroupBarrier();
        kp_sh[tid] = y;
        workgroupBarrier();
    }
    var excl = KP_IDENTITY;
    if (tid > 0u) {
        excl = kp_sh[tid - 1u];
    }
    kp_block_total = kp_sh[255];
    workgroupBarrier();
    return excl;"
        .to_string()
}

fn wg_scan_subgroups(sp: &ScanProgram) -> String {
    let (ex, all) = match sp.op {
        ScanOp::Sum => ("subgroupExclusiveAdd", "subgroupAdd"),
        ScanOp::Prod => ("subgroupExclusiveMul", "subgroupMul"),
    };
    format!(
        "    if (sg.w == 0u) {{
{shared}
    }}
    // Full subgroups of at least 16 invocations: `tid` is subgroup-major.
    let inv = sg.x;
    let id = sg.y;
    let size = sg.z;
    let ex = {ex}(x);
    if (inv == size - 1u) {{
        kp_sh[id] = kp_combine(ex, x);
    }}
    workgroupBarrier();
    let nsg = 256u / size;
    var v = KP_IDENTITY;
    if (inv < nsg) {{
        v = kp_sh[inv];
    }}
    let vex = {ex}(v);
    let pre = subgroupShuffle(vex, id);
    kp_block_total = {all}(v);
    workgroupBarrier();
    return kp_combine(pre, ex);",
        shared = indent(&wg_scan_shared(), 4)
    )
}

fn indent(s: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    s.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn identity(sp: &ScanProgram) -> String {
    let t = sp.acc.wgsl_value();
    match (sp.op, sp.acc.is_complex()) {
        (ScanOp::Sum, false) => format!("{t}(0)"),
        (ScanOp::Prod, false) => format!("{t}(1)"),
        (ScanOp::Sum, true) => format!("{t}(0.0, 0.0)"),
        (ScanOp::Prod, true) => format!("{t}(1.0, 0.0)"),
    }
}

/// The scalar body of `kp_value` (as in reductions): coordinates for strided inputs, then one
/// `let` per node.
fn value_body(sp: &ScanProgram, needs: &mut Needs) -> Result<String> {
    let map = &sp.map;
    let mut body = String::from("    let i0 = g;\n    let g0 = g;\n");
    if map.rank > 0 && map.inputs.iter().any(|i| i.access == Access::Strided) {
        body.push_str("    var r0 = g0;\n");
        for j in (1..map.rank).rev() {
            let _ = writeln!(body, "    let c{j}_0 = r0 % P.d{j};\n    r0 = r0 / P.d{j};");
        }
        body.push_str("    let c0_0 = r0;\n");
    }
    if sp.partials {
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
        let _ = writeln!(body, "    return in0[{index}];");
        return Ok(body);
    }
    let mut scalar = map.clone();
    scalar.vector = false;
    for (idx, (node, dtype)) in scalar.nodes.iter().enumerate() {
        let expr = codegen::node_expr(&scalar, node, *dtype, 0, needs)?;
        let _ = writeln!(body, "    let n{idx}_0: {} = {expr};", dtype.wgsl_value());
    }
    let _ = writeln!(body, "    return n{}_0;", map.output);
    Ok(body)
}

/// `kp_value4(q)`: the 4 values at vector index q (elements 4q .. 4q+3).
fn value4_fn(sp: &ScanProgram, value: &str, needs: &mut Needs) -> Result<String> {
    let map = &sp.map;
    let mut body = format!("\nfn kp_value4(q0: u32) -> array<{value}, 4> {{\n");
    for (k, input) in map.inputs.iter().enumerate() {
        if input.access == Access::Contiguous {
            let _ = writeln!(body, "    let l{k}_0 = in{k}[P.o{k} / 4u + q0];");
        }
    }
    if sp.partials {
        body.push_str("    return array<{ACC}, 4>(l0_0.x, l0_0.y, l0_0.z, l0_0.w);\n}\n");
        return Ok(body.replace("{ACC}", value));
    }
    for item in 0..4u32 {
        let _ = writeln!(body, "    let g{item} = q0 * 4u + {item}u;");
    }
    let mut vmap = map.clone();
    vmap.vector = true;
    for (idx, (node, dtype)) in vmap.nodes.iter().enumerate() {
        for item in 0..4u32 {
            let expr = codegen::node_expr(&vmap, node, *dtype, item, needs)?;
            let _ = writeln!(
                body,
                "    let n{idx}_{item}: {} = {expr};",
                dtype.wgsl_value()
            );
        }
    }
    let o = map.output;
    let _ = writeln!(
        body,
        "    return array<{value}, 4>(n{o}_0, n{o}_1, n{o}_2, n{o}_3);\n}}"
    );
    Ok(body)
}

/// True when the map can be read 4 values at a time (every input contiguous or broadcast,
/// contiguous inputs of a 4-byte dtype).
pub fn vector_map(map: &Program) -> bool {
    map.rank == 0
        && map.inputs.iter().all(|i| match i.access {
            Access::Contiguous => i.dtype.gpu_size() == 4,
            Access::Broadcast => true,
            Access::Strided => false,
        })
}

fn inner_strategy(sp: &ScanProgram) -> String {
    let acc = sp.acc.wgsl_value();
    let mut s = String::from(
        "    let w = wid.x + wid.y * nwg.x;
    if (w >= P.m * P.segs) {
        return;
    }
    let o = w / P.segs;
    let s = w % P.segs;
    let begin = s * P.chunk;
    let end = min(P.r, begin + P.chunk);
    let gbase = o * P.r;
",
    );
    let _ = writeln!(s, "    var v: array<{acc}, 4>;");
    let load = if sp.vector {
        "        if (k0 < end) {
            let q = kp_value4((gbase + k0) / 4u);
            v[0] = kp_lift(q[0]);
            v[1] = kp_lift(q[1]);
            v[2] = kp_lift(q[2]);
            v[3] = kp_lift(q[3]);
        }"
        .to_string()
    } else {
        "        for (var j = 0u; j < 4u; j = j + 1u) {
            if (k0 + j < end) {
                v[j] = kp_lift(kp_value(gbase + k0 + j));
            }
        }"
        .to_string()
    };
    match sp.phase {
        ScanPhase::Reduce => {
            let _ = write!(
                s,
                "    var tacc = KP_IDENTITY;
    for (var base = begin; base < end; base = base + {ROUND}u) {{
        let k0 = base + tid * 4u;
        v = array<{acc}, 4>(KP_IDENTITY, KP_IDENTITY, KP_IDENTITY, KP_IDENTITY);
{load}
        tacc = kp_combine(tacc, kp_combine(kp_combine(v[0], v[1]), kp_combine(v[2], v[3])));
    }}
    let unused = kp_wg_scan(tacc, tid, sg);
    if (tid == 0u) {{
        out[w] = kp_block_total;
    }}"
            );
        }
        ScanPhase::Scan => {
            let carry = if sp.prefix { "pre[w]" } else { "KP_IDENTITY" };
            let out_index = "(o / P.inner) * P.r * P.inner + o % P.inner";
            let value = |j: &str| {
                if sp.exclusive {
                    format!("e[{j}]")
                } else {
                    format!("v[{j}]")
                }
            };
            let store = if sp.vector {
                let t = sp.written().wgsl_storage();
                let lanes: Vec<String> = (0..4)
                    .map(|j| {
                        let x = format!("kp_store(kp_combine(pre, {}))", value(&j.to_string()));
                        if sp.written() == DType::Bool {
                            format!("select(0u, 1u, {x})")
                        } else {
                            x
                        }
                    })
                    .collect();
                format!(
                    "        if (k0 < end) {{
            out[(obase + k0) / 4u] = vec4<{t}>({});
        }}",
                    lanes.join(", ")
                )
            } else {
                let x = format!("kp_store(kp_combine(pre, {}))", value("j"));
                let x = if sp.written() == DType::Bool {
                    format!("select(0u, 1u, {x})")
                } else {
                    x
                };
                format!(
                    "        for (var j = 0u; j < 4u; j = j + 1u) {{
            if (k0 + j < end) {{
                out[obase + (k0 + j) * P.inner] = {x};
            }}
        }}"
                )
            };
            let _ = write!(
                s,
                "    let obase = {out_index};
    var carry = {carry};
    for (var base = begin; base < end; base = base + {ROUND}u) {{
        let k0 = base + tid * 4u;
        v = array<{acc}, 4>(KP_IDENTITY, KP_IDENTITY, KP_IDENTITY, KP_IDENTITY);
{load}
        var e = array<{acc}, 4>(KP_IDENTITY, v[0], kp_combine(v[0], v[1]),
            kp_combine(kp_combine(v[0], v[1]), v[2]));
        v[1] = e[2];
        v[2] = e[3];
        v[3] = kp_combine(e[3], v[3]);
        let texcl = kp_wg_scan(v[3], tid, sg);
        let pre = kp_combine(carry, texcl);
{store}
        carry = kp_combine(carry, kp_block_total);
    }}"
            );
        }
    }
    s
}

fn outer_strategy(sp: &ScanProgram) -> String {
    let mut s = String::from(
        "    let o = wid.x * 256u + lid;
    let s = wid.y;
    if (o >= P.m) {
        return;
    }
    let begin = s * P.chunk;
    let end = min(P.r, begin + P.chunk);
    let gbase = o * P.r;
",
    );
    match sp.phase {
        ScanPhase::Reduce => s.push_str(
            "    var acc = KP_IDENTITY;
    for (var k = begin; k < end; k = k + 1u) {
        acc = kp_combine(acc, kp_lift(kp_value(gbase + k)));
    }
    out[s * P.m + o] = acc;",
        ),
        ScanPhase::Scan => {
            let carry = if sp.prefix {
                "pre[s * P.m + o]"
            } else {
                "KP_IDENTITY"
            };
            let store = if sp.written() == DType::Bool {
                "select(0u, 1u, kp_store(acc))"
            } else {
                "kp_store(acc)"
            };
            let step = if sp.exclusive {
                format!(
                    "        out[obase + k * P.inner] = {store};
        acc = kp_combine(acc, x);"
                )
            } else {
                format!(
                    "        acc = kp_combine(acc, x);
        out[obase + k * P.inner] = {store};"
                )
            };
            let _ = write!(
                s,
                "    let obase = (o / P.inner) * P.r * P.inner + o % P.inner;
    var acc = {carry};
    for (var k = begin; k < end; k = k + 1u) {{
        let x = kp_lift(kp_value(gbase + k));
{step}
    }}"
            );
        }
    }
    s
}

/// Generates a scan kernel. Bindings: 0 uniforms, 1.. the map's inputs, then the segment
/// prefixes (when `prefix`), last the output. Uniform extras, in order: `m` (lines), `r`
/// (values per line), `segs` (segments per line), `chunk` (values per segment), `inner`
/// (output stride of the scanned axis).
pub fn generate(sp: &ScanProgram, target: &Target) -> Result<(String, ParamLayout)> {
    let map = &sp.map;
    for d in map.dtypes().chain([sp.acc, sp.out]) {
        target.check(d, "this adapter")?;
    }
    if matches!(sp.acc, DType::Bool | DType::F16) {
        return Err(Error::invalid(format!(
            "scan accumulator of dtype {} (use uint32 / float32)",
            sp.acc
        )));
    }
    if sp.vector && !vector_map(map) {
        return Err(Error::invalid(
            "scan map marked vector but not vectorisable",
        ));
    }
    if sp.vector && (sp.layout != ScanLayout::Inner || sp.written().gpu_size() != 4) {
        return Err(Error::invalid(
            "vector scans need the inner layout and a 4-byte result",
        ));
    }
    if sp.subgroups && !subgroup_capable(sp) {
        return Err(Error::invalid("subgroup scans need a 32-bit accumulator"));
    }
    let acc = sp.acc.wgsl_value();
    let (fields, layout) = codegen::param_block(map, &["m", "r", "segs", "chunk", "inner"]);
    let mut bindings = String::new();
    for (k, input) in map.inputs.iter().enumerate() {
        let base = if sp.partials {
            acc.to_string()
        } else {
            input.dtype.wgsl_storage().to_string()
        };
        let ty = if sp.vector && input.access == Access::Contiguous {
            format!("vec4<{base}>")
        } else {
            base
        };
        let _ = writeln!(
            bindings,
            "@group(0) @binding({}) var<storage, read> in{k}: array<{ty}>;",
            k + 1
        );
    }
    let mut next = map.inputs.len() + 1;
    if sp.prefix && sp.phase == ScanPhase::Scan {
        let _ = writeln!(
            bindings,
            "@group(0) @binding({next}) var<storage, read> pre: array<{acc}>;"
        );
        next += 1;
    }
    let written = sp.written().wgsl_storage();
    let out_ty = if sp.vector && sp.phase == ScanPhase::Scan {
        format!("vec4<{written}>")
    } else {
        written.to_string()
    };
    let _ = writeln!(
        bindings,
        "@group(0) @binding({next}) var<storage, read_write> out: array<{out_ty}>;"
    );

    let mut needs = Needs::for_target(target);
    let value_type = map.out_dtype();
    let value = if sp.partials {
        acc.to_string()
    } else {
        value_type.wgsl_value().to_string()
    };
    // Vector kernels read through kp_value4 only; kp_value stays for the template.
    let body = if sp.vector {
        "    var q = kp_value4(g / 4u);\n    return q[g % 4u];".to_string()
    } else {
        value_body(sp, &mut needs)?
    };
    let value4 = if sp.vector {
        value4_fn(sp, &value, &mut needs)?
    } else {
        String::new()
    };
    if value_type == DType::F64 || sp.acc == DType::F64 {
        needs.float.insert(DType::F64);
    }
    let helpers = needs.render()?;
    let lift = if sp.partials {
        "v".to_string()
    } else {
        codegen::cast_expr("v", value_type, sp.acc)
    };
    let complex_product = codegen::cmul_expr(acc, "a", "b");
    let combine = match sp.op {
        ScanOp::Sum => "a + b",
        ScanOp::Prod if sp.acc.is_complex() => complex_product.as_str(),
        ScanOp::Prod => "a * b",
    };
    let (store, out_value) = if sp.phase == ScanPhase::Scan && sp.finalize {
        (
            codegen::cast_expr("acc", sp.acc, sp.out),
            sp.out.wgsl_value(),
        )
    } else {
        ("acc".to_string(), acc)
    };
    let use_sg = sp.subgroups && sp.layout == ScanLayout::Inner;
    let wg_scan = if use_sg {
        wg_scan_subgroups(sp)
    } else {
        wg_scan_shared()
    };
    let (sg_builtins, sg_setup) = if use_sg {
        (
            ",\n        @builtin(subgroup_invocation_id) sg_inv: u32, \
             @builtin(subgroup_size) sg_size: u32,\n        \
             @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_num: u32",
            "    // Subgroup-major thread order when every subgroup is full and at least 16 wide
    // (then one subgroup can scan the subgroup totals); local index order otherwise.
    let full = sg_num * sg_size == 256u && sg_size >= 16u;
    let tid = select(lid, sg_id * sg_size + sg_inv, full);
    let sg = vec4<u32>(sg_inv, sg_id, sg_size, select(0u, 1u, full));
",
        )
    } else {
        (
            "",
            "    let tid = lid;\n    let sg = vec4<u32>(0u, 0u, 0u, 0u);\n",
        )
    };
    let strategy = match sp.layout {
        ScanLayout::Inner => format!("{sg_setup}{}", inner_strategy(sp)),
        ScanLayout::Outer => outer_strategy(sp),
    };
    let enables = codegen::enables(map.dtypes().chain([sp.acc, sp.out]));
    // naga (wgpu 30) takes subgroup builtins without `enable subgroups;` and rejects it.
    let wgsl = Template::new(TEMPLATE)
        .set("ENABLES", enables)
        .set("PARAMS", fields.trim_end())
        .set("BINDINGS", bindings.trim_end())
        .set("HELPERS", &helpers)
        .set("VALUE4", &value4)
        .set("VALUE", &value)
        .set("ACC", acc)
        .set("OUT", out_value)
        .set("MAP", body.trim_end())
        .set("LIFT", &lift)
        .set("COMBINE", combine)
        .set("STORE", &store)
        .set("IDENTITY", identity(sp))
        .set("WG_SCAN", &wg_scan)
        .set("SG_BUILTINS", sg_builtins)
        .set("STRATEGY", &strategy)
        .render();
    Ok((wgsl, layout))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{BinaryOp, InputSpec, Node};
    use crate::reduce::identity_map;

    pub(crate) fn validate(wgsl: &str, subgroups: bool) {
        let extra = if subgroups {
            naga::valid::Capabilities::SUBGROUP
        } else {
            naga::valid::Capabilities::empty()
        };
        crate::naga_check::validate(wgsl, extra);
    }

    const ALL: Target = Target {
        f16: true,
        f64: true,
        i64: true,
    };

    /// Every program the library's `cumsum`/`cumprod` request (crates/kupfer/src/scan.rs):
    /// (acc, out) from `scan_types` (no `dtype=`) and `scan_types_for` (a `dtype=`) of every
    /// dtype, the accumulator in its compute type; the line pass (no partials, inclusive,
    /// finalized) in both phases, with and without a prefix of segment totals, and the totals'
    /// own scan (partials, exclusive, not finalized); both layouts; subgroups where the
    /// accumulator takes them; vec4 loads where the library would use them (inner layout, a
    /// contiguous 4-byte map, a 4-byte value written).
    #[test]
    fn every_requested_program_validates() {
        let mut checked = 0;
        for d in DType::ALL {
            let mut types = vec![];
            for (acc, out) in [scan_types(d), scan_types_for(d)].into_iter().flatten() {
                if !types.contains(&(acc.compute(), out)) {
                    types.push((acc.compute(), out));
                }
            }
            for (acc, out) in types {
                for op in [ScanOp::Sum, ScanOp::Prod] {
                    // (partials, exclusive, finalize): the line pass and the totals' pass.
                    for (partials, exclusive, finalize) in
                        [(false, false, true), (true, true, false)]
                    {
                        let (load, out) = if partials { (acc, acc) } else { (d, out) };
                        for layout in [ScanLayout::Inner, ScanLayout::Outer] {
                            for (phase, prefix) in [
                                (ScanPhase::Reduce, false),
                                (ScanPhase::Scan, false),
                                (ScanPhase::Scan, true),
                            ] {
                                for access in
                                    [Access::Contiguous, Access::Strided, Access::Broadcast]
                                {
                                    // The totals are a fresh C-contiguous [m, segs] buffer,
                                    // walked contiguously (inner) or transposed (outer).
                                    if partials && access == Access::Broadcast {
                                        continue;
                                    }
                                    // How the input is read changes only its load, the same
                                    // for both ops: crossed with the rest under one op.
                                    if op == ScanOp::Prod && access != Access::Contiguous {
                                        continue;
                                    }
                                    let rank = if access == Access::Strided { 2 } else { 0 };
                                    let map = identity_map(load, access, rank);
                                    let mut sp = ScanProgram {
                                        map,
                                        partials,
                                        op,
                                        acc,
                                        out,
                                        phase,
                                        layout,
                                        prefix,
                                        exclusive,
                                        finalize,
                                        subgroups: false,
                                        vector: false,
                                    };
                                    let vector_ok = layout == ScanLayout::Inner
                                        && vector_map(&sp.map)
                                        && match phase {
                                            ScanPhase::Reduce => acc.gpu_size() == 4,
                                            ScanPhase::Scan => sp.written().gpu_size() == 4,
                                        };
                                    for subgroups in [false, true] {
                                        if subgroups && !subgroup_capable(&sp) {
                                            continue;
                                        }
                                        for vector in [false, true] {
                                            if vector && !vector_ok {
                                                continue;
                                            }
                                            sp.subgroups = subgroups;
                                            sp.vector = vector;
                                            let (wgsl, _) = generate(&sp, &ALL)
                                                .unwrap_or_else(|e| panic!("{sp:?}: {e}"));
                                            validate(&wgsl, subgroups);
                                            checked += 1;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn vector_and_fused_maps_validate() {
        // cumsum(x * 2 + y) over contiguous f32 x, broadcast f32 y.
        let map = Program {
            nodes: vec![
                (Node::Load(0), DType::F32),
                (Node::Scalar(0), DType::F32),
                (Node::Binary(BinaryOp::Multiply, 0, 1), DType::F32),
                (Node::Load(1), DType::F32),
                (Node::Binary(BinaryOp::Add, 2, 3), DType::F32),
            ],
            inputs: vec![
                InputSpec {
                    dtype: DType::F32,
                    access: Access::Contiguous,
                    packed: false,
                },
                InputSpec {
                    dtype: DType::F32,
                    access: Access::Broadcast,
                    packed: false,
                },
            ],
            scalars: vec![DType::F32],
            output: 4,
            rank: 0,
            vector: false,
        };
        assert!(vector_map(&map));
        for phase in [ScanPhase::Reduce, ScanPhase::Scan] {
            for subgroups in [false, true] {
                for op in [ScanOp::Sum, ScanOp::Prod] {
                    let sp = ScanProgram {
                        map: map.clone(),
                        partials: false,
                        op,
                        acc: DType::F32,
                        out: DType::F32,
                        phase,
                        layout: ScanLayout::Inner,
                        prefix: true,
                        exclusive: false,
                        finalize: true,
                        subgroups,
                        vector: true,
                    };
                    let (wgsl, _) = generate(&sp, &ALL).unwrap();
                    assert!(wgsl.contains("kp_value4"));
                    validate(&wgsl, subgroups);
                }
            }
        }
        // Bool input vectorised, int32 result; uint32 partials vectorised.
        let sp = ScanProgram {
            map: identity_map(DType::Bool, Access::Contiguous, 0),
            partials: false,
            op: ScanOp::Sum,
            acc: DType::I32,
            out: DType::I32,
            phase: ScanPhase::Scan,
            layout: ScanLayout::Inner,
            prefix: false,
            exclusive: false,
            finalize: true,
            subgroups: false,
            vector: true,
        };
        validate(&generate(&sp, &ALL).unwrap().0, false);
        let sp = ScanProgram {
            map: identity_map(DType::U32, Access::Contiguous, 0),
            partials: true,
            acc: DType::U32,
            out: DType::Bool,
            exclusive: true,
            finalize: false,
            ..sp
        };
        validate(&generate(&sp, &ALL).unwrap().0, false);
    }

    #[test]
    fn bad_programs_are_errors() {
        let sp = ScanProgram {
            map: identity_map(DType::F16, Access::Contiguous, 0),
            partials: false,
            op: ScanOp::Sum,
            acc: DType::F16,
            out: DType::F16,
            phase: ScanPhase::Scan,
            layout: ScanLayout::Inner,
            prefix: false,
            exclusive: false,
            finalize: true,
            subgroups: false,
            vector: false,
        };
        assert!(generate(&sp, &ALL).is_err());
        let sp = ScanProgram {
            acc: DType::F32,
            vector: true,
            ..sp
        };
        assert!(generate(&sp, &ALL).is_err());
        let sp = ScanProgram {
            acc: DType::F64,
            out: DType::F64,
            map: identity_map(DType::F64, Access::Contiguous, 0),
            vector: false,
            ..sp
        };
        assert!(generate(&sp, &Target::default()).is_err());
        assert_eq!(
            scan_types(DType::Complex64).unwrap(),
            (DType::Complex64, DType::Complex64)
        );
        assert_eq!(scan_types(DType::Bool).unwrap(), (DType::I32, DType::I32));
        assert_eq!(scan_types(DType::F16).unwrap(), (DType::F32, DType::F16));
    }
}
