//! The ziggurat tables of the default normals and exponentials (Marsaglia and Tsang, "The
//! ziggurat method for generating random variables", J. Stat. Softw. 5, 2000), computed on the
//! host in float64 with arithmetic only (no platform libm: the same tables natively and in
//! wasm32) and rounded; the WGSL declarations that hand them to kernels as exact bits; and the
//! CPU emulations of `kp_normal_zig_f32`, `kp_exponential_zig_f32` and their float64 forms
//! (shaders/random.wgsl), bit for bit.
//!
//! The float32 normal has [`NORMAL32_LAYERS`] = 16384 layers by default (its fast path rejects
//! 0.03% of tries, so a warp of 128 draws runs the slow code in about 4% of its steps;
//! `KUPFER_ZIG_NORMAL32=4096` chooses the earlier 4096-layer form, which rejects 0.12%, and
//! `8192` one between, [`normal32_layers`]); the float32 exponential and both float64
//! ziggurats have [`LAYERS`] = 256. Layer `i` (0..L) has width `x_i` (`x_0 = v / f(r)`,
//! `x_1 = r`, `x_L = 0`, equal areas `v`). An element's word 0 `w` gives the layer
//! `i = w & (L - 1)` and `b = 32 - log2 L` further bits `w >> log2 L`: for the float32 normal
//! the odd integer `s = 2 (w >> log2 L) + 1 - 2^b` (sign and `b - 1`-bit magnitude: all 2^32
//! words are distinct candidates; 16384 layers: `b = 18`), `W_i = x_i 2^-b` and
//! `K_i = floor(2^b x_{i+1} / x_i)`; for the float32 exponential (L = 256) `m = w >> 8`,
//! `W_i = x_i 2^-24` and
//! `K_i = floor(2^24 x_{i+1} / x_i)`. The candidate is `s W_i` (`m W_i`; one correctly rounded
//! multiply), accepted when `|s| < K_i` (`m < K_i`; an integer test). Otherwise the slow path
//! reads the element's own blocks (counter `(e, j, draw)`, `j = 1..=17`): attempt `j` takes
//! the wedge uniform from word x of block `j` and the next candidate from word y (with the
//! same layout; normal tail: words x and y are the two uniforms of Marsaglia's tail method;
//! exponential tail: `r` is added and word x is the next candidate).

use super::{ln_unit_fenced, normal_pair_fenced, philox4x32_10, stream_word};

/// Layers of the exponential ziggurats and of the float64 normal's.
pub const LAYERS: usize = 256;

/// Layers of the float32 normal's ziggurat by default (`KUPFER_ZIG_NORMAL32`,
/// [`normal32_layers`], may choose 4096 or 8192 instead).
pub const NORMAL32_LAYERS: usize = 16384;

/// The layer counts the float32 normal may take ([`normal32_layers`]).
pub const NORMAL32_LAYER_CHOICES: [usize; 3] = [4096, 8192, 16384];

/// The rightmost layer edge of the 256-layer normal ziggurat (of `exp(-x^2 / 2)`; float64).
pub const NORMAL_R: f64 = 3.654_152_885_361_009;

/// The rightmost layer edge of the 16384-layer normal ziggurat (float32, the default): the
/// float64 nearest the root of the closing condition (4.70514972920724869 to 18 digits, found
/// in 60-digit arithmetic by tools/ziggurat_r.py). An exact constant, so the tables are the
/// same on every platform; the unit tests check that they close and that bisection with this
/// module's arithmetic agrees.
pub const NORMAL32_R: f64 = 4.705_149_729_207_249;

/// The rightmost layer edge of the 8192-layer normal ziggurat (`KUPFER_ZIG_NORMAL32=8192`;
/// 4.54860060994913897 to 18 digits, the same way).
pub const NORMAL32_R_8192: f64 = 4.548_600_609_949_139;

/// The rightmost layer edge of the 4096-layer normal ziggurat (`KUPFER_ZIG_NORMAL32=4096`,
/// the default before 16384; 4.38594503487130486 to 18 digits, the same way).
pub const NORMAL32_R_4096: f64 = 4.385_945_034_871_304_5;

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
/// f(x_i), bits of f(x_{i+1}) - f(x_i))`, the float64 layer edges `x` and the float64 tables.
#[derive(Debug, Clone)]
pub struct Tables {
    /// log2 of the layer count: a word's low `shift` bits pick the layer, the other
    /// `32 - shift` bits the float32 candidate's integer.
    pub shift: u32,
    /// `(K_i, W_i bits)` of every layer.
    pub fast: Vec<[u32; 2]>,
    /// `(f(x_i) bits, (f(x_{i+1}) - f(x_i)) bits)` of every layer.
    pub slow: Vec<[u32; 2]>,
    /// The layer edges `x_0 .. x_L` in float64.
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
    /// The tables of the layer edges `x` (`L + 1` of them, `L` a power of two) under density
    /// `f`, for float32 candidates `|s| < 2^(32 - log2 L)` scaled by `2^-(32 - log2 L)`.
    fn from_edges(x: Vec<f64>, f: impl Fn(f64) -> f64) -> Tables {
        let layers = x.len() - 1;
        assert!(layers.is_power_of_two());
        let shift = layers.trailing_zeros();
        let scale = f64::from(1u32 << (32 - shift));
        let fast = (0..layers)
            .map(|i| {
                let k = (scale * x[i + 1] / x[i]).floor() as u32;
                [k, ((x[i] / scale) as f32).to_bits()]
            })
            .collect();
        let slow = (0..layers)
            .map(|i| {
                let (lo, hi) = (f(x[i]), if i + 1 == layers { 1.0 } else { f(x[i + 1]) });
                [(lo as f32).to_bits(), ((hi - lo) as f32).to_bits()]
            })
            .collect();
        let scale64 = 4_503_599_627_370_496.0;
        let k64 = (0..layers)
            .map(|i| (scale64 * x[i + 1] / x[i]).floor() as u64)
            .collect();
        let w64 = (0..layers).map(|i| x[i] / scale64).collect();
        let lo: Vec<f64> = (0..layers).map(|i| f(x[i])).collect();
        let d64 = (0..layers)
            .map(|i| if i + 1 == layers { 1.0 } else { f(x[i + 1]) } - lo[i])
            .collect();
        Tables {
            shift,
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

/// The normal density without its constant, `exp(-x^2 / 2)`, from [`det_exp`].
fn normal_density(x: f64) -> f64 {
    det_exp(-0.5 * x * x)
}

/// The edges `x_0 .. x_layers` of the normal ziggurat whose rightmost edge is `r`: the common
/// area `v = r f(r) + (tail beyond r)`, `x_0 = v / f(r)`, `x_1 = r`, `x_{i+1} =
/// f^-1(v / x_i + f(x_i))` and `x_layers = 0`. Also `v / x_{L-1} + f(x_{L-1}) - 1`, the
/// closing condition's residual: zero when the top layer's area is `v` too (positive when `r`
/// is too small; then the recursion runs out early and the later edges are 0).
fn normal_edges(r: f64, layers: usize) -> (Vec<f64>, f64) {
    let f = normal_density;
    let v = r * f(r) + f(r) * mills_ratio(r);
    let mut x = vec![0.0; layers + 1];
    x[0] = v / f(r);
    x[1] = r;
    for i in 1..layers - 1 {
        let a = v / x[i] + f(x[i]);
        if a >= 1.0 {
            return (x, a - 1.0);
        }
        x[i + 1] = (-2.0 * det_ln(a)).sqrt();
    }
    let residual = v / x[layers - 1] + f(x[layers - 1]) - 1.0;
    (x, residual)
}

/// The 256-layer normal ziggurat's tables (of `f(x) = exp(-x^2 / 2)`; the float64 normal's),
/// computed once.
pub fn normal_tables() -> &'static Tables {
    static T: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    T.get_or_init(|| Tables::from_edges(normal_edges(NORMAL_R, LAYERS).0, normal_density))
}

static NORMAL32_CHOICE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// The float32 normal's layer count in this process: `KUPFER_ZIG_NORMAL32` (`16384`, the
/// default; `8192`; `4096`, the earlier default, kept for device comparisons), read at the
/// first draw (wasm32, which has no environment: the default). Each count has its own `r`
/// ([`normal32_r`]) and tables, so its own bits (every driver draws the same bits for one
/// count); the kernels' WGSL takes the count as constants ([`wgsl_tables_with`]).
pub fn normal32_layers() -> usize {
    #[cfg(test)]
    if let Some(l) = LAYERS_OVERRIDE.get() {
        return l;
    }
    *NORMAL32_CHOICE.get_or_init(|| match std::env::var("KUPFER_ZIG_NORMAL32").as_deref() {
        Ok("4096") => 4096,
        Ok("8192") => 8192,
        _ => NORMAL32_LAYERS,
    })
}

#[cfg(test)]
thread_local! {
    static LAYERS_OVERRIDE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with [`normal32_layers`] returning `layers` on this thread (unit tests generate
/// and emulate every layer count).
#[cfg(test)]
pub(crate) fn with_normal32_layers<R>(layers: usize, f: impl FnOnce() -> R) -> R {
    let before = LAYERS_OVERRIDE.replace(Some(layers));
    let out = f();
    LAYERS_OVERRIDE.set(before);
    out
}

/// The rightmost layer edge of the float32 normal ziggurat of `layers` layers (one of
/// [`NORMAL32_LAYER_CHOICES`]; else the default's).
pub fn normal32_r(layers: usize) -> f64 {
    match layers {
        4096 => NORMAL32_R_4096,
        8192 => NORMAL32_R_8192,
        _ => NORMAL32_R,
    }
}

/// The float32 normal ziggurat's tables for the process's layer count ([`normal32_layers`]).
pub fn normal32_tables() -> &'static Tables {
    normal32_tables_for(normal32_layers())
}

/// The tables of the float32 normal ziggurat of `layers` layers (one of
/// [`NORMAL32_LAYER_CHOICES`]; else the default's), computed once each.
pub fn normal32_tables_for(layers: usize) -> &'static Tables {
    static T: [std::sync::OnceLock<Tables>; 3] = [const { std::sync::OnceLock::new() }; 3];
    let k = NORMAL32_LAYER_CHOICES
        .iter()
        .position(|&l| l == layers)
        .unwrap_or(NORMAL32_LAYER_CHOICES.len() - 1);
    let layers = NORMAL32_LAYER_CHOICES[k];
    T[k].get_or_init(|| {
        Tables::from_edges(normal_edges(normal32_r(layers), layers).0, normal_density)
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
    /// the same tables through the caches (float32 normal: 128 KB of fast rows with 16384
    /// layers, 32 KB with 4096; exponential and float64: 2 to 4 KB): a fast try is one 8-byte
    /// (float64: 16-byte) load of its layer's `(K_i, W_i)`.
    Storage,
    /// `private`: module-scope `var<private>` arrays with initializers (the first form).
    /// Every thread holds its own copy, which NVIDIA's compiler places in per-thread local
    /// memory: 0.64 ms for 2^26 float32 normals on the H200 with 256 layers, against 0.122
    /// for the lean Box-Muller form. A timing knob only, for the 256-row tables: the float32
    /// normal's tables (4096 to 16384 rows) are read from storage under it too.
    Private,
    /// `workgroup`: as `storage`, but a kernel that can fill workgroup memory first (the
    /// elementwise kernel: [`FILL`] before anything else, then a barrier) copies the 256-row
    /// fast tables into it (the exponentials' and the float64 normal's), once per workgroup of
    /// 256 threads, and its fast tries read them there (a gather from shared memory rather
    /// than from the L1 cache); other kernels read storage. The float32 normal's fast table
    /// (16384 rows: 128 KB; 4096: 32 KB) is above WebGPU's 16 KB of workgroup memory: its
    /// draws read storage under this source too.
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
/// FAST, SLOW, 16384 row slots each, of which the process's [`normal32_layers`] fill the
/// first; exponential FAST, SLOW, 256 rows each: 260 KB) and the float64
/// tables as `vec2<f64>` rows (normal `(K_i, W_i)`, `(f(x_i), D_i)`, then the exponential's;
/// 256 rows each: 16 KB).
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
    /// Rows (the ziggurat's layers; the float32 normal's: its slots, room for the largest
    /// of [`NORMAL32_LAYER_CHOICES`], of which the process's count fills the first rows).
    layers: usize,
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
        layers: NORMAL32_LAYERS,
        rows: || Rows::U32(normal32_tables().fast.clone()),
    },
    Table {
        accessor: "kp_zig_n32_slow",
        global: "KP_ZIG_N32_SLOW",
        buffer: 0,
        offset: NORMAL32_LAYERS,
        layers: NORMAL32_LAYERS,
        rows: || Rows::U32(normal32_tables().slow.clone()),
    },
    Table {
        accessor: "kp_zig_e32_fast",
        global: "KP_ZIG_E32_FAST",
        buffer: 0,
        offset: 2 * NORMAL32_LAYERS,
        layers: LAYERS,
        rows: || Rows::U32(exponential_tables().fast.clone()),
    },
    Table {
        accessor: "kp_zig_e32_slow",
        global: "KP_ZIG_E32_SLOW",
        buffer: 0,
        offset: 2 * NORMAL32_LAYERS + LAYERS,
        layers: LAYERS,
        rows: || Rows::U32(exponential_tables().slow.clone()),
    },
    Table {
        accessor: "kp_zig_n64_fast",
        global: "KP_ZIG_N64_FAST",
        buffer: 1,
        offset: 0,
        layers: LAYERS,
        rows: || fast64(normal_tables()),
    },
    Table {
        accessor: "kp_zig_n64_slow",
        global: "KP_ZIG_N64_SLOW",
        buffer: 1,
        offset: LAYERS,
        layers: LAYERS,
        rows: || slow64(normal_tables()),
    },
    Table {
        accessor: "kp_zig_e64_fast",
        global: "KP_ZIG_E64_FAST",
        buffer: 1,
        offset: 2 * LAYERS,
        layers: LAYERS,
        rows: || fast64(exponential_tables()),
    },
    Table {
        accessor: "kp_zig_e64_slow",
        global: "KP_ZIG_E64_SLOW",
        buffer: 1,
        offset: 3 * LAYERS,
        layers: LAYERS,
        rows: || slow64(exponential_tables()),
    },
];

/// The contents of storage buffer `buffer` ([`TABLE_BINDINGS`]): its tables' rows at their
/// offsets, little-endian.
fn table_bytes(buffer: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for t in TABLES.iter().filter(|t| t.buffer == buffer) {
        debug_assert_eq!(out.len(), t.offset * 8 * (1 + buffer));
        let before = out.len();
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
        // The float32 normal's slots hold the largest layer count; a smaller one's rows
        // leave the rest zero.
        debug_assert!(out.len() - before <= t.layers * 8 * (1 + buffer));
        out.resize(before + t.layers * 8 * (1 + buffer), 0);
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
        TableSource::Private if per_thread(t) => (
            format!(
                "var<private> {}: array<{row}, {n}> = array<{row}, {n}>({});\n",
                t.global,
                items.join(", ")
            ),
            format!("{}[i]", t.global),
        ),
        _ => (String::new(), stored("i")),
    };
    format!(
        "{decl}fn {}(i: u32) -> {row} {{\n    return {read};\n}}\n",
        t.accessor
    )
}

/// Whether the workgroup source stages table `t` in workgroup memory: the 256-row fast tables,
/// read by every draw (2 KB float32, 4 KB float64). The float32 normal's fast table (32 to
/// 128 KB) is above WebGPU's 16 KB of workgroup memory and stays in storage, as do the slow
/// tables.
fn staged(t: &Table) -> bool {
    t.accessor.ends_with("_fast") && t.layers == LAYERS
}

/// Whether the private source holds table `t` in per-thread arrays: the 256-row tables. The
/// float32 normal's (64 KB per thread and more, which lavapipe takes many minutes to compile)
/// are read from storage under this source too.
fn per_thread(t: &Table) -> bool {
    t.layers == LAYERS
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
            buffers[t.buffer] |= !(source == TableSource::Private && per_thread(t));
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
    for (b, _) in TABLE_BINDINGS.iter().zip(buffers).filter(|(_, used)| *used) {
        out.push_str(&b.declaration());
        out.push('\n');
    }
    let layers = normal32_layers();
    let r32 = normal32_r(layers);
    if src.contains("KP_ZIG_N32_R") || src.contains("KP_ZIG_N32_NEG_RINV") {
        out.push_str(&format!(
            "const KP_ZIG_N32_R: f32 = {};\nconst KP_ZIG_N32_NEG_RINV: f32 = {};\n",
            bits(r32 as f32),
            bits((-1.0 / r32) as f32)
        ));
    }
    if src.contains("KP_ZIG_N32_MASK") || src.contains("KP_ZIG_N32_SHIFT") {
        // The layer count's layout: layer w & MASK, odd s = 2 (w >> SHIFT) + 1 - HALF.
        let shift = layers.trailing_zeros();
        out.push_str(&format!(
            "const KP_ZIG_N32_MASK: u32 = {}u;\nconst KP_ZIG_N32_SHIFT: u32 = {shift}u;\n\
             const KP_ZIG_N32_HALF: i32 = {}i;\n",
            layers - 1,
            1u32 << (32 - shift)
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

/// A fast try: `(value, accepted, layer, signed integer)` of word `w` (normal when `signed`):
/// the layer from the low `t.shift` bits, the integer from the others.
fn attempt(w: u32, signed: bool, t: &Tables) -> (f32, bool, usize, i32) {
    let i = (w & ((1 << t.shift) - 1)) as usize;
    let [k, wb] = t.fast[i];
    let s = if signed {
        (((w >> t.shift) << 1) | 1) as i32 - (1 << (32 - t.shift))
    } else {
        (w >> t.shift) as i32
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
    let t = normal32_tables();
    let r = normal32_r(normal32_layers());
    let (mut x, fast, mut i, mut s) = attempt(stream_word(key, draw, e, 0), true, t);
    if fast {
        return x;
    }
    let mut tail = i == 0;
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    for j in 1..=ATTEMPTS {
        let b = block(j);
        if tail {
            let tx = ln_unit_fenced(u01_open(b[0])) * (-1.0 / r) as f32;
            let ty = -ln_unit_fenced(u01_open(b[1]));
            if ty + ty > tx * tx {
                let v = tx + r as f32;
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
        let normal = (|x: f64| (-0.5 * x * x).exp()) as fn(f64) -> f64;
        let mut cases = vec![
            (normal_tables(), normal, LAYERS),
            (exponential_tables(), |x: f64| (-x).exp(), LAYERS),
        ];
        for l in NORMAL32_LAYER_CHOICES {
            cases.push((normal32_tables_for(l), normal, l));
        }
        for (t, f, layers) in cases {
            assert_eq!(
                (t.x.len(), t.fast.len(), t.slow.len()),
                (layers + 1, layers, layers)
            );
            assert_eq!(1 << t.shift, layers);
            let v = t.x[0] * f(t.x[1]);
            for i in 1..layers - 1 {
                // The difference of two densities near 1 loses what float64 cannot hold of
                // them: a few ulp of 1 times x_i (1e-12 of v with 4096 layers, 7e-12 with
                // 16384).
                let area = t.x[i] * (f(t.x[i + 1]) - f(t.x[i]));
                let tol = (1e-12 * v).max(8.0 * f64::EPSILON * t.x[i]);
                assert!((area - v).abs() < tol, "layer {i}: {area} vs {v}");
            }
            // The top layer's area is v too (to the precision of r: its difference from v is
            // x_{L-1} times the closing condition's residual, below 2e-11 for every table).
            let last = t.x[layers - 1] * (1.0 - f(t.x[layers - 1]));
            let tol = (1e-9 * v).max(2e-11 * t.x[layers - 1]);
            assert!((last - v).abs() < tol, "top layer {last} vs {v}");
            // The edges fall to x_L = 0.
            assert!(t.x.windows(2).all(|w| w[1] < w[0]) && t.x[layers] == 0.0);
            // K is below 2^(32 - shift) and is the float64 edge ratio's integer part; from
            // layer 1 it rises to its largest (the ratio x_{i+1} / x_i nears 1 in the middle
            // layers), then falls to the top layer's 0.
            let scale = f64::from(1u32 << (32 - t.shift));
            for i in 0..layers {
                let k = t.fast[i][0];
                assert!(k < 1 << (32 - t.shift), "layer {i}: K {k}");
                assert_eq!(f64::from(k), (scale * t.x[i + 1] / t.x[i]).floor());
                assert_eq!(f32::from_bits(t.fast[i][1]), (t.x[i] / scale) as f32);
            }
            let ks: Vec<u32> = t.fast.iter().map(|&[k, _]| k).collect();
            let peak = (1..layers).max_by_key(|&i| ks[i]).unwrap();
            assert!(
                ks[1..=peak].windows(2).all(|w| w[1] >= w[0]),
                "rising to {peak}"
            );
            assert!(
                ks[peak..].windows(2).all(|w| w[1] <= w[0]),
                "falling from {peak}"
            );
            assert!(peak > layers / 4 && peak < layers * 3 / 4, "peak {peak}");
            assert!(ks[0] < ks[peak] && ks[layers - 1] == 0);
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

    /// The fraction of words whose fast try is rejected: layer `i` accepts the odd `|s| < K_i`
    /// of the `2^(32 - shift)` values of `s` (or `m < K_i` for the exponential's integer).
    fn rejected(t: &Tables, signed: bool) -> f64 {
        let half = 1u64 << (31 - t.shift);
        let accepted: u64 = t
            .fast
            .iter()
            .map(|&[k, _]| {
                if signed {
                    u64::from(k).div_ceil(2)
                } else {
                    u64::from(k)
                }
            })
            .sum();
        let outcomes = if signed { half } else { 2 * half } * t.fast.len() as u64;
        1.0 - accepted as f64 / outcomes as f64
    }

    #[test]
    fn each_float32_normal_closes_and_16384_layers_reject_0_03_percent_of_tries() {
        // Per layer count: r's bracket, the fast path's rejections, the one-sided tail mass
        // beyond r (exp(-r^2/2) / sqrt(2 pi) times the Mills ratio; 30-digit values from the
        // 60-digit computation of tools/ziggurat_r.py).
        let counts = [
            (4096, (4.3, 4.5), 0.0011..0.0013, 5.774_164_141_617_843e-6),
            (
                8192,
                (4.4, 4.7),
                0.000_61..0.000_66,
                2.700_191_175_462_126e-6,
            ),
            (
                16384,
                (4.6, 4.8),
                0.000_32..0.000_35,
                1.268_398_513_966_573_4e-6,
            ),
        ];
        for (layers, (lo, hi), reject, tail_mass) in counts {
            let r = normal32_r(layers);
            // r is where the closing condition changes sign: bisection with this module's
            // arithmetic (what builds the tables; its exp, ln and Mills ratio are accurate to
            // about 1e-16) ends within a few tens of ulp of the 60-digit root, and the tables
            // from r close to 1e-11.
            let residual = |r: f64| normal_edges(r, layers).1;
            let (mut lo, mut hi) = (lo, hi);
            assert!(residual(lo) > 0.0 && residual(hi) < 0.0);
            while hi - lo > 1e-15 {
                let mid = 0.5 * (lo + hi);
                if residual(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            eprintln!("{layers} layers: bisection {lo}, r {r}");
            assert!((lo - r).abs() < 1e-13, "{layers}: {lo} vs {r}");
            let (x, res) = normal_edges(r, layers);
            assert!(res.abs() < 1e-11, "{layers}: residual {res}");
            let t = normal32_tables_for(layers);
            assert_eq!(x, t.x);
            assert_eq!(1 << t.shift, layers);
            // The recursion from r: x_{i+1} = f^-1(v / x_i + f(x_i)) with the libm gives the
            // same edges to 1e-12.
            let f = |x: f64| (-0.5 * x * x).exp();
            let v = t.x[0] * f(t.x[1]);
            for i in 1..layers - 1 {
                let next = (-2.0 * (v / t.x[i] + f(t.x[i])).ln()).sqrt();
                assert!(
                    (next - t.x[i + 1]).abs() < 1e-12 * t.x[i + 1],
                    "{layers}: edge {}",
                    i + 1
                );
            }
            // The fast path's rejections: counted over all 2^32 words from the tables, and
            // measured on 2^19 draws of the emulation's fast try (within 5 binomial standard
            // deviations); and the share of warps' steps (128 draws: 32 threads of four)
            // that run the slow path.
            let exact = rejected(t, true);
            let n = 1u32 << 19;
            let fails: Vec<bool> = with_normal32_layers(layers, || {
                (0..n)
                    .map(|e| !attempt(stream_word([11, 12], 13, e, 0), true, t).1)
                    .collect()
            });
            let measured = fails.iter().filter(|&&f| f).count() as f64 / f64::from(n);
            let warps =
                fails.chunks(128).filter(|c| c.contains(&true)).count() as f64 / f64::from(n / 128);
            eprintln!(
                "{layers} layers: rejected {exact} (measured {measured}), warp-steps with a \
                 slow path {warps} (1 - (1 - p)^128 = {})",
                1.0 - (1.0 - exact).powi(128)
            );
            assert!(reject.contains(&exact), "{layers}: {exact}");
            let sd = (exact * (1.0 - exact) / f64::from(n)).sqrt();
            assert!((measured - exact).abs() < 5.0 * sd, "{layers}: {measured}");
            if layers == NORMAL32_LAYERS {
                assert!(measured < 0.0005 && warps < 0.06, "{measured} {warps}");
            }
            // The tail's mass beyond r, the known erfc value.
            let tail = (-0.5 * r * r).exp() * mills_ratio(r) / (2.0 * std::f64::consts::PI).sqrt();
            assert!((tail / tail_mass - 1.0).abs() < 1e-12, "{layers}: {tail}");
            // The WGSL's fast try takes the count's layout from the constants the generator
            // appends.
            let src = with_normal32_layers(layers, || {
                wgsl_tables_with(
                    "kp_zig_n32_fast( KP_ZIG_N32_MASK KP_ZIG_N32_R",
                    TableSource::Storage,
                )
            });
            for want in [
                format!("const KP_ZIG_N32_MASK: u32 = {}u;", layers - 1),
                format!("const KP_ZIG_N32_SHIFT: u32 = {}u;", t.shift),
                format!("const KP_ZIG_N32_HALF: i32 = {}i;", 1u32 << (32 - t.shift)),
                format!("const KP_ZIG_N32_R: f32 = {};", bits(r as f32)),
            ] {
                assert!(src.contains(&want), "{layers}: {want} in {src}");
            }
        }
        for layout in [
            "let i = w & KP_ZIG_N32_MASK;",
            "((w >> KP_ZIG_N32_SHIFT) << 1u) | 1u) - KP_ZIG_N32_HALF;",
        ] {
            assert!(super::super::RANDOM_WGSL.contains(layout), "{layout}");
        }
        // The 256-layer normal's constant closes too; its tables and the exponential's
        // reject 1.49% and 2.2%.
        assert!(normal_edges(NORMAL_R, LAYERS).1.abs() < 1e-12);
        let (n256, e) = (
            rejected(normal_tables(), true),
            rejected(exponential_tables(), false),
        );
        assert!((0.0145..0.0153).contains(&n256), "{n256}");
        assert!((0.0215..0.0230).contains(&e), "{e}");
        // The process's count is the default here (nothing in the unit tests sets
        // KUPFER_ZIG_NORMAL32), and the emulation follows an override.
        assert_eq!(normal32_layers(), NORMAL32_LAYERS);
        assert_eq!(normal32_tables().x.len(), NORMAL32_LAYERS + 1);
        let differ = (0..256)
            .filter(|&e| {
                normal_f32([1, 2], 3, e).to_bits()
                    != with_normal32_layers(4096, || normal_f32([1, 2], 3, e)).to_bits()
            })
            .count();
        assert!(differ > 250, "{differ}");
    }

    /// FNV-1a of bytes.
    fn fnv(b: &[u8]) -> u64 {
        b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
            (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
        })
    }

    #[test]
    fn the_256_layer_tables_keep_their_bits() {
        // The float64 tables and the float32 exponential's, as they were before the float32
        // normal took 4096 and then 16384 layers (their draws keep their bits); and the
        // 4096-layer tables as they were while that was the default (the same r and code: the
        // hash is of the tables this code builds, pinned when 16384 became the default).
        let b32 = table_bytes32();
        assert_eq!(b32.len(), (2 * NORMAL32_LAYERS + 2 * LAYERS) * 8);
        // Each layer count fills the first rows of the float32 normal's slots (zeros after)
        // and leaves the exponential's rows where they are.
        for layers in NORMAL32_LAYER_CHOICES {
            let b = with_normal32_layers(layers, table_bytes32);
            let t = normal32_tables_for(layers);
            let row = |k: usize| -> [u32; 2] {
                let w = |j: usize| u32::from_le_bytes(b[4 * j..4 * j + 4].try_into().unwrap());
                [w(2 * k), w(2 * k + 1)]
            };
            assert_eq!(
                (row(layers - 1), row(NORMAL32_LAYERS + 3)),
                (t.fast[layers - 1], t.slow[3])
            );
            if layers < NORMAL32_LAYERS {
                assert_eq!(row(layers), [0, 0]);
            }
            assert_eq!(b[2 * NORMAL32_LAYERS * 8..], b32[2 * NORMAL32_LAYERS * 8..]);
        }
        assert_eq!(fnv(&table_bytes64()), 0x5a74_167f_95cd_cc1c);
        assert_eq!(fnv(&b32[2 * NORMAL32_LAYERS * 8..]), 0xd151_30d0_7841_9f20);
        let old_normal32: Vec<u8> = [&normal_tables().fast, &normal_tables().slow]
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!(fnv(&old_normal32), 0xfa5c_a756_b22c_62a6);
        let t = normal32_tables_for(4096);
        let n4096: Vec<u8> = [&t.fast, &t.slow]
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!(fnv(&n4096), 0x4048_7fdf_485a_244a);
    }
}
