//! The ziggurat tables of the default float32 normals and exponentials (Marsaglia and Tsang,
//! "The ziggurat method for generating random variables", J. Stat. Softw. 5, 2000), 256
//! layers each, computed on the host in float64 with arithmetic only (no platform libm: the
//! same tables natively and in wasm32) and rounded; the WGSL declarations that hand them to
//! kernels as exact bits; and the CPU emulation of `kp_normal_zig_f32` and
//! `kp_exponential_zig_f32` (shaders/random.wgsl), bit for bit.
//!
//! Layer `i` (0..256) has width `x_i` (`x_0 = v / f(r)`, `x_1 = r`, `x_256 = 0`, equal areas
//! `v`). An element's word 0 `w` gives the layer `i = w & 255` and, for the normal, the odd
//! integer `s = 2 (w >> 8) + 1 - 2^24` (sign and magnitude; for the exponential `m = w >> 8`):
//! the candidate is `s W_i` with `W_i = x_i 2^-24` (one correctly rounded multiply), accepted
//! when `|s| < K_i = floor(2^24 x_{i+1} / x_i)` (an integer test). Otherwise the slow path
//! reads the element's own blocks (counter `(e, j, draw)`, `j = 1..=17`): attempt `j` takes
//! the wedge uniform from word x of block `j` and the next candidate from word y (normal tail:
//! words x and y are the two uniforms of Marsaglia's tail method; exponential tail: `r` is
//! added and word x is the next candidate).

use super::{ln_unit_fenced, normal_pair_fenced, philox4x32_10, stream_word};

/// Layers per ziggurat.
pub const LAYERS: usize = 256;

/// The rightmost layer edge of the 256-layer normal ziggurat (of `exp(-x^2 / 2)`).
pub const NORMAL_R: f64 = 3.654_152_885_361_009;

/// The rightmost layer edge of the 256-layer exponential ziggurat (of `exp(-x)`).
pub const EXPONENTIAL_R: f64 = 7.697_117_470_131_05;

/// Slow-path attempts before the fallback (each fails with probability below 1e-2).
const ATTEMPTS: u32 = 16;

/// `exp(x)` in float64 from `+`, `-`, `*` only (the same bits on every platform): x = n ln 2
/// + r, a degree-22 Taylor polynomial of exp(r), times 2^n. For |x| < 700.
fn det_exp(x: f64) -> f64 {
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    let n = (x * std::f64::consts::LOG2_E).round();
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.0;
    for k in (1..=22).rev() {
        p = 1.0 + r * p / f64::from(k);
    }
    p * f64::from_bits(((1023 + n as i64) as u64) << 52)
}

/// `ln(x)` of a positive normal float64 from `+`, `-`, `*`, `/` only: x = 2^k m with m in
/// [sqrt(1/2), sqrt(2)), ln m = 2 atanh((m - 1) / (m + 1)) by its series.
fn det_ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut k = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        k += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut sum = 0.0;
    for j in (0..24).rev() {
        sum = 1.0 / f64::from(2 * j + 1) + z * sum;
    }
    2.0 * s * sum + k as f64 * std::f64::consts::LN_2
}

/// `exp(-r^2/2) / integral_r^inf exp(-x^2/2) dx`'s inverse, the Mills ratio at `r`, by its
/// continued fraction 1 / (r + 1 / (r + 2 / (r + ...))) evaluated from 400 terms backwards.
fn mills_ratio(r: f64) -> f64 {
    let mut t = r;
    for k in (1..400).rev() {
        t = r + f64::from(k) / t;
    }
    1.0 / t
}

/// One ziggurat's float32 tables: `fast[i] = (K_i, bits of W_i)`, `slow[i] = (bits of
/// f(x_i), bits of f(x_{i+1}) - f(x_i))`, and the float64 layer edges `x`.
#[derive(Debug, Clone)]
pub struct Tables {
    /// `(K_i, W_i bits)` of every layer.
    pub fast: Vec<[u32; 2]>,
    /// `(f(x_i) bits, (f(x_{i+1}) - f(x_i)) bits)` of every layer.
    pub slow: Vec<[u32; 2]>,
    /// The layer edges `x_0 .. x_256` in float64.
    pub x: Vec<f64>,
    /// float64: `floor(2^52 x_{i+1} / x_i)` of every layer.
    pub k64: Vec<u64>,
    /// float64: `x_i 2^-52`.
    pub w64: Vec<f64>,
    /// float64: `f(x_i)`.
    pub f64: Vec<f64>,
    /// float64: `f(x_{i+1}) - f(x_i)`.
    pub d64: Vec<f64>,
}

impl Tables {
    /// The tables of the layer edges `x` (257 of them) under density `f`, for candidates
    /// `|s| < 2^24` scaled by `2^-24`.
    fn from_edges(x: Vec<f64>, f: impl Fn(f64) -> f64) -> Tables {
        let scale = 16_777_216.0;
        let fast = (0..LAYERS)
            .map(|i| {
                let k = (scale * x[i + 1] / x[i]).floor() as u32;
                [k, ((x[i] / scale) as f32).to_bits()]
            })
            .collect();
        let slow = (0..LAYERS)
            .map(|i| {
                let (lo, hi) = (f(x[i]), if i + 1 == LAYERS { 1.0 } else { f(x[i + 1]) });
                [(lo as f32).to_bits(), ((hi - lo) as f32).to_bits()]
            })
            .collect();
        let scale64 = 4_503_599_627_370_496.0;
        let k64 = (0..LAYERS)
            .map(|i| (scale64 * x[i + 1] / x[i]).floor() as u64)
            .collect();
        let w64 = (0..LAYERS).map(|i| x[i] / scale64).collect();
        let lo: Vec<f64> = (0..LAYERS).map(|i| f(x[i])).collect();
        let d64 = (0..LAYERS)
            .map(|i| if i + 1 == LAYERS { 1.0 } else { f(x[i + 1]) } - lo[i])
            .collect();
        Tables {
            fast,
            slow,
            x,
            k64,
            w64,
            f64: lo,
            d64,
        }
    }
}

/// The normal ziggurat's tables (of `f(x) = exp(-x^2 / 2)`), computed once.
pub fn normal_tables() -> &'static Tables {
    static T: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let f = |x: f64| det_exp(-0.5 * x * x);
        let r = NORMAL_R;
        let v = r * f(r) + f(r) * mills_ratio(r);
        let mut x = vec![0.0; LAYERS + 1];
        x[0] = v / f(r);
        x[1] = r;
        for i in 1..LAYERS - 1 {
            x[i + 1] = (-2.0 * det_ln(v / x[i] + f(x[i]))).sqrt();
        }
        Tables::from_edges(x, f)
    })
}

/// The exponential ziggurat's tables (of `f(x) = exp(-x)`), computed once.
pub fn exponential_tables() -> &'static Tables {
    static T: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let f = |x: f64| det_exp(-x);
        let r = EXPONENTIAL_R;
        let v = f(r) * (r + 1.0);
        let mut x = vec![0.0; LAYERS + 1];
        x[0] = v / f(r);
        x[1] = r;
        for i in 1..LAYERS - 1 {
            x[i + 1] = -det_ln(v / x[i] + f(x[i]));
        }
        Tables::from_edges(x, f)
    })
}

/// A float32 as a WGSL literal of its exact value (the shortest digits that round to it).
fn bits(v: f32) -> String {
    format!("{v:e}f")
}

/// Where kernels read the ziggurat tables from: the process's choice, [`table_source`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TableSource {
    /// `storage`, the default: two read-only storage buffers ([`TABLE_BINDINGS`]), made once
    /// per device and bound to every kernel that draws from a ziggurat. Every thread reads
    /// the same 8 KB (float32) or 16 KB (float64) through the caches: a fast try is one
    /// 8-byte load of its layer's `(K_i, W_i)`.
    Storage,
    /// `private`: module-scope `var<private>` arrays with initializers (the first form).
    /// Every thread holds its own copy, which NVIDIA's compiler places in per-thread local
    /// memory: 0.64 ms for 2^26 float32 normals on the H200, against 0.122 for the lean
    /// Box-Muller form.
    Private,
    /// `workgroup`: as `storage`, but a kernel that can fill workgroup memory first (the
    /// elementwise kernel: [`FILL`] before anything else, then a barrier) copies the fast
    /// tables into it, once per workgroup of 256 threads, and its fast tries read them there
    /// (a gather from shared memory rather than from the L1 cache); other kernels read
    /// storage.
    Workgroup,
}

/// The function that stages the fast tables in workgroup memory (source `workgroup`):
/// `kp_zig_fill(lid, threads)`, called by every thread of the workgroup (`lid` its local
/// index, `threads` the workgroup's size) in uniform control flow and followed by
/// `workgroupBarrier()`. Defined by [`wgsl_tables_with`] only where the tables need it.
pub const FILL: &str = "kp_zig_fill";

static TABLE_SOURCE: std::sync::OnceLock<TableSource> = std::sync::OnceLock::new();

/// The table source of this process: `KUPFER_ZIG_TABLES` (`storage`, the default;
/// `private`; `workgroup`), read at the first kernel that draws from a ziggurat. Every source gives the
/// same bits. (Module-scope `const` arrays were tried too: naga spills such an array to a
/// function variable to index it at run time, and lavapipe took 860 s to compile a test's
/// kernels against 25 s with `private` and 1.2 s with `storage`.)
pub fn table_source() -> TableSource {
    #[cfg(test)]
    if let Some(s) = SOURCE_OVERRIDE.get() {
        return s;
    }
    *TABLE_SOURCE.get_or_init(|| match std::env::var("KUPFER_ZIG_TABLES").as_deref() {
        Ok("private") => TableSource::Private,
        Ok("workgroup") => TableSource::Workgroup,
        _ => TableSource::Storage,
    })
}

#[cfg(test)]
thread_local! {
    static SOURCE_OVERRIDE: std::cell::Cell<Option<TableSource>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with [`table_source`] returning `source` on this thread (unit tests generate
/// every kernel with every source).
#[cfg(test)]
pub(crate) fn with_table_source<R>(source: TableSource, f: impl FnOnce() -> R) -> R {
    let before = SOURCE_OVERRIDE.replace(Some(source));
    let out = f();
    SOURCE_OVERRIDE.set(before);
    out
}

/// The sources, for the tests that generate each.
#[cfg(test)]
pub(crate) const ALL_SOURCES: [TableSource; 3] = [
    TableSource::Storage,
    TableSource::Private,
    TableSource::Workgroup,
];

/// A table buffer of the storage source: the kernels that read it declare
/// `@group(0) @binding(binding) var<storage, read> name: array<element>;` and the runtime
/// binds the device's one copy of `bytes()` there.
#[derive(Debug, Clone, Copy)]
pub struct TableBinding {
    /// The binding number in group 0 (above any binding a kernel numbers from 1 upwards).
    pub binding: u32,
    /// The WGSL name of the global.
    pub name: &'static str,
    /// The WGSL type of one element.
    pub element: &'static str,
    /// The buffer's contents, little-endian.
    pub bytes: fn() -> Vec<u8>,
}

impl TableBinding {
    /// The WGSL declaration of the global (one line; the runtime looks for it in a kernel's
    /// source to know that the kernel reads the buffer).
    pub fn declaration(&self) -> String {
        format!(
            "@group(0) @binding({}) var<storage, read> {}: array<{}>;",
            self.binding, self.name, self.element
        )
    }
}

/// The table buffers of the storage source: the float32 tables as `vec2<u32>` rows (normal
/// FAST, SLOW, exponential FAST, SLOW; 256 rows each) and the float64 tables as `vec2<f64>`
/// rows (normal `(K_i, W_i)`, `(f(x_i), D_i)`, then the exponential's).
pub const TABLE_BINDINGS: [TableBinding; 2] = [
    TableBinding {
        binding: 64,
        name: "kp_zig_tables32",
        element: "vec2<u32>",
        bytes: table_bytes32,
    },
    TableBinding {
        binding: 65,
        name: "kp_zig_tables64",
        element: "vec2<f64>",
        bytes: table_bytes64,
    },
];

/// The rows of one table.
enum Rows {
    U32(Vec<[u32; 2]>),
    F64(Vec<[f64; 2]>),
}

/// One table: the accessor the WGSL library calls (`fn accessor(i: u32) -> row`), the
/// global of the private and const sources, and its place in a storage buffer.
struct Table {
    accessor: &'static str,
    global: &'static str,
    /// Index into [`TABLE_BINDINGS`].
    buffer: usize,
    /// First row in that buffer.
    offset: usize,
    rows: fn() -> Rows,
}

/// float64 `(K_i, W_i)`: K_i < 2^52 is exact in float64, so the fast test compares the exact
/// float64 of the candidate's integer with it.
fn fast64(t: &Tables) -> Rows {
    Rows::F64(
        t.k64
            .iter()
            .zip(&t.w64)
            .map(|(&k, &w)| [k as f64, w])
            .collect(),
    )
}

fn slow64(t: &Tables) -> Rows {
    Rows::F64(t.f64.iter().zip(&t.d64).map(|(&f, &d)| [f, d]).collect())
}

const TABLES: [Table; 8] = [
    Table {
        accessor: "kp_zig_n32_fast",
        global: "KP_ZIG_N32_FAST",
        buffer: 0,
        offset: 0,
        rows: || Rows::U32(normal_tables().fast.clone()),
    },
    Table {
        accessor: "kp_zig_n32_slow",
        global: "KP_ZIG_N32_SLOW",
        buffer: 0,
        offset: LAYERS,
        rows: || Rows::U32(normal_tables().slow.clone()),
    },
    Table {
        accessor: "kp_zig_e32_fast",
        global: "KP_ZIG_E32_FAST",
        buffer: 0,
        offset: 2 * LAYERS,
        rows: || Rows::U32(exponential_tables().fast.clone()),
    },
    Table {
        accessor: "kp_zig_e32_slow",
        global: "KP_ZIG_E32_SLOW",
        buffer: 0,
        offset: 3 * LAYERS,
        rows: || Rows::U32(exponential_tables().slow.clone()),
    },
    Table {
        accessor: "kp_zig_n64_fast",
        global: "KP_ZIG_N64_FAST",
        buffer: 1,
        offset: 0,
        rows: || fast64(normal_tables()),
    },
    Table {
        accessor: "kp_zig_n64_slow",
        global: "KP_ZIG_N64_SLOW",
        buffer: 1,
        offset: LAYERS,
        rows: || slow64(normal_tables()),
    },
    Table {
        accessor: "kp_zig_e64_fast",
        global: "KP_ZIG_E64_FAST",
        buffer: 1,
        offset: 2 * LAYERS,
        rows: || fast64(exponential_tables()),
    },
    Table {
        accessor: "kp_zig_e64_slow",
        global: "KP_ZIG_E64_SLOW",
        buffer: 1,
        offset: 3 * LAYERS,
        rows: || slow64(exponential_tables()),
    },
];

/// The contents of storage buffer `buffer` ([`TABLE_BINDINGS`]): its tables' rows at their
/// offsets, little-endian.
fn table_bytes(buffer: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for t in TABLES.iter().filter(|t| t.buffer == buffer) {
        debug_assert_eq!(out.len(), t.offset * 8 * (1 + buffer));
        match (t.rows)() {
            Rows::U32(rows) => {
                for w in rows.iter().flatten() {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
            Rows::F64(rows) => {
                for v in rows.iter().flatten() {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    out
}

/// The float32 table buffer's contents (binding 64).
pub fn table_bytes32() -> Vec<u8> {
    table_bytes(0)
}

/// The float64 table buffer's contents (binding 65).
pub fn table_bytes64() -> Vec<u8> {
    table_bytes(1)
}

/// The WGSL of table `t` for `source`: its accessor, and the array it reads (private source;
/// the storage source's buffer is declared once by [`wgsl_tables_with`]).
fn table_wgsl(t: &Table, source: TableSource) -> String {
    let (row, items) = match (t.rows)() {
        Rows::U32(rows) => (
            "vec2<u32>",
            rows.iter()
                .map(|[a, b]| format!("vec2<u32>({a:#x}u, {b:#x}u)"))
                .collect::<Vec<_>>(),
        ),
        Rows::F64(rows) => (
            "vec2<f64>",
            rows.iter()
                .map(|[a, b]| format!("vec2<f64>({a:e}lf, {b:e}lf)"))
                .collect(),
        ),
    };
    let n = items.len();
    let stored = |i: &str| format!("{}[{}u + {i}]", TABLE_BINDINGS[t.buffer].name, t.offset);
    let (decl, read) = match source {
        TableSource::Workgroup if staged(t) => (
            format!("var<workgroup> {}_WG: array<{row}, {n}>;\n", t.global),
            format!("{}_WG[i]", t.global),
        ),
        TableSource::Storage | TableSource::Workgroup => (String::new(), stored("i")),
        TableSource::Private => (
            format!(
                "var<private> {}: array<{row}, {n}> = array<{row}, {n}>({});\n",
                t.global,
                items.join(", ")
            ),
            format!("{}[i]", t.global),
        ),
    };
    format!(
        "{decl}fn {}(i: u32) -> {row} {{\n    return {read};\n}}\n",
        t.accessor
    )
}

/// Whether the workgroup source stages table `t` in workgroup memory (the fast tables, read by
/// every draw; the slow ones stay in storage).
fn staged(t: &Table) -> bool {
    t.accessor.ends_with("_fast")
}

/// The WGSL that the ziggurat functions in `src` need, for the process's [`table_source`]:
/// see [`wgsl_tables_with`].
pub fn wgsl_tables(src: &str) -> String {
    wgsl_tables_with(src, table_source())
}

/// The WGSL that the ziggurat functions in `src` need, to append to a kernel's source: the
/// accessors they call (`kp_zig_n32_fast(i)`, ...) with the tables behind them as `source`
/// holds them (storage: the buffers' declarations, [`TABLE_BINDINGS`]), and the constants
/// they use.
pub fn wgsl_tables_with(src: &str, source: TableSource) -> String {
    let mut out = String::new();
    let mut buffers = [false; TABLE_BINDINGS.len()];
    let mut fill = String::new();
    for t in &TABLES {
        if src.contains(&format!("{}(", t.accessor)) {
            out.push_str(&table_wgsl(t, source));
            buffers[t.buffer] = true;
            if source == TableSource::Workgroup && staged(t) {
                fill.push_str(&format!(
                    "        {}_WG[r] = {}[{}u + r];\n",
                    t.global, TABLE_BINDINGS[t.buffer].name, t.offset
                ));
            }
        }
    }
    if !fill.is_empty() {
        out.push_str(&format!(
            "fn {FILL}(lid: u32, threads: u32) {{\n    for (var r = lid; r < {LAYERS}u; r += threads) {{\n{fill}    }}\n}}\n"
        ));
    }
    if source != TableSource::Private {
        for (b, _) in TABLE_BINDINGS.iter().zip(buffers).filter(|(_, used)| *used) {
            out.push_str(&b.declaration());
            out.push('\n');
        }
    }
    if src.contains("KP_ZIG_N32_R") || src.contains("KP_ZIG_N32_NEG_RINV") {
        out.push_str(&format!(
            "const KP_ZIG_N32_R: f32 = {};\nconst KP_ZIG_N32_NEG_RINV: f32 = {};\n",
            bits(NORMAL_R as f32),
            bits((-1.0 / NORMAL_R) as f32)
        ));
    }
    if src.contains("KP_ZIG_E32_R") {
        out.push_str(&format!(
            "const KP_ZIG_E32_R: f32 = {};\n",
            bits(EXPONENTIAL_R as f32)
        ));
    }
    if src.contains("KP_ZIG_N64_R") || src.contains("KP_ZIG_N64_NEG_RINV") {
        out.push_str(&format!(
            "const KP_ZIG_N64_R: f64 = {:e}lf;\nconst KP_ZIG_N64_NEG_RINV: f64 = {:e}lf;\n",
            NORMAL_R,
            -1.0 / NORMAL_R
        ));
    }
    if src.contains("KP_ZIG_E64_R") {
        out.push_str(&format!("const KP_ZIG_E64_R: f64 = {EXPONENTIAL_R:e}lf;\n"));
    }
    out
}

/// The storage table buffers ([`TABLE_BINDINGS`]) a kernel's source reads: those whose
/// declaration it contains.
pub fn table_bindings_in(wgsl: &str) -> impl Iterator<Item = &'static TableBinding> + '_ {
    TABLE_BINDINGS
        .iter()
        .filter(move |b| wgsl.contains(&b.declaration()))
}

/// A WGSL float literal as WGSL rounds it to float32 (through float64).
fn lit(v: f64) -> f32 {
    v as f32
}

/// `kp_exp_neg_fenced_f32`: exp(-h) for h >= -88.73 in IEEE float32 without fused
/// multiply-adds (0 beyond h = 104; NaN for NaN).
pub fn exp_neg_fenced(h: f32) -> f32 {
    if h.is_nan() || h > 104.0 {
        return if h.is_nan() { h } else { 0.0 };
    }
    let n = (h * lit(std::f64::consts::LOG2_E) + 0.5).floor();
    let r = (n * f32::from_bits(0x3f31_7200) - h) + n * f32::from_bits(0x35bf_be8e);
    let mut p = r * lit(0.000_198_412_698_412_698_4) + lit(0.001_388_888_888_888_889);
    for c in [
        0.008_333_333_333_333_333,
        0.041_666_666_666_666_664,
        0.166_666_666_666_666_66,
        0.5,
        1.0,
        1.0,
    ] {
        p = r * p + lit(c);
    }
    let pow2 = |k: i32| f32::from_bits(((127 - k) as u32) << 23);
    let n1 = (n as i32).clamp(-100, 100);
    p * pow2(n1) * pow2(n as i32 - n1)
}

/// A fast try: `(value, accepted, layer, signed integer)` of word `w` (normal when `signed`).
fn attempt(w: u32, signed: bool, t: &Tables) -> (f32, bool, usize, i32) {
    let i = (w & 255) as usize;
    let [k, wb] = t.fast[i];
    let s = if signed {
        (((w >> 8) << 1) | 1) as i32 - 16_777_216
    } else {
        (w >> 8) as i32
    };
    let x = s as f32 * f32::from_bits(wb);
    (x, s.unsigned_abs() < k, i, s)
}

fn u01(w: u32) -> f32 {
    (w >> 8) as f32 * (1.0 / 16_777_216.0)
}

fn u01_open(w: u32) -> f32 {
    ((w >> 8) + 1) as f32 * (1.0 / 16_777_216.0)
}

/// The wedge test of layer `i` for the candidate `x`: `f(x_i) + U (f(x_{i+1}) - f(x_i))`
/// below `exp(-h)`.
fn wedge(t: &Tables, i: usize, u: u32, h: f32) -> bool {
    let [lo, diff] = t.slow[i];
    let y = u01(u) * f32::from_bits(diff) + f32::from_bits(lo);
    y < exp_neg_fenced(h)
}

/// Element `e`'s float32 standard normal of draw `draw` (the default form, `kp_normal_zig_f32`,
/// bit for bit).
pub fn normal_f32(key: [u32; 2], draw: u64, e: u32) -> f32 {
    let t = normal_tables();
    let (mut x, fast, mut i, mut s) = attempt(stream_word(key, draw, e, 0), true, t);
    if fast {
        return x;
    }
    let mut tail = i == 0;
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    for j in 1..=ATTEMPTS {
        let b = block(j);
        if tail {
            let tx = ln_unit_fenced(u01_open(b[0])) * (-1.0 / NORMAL_R) as f32;
            let ty = -ln_unit_fenced(u01_open(b[1]));
            if ty + ty > tx * tx {
                let v = tx + NORMAL_R as f32;
                return if s < 0 { -v } else { v };
            }
            continue;
        }
        if wedge(t, i, b[0], 0.5 * (x * x)) {
            return x;
        }
        let next = attempt(b[1], true, t);
        if next.1 {
            return next.0;
        }
        (x, i, s) = (next.0, next.2, next.3);
        tail = i == 0;
    }
    let b = block(ATTEMPTS + 1);
    normal_pair_fenced(b[0], b[1])[0]
}

/// Element `e`'s float32 standard exponential of draw `draw` (the default form,
/// `kp_exponential_zig_f32`, bit for bit).
pub fn exponential_f32(key: [u32; 2], draw: u64, e: u32) -> f32 {
    let t = exponential_tables();
    let (mut x, fast, mut i, _) = attempt(stream_word(key, draw, e, 0), false, t);
    if fast {
        return x;
    }
    let mut off = 0.0f32;
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    for j in 1..=ATTEMPTS {
        let b = block(j);
        let mut w = b[0];
        if i == 0 {
            off += EXPONENTIAL_R as f32;
        } else {
            if wedge(t, i, b[0], x) {
                return x + off;
            }
            w = b[1];
        }
        let next = attempt(w, false, t);
        if next.1 {
            return next.0 + off;
        }
        (x, i) = (next.0, next.2);
    }
    -ln_unit_fenced(u01_open(block(ATTEMPTS + 1)[0])) + off
}

/// `kp_exp_neg_fenced_f64`: exp(-h) for |h| <= 700 in IEEE float64 without fused
/// multiply-adds.
pub fn exp_neg_fenced_f64(h: f64) -> f64 {
    let n = (h * std::f64::consts::LOG2_E + 0.5).floor();
    let r = (n * 6.931_471_803_691_238e-1 - h) + n * 1.908_214_929_270_587_7e-10;
    let mut p = r * 1.605_904_383_682_161_3e-10 + 2.087_675_698_786_81e-9;
    for c in [
        2.505_210_838_544_172e-8,
        2.755_731_922_398_589e-7,
        2.755_731_922_398_589_3e-6,
        2.480_158_730_158_73e-5,
        0.000_198_412_698_412_698_4,
        0.001_388_888_888_888_889,
        0.008_333_333_333_333_333,
        0.041_666_666_666_666_664,
        0.166_666_666_666_666_66,
        0.5,
        1.0,
        1.0,
    ] {
        p = r * p + c;
    }
    // ldexp: exact for the normal results of h <= 700.
    p * f64::from_bits(((1023 - n as i64) as u64) << 52)
}

/// `kp_exp_det_f32`: exp(x) in float32 as every driver computes it (the fenced exp).
pub fn exp_det_f32(x: f32) -> f32 {
    if x > 88.72284 {
        return f32::INFINITY;
    }
    if x.is_nan() {
        x
    } else {
        exp_neg_fenced(-x)
    }
}

/// `kp_exp_det_f64`: exp(x) in float64 as every driver computes it (normal results).
pub fn exp_det_f64(x: f64) -> f64 {
    if x > 709.782_712_893_384 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    if x.is_nan() {
        x
    } else {
        exp_neg_fenced_f64(-x)
    }
}

/// `kp_ln_unit_fenced_f64`: ln x for x in (0, 1], the float32 fenced log refined by two
/// Newton steps.
pub fn ln_unit_fenced_f64(x: f64) -> f64 {
    let mut y = f64::from(ln_unit_fenced(x as f32));
    for _ in 0..2 {
        y += x * exp_neg_fenced_f64(y) - 1.0;
    }
    y
}

fn u01_53(a: u32, b: u32) -> f64 {
    (f64::from(a >> 5) * 67_108_864.0 + f64::from(b >> 6)) * (1.0 / 9_007_199_254_740_992.0)
}

fn u01_open53(a: u32, b: u32) -> f64 {
    (f64::from(a >> 5) * 67_108_864.0 + f64::from((b >> 6) + 1)) * (1.0 / 9_007_199_254_740_992.0)
}

/// A float64 fast try from the words `w0`, `w1`: (value, accepted, layer).
fn attempt64(w0: u32, w1: u32, signed: bool, t: &Tables) -> (f64, bool, usize) {
    let i = (w0 & 255) as usize;
    let m = (u64::from(w0 >> 8) << 28) | u64::from(w1 >> 4);
    let (mag, neg) = if signed {
        let neg = m < 1 << 51;
        let low = m & ((1 << 51) - 1);
        let mp = if neg { low ^ ((1 << 51) - 1) } else { low };
        (2 * mp + 1, neg)
    } else {
        (m, false)
    };
    let x = mag as f64 * t.w64[i];
    (if neg { -x } else { x }, mag < t.k64[i], i)
}

/// Element `e`'s float64 standard normal of draw `draw` (`kp_normal_zig_f64`, bit for bit).
pub fn normal_f64(key: [u32; 2], draw: u64, e: u32) -> f64 {
    let t = normal_tables();
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    let (mut x, fast, mut i) = attempt64(stream_word(key, draw, e, 0), block(1)[0], true, t);
    if fast {
        return x;
    }
    let mut tail = i == 0;
    for j in 1..=ATTEMPTS {
        let b = block(j + 1);
        if tail {
            let tx = ln_unit_fenced_f64(u01_open53(b[0], b[1])) * (-1.0 / NORMAL_R);
            let ty = -ln_unit_fenced_f64(u01_open53(b[2], b[3]));
            if ty + ty > tx * tx {
                let v = tx + NORMAL_R;
                return if x < 0.0 { -v } else { v };
            }
            continue;
        }
        let h = 0.5 * (x * x);
        let y = u01_53(b[0], b[1]) * t.d64[i] + t.f64[i];
        if y < exp_neg_fenced_f64(h) {
            return x;
        }
        let next = attempt64(b[2], b[3], true, t);
        if next.1 {
            return next.0;
        }
        (x, i) = (next.0, next.2);
        tail = i == 0;
    }
    let b = block(ATTEMPTS + 2);
    f64::from(normal_pair_fenced(b[0], b[1])[0])
}

/// Element `e`'s float64 standard exponential of draw `draw` (`kp_exponential_zig_f64`).
pub fn exponential_f64(key: [u32; 2], draw: u64, e: u32) -> f64 {
    let t = exponential_tables();
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    let (mut x, fast, mut i) = attempt64(stream_word(key, draw, e, 0), block(1)[0], false, t);
    if fast {
        return x;
    }
    let mut off = 0.0f64;
    for j in 1..=ATTEMPTS {
        let b = block(j + 1);
        let mut w = [b[0], b[1]];
        if i == 0 {
            off += EXPONENTIAL_R;
        } else {
            let y = u01_53(b[0], b[1]) * t.d64[i] + t.f64[i];
            if y < exp_neg_fenced_f64(x) {
                return x + off;
            }
            w = [b[2], b[3]];
        }
        let next = attempt64(w[0], w[1], false, t);
        if next.1 {
            return next.0 + off;
        }
        (x, i) = (next.0, next.2);
    }
    let b = block(ATTEMPTS + 2);
    -ln_unit_fenced_f64(u01_open53(b[0], b[1])) + off
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layers_have_equal_areas_and_close_at_the_top() {
        for (t, f, top) in [
            (
                normal_tables(),
                (|x: f64| (-0.5 * x * x).exp()) as fn(f64) -> f64,
                1.0,
            ),
            (exponential_tables(), |x: f64| (-x).exp(), 1.0),
        ] {
            let v = t.x[0] * f(t.x[1]);
            for i in 1..LAYERS - 1 {
                let area = t.x[i] * (f(t.x[i + 1]) - f(t.x[i]));
                assert!((area - v).abs() < 1e-12, "layer {i}: {area} vs {v}");
            }
            // The top layer's area is v too (to the precision of r).
            let last = t.x[LAYERS - 1] * (top - f(t.x[LAYERS - 1]));
            assert!((last - v).abs() < 1e-9 * v, "top layer {last} vs {v}");
            // K is below 2^24 and grows towards the top but for the last layer (0).
            assert_eq!(t.fast[LAYERS - 1][0], 0);
            assert!(t.fast.iter().all(|&[k, _]| k < 1 << 24));
        }
        assert!((det_exp(-0.5) - (-0.5f64).exp()).abs() < 1e-16);
        assert!((det_ln(0.3) - 0.3f64.ln()).abs() < 4e-16);
        // The normal tail's mass is the known erfc value.
        let tail = (-0.5 * NORMAL_R * NORMAL_R).exp() * mills_ratio(NORMAL_R)
            / (2.0 * std::f64::consts::PI).sqrt();
        assert!((tail - 1.290_162_438_269_503_8e-4).abs() < 1e-17, "{tail}");
    }

    #[test]
    fn the_fenced_exponentials_are_accurate_over_their_range() {
        for k in -880..=880 {
            let x = k as f32 * 0.1;
            let (got, want) = (f64::from(exp_det_f32(x)), f64::from(x).exp());
            assert!(
                (got - want).abs() <= 3e-7 * want,
                "exp {x}: {got} vs {want}"
            );
        }
        assert_eq!(exp_det_f32(89.0), f32::INFINITY);
        assert!(exp_det_f32(f32::NAN).is_nan());
        for k in -700..=700 {
            let x = f64::from(k) * 1.01;
            let (got, want) = (exp_det_f64(x), x.exp());
            assert!(
                (got - want).abs() <= 5e-16 * want,
                "exp {x}: {got} vs {want}"
            );
        }
        assert_eq!(exp_det_f64(710.0), f64::INFINITY);
        assert_eq!(exp_det_f64(-800.0), 0.0);
    }

    #[test]
    fn the_fenced_exponential_is_accurate() {
        for k in 0..=1200 {
            let h = k as f32 * 0.01;
            let got = f64::from(exp_neg_fenced(h));
            let want = (-f64::from(h)).exp();
            assert!(
                (got - want).abs() <= 2.5e-7 * want,
                "h {h}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn the_emulated_draws_look_normal_and_exponential() {
        let n = 200_000u32;
        let (mut s1, mut s2, mut e1) = (0.0f64, 0.0f64, 0.0f64);
        for e in 0..n {
            let z = f64::from(normal_f32([3, 4], 5, e));
            s1 += z;
            s2 += z * z;
            e1 += f64::from(exponential_f32([3, 4], 5, e));
        }
        let n = f64::from(n);
        assert!((s1 / n).abs() < 0.01 && (s2 / n - 1.0).abs() < 0.02);
        assert!((e1 / n - 1.0).abs() < 0.01);
        let (mut s1, mut s2, mut e1) = (0.0f64, 0.0f64, 0.0f64);
        for e in 0..100_000 {
            let z = normal_f64([3, 4], 6, e);
            s1 += z;
            s2 += z * z;
            e1 += exponential_f64([3, 4], 6, e);
        }
        assert!((s1 / 1e5).abs() < 0.015 && (s2 / 1e5 - 1.0).abs() < 0.03);
        assert!((e1 / 1e5 - 1.0).abs() < 0.015);
        for k in 1..2000 {
            let x = f64::from(k) / 2000.0;
            let err = (ln_unit_fenced_f64(x) - x.ln()).abs();
            assert!(err <= 4e-16 * x.ln().abs().max(1.0), "ln {x}: {err:e}");
        }
        for k in 0..700 {
            let h = f64::from(k) * 0.997;
            let want = (-h).exp();
            assert!((exp_neg_fenced_f64(h) - want).abs() <= 4e-16 * want, "{h}");
        }
    }
}
