//! WGSL generation for elementwise [`Program`]s.
//!
//! The kernel skeleton lives in `shaders/elementwise.wgsl`; NumPy-semantics helpers per dtype
//! in `shaders/elementwise_float.wgsl` and `shaders/elementwise_int.wgsl`; transcendentals in
//! the WGSL libm. Only what varies is generated here: the uniform struct, the bindings, the
//! coordinate arithmetic for strided inputs, and one `let` per expression node.

use crate::custom::UserFn;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::expr::{Access, BinaryOp, Node, Program, UnaryOp};
use crate::libm;
use crate::ops::{Body, Rule};
use crate::random;
use crate::template::Template;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::Arc;

const TEMPLATE: &str = include_str!("../../../shaders/elementwise.wgsl");
const FLOAT_HELPERS: &str = include_str!("../../../shaders/elementwise_float.wgsl");
const INT_HELPERS: &str = include_str!("../../../shaders/elementwise_int.wgsl");

/// Threads per workgroup of elementwise kernels.
pub const WORKGROUP_SIZE: u32 = 256;

/// Elements each thread of a scalar elementwise kernel handles.
pub const ITEMS_PER_THREAD: u32 = 4;

/// vec4 loads each thread of a vectorised elementwise kernel issues per input.
pub const VECTORS_PER_THREAD: u32 = 2;

/// Elements each workgroup of `program`'s kernel handles.
pub fn elements_per_workgroup(program: &Program) -> u32 {
    WORKGROUP_SIZE * items(program)
}

fn items(program: &Program) -> u32 {
    if program.vector {
        4 * VECTORS_PER_THREAD
    } else {
        ITEMS_PER_THREAD
    }
}

/// True when a program may use the vectorised (vec4) kernel: every input contiguous or
/// broadcast, and every contiguous input (or packed small integers) and the output of a
/// 4-byte dtype. The caller must
/// also ensure that each dispatch's element count and contiguous offsets are multiples of 4.
pub fn vectorisable(program: &Program) -> bool {
    program.rank == 0
        && program.out_dtype().gpu_size() == 4
        && program.inputs.iter().all(|i| match i.access {
            Access::Contiguous => i.packed || i.dtype.gpu_size() == 4,
            Access::Broadcast => true,
            Access::Strided => false,
        })
}

/// What the adapter can compile: optional shader features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Target {
    /// SHADER_F16.
    pub f16: bool,
    /// SHADER_F64.
    pub f64: bool,
    /// SHADER_INT64.
    pub i64: bool,
}

impl Target {
    /// Checks that `dtype` can run on this target.
    pub fn check(&self, dtype: DType, adapter: &str) -> Result<()> {
        let (ok, feature) = match dtype {
            DType::F16 => (self.f16, "SHADER_F16"),
            DType::F64 | DType::Complex128 => (self.f64, "SHADER_F64"),
            DType::I64 | DType::U64 => (self.i64, "SHADER_INT64"),
            _ => (true, ""),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::unsupported(format!(
                "dtype {dtype} needs the {feature} feature, which adapter '{adapter}' does not have"
            )))
        }
    }
}

/// Byte offsets of the fields of a kernel's uniform block, for the host to fill.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParamLayout {
    /// Total size in bytes (a multiple of 16).
    pub size: usize,
    /// `n`: number of elements in this dispatch (u32).
    pub n: usize,
    /// `start`: linear index of the dispatch's first element (u32).
    pub start: usize,
    /// Collapsed shape, one u32 per axis.
    pub dims: Vec<usize>,
    /// Element offset of each input within its binding (u32).
    pub offsets: Vec<usize>,
    /// Element strides of each strided input, one u32 (two's complement) per axis.
    pub strides: Vec<Vec<usize>>,
    /// Each scalar's field (its encoding is [`scalar_uniform_type`]).
    pub scalars: Vec<usize>,
    /// Extra u32 fields a kernel family asked for, in the order asked.
    pub extra: Vec<usize>,
}

/// A generated kernel: WGSL source and the layout of its uniform block.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The WGSL module (entry point `main`).
    pub wgsl: String,
    /// Uniform layout.
    pub params: ParamLayout,
}

/// WGSL type used to pass a scalar of `dtype` in the uniform block: f16 travels as f32 and bool
/// as u32 (uniform blocks cannot hold either portably).
pub fn scalar_uniform_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "f32",
        DType::Bool => "u32",
        d => d.wgsl_storage(),
    }
}

fn uniform_align(dtype: DType) -> usize {
    match dtype {
        DType::Complex128 => 16,
        DType::F64 | DType::I64 | DType::U64 | DType::Complex64 => 8,
        _ => 4,
    }
}

/// The uniform struct fields of `program` (plus `extra` u32 fields, named as given) and their
/// byte offsets. 16- and 8-byte fields come first so that every field is naturally aligned.
pub(crate) fn param_block(program: &Program, extra: &[&str]) -> (String, ParamLayout) {
    let rank = program.rank;
    let mut fields = String::new();
    let mut layout = ParamLayout::default();
    let mut at = 0usize;
    let mut field = |name: String, ty: &str, size: usize, fields: &mut String| -> usize {
        let off = at;
        at += size;
        let _ = writeln!(fields, "    {name}: {ty},");
        off
    };
    let mut scalar_offsets = vec![0usize; program.scalars.len()];
    for align in [16, 8] {
        for (k, &d) in program.scalars.iter().enumerate() {
            if uniform_align(d) == align {
                scalar_offsets[k] =
                    field(format!("s{k}"), scalar_uniform_type(d), align, &mut fields);
            }
        }
    }
    layout.n = field("n".into(), "u32", 4, &mut fields);
    layout.start = field("start".into(), "u32", 4, &mut fields);
    // Always 0.0 (the bytes are zeroed): the libm's opaque zero, see `kpl32_fence`.
    field("zero".into(), "f32", 4, &mut fields);
    for name in extra {
        layout
            .extra
            .push(field((*name).to_string(), "u32", 4, &mut fields));
    }
    for j in 0..rank {
        layout
            .dims
            .push(field(format!("d{j}"), "u32", 4, &mut fields));
    }
    for (k, input) in program.inputs.iter().enumerate() {
        layout
            .offsets
            .push(field(format!("o{k}"), "u32", 4, &mut fields));
        let mut st = Vec::new();
        if input.access == Access::Strided {
            for j in 0..rank {
                st.push(field(format!("t{k}_{j}"), "u32", 4, &mut fields));
            }
        }
        layout.strides.push(st);
    }
    for (k, &d) in program.scalars.iter().enumerate() {
        if uniform_align(d) == 4 {
            scalar_offsets[k] = field(format!("s{k}"), scalar_uniform_type(d), 4, &mut fields);
        }
    }
    layout.scalars = scalar_offsets;
    layout.size = at.div_ceil(16) * 16;
    (fields, layout)
}

/// The enable directives a kernel over `dtypes` needs (`enable f16;` when one is f16).
pub(crate) fn enables(mut dtypes: impl Iterator<Item = DType>) -> &'static str {
    if dtypes.any(|d| d == DType::F16) {
        "enable f16;\n"
    } else {
        ""
    }
}

/// Generates the WGSL of an elementwise program.
pub fn elementwise(program: &Program, target: &Target) -> Result<Kernel> {
    elementwise_to(program, target, false)
}

/// [`elementwise`] writing its int8/uint8/int16/uint16 result packed (four or two elements to
/// a 32-bit word, see [`crate::packing`]): a vector program only, whose threads each write the
/// whole words of their four consecutive elements (no word has two writers).
pub fn elementwise_packed_output(program: &Program, target: &Target) -> Result<Kernel> {
    if !program.vector || crate::packing::packed_bits(program.out_dtype()).is_none() {
        return Err(Error::invalid(
            "a packed output needs a vector program with a small-integer result",
        ));
    }
    elementwise_to(program, target, true)
}

fn elementwise_to(program: &Program, target: &Target, packed_output: bool) -> Result<Kernel> {
    for d in program.dtypes() {
        target.check(d, "this adapter")?;
    }
    let rank = program.rank;
    let (fields, layout) = param_block(program, &[]);

    let vector = program.vector;
    if vector && !vectorisable(program) {
        return Err(Error::invalid("program marked vector but not vectorisable"));
    }
    let elem_type = |d: DType, contiguous: bool| {
        if vector && contiguous {
            format!("vec4<{}>", d.wgsl_storage())
        } else {
            d.wgsl_storage().to_string()
        }
    };
    let mut bindings = String::new();
    for (k, input) in program.inputs.iter().enumerate() {
        let _ = writeln!(
            bindings,
            "@group(0) @binding({}) var<storage, read> in{k}: array<{}>;",
            k + 1,
            if input.packed {
                "u32".to_string()
            } else {
                elem_type(input.dtype, input.access == Access::Contiguous)
            }
        );
    }
    let _ = writeln!(
        bindings,
        "@group(0) @binding({}) var<storage, read_write> out: array<{}>;",
        program.inputs.len() + 1,
        if packed_output {
            "u32".to_string()
        } else {
            elem_type(program.out_dtype(), true)
        }
    );

    let any_strided = program.inputs.iter().any(|i| i.access == Access::Strided);
    let mut body = String::new();
    let mut needs = Needs::for_target(target);
    needs.fills_tables = true;
    let n_items = items(program);
    let limit = if vector { "(P.n / 4u)" } else { "P.n" };
    // Indices (and coordinates of strided inputs) of every item. Scalar kernels: item k is
    // element base + 256 k. Vector kernels: vector j is base + 256 j, item k lane k % 4 of
    // vector k / 4.
    if vector {
        for j in 0..VECTORS_PER_THREAD {
            let _ = writeln!(
                body,
                "    let q{j} = min(base + {}u, {limit} - 1u);",
                j * WORKGROUP_SIZE
            );
            for (k, input) in program.inputs.iter().enumerate() {
                if input.access == Access::Contiguous && input.packed {
                    let _ = writeln!(body, "    {}", packed_vec4(k, j, input.dtype));
                } else if input.access == Access::Contiguous {
                    let _ = writeln!(body, "    let l{k}_{j} = in{k}[P.o{k} / 4u + q{j}];");
                }
            }
        }
        for k in 0..n_items {
            let _ = writeln!(
                body,
                "    let g{k} = P.start + q{} * 4u + {}u;",
                k / 4,
                k % 4
            );
        }
    } else {
        for k in 0..n_items {
            let _ = writeln!(
                body,
                "    let i{k} = min(base + {}u, P.n - 1u);\n    let g{k} = P.start + i{k};",
                k * WORKGROUP_SIZE
            );
            if any_strided && rank > 0 {
                let _ = writeln!(body, "    var r{k} = g{k};");
                for j in (1..rank).rev() {
                    let _ = writeln!(
                        body,
                        "    let c{j}_{k} = r{k} % P.d{j};\n    r{k} = r{k} / P.d{j};"
                    );
                }
                let _ = writeln!(body, "    let c0_{k} = r{k};");
            }
        }
    }
    // Loads of every item first, then the arithmetic, then the stores. A node that depends
    // on uniform scalars alone is computed once and aliased for the other items: the same
    // value, compiled once (lavapipe compiled `sin` of a constant array in 1.6 s with four
    // inlined copies, 0.5 s with one).
    let uniform = uniform_nodes(program);
    let is_load = |n: &Node| matches!(n, Node::Load(_));
    needs.random_blocks = vector;
    for pass in [true, false] {
        for (idx, (node, dtype)) in program.nodes.iter().enumerate() {
            if is_load(node) != pass {
                continue;
            }
            let mut block_values = false;
            if let (Node::Random(op, args), true) = (node, vector) {
                // One Philox block per vector of four elements (their words 0), and the four
                // values at once where they come from it alone (Box-Muller pairs).
                block_values = op.block_wgsl(*dtype, "k", "d", "e", "b").is_some();
                for j in 0..VECTORS_PER_THREAD {
                    let a = |x: usize| format!("n{}_{}", args[x], 4 * j);
                    let _ = writeln!(
                        body,
                        "    let rb{idx}_{j} = kp_rng_block0(vec2<u32>({}, {}), vec2<u32>({}, {}), g{});",
                        a(0),
                        a(1),
                        a(2),
                        a(3),
                        4 * j
                    );
                    let k = format!("vec2<u32>({}, {})", a(0), a(1));
                    let d = format!("vec2<u32>({}, {})", a(2), a(3));
                    let (e0, b) = (format!("g{}", 4 * j), format!("rb{idx}_{j}"));
                    if let Some(v) = op.block_wgsl(*dtype, &k, &d, &e0, &b) {
                        needs.random.extend(op.functions(*dtype));
                        let _ = writeln!(body, "    let rv{idx}_{j} = {v};");
                    }
                }
            }
            for k in 0..n_items {
                let expr = if block_values {
                    format!("rv{idx}_{}.{}", k / 4, ["x", "y", "z", "w"][k as usize % 4])
                } else if uniform[idx] && k > 0 {
                    format!("n{idx}_0")
                } else {
                    node_expr(program, node, *dtype, k, &mut needs)?
                };
                let _ = writeln!(body, "    let n{idx}_{k}: {} = {expr};", dtype.wgsl_value());
            }
        }
    }
    let out = program.output;
    let store = |k: u32| {
        if program.out_dtype() == DType::Bool {
            format!("select(0u, 1u, n{out}_{k})")
        } else {
            format!("n{out}_{k}")
        }
    };
    if vector {
        for j in 0..VECTORS_PER_THREAD {
            let lanes: Vec<String> = (0..4).map(|l| store(j * 4 + l)).collect();
            let line = if packed_output {
                packed_store(j, &lanes, program.out_dtype())
            } else {
                format!(
                    "out[q{j}] = vec4<{}>({});",
                    program.out_dtype().wgsl_storage(),
                    lanes.join(", ")
                )
            };
            if j == 0 {
                let _ = writeln!(body, "    {line}");
            } else {
                let _ = writeln!(
                    body,
                    "    if (base + {}u < {limit}) {{\n        {line}\n    }}",
                    j * WORKGROUP_SIZE
                );
            }
        }
    } else {
        for k in 0..n_items {
            if k == 0 {
                let _ = writeln!(body, "    out[i0] = {};", store(0));
            } else {
                let _ = writeln!(
                    body,
                    "    if (base + {}u < P.n) {{\n        out[i{k}] = {};\n    }}",
                    k * WORKGROUP_SIZE,
                    store(k)
                );
            }
        }
    }

    let enables = enables(program.dtypes());
    let helpers = needs.render()?;
    // Workgroup-staged ziggurat tables: filled by every thread before any returns.
    let prologue = if helpers.contains(&format!("fn {}(", random::ziggurat::FILL)) {
        format!(
            "    {}(lid, {WORKGROUP_SIZE}u);\n    workgroupBarrier();",
            random::ziggurat::FILL
        )
    } else {
        String::new()
    };
    let wgsl = Template::new(TEMPLATE)
        .set("ENABLES", enables)
        .set("PROLOGUE", prologue)
        .set("PARAMS", fields.trim_end())
        .set("BINDINGS", bindings.trim_end())
        .set("HELPERS", &helpers)
        .set(
            "PER_GROUP",
            WORKGROUP_SIZE * if vector { VECTORS_PER_THREAD } else { n_items },
        )
        .set("LIMIT", limit)
        .set("BODY", body.trim_end())
        .render();
    Ok(Kernel {
        wgsl,
        params: layout,
    })
}

/// Bytes of called library code (libm functions) that weigh as much as one node in the
/// fusion bound (`kupfer`'s `MAX_NODES`). Drivers' compilers inline a helper at every call,
/// so a kernel's compile time follows the code of its calls, not its node count: on lavapipe
/// (a loaded machine) a float64 `sin` chain compiled in 11 s for one call, 63 s for four and
/// 312 s for eight (DESIGN.md, "Bad input"). `sin` f64 pulls in ~8 KB (weight 15: four to a
/// kernel), `exp` f32 ~2.5 KB (weight 5).
pub const LIBM_BYTES_PER_NODE: usize = 550;

/// A node's weight in the fusion bound: 1, plus the libm code it calls in units of
/// [`LIBM_BYTES_PER_NODE`]. `Ok(weight)` of a unary op on `d` (the operand's dtype).
///
/// ```
/// use kupfer_core::{codegen::unary_weight, DType, UnaryOp};
/// assert_eq!(unary_weight(UnaryOp::Negative, DType::F32), 1);
/// assert!(unary_weight(UnaryOp::Sin, DType::F64) > 8);
/// ```
pub fn unary_weight(op: UnaryOp, d: DType) -> usize {
    cached_weight(NodeKind::Unary(op), d, |needs| {
        let _ = unary_expr(op, "x", d, needs);
    })
}

/// [`unary_weight`] of a binary op computed in `d`.
pub fn binary_weight(op: BinaryOp, d: DType) -> usize {
    cached_weight(NodeKind::Binary(op), d, |needs| {
        let _ = binary_expr(op, "a", "b", d, needs);
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum NodeKind {
    Unary(UnaryOp),
    Binary(BinaryOp),
}

fn cached_weight(kind: NodeKind, d: DType, generate: impl FnOnce(&mut Needs)) -> usize {
    type Weights = std::sync::Mutex<std::collections::HashMap<(NodeKind, DType), usize>>;
    static WEIGHTS: std::sync::OnceLock<Weights> = std::sync::OnceLock::new();
    let weights = WEIGHTS.get_or_init(Default::default);
    if let Some(&w) = weights
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&(kind, d))
    {
        return w;
    }
    let mut needs = Needs::default();
    generate(&mut needs);
    let roots = || needs.libm.iter().map(String::as_str);
    let bytes = libm::subset(libm::f32_library(), roots()).len()
        + libm::subset(libm::f64_library(), roots()).len();
    let w = 1 + bytes / LIBM_BYTES_PER_NODE;
    weights
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert((kind, d), w);
    w
}

/// Helper families a kernel needs.
#[derive(Default)]
pub(crate) struct Needs {
    pub(crate) float: BTreeSet<DType>,
    pub(crate) int: BTreeSet<DType>,
    /// The libm functions the kernel calls (`kp_sin_f32`, ...).
    libm: BTreeSet<String>,
    f64_rounding: bool,
    f32_divide: bool,
    /// The complex dtypes whose multiply/divide/reciprocal helpers the kernel calls.
    pub(crate) complex: BTreeSet<DType>,
    mixed_compare: bool,
    /// The kernel compares a signed integer with a uint64 ([`MIXED_COMPARE_64`]).
    mixed_compare_64: bool,
    /// User functions called by the kernel (`kpu_<k>`), in first-call order.
    pub(crate) user: Vec<Arc<UserFn>>,
    /// Functions of the random library (`shaders/random.wgsl`) the kernel calls.
    random: BTreeSet<&'static str>,
    /// Per-element random functions generated for the kernel (`kp_rand_*`), by name.
    random_fns: std::collections::BTreeMap<String, String>,
    /// True in vectorised elementwise kernels, which compute each random draw's Philox block
    /// once per four elements (`rb<node>_<vector>`) before the draw's nodes.
    random_blocks: bool,
    /// The adapter has 64-bit integers (Philox's high products use them).
    pub(crate) int64: bool,
    /// The kernel calls [`random::ziggurat::FILL`] where the helpers define it, so the
    /// ziggurat tables may come from workgroup memory (`KUPFER_ZIG_TABLES=workgroup`).
    pub(crate) fills_tables: bool,
}

impl Needs {
    /// No needs yet, for a kernel compiled for `target`.
    pub(crate) fn for_target(target: &Target) -> Needs {
        Needs {
            int64: target.i64,
            ..Needs::default()
        }
    }

    pub(crate) fn render(&self) -> Result<String> {
        let mut s = String::new();
        // Each library keeps the functions it defines (names of the other precision are not
        // in it); the complex functions come with the real ones they call.
        let mut random = if self.fills_tables {
            let source = random::ziggurat::table_source();
            random::library_with(self.random.iter().copied(), self.int64, source)
        } else {
            random::library(self.random.iter().copied(), self.int64)
        };
        for f in self.random_fns.values() {
            random.push_str(f);
        }
        // The libm functions the random transforms call come along with the kernel's own.
        let called = random::libm_calls(&random);
        let roots = || {
            self.libm
                .iter()
                .map(String::as_str)
                .chain(called.iter().copied())
        };
        s.push_str(&libm::subset(libm::f32_library(), roots()));
        s.push_str(&libm::subset(libm::f64_library(), roots()));
        s.push_str(&random);
        // f16's fmod is computed in f32, so f16 helpers bring the f32 ones.
        let mut floats = self.float.clone();
        // The complex helpers call their real parts' classification helpers.
        floats.extend(self.complex.iter().map(|d| d.real_part()));
        if floats.contains(&DType::F16) {
            floats.insert(DType::F32);
        }
        for &d in &floats {
            let t = d.wgsl_value();
            s.push_str(&isnan_helpers(d));
            s.push_str(fmod_helper(d));
            s.push_str(
                &FLOAT_HELPERS
                    .replace(
                        "KP_FLOOR(",
                        if d == DType::F64 {
                            "kp_floor_f64("
                        } else {
                            "floor("
                        },
                    )
                    .replace("_T(", &format!("_{t}("))
                    .replace("T(", &format!("{t}("))
                    .replace(": T", &format!(": {t}"))
                    .replace("-> T", &format!("-> {t}")),
            );
            s.push('\n');
        }
        for &d in &self.int {
            let t = d.wgsl_value();
            let bits = if d.bits() == 64 { "64" } else { "32" };
            s.push_str(
                &INT_HELPERS
                    .replace("_T(", &format!("_{t}("))
                    .replace("T(BITS)", &format!("{t}({bits})"))
                    .replace("T(", &format!("{t}("))
                    .replace(": T", &format!(": {t}"))
                    .replace("-> T", &format!("-> {t}")),
            );
            s.push('\n');
        }
        for &d in &self.complex {
            s.push_str(
                &COMPLEX_HELPERS
                    .replace("_CT(", &format!("_{}(", complex_suffix(d)))
                    .replace("CT", d.wgsl_value())
                    .replace("_RT(", &format!("_{}(", d.real_part().wgsl_value()))
                    .replace("RT", d.real_part().wgsl_value()),
            );
        }
        if self.mixed_compare {
            s.push_str(MIXED_COMPARE);
        }
        if self.mixed_compare_64 {
            s.push_str(MIXED_COMPARE_64);
        }
        let mut preambles: Vec<&str> = Vec::new();
        for f in &self.user {
            if !f.preamble.is_empty() && !preambles.contains(&f.preamble.as_str()) {
                preambles.push(&f.preamble);
                s.push_str(&f.preamble);
                s.push('\n');
            }
        }
        for (k, f) in self.user.iter().enumerate() {
            let _ = writeln!(s, "// user kernel '{}'", f.name.replace('\n', " "));
            s.push_str(&f.wrapper(&format!("kpu_{k}"), &f.body).0);
        }
        // The f64 float helpers' floor division floors with kp_floor_f64.
        if self.f32_divide {
            s.push_str(F32_DIVIDE);
        }
        if self.f64_rounding
            || self.float.contains(&DType::F64)
            || self.complex.contains(&DType::Complex128)
        {
            s.push_str(F64_ROUNDING);
        }
        Ok(s)
    }
}

/// floor, ceil, trunc and rint for f64 from correctly rounded arithmetic alone: |x| + 2^52 - 2^52
/// rounds to an integer, with the sum made opaque by a `min` with the largest double (a no-op
/// here) so that no optimiser folds `(a + c) - c` to `a`; the sign of zero comes from the sign
/// bit of f32(x).
const F64_ROUNDING: &str = "
fn kp_opaque_f64(x: f64) -> f64 { return min(x, 1.7976931348623157e308lf); }
fn kp_negative_f64(x: f64) -> bool { return (bitcast<u32>(f32(x)) & 0x80000000u) != 0u; }
fn kp_rint_f64(x: f64) -> f64 {
    let a = abs(x);
    if (!(a < 4503599627370496.0lf)) { return x; }
    let t = kp_opaque_f64(a + 4503599627370496.0lf) - 4503599627370496.0lf;
    return select(t, -t, kp_negative_f64(x));
}
fn kp_trunc_f64(x: f64) -> f64 {
    let a = abs(x);
    if (!(a < 4503599627370496.0lf)) { return x; }
    var t = kp_opaque_f64(a + 4503599627370496.0lf) - 4503599627370496.0lf;
    if (t > a) { t = t - 1.0lf; }
    return select(t, -t, kp_negative_f64(x));
}
fn kp_floor_f64(x: f64) -> f64 {
    let t = kp_trunc_f64(x);
    return select(t, t - 1.0lf, t > x);
}
fn kp_ceil_f64(x: f64) -> f64 {
    let t = kp_trunc_f64(x);
    return select(t, t + 1.0lf, t < x);
}
";

/// f32 division that stays right for huge divisors: NVIDIA divides as a * (1 / b), and 1 / b
/// flushes to zero for |b| > 2^126 (3e38 / 3e38 came out 0, inf / 3e38 NaN). Scaling both
/// operands by 1/4 there is exact for every quotient that does not underflow anyway.
const F32_DIVIDE: &str = "
fn kp_divide_f32(a: f32, b: f32) -> f32 {
    if (abs(b) > 0x1p126f) { return (a * 0.25) / (b * 0.25); }
    return a / b;
}
";

/// The complex product `a * b` of complex WGSL type `t` as one expression (for kernels that
/// multiply-accumulate inline: matmul, convolution, product reductions).
pub(crate) fn cmul_expr(t: &str, a: &str, b: &str) -> String {
    format!("{t}({a}.x * {b}.x - {a}.y * {b}.y, {a}.x * {b}.y + {a}.y * {b}.x)")
}

/// Complex multiply, divide and reciprocal, written once: `CT` is the complex WGSL type and
/// `_CT(` the name suffix (`kp_cmul_c64`, `kp_cdiv_c128`, ...).
const COMPLEX_HELPERS: &str = "
fn kp_cmul_CT(a: CT, b: CT) -> CT {
    return CT(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// NumPy's complex division (Smith's algorithm with a reciprocal scale; a zero divisor divides
// each part by |b.x| = 0).
fn kp_cdiv_CT(a: CT, b: CT) -> CT {
    let br = abs(b.x);
    let bi = abs(b.y);
    if (br >= bi) {
        if (br == 0.0 && bi == 0.0) {
            return CT(a.x / br, a.y / br);
        }
        let rat = b.y / b.x;
        let scl = 1.0 / (b.x + b.y * rat);
        return CT((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
    }
    let rat = b.x / b.y;
    let scl = 1.0 / (b.y + b.x * rat);
    return CT((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}

// NumPy's complex reciprocal (also scaled by a reciprocal).
fn kp_crecip_CT(x: CT) -> CT {
    if (abs(x.y) <= abs(x.x)) {
        let r = x.y / x.x;
        let s = 1.0 / (x.x + x.y * r);
        return CT(s, -r * s);
    }
    let r = x.x / x.y;
    let s = 1.0 / (x.x * r + x.y);
    return CT(r * s, -s);
}

// NumPy's complex sign: z / |z| (h = |z|); 0 at 0; +-1 or +-i when one part is infinite; NaN
// for NaN or two infinite parts.
fn kp_csign_CT(z: CT, h: RT) -> CT {
    if (kp_isnan_RT(h) || (kp_isinf_RT(z.x) && kp_isinf_RT(z.y))) {
        return CT(kp_nan_RT(), kp_nan_RT());
    }
    if (kp_isinf_RT(z.x)) {
        return CT(select(RT(-1), RT(1), z.x > RT(0)), RT(0));
    }
    if (kp_isinf_RT(z.y)) {
        return CT(RT(0), select(RT(-1), RT(1), z.y > RT(0)));
    }
    if (h == RT(0)) {
        return CT(RT(0), RT(0));
    }
    return CT(z.x / h, z.y / h);
}

// NumPy's lexicographic order of complex numbers (CGE / CLE: a NaN imaginary part makes a
// strict real comparison false).
fn kp_cge_CT(a: CT, b: CT) -> bool {
    return (a.x > b.x && !kp_isnan_RT(a.y) && !kp_isnan_RT(b.y)) || (a.x == b.x && a.y >= b.y);
}

fn kp_cle_CT(a: CT, b: CT) -> bool {
    return (a.x < b.x && !kp_isnan_RT(a.y) && !kp_isnan_RT(b.y)) || (a.x == b.x && a.y <= b.y);
}

fn kp_cisnan_CT(a: CT) -> bool {
    return kp_isnan_RT(a.x) || kp_isnan_RT(a.y);
}

// maximum / minimum keep a NaN first operand; fmax / fmin take the first unless the second is
// NaN (NumPy's loops).
fn kp_cmaximum_CT(a: CT, b: CT) -> CT {
    return select(b, a, kp_cisnan_CT(a) || kp_cge_CT(a, b));
}

fn kp_cminimum_CT(a: CT, b: CT) -> CT {
    return select(b, a, kp_cisnan_CT(a) || kp_cle_CT(a, b));
}

fn kp_cfmax_CT(a: CT, b: CT) -> CT {
    return select(b, a, kp_cisnan_CT(b) || kp_cge_CT(a, b));
}

fn kp_cfmin_CT(a: CT, b: CT) -> CT {
    return select(b, a, kp_cisnan_CT(b) || kp_cle_CT(a, b));
}
";

/// The name suffix of a complex dtype's helpers and libm functions (`c64`, `c128`).
pub(crate) fn complex_suffix(d: DType) -> &'static str {
    if d == DType::Complex128 {
        "c128"
    } else {
        "c64"
    }
}

/// C fmod, exact (the result is always representable), without fma or any rewrite-sensitive
/// trick: f32 by long division on the integer significands, 8 bits a step; f64 (which has no
/// portable bitcast to integers) by binary long division in f64, where every subtraction is
/// exact (Sterbenz: y <= r < 2y) and every scaling is by a power of two; f16 in f32.
fn fmod_helper(d: DType) -> &'static str {
    match d {
        DType::F16 => FMOD_F16,
        DType::F64 => FMOD_F64,
        _ => FMOD_F32,
    }
}

const FMOD_F16: &str = "
fn kp_fmod_f16(a: f16, b: f16) -> f16 { return f16(kp_fmod_f32(f32(a), f32(b))); }
";

const FMOD_F32: &str = "
fn kp_fmod_f32(a: f32, b: f32) -> f32 {
    let ua = bitcast<u32>(a) & 0x7fffffffu;
    let ub = bitcast<u32>(b) & 0x7fffffffu;
    let sign = bitcast<u32>(a) & 0x80000000u;
    // the NaN through a `let`: WebGPU rejects non-finite constant expressions
    let nan_bits = 0x7fc00000u;
    if (ua >= 0x7f800000u || ub > 0x7f800000u || ub == 0u) { return bitcast<f32>(nan_bits); }
    if (ua < ub) { return a; }
    // |a| = mx 2^(ex - 150), |b| = my 2^(ey - 150), mx and my in [2^23, 2^24).
    var ex = i32(ua >> 23u);
    var mx = ua & 0x7fffffu;
    if (ex == 0) {
        let s = countLeadingZeros(mx) - 8u;
        mx = mx << s;
        ex = 1 - i32(s);
    } else {
        mx = mx | 0x800000u;
    }
    var ey = i32(ub >> 23u);
    var my = ub & 0x7fffffu;
    if (ey == 0) {
        let s = countLeadingZeros(my) - 8u;
        my = my << s;
        ey = 1 - i32(s);
    } else {
        my = my | 0x800000u;
    }
    var r = mx % my;
    var k = ex - ey;
    loop {
        if (k <= 0 || r == 0u) { break; }
        let s = min(k, 8);
        r = (r << u32(s)) % my;
        k = k - s;
    }
    if (r == 0u) { return bitcast<f32>(sign); }
    let s = countLeadingZeros(r) - 8u;
    r = r << s;
    let e = ey - i32(s);
    if (e <= 0) { return bitcast<f32>(sign | (r >> u32(1 - e))); }
    return bitcast<f32>(sign | (u32(e) << 23u) | (r & 0x7fffffu));
}
";

const FMOD_F64: &str = "
fn kp_fmod_f64(a: f64, b: f64) -> f64 {
    let ax = abs(a);
    let bx = abs(b);
    if (kp_isnan_f64(a) || kp_isnan_f64(b) || kp_isinf_f64(a) || b == 0.0lf) {
        let nan_bits = 0x7fc00000u;
        return f64(bitcast<f32>(nan_bits));
    }
    if (ax < bx) { return a; }
    // y = |b| 2^k with y <= |a| < 2 y.
    var y = bx;
    loop {
        if (!(y * 0x1.0p+512lf <= ax)) { break; }
        y = y * 0x1.0p+512lf;
    }
    if (y * 0x1.0p+256lf <= ax) { y = y * 0x1.0p+256lf; }
    if (y * 0x1.0p+128lf <= ax) { y = y * 0x1.0p+128lf; }
    if (y * 0x1.0p+64lf <= ax) { y = y * 0x1.0p+64lf; }
    if (y * 0x1.0p+32lf <= ax) { y = y * 0x1.0p+32lf; }
    if (y * 0x1.0p+16lf <= ax) { y = y * 0x1.0p+16lf; }
    if (y * 0x1.0p+8lf <= ax) { y = y * 0x1.0p+8lf; }
    if (y * 0x1.0p+4lf <= ax) { y = y * 0x1.0p+4lf; }
    if (y * 0x1.0p+2lf <= ax) { y = y * 0x1.0p+2lf; }
    if (y * 2.0lf <= ax) { y = y * 2.0lf; }
    var r = ax;
    loop {
        if (r >= y) { r = r - y; }
        if (!(y > bx)) { break; }
        y = y * 0.5lf;
    }
    if (r == 0.0lf) { return f64(bitcast<f32>(bitcast<u32>(f32(a)) & 0x80000000u)); }
    return select(r, -r, (bitcast<u32>(f32(a)) & 0x80000000u) != 0u);
}
";

fn isnan_helpers(d: DType) -> String {
    let t = d.wgsl_value();
    match d {
        DType::F32 => "fn kp_isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }\n\
                       fn kp_isinf_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }\n"
            .to_string(),
        DType::F16 => "fn kp_isnan_f16(x: f16) -> bool { return (bitcast<u32>(f32(x)) & 0x7fffffffu) > 0x7f800000u; }\n\
                       fn kp_isinf_f16(x: f16) -> bool { return (bitcast<u32>(f32(x)) & 0x7fffffffu) == 0x7f800000u; }\n"
            .to_string(),
        // f32(x) is NaN exactly when x is (and optimisers may fold `!(x == x)`).
        _ => format!(
            "fn kp_isnan_{t}(x: {t}) -> bool {{ return (bitcast<u32>(f32(x)) & 0x7fffffffu) > 0x7f800000u; }}\n\
             fn kp_isinf_{t}(x: {t}) -> bool {{ return (bitcast<u32>(f32(x)) & 0x7fffffffu) == 0x7f800000u \
             && abs(x) > 1.7976931348623157e308lf; }}\n"
        ),
    }
}

pub(crate) fn zero(d: DType) -> String {
    match d {
        DType::Bool => "false".into(),
        DType::Complex64 | DType::Complex128 => format!("{}(0.0, 0.0)", d.wgsl_value()),
        d => format!("{}(0)", d.wgsl_value()),
    }
}

fn one(d: DType) -> String {
    match d {
        DType::Bool => "true".into(),
        DType::Complex64 | DType::Complex128 => format!("{}(1.0, 0.0)", d.wgsl_value()),
        d => format!("{}(1)", d.wgsl_value()),
    }
}

fn input_expr(program: &Program, k: usize, item: u32) -> String {
    let spec = program.inputs[k];
    if program.vector && spec.access == Access::Contiguous {
        let lane = ["x", "y", "z", "w"][(item % 4) as usize];
        let v = format!("l{k}_{}.{lane}", item / 4);
        return if spec.dtype == DType::Bool {
            format!("({v} != 0u)")
        } else {
            v
        };
    }
    let index = match spec.access {
        Access::Contiguous => format!("P.o{k} + i{item}"),
        Access::Broadcast => format!("P.o{k}"),
        Access::Strided => {
            let mut s = format!("P.o{k}");
            for j in 0..program.rank {
                let _ = write!(s, " + c{j}_{item} * P.t{k}_{j}");
            }
            s
        }
    };
    if spec.packed {
        return packed_load(k, &index, spec.dtype);
    }
    if spec.dtype == DType::Bool {
        format!("(in{k}[{index}] != 0u)")
    } else {
        format!("in{k}[{index}]")
    }
}

/// The statements that load vector `j` (elements 4 q..4 q + 3 of a contiguous view whose
/// offset is a multiple of 4) of the packed input `k` of dtype `d` into `l{k}_{j}`, a `vec4`
/// of its value type: one word of int8/uint8 read once, two of int16/uint16.
fn packed_vec4(k: usize, j: u32, d: DType) -> String {
    let bits = crate::packing::packed_bits(d).unwrap_or(32);
    let per = 32 / bits;
    let mut code = String::new();
    for w in 0..4 / per {
        let _ = write!(
            code,
            "let p{k}_{j}_{w} = in{k}[P.o{k} / {per}u + q{j} * {}u + {w}u];\n    ",
            4 / per
        );
    }
    let lane = |l: u32| {
        let word = format!("p{k}_{j}_{}", l / per);
        let shift = (l % per) * bits;
        if d.is_signed_int() {
            format!("extractBits(bitcast<i32>({word}), {shift}u, {bits}u)")
        } else {
            format!("extractBits({word}, {shift}u, {bits}u)")
        }
    };
    let lanes: Vec<String> = (0..4).map(lane).collect();
    let _ = write!(
        code,
        "let l{k}_{j} = vec4<{}>({});",
        d.wgsl_value(),
        lanes.join(", ")
    );
    code
}

/// The stores of vector `j`'s four results `lanes` (values of the small-integer dtype `d`,
/// already in its range) into the packed output: the whole word (int8/uint8) or two words
/// (int16/uint16) of those four elements.
fn packed_store(j: u32, lanes: &[String], d: DType) -> String {
    let bits = crate::packing::packed_bits(d).unwrap_or(32);
    let per = 32 / bits;
    let mut stores = Vec::new();
    for w in 0..4 / per {
        let mut word = format!(
            "(bitcast<u32>({}) & {}u)",
            lanes[(w * per) as usize],
            (1u64 << bits) - 1
        );
        for l in 1..per {
            word = format!(
                "insertBits({word}, bitcast<u32>({}), {}u, {bits}u)",
                lanes[(w * per + l) as usize],
                l * bits
            );
        }
        stores.push(format!("out[q{j} * {}u + {w}u] = {word};", 4 / per));
    }
    stores.join("\n        ")
}

/// Element `index` of the packed input `k` of dtype `d`: its byte or half-word, extracted from
/// its 32-bit word and sign- or zero-extended to the dtype's WGSL value type.
fn packed_load(k: usize, index: &str, d: DType) -> String {
    let bits = crate::packing::packed_bits(d).unwrap_or(32);
    let per = 32 / bits;
    let word = format!("in{k}[({index}) / {per}u]");
    let shift = format!("(({index}) % {per}u) * {bits}u");
    if d.is_signed_int() {
        format!("extractBits(bitcast<i32>({word}), {shift}, {bits}u)")
    } else {
        format!("extractBits({word}, {shift}, {bits}u)")
    }
}

fn scalar_expr(k: usize, d: DType) -> String {
    uniform_scalar(&format!("P.s{k}"), d)
}

/// The value of a scalar of dtype `d` read from the uniform field `field` (which holds it as
/// [`scalar_uniform_type`]).
pub(crate) fn uniform_scalar(field: &str, d: DType) -> String {
    match d {
        DType::F16 => to_f16(field),
        DType::Bool => format!("({field} != 0u)"),
        _ => field.to_string(),
    }
}

/// Conversion of a value `x` of dtype `from` to `to`, NumPy `astype` semantics (floats to ints
/// saturate; NaN to bool is true; complex to real drops the imaginary part).
pub(crate) fn cast_expr(x: &str, from: DType, to: DType) -> String {
    if from == to {
        return x.to_string();
    }
    // Small integers are held in 32 bits (in range), and a cast to one wraps a 32-bit value:
    // from a float through int32 (so -1.0 becomes 255 in uint8, as NumPy gives on x86).
    if from.is_small_int() {
        return cast_expr(x, from.compute(), to);
    }
    if to.is_small_int() {
        let via = if from.is_float() || from.is_complex() {
            DType::I32
        } else {
            to.compute()
        };
        let mut wide = cast_expr(x, from, via);
        if via != to.compute() {
            wide = format!("{}({wide})", to.compute().wgsl_value());
        }
        return to.wrap_expr(&wide);
    }
    let tv = to.wgsl_value();
    match (from, to) {
        // `!(x == 0)` (see below): NaN + 0j is true.
        (DType::Complex64 | DType::Complex128, DType::Bool) => {
            format!("!all({x} == {})", zero(from))
        }
        (DType::Complex64 | DType::Complex128, DType::Complex64 | DType::Complex128) => {
            format!("{tv}({x})")
        }
        (DType::Complex64 | DType::Complex128, _) => {
            cast_expr(&format!("{x}.x"), from.real_part(), to)
        }
        // The imaginary part is the uniform P.zero (always +0.0), not a constant, so that no
        // optimiser folds `0.0 - y` to `-y` (wrong for y = +0) or `x / (y + 0i)` to a real op.
        (_, DType::Complex64 | DType::Complex128) => {
            let part = to.real_part();
            let re = cast_expr(x, from, part);
            format!("{tv}({re}, {}(P.zero))", part.wgsl_value())
        }
        // `!(x == 0)`, not `x != 0`: some drivers compile `!=` as an ordered comparison, and
        // NaN must be true as in NumPy.
        (_, DType::Bool) => format!("!({x} == {})", zero(from)),
        (DType::Bool, _) => format!("select({}, {}, {x})", zero(to), one(to)),
        (DType::F16, DType::F32) => format!("{tv}({x})"),
        (DType::F32, DType::F16) => to_f16(x),
        // naga 30 sign-extends u32 to i64 (OpSConvert): widen, then clear the high half.
        (DType::U32, DType::I64) => format!("(i64({x}) & 4294967295li)"),
        // ... and zero-extends i32 to u64 (OpUConvert): NumPy sign-extends (-1 is 2**64 - 1).
        (DType::I32, DType::U64) => format!("u64(i64({x}))"),
        (DType::F16, DType::U64) => float_to_u64(&format!("f32({x})"), DType::F32),
        (DType::F32 | DType::F64, DType::U64) => float_to_u64(x, from),
        (DType::F16, _) => cast_expr(&format!("f32({x})"), DType::F32, to),
        (_, DType::F16) => to_f16(&cast_expr(x, from, DType::F32)),
        _ => format!("{tv}({x})"),
    }
}

/// A float `x` (f32 or f64) to uint64 as NumPy converts on x86-64: values in [0, 2**64)
/// truncate exactly; (-2**63, 0) wrap through int64 (-1.0 is 2**64 - 1); other values below
/// 2**63 (NaN, -inf, < -2**63) give 2**63 and those from 2**64 up (inf) give 0, the bits of
/// x86's invalid-conversion result.
fn float_to_u64(x: &str, from: DType) -> String {
    let two63 = if from == DType::F64 {
        "9223372036854775808.0lf"
    } else {
        "9223372036854775808.0f"
    };
    format!(
        "select(select(0x8000000000000000lu, u64(i64({x})), {x} >= -{two63}),          select(0lu, u64(i64({x} - {two63})) ^ 0x8000000000000000lu, {x} - {two63} < {two63}),          {x} >= {two63})"
    )
}

/// The f32 expression `x` rounded to f16. A plain `f16(x)` is not enough inside a fused
/// kernel: NVIDIA's compiler folds `f32(f16(x))` back to `x`, so `x.astype(f16).astype(f32)`
/// would not round. Finite values that stay finite in f16 therefore round through
/// pack2x16float, whose bits no compiler folds away; the others (overflow to inf, NaN) convert
/// as before.
pub(crate) fn to_f16(x: &str) -> String {
    format!(
        "select(f16({x}), f16(unpack2x16float(pack2x16float(vec2<f32>({x}, 0.0))).x), \
         abs({x}) < 65520.0)"
    )
}

fn float_suffix(d: DType) -> &'static str {
    match d {
        DType::F64 => "f64",
        _ => "f32",
    }
}

/// Calls a libm function of the float dtype `d` (f16 computes in f32 and rounds once).
fn libm_call(name: &str, d: DType, args: &[&str], needs: &mut Needs) -> String {
    match d {
        DType::F64 => {
            needs.libm.insert(format!("kp_{name}_f64"));
            format!("kp_{name}_f64({})", args.join(", "))
        }
        DType::F16 => {
            needs.libm.insert(format!("kp_{name}_f32"));
            let a: Vec<String> = args.iter().map(|a| format!("f32({a})")).collect();
            to_f16(&format!("kp_{name}_f32({})", a.join(", ")))
        }
        _ => {
            needs.libm.insert(format!("kp_{name}_f32"));
            format!("kp_{name}_f32({})", args.join(", "))
        }
    }
}

/// Which nodes depend on uniform scalars alone (the same value for every element).
fn uniform_nodes(program: &Program) -> Vec<bool> {
    let mut uniform: Vec<bool> = Vec::with_capacity(program.nodes.len());
    for (node, _) in &program.nodes {
        let u = match node {
            Node::Scalar(_) => true,
            Node::Load(_) | Node::Index | Node::Call(..) | Node::Random(..) => false,
            Node::Cast(x) | Node::Unary(_, x) => uniform[*x],
            Node::Binary(_, a, b) => uniform[*a] && uniform[*b],
            Node::Select(c, a, b) => uniform[*c] && uniform[*a] && uniform[*b],
        };
        uniform.push(u);
    }
    uniform
}

pub(crate) fn node_expr(
    program: &Program,
    node: &Node,
    dtype: DType,
    item: u32,
    needs: &mut Needs,
) -> Result<String> {
    let dt = |id: usize| program.nodes[id].1;
    let v = |id: &usize| format!("n{id}_{item}");
    Ok(match node {
        Node::Load(k) => input_expr(program, *k, item),
        Node::Scalar(k) => scalar_expr(*k, program.scalars[*k]),
        Node::Index => format!("g{item}"),
        Node::Cast(x) => cast_expr(&v(x), dt(*x), dtype),
        Node::Select(c, a, b) => format!("select({}, {}, {})", v(b), v(a), v(c)),
        // Small integers compute in 32 bits and wrap the result back (NumPy's modular
        // arithmetic: uint8 250 + 10 is 4).
        Node::Unary(op, x) => dtype.wrap_expr(&unary_expr(*op, &v(x), dt(*x).compute(), needs)?),
        Node::Binary(op, a, b)
            if dt(*a).compute() != dt(*b).compute()
                && op.compares_mixed(dt(*a).compute(), dt(*b).compute()) =>
        {
            mixed_comparison(*op, &v(a), &v(b), dt(*a).compute(), dt(*b).compute(), needs)
        }
        Node::Binary(op, a, b) => {
            dtype.wrap_expr(&binary_expr(*op, &v(a), &v(b), dt(*a).compute(), needs)?)
        }
        Node::Random(op, args) => {
            dtype.wrap_expr(&random_expr(program, node, *op, args, dtype, item, needs))
        }
        Node::Call(f, args, k) => {
            let id = match needs.user.iter().position(|u| u == f) {
                Some(id) => id,
                None => {
                    needs.user.push(f.clone());
                    needs.user.len() - 1
                }
            };
            let mut a: Vec<String> = args.iter().map(v).collect();
            a.push(format!("g{item}"));
            let call = format!("kpu_{id}({})", a.join(", "));
            dtype.wrap_expr(&if f.outputs.len() > 1 {
                format!("{call}.{}", f.outputs[*k].0)
            } else {
                call
            })
        }
    })
}

/// The value of a random draw's element: in vectorised elementwise kernels from the block
/// computed once per vector (`rb<node>_<vector>`), elsewhere by a generated per-element
/// function (`kp_rand_<op>_<dtype>`) that computes its block once.
fn random_expr(
    program: &Program,
    node: &Node,
    op: random::RandomOp,
    args: &[usize],
    dtype: DType,
    item: u32,
    needs: &mut Needs,
) -> String {
    let v = |id: &usize| format!("n{id}_{item}");
    needs.random.extend(op.functions(dtype));
    let k = format!("vec2<u32>({}, {})", v(&args[0]), v(&args[1]));
    let d = format!("vec2<u32>({}, {})", v(&args[2]), v(&args[3]));
    let params: Vec<String> = args[4..].iter().map(v).collect();
    let e = format!("g{item}");
    let id = if needs.random_blocks {
        program
            .nodes
            .iter()
            .position(|(n, _)| std::ptr::eq(n, node))
    } else {
        None
    };
    if let Some(id) = id {
        let b = format!("rb{id}_{}", item / 4);
        return op.wgsl(dtype, &k, &d, &e, &b, Some(item % 4), &params);
    }
    // The op's name as an identifier (`Det(Weibull)` gives `detweibull`).
    let op_name: String = format!("{op:?}")
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let name = format!("kp_rand_{op_name}_{}", dtype.wgsl_value()).to_lowercase();
    if !needs.random_fns.contains_key(&name) {
        let mut sig = String::new();
        let mut names = Vec::new();
        for (j, &p) in args[4..].iter().enumerate() {
            let _ = write!(sig, ", p{j}: {}", program.nodes[p].1.wgsl_value());
            names.push(format!("p{j}"));
        }
        let body = op.wgsl(dtype, "k", "d", "e", "b", None, &names);
        needs.random_fns.insert(
            name.clone(),
            format!(
                "fn {name}(k: vec2<u32>, d: vec2<u32>, e: u32{sig}) -> {} {{\n    \
                 let b = kp_rng_block0(k, d, e);\n    return {body};\n}}\n",
                dtype.wgsl_value()
            ),
        );
    }
    let mut call = vec![k, d, e];
    call.extend(params);
    format!("{name}({})", call.join(", "))
}

/// An exact comparison of a 32-bit integer with a uint32 or a float (see
/// [`BinaryOp::compares_mixed`]): a `kp_cmp_*` helper orders the two values (-1, 0, 1, or 2
/// when unordered), the integer operand first.
fn mixed_comparison(
    op: BinaryOp,
    a: &str,
    b: &str,
    da: DType,
    db: DType,
    needs: &mut Needs,
) -> String {
    use BinaryOp::*;
    // The integer (int32 before uint32, signed before uint64) goes first; the comparison is
    // mirrored if they swap.
    let swap = matches!(db, DType::I32 | DType::I64) || da.kind() == Kind::Float;
    let (x, y, dx, dy) = if swap { (b, a, db, da) } else { (a, b, da, db) };
    let op = match (op, swap) {
        (Less, true) => Greater,
        (LessEqual, true) => GreaterEqual,
        (Greater, true) => Less,
        (GreaterEqual, true) => LessEqual,
        (op, _) => op,
    };
    let c = match dy {
        DType::U64 => {
            needs.mixed_compare_64 = true;
            format!("kp_cmp_{}_u64({x}, {y})", dx.wgsl_value())
        }
        DType::U32 => {
            needs.mixed_compare = true;
            format!("kp_cmp_{}_u32({x}, {y})", dx.wgsl_value())
        }
        _ => {
            needs.mixed_compare = true;
            format!("kp_cmp_{}_f32({x}, f32({y}))", dx.wgsl_value())
        }
    };
    match op {
        Equal => format!("({c} == 0)"),
        NotEqual => format!("({c} != 0)"),
        Less => format!("({c} < 0)"),
        LessEqual => format!("({c} <= 0)"),
        Greater => format!("({c} == 1)"),
        _ => format!("(u32({c}) <= 1u)"),
    }
}

/// The `kp_cmp_*` helpers of [`mixed_comparison`]. When f32(x) == y, y is an integer within
/// one rounding of x, so the tie is settled in the integer type (or by y being just past
/// the integer type's range).
const MIXED_COMPARE: &str = "
fn kp_cmp_i32_u32(x: i32, y: u32) -> i32 {
    if (x < 0) { return -1; }
    let u = u32(x);
    return select(select(0, 1, u > y), -1, u < y);
}
fn kp_cmp_i32_f32(x: i32, y: f32) -> i32 {
    if ((bitcast<u32>(y) & 0x7fffffffu) > 0x7f800000u) { return 2; }
    let fx = f32(x);
    if (fx < y) { return -1; }
    if (fx > y) { return 1; }
    if (y >= 2147483648.0) { return -1; }
    let yi = i32(y);
    return select(select(0, 1, x > yi), -1, x < yi);
}
fn kp_cmp_u32_f32(x: u32, y: f32) -> i32 {
    if ((bitcast<u32>(y) & 0x7fffffffu) > 0x7f800000u) { return 2; }
    let fx = f32(x);
    if (fx < y) { return -1; }
    if (fx > y) { return 1; }
    if (y >= 4294967296.0) { return -1; }
    let yi = u32(y);
    return select(select(0, 1, x > yi), -1, x < yi);
}
";

/// The exact order of a signed integer and a uint64, for adapters with SHADER_INT64. An int32
/// is widened through u32 once known non-negative: lavapipe got `u64(i64(x))` of a negative
/// int32 argument wrong here.
const MIXED_COMPARE_64: &str = "
fn kp_cmp_i64_u64(x: i64, y: u64) -> i32 {
    if (x < 0li) { return -1; }
    let u = u64(x);
    return select(select(0, 1, u > y), -1, u < y);
}
fn kp_cmp_i32_u64(x: i32, y: u64) -> i32 {
    if (x < 0) { return -1; }
    let u = u64(u32(x));
    return select(select(0, 1, u > y), -1, u < y);
}
";

fn unsupported_op(name: &str, d: DType) -> Error {
    Error::unsupported(format!(
        "ufunc '{name}' not supported for the input type {d}"
    ))
}

fn unary_expr(op: UnaryOp, x: &str, d: DType, needs: &mut Needs) -> Result<String> {
    use UnaryOp::*;
    let t = d.wgsl_value();
    let kind = d.kind();
    if kind == Kind::Float {
        needs.float.insert(d);
    }
    if kind == Kind::Int {
        needs.int.insert(d);
    }
    // Complex dtypes: the helper suffix and the real part's float suffix.
    let (cs, rs) = (complex_suffix(d), float_suffix(d.real_part()));
    if kind == Kind::Complex && matches!(op, IsNan | IsInf | IsFinite) {
        needs.float.insert(d.real_part());
    }
    Ok(match (op, kind) {
        (Negative, Kind::Complex) => format!("-{x}"),
        (Negative, _) if d == DType::U32 => format!("(0u - {x})"),
        (Negative, _) if d == DType::U64 => format!("(0lu - {x})"),
        (Negative, _) => format!("-{x}"),
        (Absolute | Sign, Kind::Bool) => x.to_string(),
        (Absolute, Kind::Complex) => {
            needs.libm.insert(format!("kp_hypot_{rs}"));
            format!("kp_hypot_{rs}({x}.x, {x}.y)")
        }
        (Absolute, _) if matches!(d, DType::U32 | DType::U64) => x.to_string(),
        (Absolute, Kind::Int) => format!("select({x}, {z} - {x}, {x} < {z})", z = zero(d)),
        (Absolute, _) => format!("abs({x})"),
        (Sign, Kind::Complex) => {
            needs.complex.insert(d);
            needs.libm.insert(format!("kp_hypot_{rs}"));
            format!("kp_csign_{cs}({x}, kp_hypot_{rs}({x}.x, {x}.y))")
        }
        (Rint, Kind::Complex) if d == DType::Complex128 => {
            needs.f64_rounding = true;
            format!("{t}(kp_rint_f64({x}.x), kp_rint_f64({x}.y))")
        }
        (Rint, Kind::Complex) => format!("{t}(round({x}.x), round({x}.y))"),
        (Sign, _) => format!("kp_sign_{t}({x})"),
        (Square, Kind::Complex) => {
            needs.complex.insert(d);
            format!("kp_cmul_{cs}({x}, {x})")
        }
        (Square, Kind::Bool) => x.to_string(),
        (Square, _) => format!("({x} * {x})"),
        (Reciprocal, Kind::Complex) => {
            needs.complex.insert(d);
            format!("kp_crecip_{cs}({x})")
        }
        // 1 / 0 gives what NumPy gives on x86: 0 for unsigned, the most negative value for signed.
        (Reciprocal, Kind::Int) => format!(
            "select({m}, {o} / {x}, {x} != {z})",
            z = zero(d),
            o = one(d),
            m = match d {
                DType::I32 => "i32(-2147483648)",
                DType::I64 => "i64(-9223372036854775807li - 1li)",
                DType::U64 => "0lu",
                _ => "0u",
            }
        ),
        (Reciprocal, _) => format!("({} / {x})", one(d)),
        // Drivers round f64 with tricks their own optimiser breaks (lavapipe's round and trunc
        // are wrong for f64), so f64 rounds with kupfer's helpers.
        (Floor | Ceil | Trunc | Rint, Kind::Float) if d == DType::F64 => {
            needs.f64_rounding = true;
            format!("kp_{}_f64({x})", op.name())
        }
        (Floor, Kind::Float) => format!("floor({x})"),
        (Ceil, Kind::Float) => format!("ceil({x})"),
        (Trunc, Kind::Float) => format!("trunc({x})"),
        (Rint, Kind::Float) => format!("round({x})"),
        (Floor | Ceil | Trunc, Kind::Int | Kind::Bool) => x.to_string(),
        (IsNan, Kind::Complex) => format!("(kp_isnan_{rs}({x}.x) || kp_isnan_{rs}({x}.y))"),
        (IsInf, Kind::Complex) => format!("(kp_isinf_{rs}({x}.x) || kp_isinf_{rs}({x}.y))"),
        (IsFinite, Kind::Complex) => format!(
            "!(kp_isnan_{rs}({x}.x) || kp_isinf_{rs}({x}.x) || kp_isnan_{rs}({x}.y) || kp_isinf_{rs}({x}.y))"
        ),
        (IsNan, Kind::Float) => format!("kp_isnan_{t}({x})"),
        (IsInf, Kind::Float) => format!("kp_isinf_{t}({x})"),
        (IsFinite, Kind::Float) => format!("!(kp_isnan_{t}({x}) || kp_isinf_{t}({x}))"),
        (IsNan | IsInf, _) => "false".into(),
        (IsFinite, _) => "true".into(),
        (LogicalNot, _) => format!("!{x}"),
        (BitwiseNot, Kind::Bool) => format!("!{x}"),
        (BitwiseNot, Kind::Int) => format!("~{x}"),
        (op, Kind::Complex) if op.has_complex_form() => {
            needs.libm.insert(format!("kp_{}_{cs}", op.name()));
            format!("kp_{}_{cs}({x})", op.name())
        }
        (Real, Kind::Complex) => format!("{x}.x"),
        (Imag, Kind::Complex) => format!("{x}.y"),
        (Conj, Kind::Complex) => format!("{t}({x}.x, -{x}.y)"),
        (Real | Conj, _) => x.to_string(),
        (Imag, _) => zero(d),
        // float16's steps are its own: its helpers work on its bits.
        (Spacing, Kind::Float) if d == DType::F16 => libm_call("spacing16", d, &[x], needs),
        (Spacing, Kind::Float) => libm_call("spacing", d, &[x], needs),
        (FrexpExponent, Kind::Float) => {
            let s = float_suffix(d);
            needs.libm.insert(format!("kp_frexp_e_{s}"));
            format!("kp_frexp_e_{s}({s}({x}))")
        }
        (BitwiseCount, Kind::Int) => match d {
            DType::I64 => {
                let m = format!("select({x}, -{x}, {x} < 0li)");
                format!("(countOneBits(u32({m} & 0xffffffffli)) + countOneBits(u32({m} >> 32u)))")
            }
            DType::U64 => format!(
                "(countOneBits(u32({x} & 4294967295lu)) + countOneBits(u32({x} >> 32u)))"
            ),
            DType::U32 => format!("countOneBits({x})"),
            _ => format!("countOneBits(u32(select({x}, -{x}, {x} < 0i)))"),
        },
        _ => return table_body(op.name(), op.body(), op.rule(), op.kinds(), d, &[("x", x)], needs),
    })
}

pub(crate) fn binary_expr(
    op: BinaryOp,
    a: &str,
    b: &str,
    d: DType,
    needs: &mut Needs,
) -> Result<String> {
    use BinaryOp::*;
    let t = d.wgsl_value();
    let kind = d.kind();
    if kind == Kind::Float {
        needs.float.insert(d);
    }
    if kind == Kind::Int {
        needs.int.insert(d);
    }
    let as_u32 = |v: &str| format!("select(0u, 1u, {v})");
    Ok(match (op, kind) {
        (Add, Kind::Bool)
        | (LogicalOr, _)
        | (BitwiseOr, Kind::Bool)
        | (Maximum | Fmax, Kind::Bool) => {
            format!("({a} || {b})")
        }
        (Multiply, Kind::Bool)
        | (LogicalAnd, _)
        | (BitwiseAnd, Kind::Bool)
        | (Minimum | Fmin, Kind::Bool) => {
            format!("({a} && {b})")
        }
        (LogicalXor, _) | (BitwiseXor, Kind::Bool) => format!("({a} != {b})"),
        (Multiply, Kind::Complex) => {
            needs.complex.insert(d);
            format!("kp_cmul_{}({a}, {b})", complex_suffix(d))
        }
        (TrueDivide, Kind::Complex) => {
            needs.complex.insert(d);
            format!("kp_cdiv_{}({a}, {b})", complex_suffix(d))
        }
        (Equal, Kind::Complex) => format!("all({a} == {b})"),
        (Maximum | Minimum | Fmax | Fmin, Kind::Complex) => {
            needs.complex.insert(d);
            format!("kp_c{}_{}({a}, {b})", op.name(), complex_suffix(d))
        }
        (Power, Kind::Complex) => {
            let cs = complex_suffix(d);
            needs.libm.insert(format!("kp_power_{cs}"));
            format!("kp_power_{cs}({a}, {b})")
        }
        (NotEqual, Kind::Complex) => format!("!all({a} == {b})"),
        (Add, _) => format!("({a} + {b})"),
        (Subtract, _) => format!("({a} - {b})"),
        (Multiply, _) => format!("({a} * {b})"),
        (TrueDivide, Kind::Float) if d == DType::F32 => {
            needs.f32_divide = true;
            format!("kp_divide_f32({a}, {b})")
        }
        (TrueDivide, Kind::Float) => format!("({a} / {b})"),
        // NumPy computes float16 floor division and remainder in float32 and rounds once.
        (FloorDivide | Remainder, Kind::Float) if d == DType::F16 => {
            needs.float.insert(DType::F32);
            let name = if op == FloorDivide {
                "floor_divide"
            } else {
                "remainder"
            };
            to_f16(&format!("kp_{name}_f32(f32({a}), f32({b}))"))
        }
        (FloorDivide, Kind::Int | Kind::Float) => format!("kp_floor_divide_{t}({a}, {b})"),
        (Remainder, Kind::Int | Kind::Float) => format!("kp_remainder_{t}({a}, {b})"),
        (Fmod, Kind::Int | Kind::Float) => format!("kp_fmod_{t}({a}, {b})"),
        (Power, Kind::Int) => format!("kp_power_{t}({a}, {b})"),
        (Maximum, Kind::Float) => format!("kp_maximum_{t}({a}, {b})"),
        (Minimum, Kind::Float) => format!("kp_minimum_{t}({a}, {b})"),
        (Fmax, Kind::Float) => format!("kp_fmax_{t}({a}, {b})"),
        (Fmin, Kind::Float) => format!("kp_fmin_{t}({a}, {b})"),
        (Maximum | Fmax, Kind::Int) => format!("max({a}, {b})"),
        (Minimum | Fmin, Kind::Int) => format!("min({a}, {b})"),
        (Equal, _) => format!("({a} == {b})"),
        (NotEqual, _) => format!("!({a} == {b})"),
        (Less | LessEqual | Greater | GreaterEqual, Kind::Bool) => {
            let sym = cmp_symbol(op);
            format!("({} {sym} {})", as_u32(a), as_u32(b))
        }
        (Less | LessEqual | Greater | GreaterEqual, _) => format!("({a} {} {b})", cmp_symbol(op)),
        (BitwiseAnd, Kind::Int) => format!("({a} & {b})"),
        (BitwiseOr, Kind::Int) => format!("({a} | {b})"),
        (BitwiseXor, Kind::Int) => format!("({a} ^ {b})"),
        // float16's steps are its own: its helpers work on its bits.
        (Nextafter, Kind::Float) if d == DType::F16 => libm_call("nextafter16", d, &[a, b], needs),
        (Nextafter, Kind::Float) => libm_call("nextafter", d, &[a, b], needs),
        (Complex, Kind::Float) => format!("vec2<{t}>({a}, {b})"),
        _ => {
            let operands = [("a", a), ("b", b)];
            return table_body(
                op.name(),
                op.body(),
                op.rule(),
                op.kinds(),
                d,
                &operands,
                needs,
            );
        }
    })
}

/// The code of an op whose table row gives its body ([`Body::Libm`], [`Body::Call`] on
/// floats, [`Body::Wgsl`] on the kinds it accepts, floats only for a [`Rule::Float`] op) and
/// that `unary_expr`/`binary_expr` do not spell out; `operands` name the placeholders.
fn table_body(
    name: &str,
    body: Body,
    rule: Rule,
    kinds: &[Kind],
    d: DType,
    operands: &[(&str, &str)],
    needs: &mut Needs,
) -> Result<String> {
    let kind = d.kind();
    let values: Vec<&str> = operands.iter().map(|(_, v)| *v).collect();
    match body {
        Body::Libm if kind == Kind::Float => Ok(libm_call(name, d, &values, needs)),
        Body::Call(f) if kind == Kind::Float => Ok(libm_call(f, d, &values, needs)),
        Body::Wgsl(code)
            if kinds.contains(&kind) && (rule != Rule::Float || kind == Kind::Float) =>
        {
            let mut code = code.replace("{t}", d.wgsl_value());
            for (key, value) in operands {
                code = code.replace(&format!("{{{key}}}"), value);
            }
            Ok(code)
        }
        _ => Err(unsupported_op(name, d)),
    }
}

fn cmp_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Less => "<",
        BinaryOp::LessEqual => "<=",
        BinaryOp::Greater => ">",
        _ => ">=",
    }
}

/// The float suffix libm uses for a dtype (`f32` for f16/f32/complex64, `f64` for f64).
pub fn libm_suffix(d: DType) -> &'static str {
    float_suffix(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{InputSpec, OperandType};

    const ALL: Target = Target {
        f16: true,
        f64: true,
        i64: true,
    };

    fn validate(wgsl: &str) {
        crate::naga_check::validate(wgsl, naga::valid::Capabilities::empty());
    }

    fn binary_program(op: BinaryOp, a: DType, b: DType, access: Access) -> Option<Program> {
        let (compute, out) = op
            .signature(OperandType::Strong(a), OperandType::Strong(b))
            .ok()?;
        let nodes = vec![
            (Node::Load(0), a),
            (Node::Scalar(0), b),
            (Node::Cast(0), compute),
            (Node::Cast(1), compute),
            (Node::Binary(op, 2, 3), out),
        ];
        Some(Program {
            nodes,
            inputs: vec![InputSpec {
                dtype: a,
                access,
                packed: false,
            }],
            scalars: vec![b],
            output: 4,
            rank: if access == Access::Strided { 3 } else { 0 },
            vector: false,
        })
    }

    #[test]
    fn packed_vector_loads_and_stores_validate() {
        for d in [DType::I8, DType::U8, DType::I16, DType::U16] {
            for access in [Access::Contiguous, Access::Broadcast] {
                let mut p = binary_program(BinaryOp::Add, d, d, Access::Contiguous).unwrap();
                p.inputs[0].packed = true;
                p.inputs.push(InputSpec {
                    dtype: d,
                    access,
                    packed: true,
                });
                p.vector = vectorisable(&p);
                assert!(p.vector);
                for packed_out in [false, true] {
                    let k = if packed_out {
                        elementwise_packed_output(&p, &ALL).unwrap()
                    } else {
                        elementwise(&p, &ALL).unwrap()
                    };
                    validate(&k.wgsl);
                }
            }
            let p = binary_program(BinaryOp::Add, d, d, Access::Strided).unwrap();
            assert!(elementwise_packed_output(&p, &ALL).is_err());
        }
    }

    #[test]
    fn packed_small_integer_inputs_validate() {
        for d in [DType::I8, DType::U8, DType::I16, DType::U16] {
            for access in [Access::Contiguous, Access::Broadcast, Access::Strided] {
                for (op, b) in [(BinaryOp::Add, d), (BinaryOp::Multiply, DType::F32)] {
                    let mut p = binary_program(op, d, b, access).unwrap();
                    p.inputs[0].packed = true;
                    let k = elementwise(&p, &ALL).unwrap();
                    assert!(k.wgsl.contains("extractBits"), "{}", k.wgsl);
                    validate(&k.wgsl);
                }
            }
        }
    }

    #[test]
    fn every_binary_op_and_dtype_pair_validates() {
        let mut checked = 0;
        for &op in BinaryOp::ALL {
            for a in DType::ALL {
                for b in DType::ALL {
                    if let Some(p) = binary_program(op, a, b, Access::Strided) {
                        let k =
                            elementwise(&p, &ALL).unwrap_or_else(|e| panic!("{op:?} {a} {b}: {e}"));
                        validate(&k.wgsl);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "only {checked} programs");
    }

    #[test]
    fn mixed_comparisons_validate() {
        use BinaryOp::*;
        let mut checked = 0;
        for op in [Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual] {
            for a in DType::ALL {
                for b in DType::ALL {
                    if !op.compares_mixed(a, b) {
                        continue;
                    }
                    let p = Program {
                        nodes: vec![
                            (Node::Load(0), a),
                            (Node::Load(1), b),
                            (Node::Binary(op, 0, 1), DType::Bool),
                        ],
                        inputs: vec![
                            InputSpec {
                                dtype: a,
                                access: Access::Contiguous,
                                packed: false,
                            },
                            InputSpec {
                                dtype: b,
                                access: Access::Broadcast,
                                packed: false,
                            },
                        ],
                        scalars: vec![],
                        output: 2,
                        rank: 0,
                        vector: false,
                    };
                    let k = elementwise(&p, &ALL).unwrap_or_else(|e| panic!("{op:?} {a} {b}: {e}"));
                    assert!(k.wgsl.contains("kp_cmp_"), "{}", k.wgsl);
                    validate(&k.wgsl);
                    checked += 1;
                }
            }
        }
        // int32-held (int8, int16, int32) against uint32-held (uint8, uint16, uint32): 18
        // ordered pairs; either against float16/float32: 24; a signed integer against uint64:
        // 8.
        assert_eq!(checked, 6 * 50);
    }

    #[test]
    fn every_unary_op_and_dtype_validates() {
        for &op in UnaryOp::ALL {
            for d in DType::ALL {
                let Ok((compute, out)) = op.signature(d) else {
                    continue;
                };
                let p = Program {
                    nodes: vec![
                        (Node::Load(0), d),
                        (Node::Cast(0), compute),
                        (Node::Unary(op, 1), out),
                    ],
                    inputs: vec![InputSpec {
                        dtype: d,
                        access: Access::Contiguous,
                        packed: false,
                    }],
                    scalars: vec![],
                    output: 2,
                    rank: 0,
                    vector: false,
                };
                let k = elementwise(&p, &ALL).unwrap_or_else(|e| panic!("{op:?} {d}: {e}"));
                validate(&k.wgsl);
            }
        }
    }

    #[test]
    fn casts_between_all_dtypes_validate() {
        for a in DType::ALL {
            for b in DType::ALL {
                let p = Program {
                    nodes: vec![(Node::Load(0), a), (Node::Cast(0), b)],
                    inputs: vec![InputSpec {
                        dtype: a,
                        access: Access::Broadcast,
                        packed: false,
                    }],
                    scalars: vec![],
                    output: 1,
                    rank: 0,
                    vector: false,
                };
                validate(&elementwise(&p, &ALL).unwrap().wgsl);
            }
        }
    }

    #[test]
    fn vector_kernels_validate() {
        for (a, b) in [
            (DType::F32, DType::F32),
            (DType::I32, DType::F32),
            (DType::Bool, DType::U32),
        ] {
            let mut p = binary_program(BinaryOp::Multiply, a, b, Access::Contiguous).unwrap();
            p.vector = vectorisable(&p);
            assert!(p.vector, "{a} {b}");
            let k = elementwise(&p, &ALL).unwrap();
            assert!(k.wgsl.contains("vec4<"), "{}", k.wgsl);
            validate(&k.wgsl);
        }
        let p = binary_program(BinaryOp::Add, DType::F16, DType::F16, Access::Contiguous).unwrap();
        assert!(!vectorisable(&p));
    }

    /// Every unary op and every binary op of every dtype (pair) that the library vectorises
    /// (it sets `vector` whenever [`vectorisable`] admits a program: contiguous or broadcast
    /// 4-byte operands and result), with the second operand a uniform scalar (and, for every
    /// dtype pair of one op, a contiguous or a broadcast array).
    #[test]
    fn every_vectorisable_op_validates_as_a_vector_kernel() {
        let mut checked = 0;
        let mut check = |mut p: Program, what: &dyn Fn() -> String| {
            if !vectorisable(&p) {
                return;
            }
            p.vector = true;
            let k = elementwise(&p, &ALL).unwrap_or_else(|e| panic!("{}: {e}", what()));
            validate(&k.wgsl);
            checked += 1;
        };
        for &op in BinaryOp::ALL {
            for a in DType::ALL {
                for b in DType::ALL {
                    let Some(p) = binary_program(op, a, b, Access::Contiguous) else {
                        continue;
                    };
                    // How the second operand is read changes only its load, the same for
                    // every op: crossed with the dtype pairs under one op.
                    let seconds: &[Option<Access>] = if op == BinaryOp::Add {
                        &[None, Some(Access::Contiguous), Some(Access::Broadcast)]
                    } else {
                        &[None]
                    };
                    for &second in seconds {
                        let mut p = p.clone();
                        if let Some(access) = second {
                            p.nodes[1].0 = Node::Load(1);
                            p.inputs.push(InputSpec {
                                dtype: b,
                                access,
                                packed: false,
                            });
                            p.scalars.clear();
                        }
                        check(p, &|| format!("{op:?} {a} {b} {second:?}"));
                    }
                }
            }
        }
        for &op in UnaryOp::ALL {
            for d in DType::ALL {
                let Ok((compute, out)) = op.signature(d) else {
                    continue;
                };
                let p = Program {
                    nodes: vec![
                        (Node::Load(0), d),
                        (Node::Cast(0), compute),
                        (Node::Unary(op, 1), out),
                    ],
                    inputs: vec![InputSpec {
                        dtype: d,
                        access: Access::Contiguous,
                        packed: false,
                    }],
                    scalars: vec![],
                    output: 2,
                    rank: 0,
                    vector: false,
                };
                check(p, &|| format!("{op:?} {d}"));
            }
        }
        assert!(checked > 500, "only {checked} programs");
    }

    /// `where(c, x, y)` and the index (`arange`, `eye`, ...) of every dtype, scalar (strided
    /// and contiguous) and vectorised where [`vectorisable`] admits it.
    #[test]
    fn select_and_index_nodes_validate() {
        for d in DType::ALL {
            for (access, rank) in [(Access::Strided, 2), (Access::Contiguous, 0)] {
                let select = Program {
                    nodes: vec![
                        (Node::Load(0), DType::Bool),
                        (Node::Load(1), d),
                        (Node::Scalar(0), d),
                        (Node::Select(0, 1, 2), d),
                    ],
                    inputs: vec![
                        InputSpec {
                            dtype: DType::Bool,
                            access,
                            packed: false,
                        },
                        InputSpec {
                            dtype: d,
                            access,
                            packed: false,
                        },
                    ],
                    scalars: vec![d],
                    output: 3,
                    rank,
                    vector: false,
                };
                let index = Program {
                    nodes: vec![(Node::Index, DType::U32), (Node::Cast(0), d)],
                    inputs: vec![],
                    scalars: vec![],
                    output: 1,
                    rank: 0,
                    vector: false,
                };
                for mut p in [select, index] {
                    validate(&elementwise(&p, &ALL).unwrap().wgsl);
                    if vectorisable(&p) {
                        p.vector = true;
                        validate(&elementwise(&p, &ALL).unwrap().wgsl);
                    }
                }
            }
        }
    }

    /// A random draw (`Node::Random`) of every op and every dtype it produces, fused into an
    /// elementwise kernel as the random module builds it (four uniform stream words, then the
    /// op's parameters, here arrays), scalar and vectorised (one Philox block per vector of
    /// four), on adapters with and without 64-bit integers (Philox's high products differ).
    #[test]
    fn every_random_draw_validates() {
        let mut checked = 0;
        for op in crate::naga_check::random_ops() {
            for d in DType::ALL {
                if op.check(d).is_err() {
                    continue;
                }
                // The ziggurat draws with their tables from each source.
                use crate::random::{ziggurat, RandomOp};
                let sources: &[_] = if matches!(op, RandomOp::Normal | RandomOp::Exponential) {
                    &ziggurat::ALL_SOURCES
                } else {
                    &[ziggurat::TableSource::Storage]
                };
                let cases = [true, false]
                    .into_iter()
                    .flat_map(|i64| sources.iter().map(move |&s| (i64, s)));
                for (i64, source) in cases {
                    let target = Target { i64, ..ALL };
                    for access in [Access::Strided, Access::Contiguous, Access::Broadcast] {
                        ziggurat::with_table_source(source, || {
                            let mut p = crate::naga_check::random_program(op, d, access);
                            let wgsl = elementwise(&p, &target).unwrap().wgsl;
                            validate(&wgsl);
                            // Workgroup tables: staged by every thread, then a barrier
                            // (not the float32 normal's 32-128 KB table).
                            let staged = wgsl.contains("kp_zig_fill(lid, 256u);");
                            let fits = !(op == RandomOp::Normal && d == DType::F32);
                            assert_eq!(staged, source == ziggurat::TableSource::Workgroup && fits);
                            checked += 1;
                            if vectorisable(&p) {
                                p.vector = true;
                                validate(&elementwise(&p, &target).unwrap().wgsl);
                                checked += 1;
                            }
                        });
                    }
                }
            }
        }
        assert!(checked > 50, "{checked}");
    }

    #[test]
    fn uniform_layout_is_aligned() {
        let p = binary_program(BinaryOp::Add, DType::F64, DType::F64, Access::Strided).unwrap();
        let k = elementwise(&p, &ALL).unwrap();
        assert_eq!(k.params.scalars, vec![0]);
        assert_eq!(k.params.n, 8);
        assert_eq!(k.params.size % 16, 0);
        let missing = Target::default();
        assert!(elementwise(&p, &missing).is_err());
        // A complex128 scalar (16-byte aligned) comes before the 8- and 4-byte fields.
        let mut p = binary_program(BinaryOp::Add, DType::F64, DType::F64, Access::Strided).unwrap();
        p.scalars = vec![DType::F32, DType::Complex128, DType::F64];
        let k = elementwise(&p, &ALL).unwrap();
        assert_eq!(k.params.scalars[1], 0);
        assert_eq!(k.params.scalars[2], 16);
        assert!(k.params.scalars[0] >= 24);
        assert_eq!(k.params.size % 16, 0);
    }

    /// uint64 needs SHADER_INT64 like int64: WebGPU and Metal refuse it with Unsupported.
    #[test]
    fn uint64_needs_shader_int64() {
        let no_int64 = Target { i64: false, ..ALL };
        for op in [BinaryOp::Add, BinaryOp::Less] {
            let p = binary_program(op, DType::U64, DType::U64, Access::Strided).unwrap();
            match elementwise(&p, &no_int64) {
                Err(Error::Unsupported(m)) => assert!(m.contains("SHADER_INT64"), "{m}"),
                other => panic!("{op:?}: {other:?}"),
            }
            validate(&elementwise(&p, &ALL).unwrap().wgsl);
        }
        assert!(no_int64.check(DType::U64, "webgpu").is_err());
        assert!(no_int64.check(DType::U32, "webgpu").is_ok());
    }
}

#[cfg(test)]
mod weight_tests {
    use super::*;

    #[test]
    fn weights_follow_the_called_code() {
        for d in [DType::F32, DType::F64] {
            for op in [
                UnaryOp::Sin,
                UnaryOp::Exp,
                UnaryOp::Log,
                UnaryOp::Tanh,
                UnaryOp::Sqrt,
            ] {
                eprintln!("{op:?} {d}: {}", unary_weight(op, d));
            }
            for op in [BinaryOp::Power, BinaryOp::Arctan2, BinaryOp::Add] {
                eprintln!("{op:?} {d}: {}", binary_weight(op, d));
            }
        }
        assert_eq!(binary_weight(BinaryOp::Add, DType::F32), 1);
        assert!(unary_weight(UnaryOp::Sin, DType::F64) > unary_weight(UnaryOp::Sin, DType::F32));
    }
}
