//! Index kernels: WGSL generation for gathers, scatters, last-write claims, `ufunc.at`
//! accumulation (`shaders/index_map.wgsl`) and stream compaction (`shaders/compact.wgsl`).
//!
//! Every kernel evaluates one fused elementwise [`Program`] with several *roots* (an offset,
//! a predicate, a value, a flag) at the linear index `g` of its iteration shape; the host
//! builds the offset expressions (strides, negative-index wrap-around, index arrays
//! broadcast as inputs), so one generator covers every NumPy index.

use crate::codegen::{self, Needs, ParamLayout, Target};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::expr::{Access, BinaryOp, NodeId, Program};
use crate::template::Template;
use std::fmt::Write;

const MAP_TEMPLATE: &str = include_str!("../../../shaders/index_map.wgsl");
const COMPACT_TEMPLATE: &str = include_str!("../../../shaders/compact.wgsl");

/// Threads per workgroup of index kernels.
pub const WORKGROUP_SIZE: u32 = 256;

/// Most elements a compaction workgroup handles (blocks are multiples of 1024: 256 threads x
/// 4 per round; smaller blocks give small inputs more workgroups).
pub const COMPACT_BLOCK: u32 = 8192;

/// The combining operation of an accumulating scatter (`ufunc.at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtOp {
    /// `np.add.at`
    Add,
    /// `np.subtract.at`
    Subtract,
    /// `np.multiply.at`
    Multiply,
    /// `np.maximum.at` (NaN propagates)
    Maximum,
    /// `np.minimum.at` (NaN propagates)
    Minimum,
    /// `np.bitwise_and.at` (bool and integers)
    BitwiseAnd,
    /// `np.bitwise_or.at` (bool and integers)
    BitwiseOr,
    /// `np.bitwise_xor.at` (bool and integers)
    BitwiseXor,
}

impl AtOp {
    /// NumPy's ufunc name.
    pub fn name(self) -> &'static str {
        match self {
            AtOp::Add => "add",
            AtOp::Subtract => "subtract",
            AtOp::Multiply => "multiply",
            AtOp::Maximum => "maximum",
            AtOp::Minimum => "minimum",
            AtOp::BitwiseAnd => "bitwise_and",
            AtOp::BitwiseOr => "bitwise_or",
            AtOp::BitwiseXor => "bitwise_xor",
        }
    }

    /// True for the bitwise ops (bool and integers only).
    pub fn is_bitwise(self) -> bool {
        matches!(self, AtOp::BitwiseAnd | AtOp::BitwiseOr | AtOp::BitwiseXor)
    }
}

/// What an index kernel does with its roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexKernel {
    /// `out[g] = src[off]`. Roots: `off` (u32), then `checks` pairs of bounds words (see
    /// [`IndexKernel::GatherRows`]).
    Gather {
        /// Index arrays whose bounds the kernel checks.
        checks: u8,
    },
    /// A gather of whole rows as raw `unit`-word units (1, 2 or 4 u32 words: vec4 loads and
    /// stores for 16-byte units): thread `g` copies unit `g % block` of row `g / block`, the
    /// roots evaluated at the row. Roots: `off` (u32, the row's first unit), then for each of
    /// `checks` index arrays two u32 bounds words, non-zero where the index is out of bounds
    /// (`i - len + 1` above, `-len - i` below); the kernel keeps their maxima in `err`
    /// (`atomicMax`, two words per array), which the host reports at the next sync.
    ///
    /// With `items > 1` every row is one unit (`block` = 1: `x[idx]`, `take`), and each
    /// thread copies `items` rows strided by the uniform `nblocks` (the thread count): its
    /// index loads, then its source loads, are independent, so `items` of each are in
    /// flight per thread, and every load and store instruction of a subgroup is still
    /// contiguous. Rows past the end are clamped to the last one (loads stay in bounds) and
    /// not stored.
    GatherRows {
        /// u32 words per unit (1, 2 or 4).
        unit: u8,
        /// Index arrays whose bounds the kernel checks.
        checks: u8,
        /// Rows per thread (1 .. 8; above 1 only for one-unit rows).
        items: u8,
        /// With `items > 1`: thread `g` copies rows `g * items .. g * items + items`
        /// (consecutive) instead of rows strided by the thread count.
        contiguous: bool,
        /// Threads per workgroup (64 to 1024, a power of two; 256 elsewhere).
        workgroup: u16,
    },
    /// A gather with an elementwise expression around it (`x[idx] * 2`, one kernel):
    /// `out[g] = val`, where `val` reads map input `source` at element `off` (that input's
    /// loads become `in<source>[off]`; it is bound whole). Roots: `off` (u32, computed by
    /// nodes before the load), `val` (data dtype), then the bounds words as
    /// [`IndexKernel::GatherRows`].
    GatherMap {
        /// Index arrays whose bounds the kernel checks.
        checks: u8,
        /// The map input gathered from.
        source: u8,
    },
    /// `if pred { dst[off] = val }`. Roots: `pred` (bool), `off` (u32), `val` (data dtype).
    Scatter,
    /// `if pred { atomicMax(win[off], g + 1) }`: the highest position writing each element
    /// claims it (NumPy's sequential last-write-wins). Roots: `pred`, `off`.
    Claim,
    /// `if pred && win[off] == g + 1 { dst[off] = val }`. Roots: `pred`, `off`, `val`.
    ScatterClaimed,
    /// `dst[off] = dst[off] OP val` atomically. Roots: `pred`, `off`, `val`.
    Accumulate(AtOp),
    /// [`IndexKernel::Scatter`] (or with `claimed`, [`IndexKernel::ScatterClaimed`]) into
    /// packed int8/uint8/int16/uint16 storage (`off` an element index; 4 or 2 elements per
    /// u32 word; `dst` bound as atomics, never read by the map). Each element has one writer,
    /// which flips the bits that differ with one `atomicXor`: the other elements of the word,
    /// written by other threads at the same time, are untouched.
    ScatterPacked {
        /// Only the claiming position writes (repeated indices: the last one wins).
        claimed: bool,
    },
    /// [`IndexKernel::Accumulate`] into packed int8/uint8/int16/uint16 storage (`off` an
    /// element index; 4 or 2 elements per u32 word): a compare-exchange loop on the word.
    AccumulatePacked(AtOp),
    /// `ufunc.at` computing in the value's dtype (NumPy's loop dtype, wider than the
    /// destination's or of another kind): a compare-exchange loop on the u32 word holding the
    /// element that reads it, casts it to the `val` root's dtype, combines there and casts
    /// the result back (`dst = dst_dtype(op(loop_dtype(dst), val))`, NumPy's unsafe cast).
    /// For bool, the 8- to 32-bit integers (`packed`: 4 or 2 to a word), float16 and
    /// float32. Roots: `pred`, `off`, `val` (the loop dtype).
    AccumulateWide {
        /// The combining operation.
        op: AtOp,
        /// The destination is packed int8/uint8/int16/uint16 storage.
        packed: bool,
    },
    /// [`IndexKernel::Accumulate`] (or with `packed`, [`IndexKernel::AccumulatePacked`]) by
    /// the positions after the element's claim only (`g + 1 > win[off]`, the window of a
    /// [`IndexKernel::Claim`] pass): the extrema after the last value that replaced the
    /// element (`np.maximum.at` with values beyond the destination's range). Roots: `pred`,
    /// `off`, `val`; binds `dst`, then `win`.
    AccumulateAfterClaim {
        /// The combining operation.
        op: AtOp,
        /// The destination is packed int8/uint8/int16/uint16 storage.
        packed: bool,
    },
    /// Compaction pass 1: `counts[w]` = set flags of block `w`. Roots: `flag` (bool).
    CompactCount,
    /// Compaction pass 2: set elements' values to `out[prefix[w] + rank]`, the total to
    /// `count[0]`. Roots: `flag` (bool), `val`. With `direct`, the kernel binds the block
    /// counts instead of their scan and each workgroup sums the counts of the blocks before
    /// it (one load per thread per 256 blocks: for few blocks, cheaper than a scan launch).
    CompactWrite {
        /// Sum the earlier blocks' counts in the workgroup (no separate scan).
        direct: bool,
    },
}

impl IndexKernel {
    fn root_names(self) -> Vec<String> {
        let fixed: &[&str] = match self {
            IndexKernel::Gather { .. } | IndexKernel::GatherRows { .. } => &["off"],
            IndexKernel::GatherMap { .. } => &["off", "val"],
            IndexKernel::Scatter
            | IndexKernel::ScatterClaimed
            | IndexKernel::Accumulate(_)
            | IndexKernel::AccumulatePacked(_)
            | IndexKernel::AccumulateWide { .. }
            | IndexKernel::AccumulateAfterClaim { .. }
            | IndexKernel::ScatterPacked { .. } => &["pred", "off", "val"],
            IndexKernel::Claim => &["pred", "off"],
            IndexKernel::CompactCount => &["flag"],
            IndexKernel::CompactWrite { .. } => &["flag", "val"],
        };
        let mut names: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
        names.extend((0..2 * self.checks()).map(|k| format!("e{k}")));
        names
    }

    /// Index arrays whose bounds a gather checks (two error words each).
    pub fn checks(self) -> usize {
        match self {
            IndexKernel::Gather { checks }
            | IndexKernel::GatherRows { checks, .. }
            | IndexKernel::GatherMap { checks, .. } => checks as usize,
            _ => 0,
        }
    }
}

/// An index kernel's structure (the pipeline-cache key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndexProgram {
    /// The fused map; `roots` name its nodes that the kernel reads.
    pub map: Program,
    /// The nodes read, in the order of [`IndexKernel`]'s roots.
    pub roots: Vec<NodeId>,
    /// What the kernel does.
    pub kind: IndexKernel,
    /// Dtype of the raw buffer read or written (`src`/`dst`/`out`).
    pub data: DType,
    /// Compaction passes read 4 consecutive elements per thread as vec4 loads (every map
    /// input contiguous 4-byte or broadcast; the host guarantees 4-aligned offsets and
    /// blocks, and pads the tail).
    pub vector: bool,
    /// The map input that is the destination buffer itself (read through `dst`, at the
    /// element being written: the fused in-place update); it gets no binding of its own.
    pub dst_input: Option<usize>,
}

/// Generates an index kernel. Bindings: 0 uniforms, 1.. the map's inputs, then by kind:
/// gather `src` (read) and `out`; scatter `dst`; claim `win`; scatter-claimed `dst`, `win`;
/// accumulate `dst` (atomic); compaction count `counts`; compaction write `prefix`, `out`,
/// `count`. Uniform extras, in order: `block`, `nblocks`.
pub fn generate(ip: &IndexProgram, target: &Target) -> Result<(String, ParamLayout)> {
    let map = &ip.map;
    for d in map.dtypes().chain([ip.data]) {
        target.check(d, "this adapter")?;
    }
    let names = ip.kind.root_names();
    if names.len() != ip.roots.len() {
        return Err(Error::invalid(format!(
            "index kernel {:?} takes {} roots, got {}",
            ip.kind,
            names.len(),
            ip.roots.len()
        )));
    }
    let root_dtype = |name: &str| {
        names
            .iter()
            .position(|n| n == name)
            .map(|k| map.nodes[ip.roots[k]].1)
    };
    for (name, &id) in names.iter().zip(&ip.roots) {
        if name.starts_with('e') && map.nodes[id].1 != DType::U32 {
            return Err(Error::invalid(format!(
                "index kernel bounds word {name} must be uint32"
            )));
        }
    }
    for (name, want) in [
        ("off", DType::U32),
        ("pred", DType::Bool),
        ("flag", DType::Bool),
    ] {
        if let Some(d) = root_dtype(name) {
            if d != want {
                return Err(Error::invalid(format!(
                    "index kernel root {name} must be {want}, got {d}"
                )));
            }
        }
    }
    if let Some(d) = root_dtype("val") {
        let wide = matches!(ip.kind, IndexKernel::AccumulateWide { .. });
        if d != ip.data && !wide {
            return Err(Error::invalid(format!(
                "index kernel value of dtype {d} for a {} buffer",
                ip.data
            )));
        }
    }
    let (fields, layout) = codegen::param_block(map, &["block", "nblocks"]);
    let compaction = matches!(
        ip.kind,
        IndexKernel::CompactCount | IndexKernel::CompactWrite { .. }
    );
    if ip.vector && (!compaction || !crate::scan::vector_map(map)) {
        return Err(Error::invalid(
            "vector index kernels need a compaction over contiguous 4-byte inputs",
        ));
    }
    if let Some(k) = ip.dst_input {
        let reads_dst = matches!(ip.kind, IndexKernel::Scatter | IndexKernel::ScatterClaimed);
        if !reads_dst || k >= map.inputs.len() || map.inputs[k].dtype != ip.data {
            return Err(Error::invalid(format!(
                "index kernel {:?} cannot read its destination as input {k}",
                ip.kind
            )));
        }
    }
    let mut bindings = String::new();
    let mut next = 1;
    for (k, input) in map.inputs.iter().enumerate() {
        if ip.dst_input == Some(k) {
            continue;
        }
        let ty = if ip.vector && input.access == Access::Contiguous {
            format!("vec4<{}>", input.dtype.wgsl_storage())
        } else {
            input.dtype.wgsl_storage().to_string()
        };
        let _ = writeln!(
            bindings,
            "@group(0) @binding({next}) var<storage, read> in{k}: array<{ty}>;"
        );
        next += 1;
    }
    let storage = ip.data.wgsl_storage();
    let mut bind = |decl: String, bindings: &mut String| {
        let _ = writeln!(bindings, "@group(0) @binding({next}) {decl};");
        next += 1;
    };
    let store = |x: &str| {
        if ip.data == DType::Bool {
            format!("select(0u, 1u, {x})")
        } else {
            x.to_string()
        }
    };
    let checks = ip.kind.checks();
    let mut check_errors = String::new();
    for k in 0..2 * checks {
        let _ = write!(
            check_errors,
            "\n    if (r.e{k} != 0u) {{\n        atomicMax(&err[{k}], r.e{k});\n    }}"
        );
    }
    let mut needs_early = Needs::for_target(target);
    let mut body = match ip.kind {
        IndexKernel::Gather { .. } => {
            bind(
                format!("var<storage, read> src: array<{storage}>"),
                &mut bindings,
            );
            bind(
                format!("var<storage, read_write> out: array<{storage}>"),
                &mut bindings,
            );
            format!("    let r = kp_eval(g);\n    out[g] = src[r.off];{check_errors}")
        }
        IndexKernel::GatherRows { unit, .. } => {
            let ty = match unit {
                1 => "u32",
                2 => "vec2<u32>",
                4 => "vec4<u32>",
                u => return Err(Error::invalid(format!("row gather of {u}-word units"))),
            };
            if ip.data != DType::U32 {
                return Err(Error::invalid("row gathers copy raw uint32 words"));
            }
            bind(
                format!("var<storage, read> src: array<{ty}>"),
                &mut bindings,
            );
            bind(
                format!("var<storage, read_write> out: array<{ty}>"),
                &mut bindings,
            );
            match ip.kind {
                IndexKernel::GatherRows { items: 0 | 9.., .. } => {
                    return Err(Error::invalid("row gathers copy 1 to 8 rows per thread"))
                }
                IndexKernel::GatherRows { items: 1, .. } => format!(
                    "    let row = g / P.block;\n    let r = kp_eval(row);\n    \
                     out[g] = src[r.off + (g - row * P.block)];{check_errors}"
                ),
                IndexKernel::GatherRows {
                    items, contiguous, ..
                } => strided_rows_body(items, checks, contiguous),
                _ => unreachable!("a row gather"),
            }
        }
        IndexKernel::GatherMap { source, .. } => {
            if source as usize >= map.inputs.len() || ip.dst_input.is_some() || ip.vector {
                return Err(Error::invalid(format!(
                    "a gather map cannot read input {source} of {}",
                    map.inputs.len()
                )));
            }
            bind(
                format!("var<storage, read_write> out: array<{storage}>"),
                &mut bindings,
            );
            format!("    out[g] = {};{check_errors}", store("r.val"))
        }
        IndexKernel::Scatter => {
            bind(
                format!("var<storage, read_write> dst: array<{storage}>"),
                &mut bindings,
            );
            format!(
                "    if (r.pred) {{\n        dst[r.off] = {};\n    }}",
                store("r.val")
            )
        }
        IndexKernel::Claim => {
            bind(
                "var<storage, read_write> win: array<atomic<u32>>".to_string(),
                &mut bindings,
            );
            "    if (r.pred) {\n        atomicMax(&win[r.off], g + 1u);\n    }".to_string()
        }
        IndexKernel::ScatterClaimed => {
            bind(
                format!("var<storage, read_write> dst: array<{storage}>"),
                &mut bindings,
            );
            bind(
                "var<storage, read_write> win: array<atomic<u32>>".to_string(),
                &mut bindings,
            );
            format!(
                "    if (r.pred && atomicLoad(&win[r.off]) == g + 1u) {{\n        \
                 dst[r.off] = {};\n    }}",
                store("r.val")
            )
        }
        IndexKernel::ScatterPacked { claimed } => {
            bind(
                "var<storage, read_write> dst: array<atomic<u32>>".to_string(),
                &mut bindings,
            );
            if claimed {
                bind(
                    "var<storage, read_write> win: array<atomic<u32>>".to_string(),
                    &mut bindings,
                );
            }
            packed_store_body(ip.data, claimed)?
        }
        IndexKernel::Accumulate(op) | IndexKernel::AccumulatePacked(op) => {
            let packed = matches!(ip.kind, IndexKernel::AccumulatePacked(_));
            let (atomic_ty, body) = at_body(op, ip.data, packed)?;
            bind(
                format!("var<storage, read_write> dst: array<atomic<{atomic_ty}>>"),
                &mut bindings,
            );
            body
        }
        IndexKernel::AccumulateAfterClaim { op, packed } => {
            let (atomic_ty, body) = at_body(op, ip.data, packed)?;
            bind(
                format!("var<storage, read_write> dst: array<atomic<{atomic_ty}>>"),
                &mut bindings,
            );
            bind(
                "var<storage, read_write> win: array<atomic<u32>>".to_string(),
                &mut bindings,
            );
            let cond = "if (r.pred && g + 1u > atomicLoad(&win[r.off])";
            if !body.contains("if (r.pred") {
                return Err(Error::invalid(format!(
                    "np.{}.at on {} has no claimed form",
                    op.name(),
                    ip.data
                )));
            }
            body.replacen("if (r.pred", cond, 1)
        }
        IndexKernel::AccumulateWide { op, packed } => {
            let Some(loop_dtype) = root_dtype("val") else {
                return Err(Error::invalid("a wide ufunc.at needs a value root"));
            };
            bind(
                "var<storage, read_write> dst: array<atomic<u32>>".to_string(),
                &mut bindings,
            );
            wide_at_body(
                op,
                ip.data,
                loop_dtype,
                packed,
                target.i64,
                &mut needs_early,
            )?
        }
        IndexKernel::CompactCount => {
            bind(
                "var<storage, read_write> counts: array<u32>".to_string(),
                &mut bindings,
            );
            if ip.vector {
                COUNT_BODY.replace(LOAD_SCALAR_COUNT, LOAD_VECTOR_COUNT)
            } else {
                COUNT_BODY.to_string()
            }
        }
        IndexKernel::CompactWrite { direct } => {
            let (buffer, prefix) = if direct {
                ("counts", DIRECT_PREFIX)
            } else {
                ("prefix", "    let pre = prefix[w];")
            };
            bind(
                format!("var<storage, read> {buffer}: array<u32>"),
                &mut bindings,
            );
            bind(
                format!("var<storage, read_write> out: array<{storage}>"),
                &mut bindings,
            );
            bind(
                "var<storage, read_write> count_out: array<u32>".to_string(),
                &mut bindings,
            );
            let body = if ip.vector {
                WRITE_BODY.replace(LOAD_SCALAR_WRITE, LOAD_VECTOR_WRITE)
            } else {
                WRITE_BODY.to_string()
            };
            body.replace("{PREFIX}", prefix)
                .replace("{VAL}", ip.data.wgsl_value())
                .replace("{STORE}", &store("v[j]"))
        }
    };
    if checks > 0 {
        bind(
            "var<storage, read_write> err: array<atomic<u32>>".to_string(),
            &mut bindings,
        );
    }
    if !matches!(
        ip.kind,
        IndexKernel::Gather { .. }
            | IndexKernel::GatherRows { .. }
            | IndexKernel::CompactCount
            | IndexKernel::CompactWrite { .. }
    ) {
        body = format!("    let r = kp_eval(g);\n{body}");
    }
    let mut needs = needs_early;
    let mut map_body = String::from("    let i0 = g;\n    let g0 = g;\n");
    if map.rank > 0 && map.inputs.iter().any(|i| i.access == Access::Strided) {
        map_body.push_str("    var r0 = g0;\n");
        for j in (1..map.rank).rev() {
            let _ = writeln!(
                map_body,
                "    let c{j}_0 = r0 % P.d{j};\n    r0 = r0 / P.d{j};"
            );
        }
        map_body.push_str("    let c0_0 = r0;\n");
    }
    let mut scalar = map.clone();
    scalar.vector = false;
    let gathered = match ip.kind {
        IndexKernel::GatherMap { source, .. } => Some((source as usize, ip.roots[0])),
        _ => None,
    };
    for (idx, (node, dtype)) in scalar.nodes.iter().enumerate() {
        let expr = match (gathered, node) {
            (Some((source, off)), crate::expr::Node::Load(k)) if *k == source => {
                if off >= idx {
                    return Err(Error::invalid(
                        "a gather map's offset must be computed before its load",
                    ));
                }
                if map.inputs[source].dtype == DType::Bool {
                    format!("(in{source}[n{off}_0] != 0u)")
                } else {
                    format!("in{source}[n{off}_0]")
                }
            }
            _ => codegen::node_expr(&scalar, node, *dtype, 0, &mut needs)?,
        };
        let _ = writeln!(
            map_body,
            "    let n{idx}_0: {} = {expr};",
            dtype.wgsl_value()
        );
    }
    let mut root_fields = String::new();
    let mut values = Vec::new();
    for (name, &id) in names.iter().zip(&ip.roots) {
        let _ = writeln!(root_fields, "    {name}: {},", map.nodes[id].1.wgsl_value());
        values.push(format!("n{id}_0"));
    }
    let _ = writeln!(map_body, "    return KpRoots({});", values.join(", "));
    if ip.vector {
        // Vector kernels read through kp_eval4 only; kp_eval stays for the template.
        map_body = "    var q = kp_eval4(g / 4u);\n    return q[g % 4u];".to_string();
    }
    if let Some(k) = ip.dst_input {
        map_body = map_body.replace(&format!("in{k}["), "dst[");
    }
    let eval4 = if ip.vector {
        eval4_fn(map, &ip.roots, &mut needs)?
    } else {
        String::new()
    };
    if map.dtypes().chain([ip.data]).any(|d| d == DType::F64) {
        needs.float.insert(DType::F64);
    }
    let helpers = needs.render()?;
    let template = match ip.kind {
        IndexKernel::CompactCount | IndexKernel::CompactWrite { .. } => COMPACT_TEMPLATE,
        _ => MAP_TEMPLATE,
    };
    let workgroup = match ip.kind {
        IndexKernel::GatherRows { workgroup, .. } => {
            if !(64..=1024).contains(&workgroup) || !workgroup.is_power_of_two() {
                return Err(Error::invalid(format!(
                    "row gathers run 64 to 1024 threads per workgroup (a power of two), not \
                     {workgroup}"
                )));
            }
            u32::from(workgroup)
        }
        _ => WORKGROUP_SIZE,
    };
    let wgsl = Template::new(template)
        .set_if_held("WG", workgroup)
        .set("ENABLES", codegen::enables(map.dtypes().chain([ip.data])))
        .set("PARAMS", fields.trim_end())
        .set("BINDINGS", bindings.trim_end())
        .set("HELPERS", &helpers)
        .set("ROOT_FIELDS", root_fields.trim_end())
        .set("MAP", map_body.trim_end())
        .set_if_held("EVAL4", &eval4)
        .set("BODY", &body)
        .render();
    Ok((wgsl, layout))
}

/// The body of a row gather of one-unit rows, `items` rows per thread strided by
/// `P.nblocks` (see [`IndexKernel::GatherRows`]): all offsets first, then all source loads,
/// then the stores, so the loads of a thread are independent and in flight together.
fn strided_rows_body(items: u8, checks: usize, contiguous: bool) -> String {
    // Threads past the stride (grid rounding) have no rows of their own.
    let mut body = String::from(
        "    if (g >= P.nblocks) {\n        return;\n    }\n    let last = P.n - 1u;\n",
    );
    let row = |j: u8| {
        if contiguous {
            format!("g * {items}u + {j}u")
        } else {
            format!("g + {j}u * P.nblocks")
        }
    };
    for j in 0..items {
        let _ = writeln!(
            body,
            "    let u{j} = min({}, last);\n    let r{j} = kp_eval(u{j});",
            row(j)
        );
    }
    for j in 0..items {
        let _ = writeln!(body, "    let x{j} = src[r{j}.off];");
    }
    body.push_str("    out[u0] = x0;\n");
    for j in 1..items {
        let _ = writeln!(
            body,
            "    if ({} <= last) {{\n        out[u{j}] = x{j};\n    }}",
            row(j)
        );
    }
    for j in 0..items {
        for k in 0..2 * checks {
            let _ = writeln!(
                body,
                "    if (r{j}.e{k} != 0u) {{\n        atomicMax(&err[{k}], r{j}.e{k});\n    }}"
            );
        }
    }
    body
}

const LOAD_SCALAR_COUNT: &str = "        for (var j = 0u; j < 4u; j = j + 1u) {
            let g = g0 + j;
            if (g < end) {
                if (kp_eval(g).flag) {
                    c = c + 1u;
                }
            }
        }";

const LOAD_VECTOR_COUNT: &str = "        if (g0 < end) {
            let q = kp_eval4(g0 / 4u);
            for (var j = 0u; j < 4u; j = j + 1u) {
                if (q[j].flag && g0 + j < end) {
                    c = c + 1u;
                }
            }
        }";

const COUNT_BODY: &str = "    var c = 0u;
    for (var base = begin; base < end; base = base + 1024u) {
        let g0 = base + tid * 4u;
        for (var j = 0u; j < 4u; j = j + 1u) {
            let g = g0 + j;
            if (g < end) {
                if (kp_eval(g).flag) {
                    c = c + 1u;
                }
            }
        }
    }
    let excl = kp_wg_excl(c, tid);
    if (tid == 255u) {
        counts[w] = excl + c;
    }";

const LOAD_SCALAR_WRITE: &str = "        for (var j = 0u; j < 4u; j = j + 1u) {
            let g = g0 + j;
            if (g < end) {
                let r = kp_eval(g);
                if (r.flag) {
                    f[j] = true;
                    v[j] = r.val;
                    c = c + 1u;
                }
            }
        }";

const LOAD_VECTOR_WRITE: &str = "        if (g0 < end) {
            let q = kp_eval4(g0 / 4u);
            for (var j = 0u; j < 4u; j = j + 1u) {
                if (q[j].flag && g0 + j < end) {
                    f[j] = true;
                    v[j] = q[j].val;
                    c = c + 1u;
                }
            }
        }";

/// The write pass's block offset from the counts of the blocks before it, summed into a
/// workgroup atomic (two barriers, where a workgroup scan would take sixteen).
const DIRECT_PREFIX: &str = "    if (tid == 0u) {
        atomicStore(&kp_before, 0u);
    }
    workgroupBarrier();
    var before = 0u;
    for (var b = tid; b < w; b = b + 256u) {
        before = before + counts[b];
    }
    if (before != 0u) {
        atomicAdd(&kp_before, before);
    }
    workgroupBarrier();
    let pre = atomicLoad(&kp_before);";

const WRITE_BODY: &str = "{PREFIX}
    var carry = 0u;
    for (var base = begin; base < end; base = base + 1024u) {
        let g0 = base + tid * 4u;
        var f = array<bool, 4>(false, false, false, false);
        var v: array<{VAL}, 4>;
        var c = 0u;
        for (var j = 0u; j < 4u; j = j + 1u) {
            let g = g0 + j;
            if (g < end) {
                let r = kp_eval(g);
                if (r.flag) {
                    f[j] = true;
                    v[j] = r.val;
                    c = c + 1u;
                }
            }
        }
        let excl = kp_wg_excl(c, tid);
        let total = kp_sh[255];
        workgroupBarrier();
        var pos = pre + carry + excl;
        for (var j = 0u; j < 4u; j = j + 1u) {
            if (f[j]) {
                out[pos] = {STORE};
                pos = pos + 1u;
            }
        }
        carry = carry + total;
    }
    if (w == P.nblocks - 1u && tid == 0u) {
        count_out[0] = pre + carry;
    }";

/// `kp_eval4(q)`: the roots at elements `4q .. 4q + 3`, contiguous inputs loaded as vec4.
fn eval4_fn(map: &Program, roots: &[NodeId], needs: &mut Needs) -> Result<String> {
    let mut body = String::from("\nfn kp_eval4(q0: u32) -> array<KpRoots, 4> {\n");
    for (k, input) in map.inputs.iter().enumerate() {
        if input.access == Access::Contiguous {
            let _ = writeln!(body, "    let l{k}_0 = in{k}[P.o{k} / 4u + q0];");
        }
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
    let items: Vec<String> = (0..4)
        .map(|item| {
            let fields: Vec<String> = roots.iter().map(|id| format!("n{id}_{item}")).collect();
            format!("KpRoots({})", fields.join(", "))
        })
        .collect();
    let _ = writeln!(
        body,
        "    return array<KpRoots, 4>({});\n}}",
        items.join(", ")
    );
    Ok(body)
}

/// True when `np.<op>.at` on `data` accumulates with 32-bit atomics in one kernel
/// ([`IndexKernel::Accumulate`]); the other combinations run through
/// [`crate::at_segments`].
pub fn atomic_at(op: AtOp, data: DType) -> bool {
    accumulate_body(op, data).is_ok()
}

/// Largest compare-exchange retries of a float or multiplying accumulation per element.
pub const AT_RETRIES: u32 = 4096;

/// The store of [`IndexKernel::ScatterPacked`]: the element has a single writer in the
/// kernel, so the element's bits of a plain load of its word are its current value (other
/// threads change only the other elements' bits); one `atomicXor` flips the bits that differ
/// and leaves the rest of the word, whatever other threads do to it meanwhile. No loop.
fn packed_store_body(data: DType, claimed: bool) -> Result<String> {
    let bits = match data {
        DType::I8 | DType::U8 => 8,
        DType::I16 | DType::U16 => 16,
        d => {
            return Err(Error::invalid(format!(
                "packed scatters take int8, uint8, int16 and uint16, not {d}"
            )))
        }
    };
    let per = 32 / bits;
    let mask = (1u32 << bits) - 1;
    let cond = if claimed {
        "r.pred && atomicLoad(&win[r.off]) == g + 1u"
    } else {
        "r.pred"
    };
    Ok(format!(
        "    if ({cond}) {{
        let word = r.off / {per}u;
        let shift = (r.off % {per}u) * {bits}u;
        let cur = atomicLoad(&dst[word]);
        let flip = ((cur >> shift) ^ bitcast<u32>(r.val)) & {mask}u;
        if (flip != 0u) {{
            atomicXor(&dst[word], flip << shift);
        }}
    }}"
    ))
}

/// `ufunc.at` on int8/uint8/int16/uint16 with NumPy's wrap-around: a compare-exchange loop
/// on the u32 word holding the element, computing in i32/u32 and keeping the element's low
/// 8 or 16 bits. In word storage (`packed` false) the word is the element, stored sign- or
/// zero-extended; in packed storage it holds 4 or 2 elements and the loop replaces only the
/// element's bits, so a neighbour updated by another thread at the same time is never
/// clobbered (its change makes this thread's exchange fail, and the retry reads it).
///
/// Progress: an exchange fails only when the word changed since it was read (another
/// thread's exchange on it succeeded) or spuriously (WGSL's weak exchange); with at most a
/// few thousand writers per word the loop ends well within [`AT_RETRIES`] tries, which also
/// keeps it inside lavapipe's loop budget. Extrema that would not change the element stop
/// without writing.
fn small_int_at_body(op: AtOp, data: DType, packed: bool) -> Result<String> {
    let bits = match data {
        DType::I8 | DType::U8 => 8,
        DType::I16 | DType::U16 => 16,
        d => {
            return Err(Error::invalid(format!(
                "packed ufunc.at takes int8, uint8, int16 and uint16, not {d}"
            )))
        }
    };
    let per = 32 / bits;
    let signed = data.is_signed_int();
    let (word, shift) = if packed {
        (
            format!("r.off / {per}u"),
            format!("(r.off % {per}u) * {bits}u"),
        )
    } else {
        ("r.off".to_string(), "0u".to_string())
    };
    let read = if signed {
        format!("extractBits(bitcast<i32>(old), shift, {bits}u)")
    } else {
        format!("extractBits(old, shift, {bits}u)")
    };
    let combine = match op {
        AtOp::Add => "a + b",
        AtOp::Subtract => "a - b",
        AtOp::Multiply => "a * b",
        AtOp::Maximum => "max(a, b)",
        AtOp::Minimum => "min(a, b)",
        AtOp::BitwiseAnd => "a & b",
        AtOp::BitwiseOr => "a | b",
        AtOp::BitwiseXor => "a ^ b",
    };
    let write = match (packed, signed) {
        (true, _) => format!("insertBits(old, bitcast<u32>(nv), shift, {bits}u)"),
        (false, true) => format!("bitcast<u32>(extractBits(nv, 0u, {bits}u))"),
        (false, false) => format!("extractBits(nv, 0u, {bits}u)"),
    };
    let ty = if signed { "i32" } else { "u32" };
    Ok(word_update_loop(
        &word,
        &shift,
        &format!(
            "            let a: {ty} = {read};
            let b: {ty} = r.val;
            let nv: {ty} = {combine};
            let word_new = {write};"
        ),
    ))
}

/// The compare-exchange loop of a `ufunc.at` step on one 32-bit word of `dst` (`word`, the
/// element's bit offset `shift` in it): `step` computes `word_new` from `old`; a word that
/// would not change ends the loop, as does a successful exchange or [`AT_RETRIES`] tries.
fn word_update_loop(word: &str, shift: &str, step: &str) -> String {
    format!(
        "    if (r.pred) {{
        let word = {word};
        let shift = {shift};
        var old = atomicLoad(&dst[word]);
        for (var k = 0u; k < {AT_RETRIES}u; k = k + 1u) {{
{step}
            if (word_new == old) {{
                break;
            }}
            let res = atomicCompareExchangeWeak(&dst[word], old, word_new);
            if (res.exchanged) {{
                break;
            }}
            old = res.old_value;
        }}
    }}"
    )
}

/// The body of [`IndexKernel::AccumulateWide`]: `ufunc.at` into `data` computing in
/// `loop_dtype` (NumPy's loop for the destination's and the values' dtypes): a
/// compare-exchange loop on the u32 word holding the element (the element itself for bool,
/// 32-bit and word-stored small integers; its 8 or 16 bits for packed small integers and
/// float16), which widens the old value to the loop dtype, combines it with `r.val` there
/// (`codegen::binary_expr`: NumPy's wrap-around and NaN rules) and casts the result back
/// with NumPy's `astype` conversion; only the element's bits are replaced. Bounded at
/// [`AT_RETRIES`] tries as [`small_int_at_body`]; a result equal to the old value stops
/// without writing.
fn wide_at_body(
    op: AtOp,
    data: DType,
    loop_dtype: DType,
    packed: bool,
    int64: bool,
    needs: &mut Needs,
) -> Result<String> {
    if loop_dtype == DType::Bool {
        return Err(Error::invalid(
            "a wide ufunc.at computes in a numeric dtype",
        ));
    }
    if packed && !data.is_small_int() {
        return Err(Error::invalid(format!(
            "packed ufunc.at takes int8, uint8, int16 and uint16, not {data}"
        )));
    }
    let small_bits = match data {
        DType::I8 | DType::U8 => Some(8u32),
        DType::I16 | DType::U16 => Some(16),
        _ => None,
    };
    // (word, shift, the element's value from `old`, the new word from `nv` and `old`).
    let (word, shift, read, write) = match (data, small_bits) {
        (_, Some(bits)) => {
            let per = 32 / bits;
            let (word, shift) = if packed {
                (
                    format!("r.off / {per}u"),
                    format!("(r.off % {per}u) * {bits}u"),
                )
            } else {
                ("r.off".to_string(), "0u".to_string())
            };
            let read = if data.is_signed_int() {
                format!("extractBits(bitcast<i32>(old), shift, {bits}u)")
            } else {
                format!("extractBits(old, shift, {bits}u)")
            };
            let write = match (packed, data.is_signed_int()) {
                (true, _) => format!("insertBits(old, bitcast<u32>(nv), shift, {bits}u)"),
                (false, true) => format!("bitcast<u32>(extractBits(nv, 0u, {bits}u))"),
                (false, false) => format!("extractBits(nv, 0u, {bits}u)"),
            };
            (word, shift, read, write)
        }
        (DType::Bool, _) => (
            "r.off".into(),
            "0u".into(),
            "(old != 0u)".into(),
            "select(0u, 1u, nv)".into(),
        ),
        (DType::I32, _) => (
            "r.off".into(),
            "0u".into(),
            "bitcast<i32>(old)".into(),
            "bitcast<u32>(nv)".into(),
        ),
        (DType::U32, _) => ("r.off".into(), "0u".into(), "old".into(), "nv".into()),
        (DType::F32, _) => (
            "r.off".into(),
            "0u".into(),
            "bitcast<f32>(old)".into(),
            "bitcast<u32>(nv)".into(),
        ),
        (DType::F16, _) => (
            "r.off / 2u".into(),
            "(r.off & 1u) * 16u".into(),
            "f16(unpack2x16float((old >> shift) & 0xffffu).x)".into(),
            "((old & ~(0xffffu << shift)) | \
             ((pack2x16float(vec2<f32>(f32(nv), 0.0)) & 0xffffu) << shift))"
                .into(),
        ),
        (d, _) => {
            return Err(Error::unsupported(format!(
                "ufunc.at computing in {loop_dtype} into {d} arrays (a compare-exchange on a \
                 32-bit word takes bool, the 8- to 32-bit integers, float16 and float32)"
            )))
        }
    };
    let binary = match op {
        AtOp::Add => BinaryOp::Add,
        AtOp::Subtract => BinaryOp::Subtract,
        AtOp::Multiply => BinaryOp::Multiply,
        AtOp::Maximum => BinaryOp::Maximum,
        AtOp::Minimum => BinaryOp::Minimum,
        AtOp::BitwiseAnd => BinaryOp::BitwiseAnd,
        AtOp::BitwiseOr => BinaryOp::BitwiseOr,
        AtOp::BitwiseXor => BinaryOp::BitwiseXor,
    };
    // Small integer loops compute in their 32-bit word and wrap.
    let compute = loop_dtype.compute();
    let combine = loop_dtype.wrap_expr(&codegen::binary_expr(
        binary, "a_wide", "r.val", compute, needs,
    )?);
    if loop_dtype.is_float() {
        needs.float.insert(loop_dtype);
    }
    let widen = codegen::cast_expr("a", data, loop_dtype);
    let narrow = if loop_dtype.is_float() && data.is_int() {
        x86_float_to_int("nv_wide", loop_dtype, data, int64)
    } else {
        codegen::cast_expr("nv_wide", loop_dtype, data)
    };
    let dv = data.compute().wgsl_value();
    let lv = compute.wgsl_value();
    Ok(word_update_loop(
        &word,
        &shift,
        &format!(
            "            let a: {dv} = {read};
            let a_wide: {lv} = {widen};
            let nv_wide: {lv} = {combine};
            let nv: {dv} = {narrow};
            let word_new = {write};"
        ),
    ))
}

/// A float `x` of dtype `from` to the integer dtype `to` (32 bits or fewer) as NumPy's C
/// casts convert on x86-64 (what `ufunc.at` writes back): int32 and the small integers take
/// the truncated value through a 32-bit conversion, whose out-of-range result (NaN too) is
/// -2**31 (so 0 in 8 and 16 bits), the small ones wrapping; uint32 takes it through a 64-bit
/// conversion and wraps (0 beyond int64's range). Without int64, uint32 goes through int32.
pub fn x86_float_to_int(x: &str, from: DType, to: DType, int64: bool) -> String {
    if from == DType::F16 {
        return x86_float_to_int(&format!("f32({x})"), DType::F32, to, int64);
    }
    let fv = from.wgsl_value();
    if to == DType::U32 && int64 {
        return format!(
            "select(0u, u32(i64({x}) & 4294967295li), \
             {x} > {fv}(-9223372036854775808.0) && {x} < {fv}(9223372036854775808.0))"
        );
    }
    let int = format!(
        "select(-2147483647i - 1i, i32({x}), {x} > {fv}(-2147483649.0) && {x} < {fv}(2147483648.0))"
    );
    match to {
        DType::I32 => int,
        DType::U32 => format!("bitcast<u32>({int})"),
        d => {
            let word = if d.is_signed_int() {
                int
            } else {
                format!("bitcast<u32>({int})")
            };
            d.wrap_expr(&word)
        }
    }
}

/// NumPy's refusal of a bitwise `ufunc.at` on a dtype without bitwise ops.
pub fn bitwise_refusal(op: AtOp, data: DType) -> Error {
    let _ = data;
    Error::invalid(format!(
        "ufunc '{}' not supported for the input types, and the inputs could not be safely \
         coerced to any supported types according to the casting rule ''safe''",
        op.name()
    ))
}

/// The atomic word type and body of one `ufunc.at` step into `data` (packed small-integer
/// storage, or one element per word).
fn at_body(op: AtOp, data: DType, packed: bool) -> Result<(&'static str, String)> {
    if packed {
        Ok(("u32", small_int_at_body(op, data, true)?))
    } else {
        accumulate_body(op, data)
    }
}

fn accumulate_body(op: AtOp, data: DType) -> Result<(&'static str, String)> {
    let direct = |f: &str| format!("    if (r.pred) {{\n        {f}(&dst[r.off], r.val);\n    }}");
    let cas = |ty: &str, combine: &str, to_bits: &str, from_bits: &str| {
        format!(
            "    if (r.pred) {{
        var old = atomicLoad(&dst[r.off]);
        for (var k = 0u; k < {AT_RETRIES}u; k = k + 1u) {{
            let a = {from_bits};
            let b = r.val;
            let nv: {ty} = {combine};
            let res = atomicCompareExchangeWeak(&dst[r.off], old, {to_bits});
            if (res.exchanged) {{
                break;
            }}
            old = res.old_value;
        }}
    }}"
        )
    };
    match data {
        DType::I8 | DType::U8 | DType::I16 | DType::U16 => {
            Ok(("u32", small_int_at_body(op, data, false)?))
        }
        DType::I32 | DType::U32 => {
            let t = if data == DType::I32 { "i32" } else { "u32" };
            let body = match op {
                AtOp::Add => direct("atomicAdd"),
                AtOp::Subtract => direct("atomicSub"),
                AtOp::Maximum => direct("atomicMax"),
                AtOp::Minimum => direct("atomicMin"),
                AtOp::BitwiseAnd => direct("atomicAnd"),
                AtOp::BitwiseOr => direct("atomicOr"),
                AtOp::BitwiseXor => direct("atomicXor"),
                AtOp::Multiply => cas(t, "a * b", "nv", "old"),
            };
            Ok((t, body))
        }
        DType::Bool => {
            // bool arithmetic: add/maximum are `or`, multiply/minimum are `and`, subtract is
            // NumPy's error (checked by the host).
            let body = match op {
                AtOp::Add | AtOp::Maximum | AtOp::BitwiseOr => {
                    "    if (r.pred && r.val) {\n        atomicOr(&dst[r.off], 1u);\n    }"
                        .to_string()
                }
                AtOp::BitwiseXor => {
                    "    if (r.pred && r.val) {\n        atomicXor(&dst[r.off], 1u);\n    }"
                        .to_string()
                }
                AtOp::Multiply | AtOp::Minimum | AtOp::BitwiseAnd => {
                    "    if (r.pred && !r.val) {\n        atomicAnd(&dst[r.off], 0u);\n    }"
                        .to_string()
                }
                AtOp::Subtract => {
                    return Err(Error::invalid(
                        "numpy boolean subtract, the `-` operator, is not supported, use the \
                         bitwise_xor, the `^` operator, or the logical_xor function instead.",
                    ))
                }
            };
            Ok(("u32", body))
        }
        DType::F32 => {
            let nan = |x: &str| format!("((bitcast<u32>({x}) & 0x7fffffffu) > 0x7f800000u)");
            let combine = match op {
                AtOp::Add => "a + b".to_string(),
                AtOp::Subtract => "a - b".to_string(),
                AtOp::Multiply => "a * b".to_string(),
                AtOp::Maximum => format!("select(max(a, b), a + b, {} || {})", nan("a"), nan("b")),
                AtOp::Minimum => format!("select(min(a, b), a + b, {} || {})", nan("a"), nan("b")),
                op => return Err(bitwise_refusal(op, data)),
            };
            Ok((
                "u32",
                cas("f32", &combine, "bitcast<u32>(nv)", "bitcast<f32>(old)"),
            ))
        }
        DType::F16 => {
            // A compare-exchange on the 32-bit word holding the element (its half `lane`).
            let nan = |x: &str| format!("((bitcast<u32>(f32({x})) & 0x7fffffffu) > 0x7f800000u)");
            let combine = match op {
                AtOp::Add => "a + b".to_string(),
                AtOp::Subtract => "a - b".to_string(),
                AtOp::Multiply => "a * b".to_string(),
                AtOp::Maximum => format!("select(max(a, b), a + b, {} || {})", nan("a"), nan("b")),
                AtOp::Minimum => format!("select(min(a, b), a + b, {} || {})", nan("a"), nan("b")),
                op => return Err(bitwise_refusal(op, data)),
            };
            Ok((
                "u32",
                format!(
                    "    if (r.pred) {{
        let word = r.off / 2u;
        let lane = r.off & 1u;
        let shift = lane * 16u;
        var old = atomicLoad(&dst[word]);
        for (var k = 0u; k < {AT_RETRIES}u; k = k + 1u) {{
            let a = f16(unpack2x16float((old >> shift) & 0xffffu).x);
            let b = r.val;
            let nv: f16 = {combine};
            let bits = pack2x16float(vec2<f32>(f32(nv), 0.0)) & 0xffffu;
            let word_new = (old & ~(0xffffu << shift)) | (bits << shift);
            let res = atomicCompareExchangeWeak(&dst[word], old, word_new);
            if (res.exchanged) {{
                break;
            }}
            old = res.old_value;
        }}
    }}"
                ),
            ))
        }
        DType::Complex64 if matches!(op, AtOp::Add | AtOp::Subtract) => {
            // Sums of complex values are sums of their parts: one float32 compare-exchange
            // loop per part (words 2 off and 2 off + 1).
            let sign = if op == AtOp::Add { "+" } else { "-" };
            let mut body = String::from("    if (r.pred) {\n");
            for (part, field) in [(0, "x"), (1, "y")] {
                let _ = write!(
                    body,
                    "        {{
            let at = r.off * 2u + {part}u;
            var old = atomicLoad(&dst[at]);
            for (var k = 0u; k < {AT_RETRIES}u; k = k + 1u) {{
                let nv = bitcast<f32>(old) {sign} r.val.{field};
                let res = atomicCompareExchangeWeak(&dst[at], old, bitcast<u32>(nv));
                if (res.exchanged) {{
                    break;
                }}
                old = res.old_value;
            }}
        }}
"
                );
            }
            body.push_str("    }");
            Ok(("u32", body))
        }
        DType::I64 | DType::U64 if op.is_bitwise() => {
            // Each 32-bit half combines on its own.
            let f = match op {
                AtOp::BitwiseAnd => "atomicAnd",
                AtOp::BitwiseOr => "atomicOr",
                _ => "atomicXor",
            };
            let mask = if data == DType::I64 {
                "0xffffffffli"
            } else {
                "0xfffffffflu"
            };
            Ok((
                "u32",
                format!(
                    "    if (r.pred) {{
        {f}(&dst[r.off * 2u], u32(r.val & {mask}));
        {f}(&dst[r.off * 2u + 1u], u32((r.val >> 32u) & {mask}));
    }}"
                ),
            ))
        }
        DType::I64 | DType::U64 if matches!(op, AtOp::Add | AtOp::Subtract) => {
            // A 64-bit sum from two 32-bit atomic adds: the low word's add returns the exact
            // value it replaced, so each thread knows the carry its own addition made, and
            // the high word receives every high part and every carry (sums modulo 2^64 do
            // not depend on the order).
            let (v, low_mask) = match (op == AtOp::Add, data) {
                (true, DType::I64) => ("r.val", "0xffffffffli"),
                (false, DType::I64) => ("-r.val", "0xffffffffli"),
                (true, _) => ("r.val", "0xfffffffflu"),
                (false, _) => ("(0lu - r.val)", "0xfffffffflu"),
            };
            Ok((
                "u32",
                format!(
                    "    if (r.pred) {{
        let v = {v};
        let lo = u32(v & {low_mask});
        let hi = u32((v >> 32u) & {low_mask});
        let before = atomicAdd(&dst[r.off * 2u], lo);
        let carry = select(0u, 1u, before + lo < before);
        atomicAdd(&dst[r.off * 2u + 1u], hi + carry);
    }}"
                ),
            ))
        }
        d => Err(Error::unsupported(format!(
            "np.{}.at on {d} arrays (float32, float16, the 8- to 32-bit integers and bool \
             accumulate with 32-bit atomics, and int64 and complex64 with add and subtract; this needs 64-bit \
             atomics, which WGSL does not have)",
            op.name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{InputSpec, Node};

    const ALL: Target = Target {
        f16: true,
        f64: true,
        i64: true,
    };

    fn program(data: DType, access: Access) -> (Program, Vec<NodeId>) {
        // in0: data values, in1: i32 index; off = u32(in1) + index, pred = in1 > 0.
        let nodes = vec![
            (Node::Load(0), data),
            (Node::Load(1), DType::I32),
            (Node::Cast(1), DType::U32),
            (Node::Index, DType::U32),
            (Node::Binary(crate::BinaryOp::Add, 2, 3), DType::U32),
            (Node::Cast(1), DType::Bool),
        ];
        let p = Program {
            nodes,
            inputs: vec![
                InputSpec {
                    dtype: data,
                    access,
                    packed: false,
                },
                InputSpec {
                    dtype: DType::I32,
                    access: Access::Broadcast,
                    packed: false,
                },
            ],
            scalars: vec![],
            output: 0,
            rank: if access == Access::Strided { 2 } else { 0 },
            vector: false,
        };
        (p, vec![5, 4, 0])
    }

    #[test]
    fn gather_maps_validate() {
        // off = u32(in1) + g, computed before the gathered load of in0; val = -in0[off] (or
        // the load itself); a third input read elementwise.
        for d in [DType::Bool, DType::I32, DType::F16, DType::F32, DType::F64] {
            for checks in [0u8, 1] {
                let mut nodes = vec![
                    (Node::Load(1), DType::I32),
                    (Node::Cast(0), DType::U32),
                    (Node::Index, DType::U32),
                    (Node::Binary(crate::BinaryOp::Add, 1, 2), DType::U32),
                    (Node::Load(0), d),
                    (Node::Load(2), d),
                ];
                let val = if d == DType::Bool {
                    4
                } else {
                    nodes.push((Node::Binary(crate::BinaryOp::Add, 4, 5), d));
                    6
                };
                let map = Program {
                    nodes,
                    inputs: vec![
                        InputSpec {
                            dtype: d,
                            access: Access::Broadcast,
                            packed: false,
                        },
                        InputSpec {
                            dtype: DType::I32,
                            access: Access::Contiguous,
                            packed: false,
                        },
                        InputSpec {
                            dtype: d,
                            access: Access::Strided,
                            packed: false,
                        },
                    ],
                    scalars: vec![],
                    output: val,
                    rank: 2,
                    vector: false,
                };
                let mut roots = vec![3, val];
                roots.extend(std::iter::repeat_n(1, 2 * checks as usize));
                let ip = IndexProgram {
                    map,
                    roots,
                    kind: IndexKernel::GatherMap { checks, source: 0 },
                    data: d,
                    vector: false,
                    dst_input: None,
                };
                let (wgsl, _) = generate(&ip, &ALL).unwrap();
                assert!(wgsl.contains("in0[n3_0]"), "{wgsl}");
                crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
                // The offset must come before the load.
                let mut late = ip.clone();
                late.kind = IndexKernel::GatherMap { checks, source: 1 };
                assert!(generate(&late, &ALL).is_err());
            }
        }
    }

    #[test]
    fn every_variant_validates() {
        let dtypes = [
            DType::Bool,
            DType::I32,
            DType::U32,
            DType::I64,
            DType::U64,
            DType::F16,
            DType::F32,
            DType::F64,
            DType::Complex64,
            DType::Complex128,
        ];
        for &d in &dtypes {
            for access in [Access::Contiguous, Access::Strided] {
                let (map, all) = program(d, access);
                let mut kinds = vec![
                    (IndexKernel::Gather { checks: 0 }, vec![all[1]]),
                    (
                        IndexKernel::Gather { checks: 1 },
                        vec![all[1], all[1], all[1]],
                    ),
                    (IndexKernel::Scatter, all.clone()),
                    (IndexKernel::Claim, vec![all[0], all[1]]),
                    (IndexKernel::ScatterClaimed, all.clone()),
                    (IndexKernel::CompactCount, vec![all[0]]),
                    (
                        IndexKernel::CompactWrite { direct: false },
                        vec![all[0], all[2]],
                    ),
                    (
                        IndexKernel::CompactWrite { direct: true },
                        vec![all[0], all[2]],
                    ),
                ];
                for op in [
                    AtOp::Add,
                    AtOp::Subtract,
                    AtOp::Multiply,
                    AtOp::Maximum,
                    AtOp::Minimum,
                ] {
                    if accumulate_body(op, d).is_ok() {
                        kinds.push((IndexKernel::Accumulate(op), all.clone()));
                    }
                }
                for (kind, roots) in kinds {
                    let ip = IndexProgram {
                        map: map.clone(),
                        roots,
                        kind,
                        data: d,
                        vector: false,
                        dst_input: None,
                    };
                    let (wgsl, _) = generate(&ip, &ALL).unwrap();
                    crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
                }
            }
        }
    }

    /// Every wide `ufunc.at` the library requests: each destination a word compare-exchange
    /// takes (packed and word-stored small integers), each loop dtype, each op.
    #[test]
    fn every_wide_accumulation_validates() {
        let dests = [
            DType::Bool,
            DType::I8,
            DType::U8,
            DType::I16,
            DType::U16,
            DType::I32,
            DType::U32,
            DType::F16,
            DType::F32,
        ];
        let loops = [
            DType::I8,
            DType::U8,
            DType::I16,
            DType::U16,
            DType::I32,
            DType::U32,
            DType::I64,
            DType::U64,
            DType::F16,
            DType::F32,
            DType::F64,
        ];
        let mut checked = 0;
        for d in dests {
            for l in loops {
                let (mut map, roots) = program(d, Access::Contiguous);
                map.nodes[0].1 = l;
                map.inputs[0].dtype = l;
                for op in at_ops() {
                    for packed in [false, true] {
                        if (packed && !d.is_small_int())
                            || (op.is_bitwise() && (d.is_float() || l.is_float()))
                        {
                            continue;
                        }
                        let ip = IndexProgram {
                            map: map.clone(),
                            roots: roots.clone(),
                            kind: IndexKernel::AccumulateWide { op, packed },
                            data: d,
                            vector: false,
                            dst_input: None,
                        };
                        let (wgsl, _) = generate(&ip, &ALL).unwrap();
                        crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
                        checked += 1;
                    }
                }
            }
        }
        // Every op on every pair, less the bitwise ops where floats take part.
        assert_eq!(checked, (9 * 11 + 4 * 11) * 5 + (7 * 8 + 4 * 8) * 3);
    }

    /// Every [`AtOp`]; the `match` stops compiling when a variant is added (add it here too).
    fn at_ops() -> Vec<AtOp> {
        let all = vec![
            AtOp::Add,
            AtOp::Subtract,
            AtOp::Multiply,
            AtOp::Maximum,
            AtOp::Minimum,
            AtOp::BitwiseAnd,
            AtOp::BitwiseOr,
            AtOp::BitwiseXor,
        ];
        for op in &all {
            match op {
                AtOp::Add
                | AtOp::Subtract
                | AtOp::Multiply
                | AtOp::Maximum
                | AtOp::Minimum
                | AtOp::BitwiseAnd
                | AtOp::BitwiseOr
                | AtOp::BitwiseXor => {}
            }
        }
        all
    }

    /// Every kernel the library's indexing requests, for every dtype of the data (the
    /// indexed array's): gathers checking 0 to 3 index arrays, claims, scatters and claimed
    /// scatters writing a fresh destination or reading it in place, `ufunc.at` of every op the
    /// dtype takes, and both compaction passes (vectorised where the map allows, as the
    /// library does), over contiguous and strided maps.
    #[test]
    fn every_requested_variant_validates() {
        let mut checked = 0;
        for d in DType::ALL {
            for access in [Access::Contiguous, Access::Strided] {
                let (map, all) = program(d, access);
                // (kind, roots, dst_input, vector)
                let mut kinds = vec![];
                for checks in 0..=3u8 {
                    let mut roots = vec![all[1]];
                    roots.extend(std::iter::repeat_n(all[1], 2 * checks as usize));
                    kinds.push((IndexKernel::Gather { checks }, roots, None, false));
                }
                // The claim pass binds no destination (only the scatters read it in place).
                kinds.push((IndexKernel::Claim, vec![all[0], all[1]], None, false));
                for dst_input in [None, Some(0)] {
                    kinds.push((IndexKernel::Scatter, all.clone(), dst_input, false));
                    kinds.push((IndexKernel::ScatterClaimed, all.clone(), dst_input, false));
                }
                for op in at_ops() {
                    if accumulate_body(op, d).is_ok() {
                        kinds.push((IndexKernel::Accumulate(op), all.clone(), None, false));
                    }
                    if d.is_small_int() {
                        kinds.push((IndexKernel::AccumulatePacked(op), all.clone(), None, false));
                    }
                    if matches!(op, AtOp::Maximum | AtOp::Minimum)
                        && (d == DType::Bool || (d.is_int() && d.bits() <= 32))
                    {
                        for packed in [false, d.is_small_int()] {
                            let kind = IndexKernel::AccumulateAfterClaim { op, packed };
                            kinds.push((kind, all.clone(), None, false));
                        }
                    }
                }
                if d.is_small_int() {
                    for claimed in [false, true] {
                        let kind = IndexKernel::ScatterPacked { claimed };
                        kinds.push((kind, all.clone(), None, false));
                    }
                }
                for vector in [false, true] {
                    if vector && !crate::scan::vector_map(&map) {
                        continue;
                    }
                    kinds.push((IndexKernel::CompactCount, vec![all[0]], None, vector));
                    for direct in [false, true] {
                        kinds.push((
                            IndexKernel::CompactWrite { direct },
                            vec![all[0], all[2]],
                            None,
                            vector,
                        ));
                    }
                }
                for (kind, roots, dst_input, vector) in kinds {
                    let ip = IndexProgram {
                        map: map.clone(),
                        roots,
                        kind,
                        data: d,
                        vector,
                        dst_input,
                    };
                    let (wgsl, _) =
                        generate(&ip, &ALL).unwrap_or_else(|e| panic!("{d} {kind:?}: {e}"));
                    crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
                    checked += 1;
                }
            }
        }
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn row_gathers_validate() {
        for access in [Access::Contiguous, Access::Strided] {
            let (map, all) = program(DType::U32, access);
            for unit in [1u8, 2, 4] {
                for checks in [0u8, 1, 2] {
                    for (items, contiguous, workgroup) in [
                        (1u8, false, 256u16),
                        (2, false, 256),
                        (4, false, 256),
                        (8, false, 256),
                        (4, true, 256),
                        (8, true, 64),
                        (2, false, 1024),
                        (4, false, 128),
                    ] {
                        let mut roots = vec![all[1]];
                        roots.extend(std::iter::repeat_n(all[1], 2 * checks as usize));
                        let ip = IndexProgram {
                            map: map.clone(),
                            roots,
                            kind: IndexKernel::GatherRows {
                                unit,
                                checks,
                                items,
                                contiguous,
                                workgroup,
                            },
                            data: DType::U32,
                            vector: false,
                            dst_input: None,
                        };
                        let (wgsl, _) = generate(&ip, &ALL).unwrap();
                        assert_eq!(
                            wgsl.matches("atomicMax(&err").count(),
                            2 * checks as usize * items as usize
                        );
                        if items > 1 {
                            assert_eq!(wgsl.matches("] = x").count(), items as usize);
                        }
                        crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
                    }
                }
            }
        }
        // Bounds words must be u32; units are 1, 2 or 4 words.
        let (map, all) = program(DType::U32, Access::Contiguous);
        let bad_word = IndexProgram {
            map: map.clone(),
            roots: vec![all[1], all[0], all[1]],
            kind: IndexKernel::GatherRows {
                unit: 1,
                checks: 1,
                items: 1,
                contiguous: false,
                workgroup: 256,
            },
            data: DType::U32,
            vector: false,
            dst_input: None,
        };
        assert!(generate(&bad_word, &ALL).is_err());
        let bad_unit = IndexProgram {
            map,
            roots: vec![all[1]],
            kind: IndexKernel::GatherRows {
                unit: 3,
                checks: 0,
                items: 1,
                contiguous: false,
                workgroup: 256,
            },
            data: DType::U32,
            vector: false,
            dst_input: None,
        };
        assert!(generate(&bad_unit, &ALL).is_err());
        for items in [0u8, 9] {
            let bad_items = IndexProgram {
                kind: IndexKernel::GatherRows {
                    unit: 1,
                    checks: 0,
                    items,
                    contiguous: false,
                    workgroup: 256,
                },
                ..bad_unit.clone()
            };
            assert!(generate(&bad_items, &ALL).is_err());
        }
        for workgroup in [32u16, 100, 2048] {
            let bad_workgroup = IndexProgram {
                kind: IndexKernel::GatherRows {
                    unit: 1,
                    checks: 0,
                    items: 4,
                    contiguous: false,
                    workgroup,
                },
                ..bad_unit.clone()
            };
            assert!(generate(&bad_workgroup, &ALL).is_err());
        }
    }

    #[test]
    fn in_place_update_reads_its_destination() {
        for d in [DType::F32, DType::Complex64, DType::Bool, DType::F16] {
            let (map, all) = program(d, Access::Contiguous);
            let ip = IndexProgram {
                map,
                roots: all,
                kind: IndexKernel::Scatter,
                data: d,
                vector: false,
                dst_input: Some(0),
            };
            let (wgsl, _) = generate(&ip, &ALL).unwrap();
            assert!(!wgsl.contains("in0"), "{wgsl}");
            crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
        }
    }

    #[test]
    fn vector_compaction_validates() {
        for d in [DType::F32, DType::I32, DType::Bool, DType::U32] {
            let (map, all) = program(d, Access::Contiguous);
            for (kind, roots) in [
                (IndexKernel::CompactCount, vec![all[0]]),
                (
                    IndexKernel::CompactWrite { direct: false },
                    vec![all[0], all[2]],
                ),
                (
                    IndexKernel::CompactWrite { direct: true },
                    vec![all[0], all[2]],
                ),
            ] {
                let ip = IndexProgram {
                    map: map.clone(),
                    roots,
                    kind,
                    data: d,
                    vector: true,
                    dst_input: None,
                };
                let (wgsl, _) = generate(&ip, &ALL).unwrap();
                assert!(wgsl.contains("kp_eval4(g0 / 4u)"), "{wgsl}");
                crate::naga_check::validate(&wgsl, naga::valid::Capabilities::empty());
            }
        }
        // Strided inputs cannot be read 4 at a time.
        let (map, all) = program(DType::F32, Access::Strided);
        let ip = IndexProgram {
            map,
            roots: vec![all[0]],
            kind: IndexKernel::CompactCount,
            data: DType::F32,
            vector: true,
            dst_input: None,
        };
        assert!(generate(&ip, &ALL).is_err());
    }

    #[test]
    fn root_dtypes_are_checked() {
        let (map, all) = program(DType::F32, Access::Contiguous);
        let ip = IndexProgram {
            map,
            roots: vec![all[2]],
            kind: IndexKernel::Gather { checks: 0 },
            data: DType::F32,
            vector: false,
            dst_input: None,
        };
        assert!(generate(&ip, &ALL).is_err());
    }
}
