//! FFT kernels: WGSL generation of Stockham passes from `shaders/fft_stockham.wgsl`, the
//! pass schedule of a transform size, and twiddle tables computed in f64.
//!
//! A transform of size `n` (2,3,5,7-smooth) runs as a few global passes, each of radix `R`
//! (a product of sub-radices 2, 3, 4, 5, 7, 8) done in workgroup memory by a workgroup that
//! holds `C` sub-sequences at once: one dispatch when `n` fits in workgroup memory. Passes of
//! a power-of-two radix may run as register passes instead ([`register_radices`]): each
//! thread keeps the values of its butterflies in registers from the global load to the
//! global store, and workgroup memory only exchanges them between sub-passes; or as lanes
//! passes (opt-in, [`PassBody::Lanes`]) in registers and subgroup shuffles alone. Inner
//! twiddles come from tables of exp(-2 pi i t / N) computed on the host in f64 and rounded
//! once to f32. A pass's outer twiddle of index `m < N` is computed where N is at most 2^25
//! ([`FftPass::computed_twiddles`]: the exact integer `4m - qN` of the nearest quadrant `q`
//! scaled to an angle in [-pi/4, pi/4], then short polynomials: no f32 sin/cos of a large
//! angle), else the product of two table entries (`m = hi * 2^shift + lo`, no table larger
//! than ~sqrt(N)).

use crate::template::Template;
use std::fmt::Write;

const COMMON: &str = include_str!("../../../shaders/fft_common.wgsl");
const STOCKHAM: &str = include_str!("../../../shaders/fft_stockham.wgsl");
const LANES: &str = include_str!("../../../shaders/fft_lanes.wgsl");

/// The circular shift kernel behind `fftshift` and `ifftshift` (`shaders/roll.wgsl`): an
/// n-d array of rank at most 8, elements of one or two u32 words, rolled along every axis
/// into a C-contiguous result. It varies only in its uniform block.
pub const ROLL_WGSL: &str = include_str!("../../../shaders/roll.wgsl");

/// How the first pass reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoadKind {
    /// complex64 values.
    Complex,
    /// float32 values (imaginary part zero).
    Real,
    /// The first `nlog / 2 + 1` values of a Hermitian sequence of `nlog` (complex64); the rest
    /// are conjugates (`irfft`).
    Hermitian,
}

/// One generated FFT pass (its structure; sizes and offsets travel as uniforms).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FftPass {
    /// Sub-radices whose product is the pass radix `R`.
    pub radices: Vec<u32>,
    /// Sub-sequences per workgroup (`C`).
    pub group: u32,
    /// Threads per workgroup.
    pub workgroup: u32,
    /// Consecutive work items are consecutive lines (lines are strided; batch contiguous).
    pub batch_fast: bool,
    /// Threads walk `r` fastest when loading (else the sub-sequence index).
    pub load_r_fast: bool,
    /// Threads walk `r` fastest when storing.
    pub store_r_fast: bool,
    /// How the input is read.
    pub load: LoadKind,
    /// Multiply each loaded value `idx < nlog` by `aux[load_aux + idx]` (zero beyond).
    pub load_mul: bool,
    /// Multiply each stored value by `aux[store_aux + idx]`.
    pub store_mul: bool,
    /// Store the real part only (float32 output).
    pub store_real: bool,
    /// How the pass works inside a workgroup.
    pub body: PassBody,
    /// Outer twiddles computed (exact reduction of the index to the nearest quadrant, then
    /// short polynomials) instead of read from two tables: no table reads, whose scattered
    /// addresses cost more than the arithmetic. Only for transforms of at most
    /// [`COMPUTED_TWIDDLES_MAX`] points (the reduced index is exact in f32).
    pub computed_twiddles: bool,
    /// Inner twiddles (exp(-2 pi i t / R) of the sub-passes) computed the same way, with
    /// `R`'s constants folded in, instead of read from the pass's table.
    pub computed_inner: bool,
    /// The last pass of a transform of real input: the imaginary parts of outputs 0 and
    /// `dc_n / 2`, which are exactly zero, are stored as `dc_imag` (+0 or -0, NumPy's sign)
    /// instead of the rounding noise of the passes (which flips `angle` between pi and -pi).
    pub real_dc: bool,
    /// Register passes: tiles (groups of `C` sub-sequences) one workgroup runs in turn,
    /// loading the next tile's values into registers while it transforms the current one
    /// (latency hiding where few workgroups fit on a multiprocessor); 1: one tile.
    pub tiles: u32,
    /// The uniform block compiled in ([`FftParams::baked`]: every field but the buffer
    /// offsets, as constants), so that the index arithmetic of the pass works on constants
    /// (shifts and masks for powers of two, immediate offsets) instead of uniforms; `None`:
    /// one pipeline serves every geometry of the pass's structure.
    pub baked: Option<[u32; PARAM_WORDS]>,
    /// Double precision (complex128 / float64 values, f64 twiddle tables and uniform floats,
    /// [`FftParams::bytes_f64`]; needs SHADER_F64): the pass is the single-precision one with
    /// every f32 read as f64. Not with computed twiddles (their polynomials and reduction are
    /// f32's) nor baked uniforms.
    pub double: bool,
}

/// How a pass transforms its sub-sequences inside a workgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PassBody {
    /// Sub-passes in workgroup memory (any radices).
    Shared,
    /// Register sub-passes (see [`register_radices`]): each thread keeps its butterflies'
    /// values in registers from the load to the store; workgroup memory only exchanges them
    /// between sub-passes, one component (real, then imaginary) at a time, so that it needs
    /// half the workgroup memory of the values.
    Register,
    /// Registers and subgroup shuffles, no workgroup memory (`shaders/fft_lanes.wgsl`): the
    /// radices are `[Q, G]`, `G` (a power of two, 1 without shuffles) lanes per
    /// sub-sequence holding `Q` values each, in blocks of `span` lanes (a power of two that
    /// `G` divides and that divides the subgroup size; neighbouring sub-sequences share a
    /// block).
    Lanes {
        /// Lanes of a block (`S`).
        span: u32,
    },
}

/// Lanes per sub-sequence (`G`) and lanes per block (`S`) of a pass with `body` and
/// `radices`: `(1, 1)` unless it is a lanes pass.
pub fn lane_geometry(body: PassBody, radices: &[u32]) -> (u32, u32) {
    match body {
        PassBody::Lanes { span } => (radices.get(1).copied().unwrap_or(1), span),
        _ => (1, 1),
    }
}

impl FftPass {
    /// The pass radix `R`.
    pub fn radix(&self) -> u32 {
        self.radices.iter().product()
    }
}

/// Four-byte fields of the uniform block.
pub const PARAM_WORDS: usize = 32;

/// Bytes of the uniform block (32 four-byte fields).
pub const PARAMS_SIZE: usize = PARAM_WORDS * 4;

/// The uniform block's field names in order, and whether each is an f32 (else a u32).
const PARAM_FIELDS: [(&str, bool); PARAM_WORDS] = [
    ("n", false),
    ("l", false),
    ("ns", false),
    ("lines", false),
    ("total", false),
    ("blo", false),
    ("groups_x", false),
    ("nlog", false),
    ("in_off", false),
    ("in_stride", false),
    ("in_shi", false),
    ("in_slo", false),
    ("in_len", false),
    ("out_off", false),
    ("out_stride", false),
    ("out_shi", false),
    ("out_slo", false),
    ("out_len", false),
    ("tw_inner", false),
    ("tw_lo", false),
    ("tw_hi", false),
    ("tw_shift", false),
    ("load_aux", false),
    ("store_aux", false),
    ("sgn", true),
    ("scale", true),
    ("conj_in", true),
    ("tw_q", true),
    ("tw_ch", true),
    ("tw_cl", true),
    ("dc_n", false),
    ("dc_imag", true),
];

/// Fields a baked pass still reads from its uniform block: the buffer offsets, which change
/// with every view of an array.
const RUNTIME_FIELDS: [&str; 2] = ["in_off", "out_off"];

/// The uniform block of one pass, field by field (floats as their bits).
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs)]
pub struct FftParams {
    pub n: u32,
    pub l: u32,
    pub ns: u32,
    pub lines: u32,
    pub total: u32,
    pub blo: u32,
    pub groups_x: u32,
    pub nlog: u32,
    pub in_off: u32,
    pub in_stride: u32,
    pub in_shi: u32,
    pub in_slo: u32,
    pub in_len: u32,
    pub out_off: u32,
    pub out_stride: u32,
    pub out_shi: u32,
    pub out_slo: u32,
    pub out_len: u32,
    pub tw_inner: u32,
    pub tw_lo: u32,
    pub tw_hi: u32,
    pub tw_shift: u32,
    pub load_aux: u32,
    pub store_aux: u32,
    pub sgn: f32,
    /// The factor of the pass's stores, exact: single-precision passes read it rounded to
    /// f32, double-precision ones as it is.
    pub scale: f64,
    pub conj_in: f32,
    /// Computed outer twiddles ([`FftPass::computed_twiddles`]): 4 / N, and pi / (2 N) as
    /// the sum of two f32 (N = ns R, the pass's transform length so far).
    pub tw_q: f32,
    pub tw_ch: f32,
    pub tw_cl: f32,
    /// [`FftPass::real_dc`]: the transform's logical length and the imaginary part stored.
    pub dc_n: u32,
    pub dc_imag: f32,
}

impl FftParams {
    /// Sets the constants of computed outer twiddles for a pass whose outputs are `big`-point
    /// transforms.
    pub fn set_twiddle_constants(&mut self, big: u64) {
        (self.tw_q, self.tw_ch, self.tw_cl) = twiddle_constants(big);
    }

    /// The uniform block's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The uniform block's bytes for a double-precision pass ([`FftPass::double`]), whose
    /// float fields are f64 (naturally aligned: 160 bytes); `scale` keeps all its digits.
    pub fn bytes_f64(&self) -> Vec<u8> {
        let words = self.words();
        let mut out = Vec::with_capacity(160);
        for (i, (name, float)) in PARAM_FIELDS.iter().enumerate() {
            if *float {
                out.resize(out.len().next_multiple_of(8), 0);
                let v = if *name == "scale" {
                    self.scale
                } else {
                    f64::from(f32::from_bits(words[i]))
                };
                out.extend_from_slice(&v.to_le_bytes());
            } else {
                out.extend_from_slice(&words[i].to_le_bytes());
            }
        }
        out.resize(out.len().next_multiple_of(16), 0);
        out
    }

    /// The fields a pass compiles in ([`FftPass::baked`]): all but the buffer offsets, which
    /// are zero here.
    pub fn baked(&self) -> [u32; PARAM_WORDS] {
        Self {
            in_off: 0,
            out_off: 0,
            ..*self
        }
        .words()
    }

    /// The uniform block's fields as words (floats as their bits).
    fn words(&self) -> [u32; PARAM_WORDS] {
        [
            self.n,
            self.l,
            self.ns,
            self.lines,
            self.total,
            self.blo,
            self.groups_x,
            self.nlog,
            self.in_off,
            self.in_stride,
            self.in_shi,
            self.in_slo,
            self.in_len,
            self.out_off,
            self.out_stride,
            self.out_shi,
            self.out_slo,
            self.out_len,
            self.tw_inner,
            self.tw_lo,
            self.tw_hi,
            self.tw_shift,
            self.load_aux,
            self.store_aux,
            self.sgn.to_bits(),
            (self.scale as f32).to_bits(),
            self.conj_in.to_bits(),
            self.tw_q.to_bits(),
            self.tw_ch.to_bits(),
            self.tw_cl.to_bits(),
            self.dc_n,
            self.dc_imag.to_bits(),
        ]
    }
}

/// The prime factors of `n` if it is 2,3,5,7-smooth.
fn smooth_factors(mut n: usize) -> Option<Vec<u32>> {
    let mut f = Vec::new();
    for p in [2usize, 3, 5, 7] {
        while n.is_multiple_of(p) {
            f.push(p as u32);
            n /= p;
        }
    }
    (n == 1).then_some(f)
}

/// True when `n` runs as Stockham passes (its prime factors are 2, 3, 5, 7).
pub fn is_smooth(n: usize) -> bool {
    n >= 1 && smooth_factors(n).is_some()
}

/// The global passes' radices of a smooth size `n` (in order), each at most `max_radix`;
/// `None` when `n` has a prime factor above 7. Size 1 has one pass of radix 1.
pub fn schedule(n: usize, max_radix: u32) -> Option<Vec<u32>> {
    let mut f = smooth_factors(n)?;
    if f.is_empty() {
        return Some(vec![1]);
    }
    f.sort_unstable_by(|a, b| b.cmp(a));
    let mut passes = 1usize;
    loop {
        let mut bins = vec![1u64; passes];
        let ok = f.iter().all(|&q| {
            let (i, _) = bins
                .iter()
                .enumerate()
                .min_by_key(|(_, v)| **v)
                .expect("passes >= 1");
            bins[i] *= u64::from(q);
            bins[i] <= u64::from(max_radix)
        });
        if ok {
            let mut r: Vec<u32> = bins.into_iter().map(|b| b as u32).collect();
            r.sort_unstable_by(|a, b| b.cmp(a));
            return Some(r);
        }
        passes += 1;
    }
}

/// The sub-radices of a pass radix `r` (8s first, then a 4 or 2, then 3s, 5s and 7s).
pub fn sub_radices(r: u32) -> Vec<u32> {
    let mut f = smooth_factors(r as usize).unwrap_or_default();
    let twos = f.iter().filter(|&&q| q == 2).count();
    f.retain(|&q| q != 2);
    let mut out = vec![8; twos / 3];
    match twos % 3 {
        1 => out.push(2),
        2 => out.push(4),
        _ => {}
    }
    out.extend(f);
    out
}

/// The sub-radices of a register pass of radix `r` (a power of two) with sub-radices of at
/// most `qmax` (2, 4, 8 or 16): `qmax`s first, then one smaller power of two; `None` when `r`
/// is not a power of two. Each thread holds `qmax` values (or `r`).
pub fn register_radices(r: u32, qmax: u32) -> Option<Vec<u32>> {
    if !r.is_power_of_two() || r < 2 || !matches!(qmax, 2 | 4 | 8 | 16) {
        return None;
    }
    let (bits, qb) = (r.trailing_zeros(), qmax.trailing_zeros());
    let mut out = vec![qmax; (bits / qb) as usize];
    if bits % qb > 0 {
        out.push(1 << (bits % qb));
    }
    Some(out)
}

/// exp(-2 pi i t / n) for `t` in `ts`, computed in f64 with an exact integer reduction of
/// the angle (`t mod n`), as f64 pairs.
pub fn twiddles64(n: usize, ts: impl Iterator<Item = usize>) -> Vec<[f64; 2]> {
    ts.map(|t| {
        let t = t % n.max(1);
        let a = -2.0 * std::f64::consts::PI * (t as f64) / (n as f64);
        [a.cos(), a.sin()]
    })
    .collect()
}

/// [`twiddles64`] rounded once to f32 pairs.
pub fn twiddles(n: usize, ts: impl Iterator<Item = usize>) -> Vec<[f32; 2]> {
    twiddles64(n, ts)
        .into_iter()
        .map(|[c, s]| [c as f32, s as f32])
        .collect()
}

/// The chirp exp(sgn * -pi i j^2 / n) for j < n, with j^2 reduced modulo 2n exactly.
pub fn chirp(n: usize, sgn: f64) -> Vec<[f64; 2]> {
    let m = 2 * n as u128;
    (0..n)
        .map(|j| {
            let k = (j as u128 * j as u128) % m;
            let a = -sgn * std::f64::consts::PI * (k as f64) / (n as f64);
            [a.cos(), a.sin()]
        })
        .collect()
}

fn indent(code: &str, spaces: usize) -> String {
    let pad = " ".repeat(spaces);
    code.lines()
        .map(|l| format!("{pad}{l}\n"))
        .collect::<String>()
        .trim_end_matches('\n')
        .to_string()
}

/// Workgroup-memory slots of one padded sub-sequence of `r` values.
pub fn line_slots(r: u32) -> u32 {
    r + r / 32 + 1
}

/// Workgroup-memory bytes of a pass of radix `r` holding `group` sub-sequences (values and
/// four u32 of line data per sub-sequence).
pub fn workgroup_bytes(r: u32, group: u32) -> u32 {
    group * (line_slots(r) * 8 + 16)
}

/// Largest `ns R` whose outer twiddles may be computed ([`FftPass::computed_twiddles`]).
pub const COMPUTED_TWIDDLES_MAX: u64 = 1 << 25;

/// Most sub-sequences one workgroup holds.
pub const MAX_GROUP: u32 = 256;

/// `outer_tw(m)` from two tables (`m = hi * 2^shift + lo`).
const OUTER_TW_TABLES: &str = "    let lo = tw[p.tw_lo + (m & ((1u << p.tw_shift) - 1u))];
    let hi = tw[p.tw_hi + (m >> p.tw_shift)];
    return twid(cmul(lo, hi));";

/// `outer_tw(m)` computed ([`FftPass::computed_twiddles`], `twiddle_of` in
/// `fft_common.wgsl`).
const OUTER_TW_COMPUTED: &str =
    "    return twid(twiddle_of(m, p.ns * R, p.tw_q, p.tw_ch, p.tw_cl));";

/// The body of `inner_tw(t)`, exp(-2 pi i t / R): from the table, or computed with the
/// constants of `R` folded in.
fn inner_twiddle_body(pass: &FftPass) -> String {
    if pass.computed_inner {
        let (q4, ch, cl) = twiddle_constants(u64::from(pass.radix()));
        format!("    return twid(twiddle_of(t, R, {q4:?}f, {ch:?}f, {cl:?}f));")
    } else {
        "    return twid(tw[p.tw_inner + t]);".to_string()
    }
}

/// The constants of computed twiddles of an `big`-point transform: 4 / N, and pi / (2 N)
/// as the sum of two f32.
pub fn twiddle_constants(big: u64) -> (f32, f32, f32) {
    let c = std::f64::consts::FRAC_PI_2 / big as f64;
    let ch = c as f32;
    ((4.0 / big as f64) as f32, ch, (c - f64::from(ch)) as f32)
}

/// The WGSL of one pass.
pub fn generate(pass: &FftPass) -> String {
    if pass.double && (pass.computed_twiddles || pass.computed_inner || pass.baked.is_some()) {
        // Computed twiddles are f32 polynomials and baked floats f32 literals: a double pass
        // reads its tables and its uniform block.
        return generate(&FftPass {
            computed_twiddles: false,
            computed_inner: false,
            baked: None,
            ..pass.clone()
        });
    }
    let r = pass.radix();
    let c = pass.group;
    let wg = pass.workgroup;
    let src_t = if pass.load == LoadKind::Real {
        "f32"
    } else {
        "vec2<f32>"
    };
    let dst_t = if pass.store_real { "f32" } else { "vec2<f32>" };
    let addr_in = "base + i * p.in_stride";
    // The raw read (`fetch`) and what makes it ready (`fix`), apart so that register passes
    // can prefetch the next tile's values without waiting for them.
    let (fetch, mut fix) = match pass.load {
        LoadKind::Complex => (
            format!("let i = idx;\nif (i < p.in_len) {{\n    v = src[{addr_in}];\n}}"),
            "v.y = v.y * p.conj_in;".to_string(),
        ),
        LoadKind::Real => (
            format!(
                "let i = idx;\nif (i < p.in_len) {{\n    v = vec2<f32>(src[{addr_in}], 0.0);\n}}"
            ),
            String::new(),
        ),
        LoadKind::Hermitian => (
            format!(
                "var i = idx;\nif (idx > p.nlog / 2u) {{\n    i = p.nlog - idx;\n}}\n\
                 if (i < p.in_len && idx < p.nlog) {{\n    v = src[{addr_in}];\n}}"
            ),
            "var cj = p.conj_in;\nif (idx > p.nlog / 2u) {\n    cj = -cj;\n}\nv.y = v.y * cj;"
                .to_string(),
        ),
    };
    if pass.load_mul {
        fix.push_str(
            "\nif (idx < p.nlog) {\n    v = cmul(v, aux[p.load_aux + idx]);\n} else {\n    v = vec2<f32>(0.0, 0.0);\n}",
        );
    }
    let mut store = String::new();
    if pass.store_mul {
        store.push_str("v = cmul(v, aux[p.store_aux + idx]);\n");
    }
    if pass.real_dc {
        store.push_str("if (idx == 0u || 2u * idx == p.dc_n) {\n    v.y = p.dc_imag;\n}\n");
    }
    let addr_out = "base + idx * p.out_stride";
    if pass.store_real {
        let _ = write!(store, "dst[{addr_out}] = v.x;");
    } else {
        let _ = write!(store, "dst[{addr_out}] = v;");
    }
    let split = if pass.batch_fast {
        "let b = jj % p.lines;\nlet jw = jj / p.lines;"
    } else {
        "let b = jj / p.l;\nlet jw = jj % p.l;"
    };
    const LINES: &str = "for (var c = t; c < C; c += WG) {\n    lines[c] = line_of(g0 * C + c);\n}\nworkgroupBarrier();\n";
    let (template, body) = match pass.body {
        PassBody::Shared => (STOCKHAM, format!("{LINES}{}", shared_body(pass))),
        PassBody::Register if pass.tiles > 1 => (STOCKHAM, pipelined_body(pass)),
        PassBody::Register => (STOCKHAM, format!("{LINES}{}", register_body(pass, false))),
        PassBody::Lanes { .. } => (LANES, lanes_body(pass)),
    };
    let (lanes, span) = lane_geometry(pass.body, &pass.radices);
    let (builtins, index) = if lanes > 1 {
        (
            "@builtin(subgroup_id) sid: u32, @builtin(subgroup_size) sgs: u32,\n        @builtin(subgroup_invocation_id) sli: u32",
            "let t = sid * sgs + sli;",
        )
    } else {
        ("@builtin(local_invocation_index) t: u32", "")
    };
    let register = pass.body == PassBody::Register;
    let wgsl = Template::new(format!("{COMMON}\n{template}"))
        .set("SRC_T", src_t)
        .set("DST_T", dst_t)
        .set("R", r)
        .set("C", c)
        .set("WG", wg)
        .set_if_held("G", lanes)
        .set_if_held("S", span)
        .set_if_held("LANE_BUILTINS", builtins)
        .set_if_held("LANE_INDEX", indent(index, 4))
        .set_if_held("LS", line_slots(r))
        .set_if_held("SM_T", if register { "f32" } else { "vec2<f32>" })
        .set_if_held("SM", (c * line_slots(r)).max(1))
        .set(
            "OUTER_TW",
            if pass.computed_twiddles {
                OUTER_TW_COMPUTED
            } else {
                OUTER_TW_TABLES
            },
        )
        .set("INNER_TW", inner_twiddle_body(pass))
        .set("FETCH", indent(&fetch, 4))
        .set("FIX", indent(&fix, 4))
        .set("STORE", indent(&store, 4))
        .set("SPLIT", indent(split, 8))
        .set("BODY", indent(&body, 4))
        .render();
    let wgsl = match &pass.baked {
        Some(words) => bake(&wgsl, words),
        None => wgsl,
    };
    if pass.double {
        // Every f32 of the single-precision pass (values, workgroup memory, tables, uniform
        // floats, conversions) read as f64; the constants are abstract and take either.
        wgsl.replace("f32", "f64")
    } else {
        wgsl
    }
}

/// `wgsl` with every read `p.FIELD` of the uniform block replaced by its value in `words`
/// (u32 literals, f32 literals that parse back to the same bits), but for
/// [`RUNTIME_FIELDS`].
fn bake(wgsl: &str, words: &[u32; PARAM_WORDS]) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(wgsl.len());
    let mut rest = wgsl;
    while let Some(at) = rest.find("p.") {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        let after = &tail[2..];
        let len = after.find(|c: char| !is_ident(c)).unwrap_or(after.len());
        let name = &after[..len];
        let field = PARAM_FIELDS.iter().position(|(f, _)| *f == name);
        match field {
            Some(i) if !out.ends_with(is_ident) && !RUNTIME_FIELDS.contains(&name) => {
                if PARAM_FIELDS[i].1 {
                    let _ = write!(out, "({:?}f)", f32::from_bits(words[i]));
                } else {
                    let _ = write!(out, "{}u", words[i]);
                }
            }
            _ => out.push_str(&tail[..2 + len]),
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// The workgroup-memory body: all values loaded into workgroup memory, each sub-pass reads
/// and writes it (any radices, butterflies as straight-line code from [`dft_code`]), the
/// outputs stored from it.
fn shared_body(pass: &FftPass) -> String {
    let r = pass.radix();
    let c = pass.group;
    let wg = pass.workgroup;
    let map = |r_fast: bool| {
        if r_fast {
            "let c = e / R;\nlet r = e % R;"
        } else {
            "let c = e % C;\nlet r = e / C;"
        }
    };
    // Sub-passes inside workgroup memory, unrolled over each thread's butterflies.
    let mut subs = String::from("let sg = p.sgn;\n");
    let mut nsp = 1u32;
    for &q in &pass.radices {
        let rq = r / q;
        let nb = c * rq;
        let cnt = nb.div_ceil(wg);
        let stride = r / (nsp * q);
        let guard = |i: u32| -> String {
            if (i + 1) * wg <= nb {
                "true".into()
            } else {
                format!("t + {}u < {nb}u", i * wg)
            }
        };
        subs.push_str("{\n");
        for i in 0..cnt {
            for s in 0..q {
                let _ = writeln!(subs, "    var x{i}_{s}: vec2<f32>;");
            }
            let _ = writeln!(
                subs,
                "    if ({}) {{\n        let bi = t + {}u;\n        let c = bi / {rq}u;\n        let jp = bi % {rq}u;\n        let k = jp % {nsp}u;",
                guard(i),
                i * wg
            );
            for s in 0..q {
                if s == 0 || nsp == 1 {
                    let _ = writeln!(subs, "        let y{s} = sm[ix(c, jp + {}u)];", s * rq);
                } else {
                    let _ = writeln!(
                        subs,
                        "        let y{s} = cmul(sm[ix(c, jp + {}u)], inner_tw(k * {}u));",
                        s * rq,
                        s * stride
                    );
                }
            }
            let ins: Vec<String> = (0..q).map(|s| format!("y{s}")).collect();
            let (code, outs) = dft_code(&ins, "d");
            let _ = writeln!(subs, "{}", indent(&code, 8));
            for (s, o) in outs.iter().enumerate() {
                let _ = writeln!(subs, "        x{i}_{s} = {o};");
            }
            subs.push_str("    }\n");
        }
        subs.push_str("    workgroupBarrier();\n");
        for i in 0..cnt {
            let _ = writeln!(
                subs,
                "    if ({}) {{\n        let bi = t + {}u;\n        let c = bi / {rq}u;\n        let jp = bi % {rq}u;\n        let k = jp % {nsp}u;\n        let ob = (jp / {nsp}u) * {}u + k;",
                guard(i),
                i * wg,
                nsp * q
            );
            for s in 0..q {
                let _ = writeln!(subs, "        sm[ix(c, ob + {}u)] = x{i}_{s};", s * nsp);
            }
            subs.push_str("    }\n");
        }
        subs.push_str("    workgroupBarrier();\n}\n");
        nsp *= q;
    }
    format!(
        "for (var e = t; e < C * R; e += WG) {{\n{}\n    sm[ix(c, r)] = load_value(c, r);\n}}\nworkgroupBarrier();\n{subs}for (var e = t; e < C * R; e += WG) {{\n{}\n    store_value(c, r, sm[ix(c, r)]);\n}}",
        indent(map(pass.load_r_fast), 4),
        indent(map(pass.store_r_fast), 4),
    )
}

/// Straight-line WGSL of a DFT of `inputs.len()` values (named WGSL expressions of type
/// `vec2<f32>`; any smooth size): new `let` bindings named from `tag`, and the names of the
/// outputs in natural order. The direction is `sg` (1 forward, -1 inverse), a WGSL `let`
/// the caller binds.
pub fn dft_code(inputs: &[String], tag: &str) -> (String, Vec<String>) {
    let mut code = String::new();
    let mut counter = 0usize;
    let outs = dft_rec(inputs, tag, &mut counter, &mut code);
    (code, outs)
}

/// Binds `expr` to a fresh `let` named from `tag` and returns the name.
fn bind(expr: String, tag: &str, counter: &mut usize, code: &mut String) -> String {
    *counter += 1;
    let name = format!("{tag}_{}", *counter);
    let _ = writeln!(code, "let {name} = {expr};");
    name
}

/// `x * exp(-2 pi i e / q)` (in the direction `sg`) as a WGSL expression, with the trivial
/// factors (1, -i, -1, i) as swaps and sign changes.
fn const_twiddle(x: &str, e: u32, q: u32) -> String {
    let e = e % q;
    if e == 0 {
        return x.to_string();
    }
    if (4 * e).is_multiple_of(q) {
        return match 4 * e / q {
            1 => format!("vec2<f32>({x}.y * sg, -{x}.x * sg)"),
            2 => format!("(-{x})"),
            _ => format!("vec2<f32>(-{x}.y * sg, {x}.x * sg)"),
        };
    }
    // Full f64 digits: an f32 pass rounds them once, a double pass ([`FftPass::double`])
    // keeps them.
    let [c, sn] = twiddles64(q as usize, std::iter::once(e as usize))[0];
    format!("cmul({x}, vec2<f32>({c:e}, {sn:e} * sg))")
}

fn dft_rec(x: &[String], tag: &str, counter: &mut usize, code: &mut String) -> Vec<String> {
    let q = x.len() as u32;
    match q {
        0 | 1 => x.to_vec(),
        2 => vec![
            bind(format!("{} + {}", x[0], x[1]), tag, counter, code),
            bind(format!("{} - {}", x[0], x[1]), tag, counter, code),
        ],
        4 => {
            let y0 = bind(format!("{} + {}", x[0], x[2]), tag, counter, code);
            let y1 = bind(format!("{} - {}", x[0], x[2]), tag, counter, code);
            let y2 = bind(format!("{} + {}", x[1], x[3]), tag, counter, code);
            let d = bind(format!("{} - {}", x[1], x[3]), tag, counter, code);
            let y3 = bind(const_twiddle(&d, 1, 4), tag, counter, code);
            vec![
                bind(format!("{y0} + {y2}"), tag, counter, code),
                bind(format!("{y1} + {y3}"), tag, counter, code),
                bind(format!("{y0} - {y2}"), tag, counter, code),
                bind(format!("{y1} - {y3}"), tag, counter, code),
            ]
        }
        3 | 5 | 7 => {
            // Direct DFT with constant factors.
            (0..q)
                .map(|k| {
                    let mut e = x[0].clone();
                    for (j, xj) in x.iter().enumerate().skip(1) {
                        e = format!("{e} + {}", const_twiddle(xj, (j as u32 * k) % q, q));
                    }
                    bind(e, tag, counter, code)
                })
                .collect()
        }
        _ => {
            // q = a * b (a = 4, 2 or the smallest odd factor): DFTs of size b over the a
            // interleaved sub-sequences, twiddles W_q^(n2 k1), DFTs of size a across them.
            let a = if q.is_multiple_of(4) {
                4
            } else if q.is_multiple_of(2) {
                2
            } else {
                [3u32, 5, 7]
                    .into_iter()
                    .find(|f| q.is_multiple_of(*f))
                    .unwrap_or(q)
            };
            let b = q / a;
            let mut cols: Vec<Vec<String>> = Vec::new();
            for n2 in 0..a {
                let sub: Vec<String> = (0..b).map(|n1| x[(a * n1 + n2) as usize].clone()).collect();
                let y = dft_rec(&sub, tag, counter, code);
                let y = y
                    .into_iter()
                    .enumerate()
                    .map(|(k1, v)| {
                        let e = n2 * k1 as u32;
                        if e.is_multiple_of(q) {
                            v
                        } else {
                            bind(const_twiddle(&v, e, q), tag, counter, code)
                        }
                    })
                    .collect();
                cols.push(y);
            }
            let mut out = vec![String::new(); q as usize];
            for k1 in 0..b {
                let across: Vec<String> = (0..a)
                    .map(|n2| cols[n2 as usize][k1 as usize].clone())
                    .collect();
                let z = dft_rec(&across, tag, counter, code);
                for (k2, v) in z.into_iter().enumerate() {
                    out[(k1 + b * k2 as u32) as usize] = v;
                }
            }
            out
        }
    }
}

/// The lanes body (see `shaders/fft_lanes.wgsl`): lane `g` of a sub-sequence loads values
/// `g + G m`, runs a straight-line `Q`-point DFT over them, twiddles output `k1` by
/// exp(-2 pi i g k1 / R), transposes blocks of `G` values across the `G` lanes by xor
/// shuffles (one stage per bit of `G`, each lane keeping the half of a pair whose index bit
/// matches its own and trading the other) and runs `G`-point DFTs over each block: lane `h`
/// stores outputs `h + G i + Q k2`.
fn lanes_body(pass: &FftPass) -> String {
    let q = pass.radices[0];
    let (g, span) = lane_geometry(pass.body, &pass.radices);
    let mut body = String::from("let sg = p.sgn;\n");
    for m in 0..q {
        let _ = writeln!(body, "let x{m} = load_line(ln, g + {}u);", m * g);
    }
    let ins: Vec<String> = (0..q).map(|m| format!("x{m}")).collect();
    let (code, outs) = dft_code(&ins, "a");
    body.push_str(&code);
    if g == 1 {
        for (k, o) in outs.iter().enumerate() {
            let _ = writeln!(body, "store_line(ln, {k}u, {o});");
        }
        return body;
    }
    if g > q {
        return body + &exchange_tail(pass, &outs);
    }
    // Block i, element e: output k1 = G i + e, twiddled by exp(-2 pi i g k1 / R).
    for (k1, o) in outs.iter().enumerate() {
        let (i, e) = (k1 as u32 / g, k1 as u32 % g);
        if k1 == 0 {
            let _ = writeln!(body, "var v{i}_{e} = {o};");
        } else {
            let _ = writeln!(body, "var v{i}_{e} = cmul({o}, inner_tw(g * {k1}u));");
        }
    }
    let mut bit = 1u32;
    while bit < g {
        let _ = writeln!(body, "{{\n    let hb = (g & {bit}u) != 0u;");
        for i in 0..q / g {
            for e0 in (0..g).filter(|e| e & bit == 0) {
                let e1 = e0 | bit;
                let _ = writeln!(
                    body,
                    "    {{\n        let r = subgroupShuffleXor(select(v{i}_{e1}, v{i}_{e0}, hb), {}u);\n        \
                     v{i}_{e0} = select(v{i}_{e0}, r, hb);\n        v{i}_{e1} = select(r, v{i}_{e1}, hb);\n    }}",
                    bit * (span / g)
                );
            }
        }
        body.push_str("}\n");
        bit *= 2;
    }
    for i in 0..q / g {
        let ins: Vec<String> = (0..g).map(|e| format!("v{i}_{e}")).collect();
        let (code, outs) = dft_code(&ins, &format!("b{i}"));
        body.push_str(&code);
        for (k2, o) in outs.iter().enumerate() {
            let _ = writeln!(body, "store_line(ln, g + {}u, {o});", g * i + q * k2 as u32);
        }
    }
    body
}

/// The end of a lanes body with more lanes than values per thread (`G > Q`): after the
/// twiddles, the `G`-point DFT across the lanes as log2 G radix-2 stages of xor shuffles
/// (decimation in frequency: a lane whose bit is clear keeps the sum, the other the
/// difference times exp(-2 pi i (g mod h) / 2h)), which leaves lane `g` with outputs
/// `k1 + Q bitrev(g)`.
fn exchange_tail(pass: &FftPass, outs: &[String]) -> String {
    let q = pass.radices[0];
    let (g, span) = lane_geometry(pass.body, &pass.radices);
    let r = q * g;
    let mut body = String::new();
    for (k1, o) in outs.iter().enumerate() {
        if k1 == 0 {
            let _ = writeln!(body, "var v{k1} = {o};");
        } else {
            let _ = writeln!(body, "var v{k1} = cmul({o}, inner_tw(g * {k1}u));");
        }
    }
    let mut h = g / 2;
    while h >= 1 {
        let _ = writeln!(
            body,
            "{{\n    let hb = (g & {h}u) != 0u;\n    let w = inner_tw((g % {h}u) * {}u);",
            r / (2 * h)
        );
        for k1 in 0..q {
            let _ = writeln!(
                body,
                "    {{\n        let o = subgroupShuffleXor(v{k1}, {}u);\n        v{k1} = select(v{k1} + o, cmul(o - v{k1}, w), hb);\n    }}",
                h * (span / g)
            );
        }
        body.push_str("}\n");
        h /= 2;
    }
    let bits = g.trailing_zeros();
    let _ = writeln!(body, "let rev = {q}u * (reverseBits(g) >> {}u);", 32 - bits);
    for k1 in 0..q {
        let _ = writeln!(body, "store_line(ln, rev + {k1}u, v{k1});");
    }
    body
}

/// The indices of butterfly `t + i * WG` of register sub-pass `si`: its sub-sequence `c`,
/// step `jp`, `k = jp % ns'` and output base `ob` (`ns'`: the product of the earlier
/// sub-radices).
fn butterfly_indices(pass: &FftPass, si: usize, i: u32) -> String {
    let r = pass.radix();
    let c = pass.group;
    let wg = pass.workgroup;
    let q = pass.radices[si];
    let nsp: u32 = pass.radices[..si].iter().product();
    let rq = r / q;
    let first = si == 0;
    let last = si + 1 == pass.radices.len();
    let c_fast = (first && !pass.load_r_fast) || (last && !pass.store_r_fast);
    let (cc, jp) = if c_fast {
        (format!("bi % {c}u"), format!("bi / {c}u"))
    } else {
        (format!("bi / {rq}u"), format!("bi % {rq}u"))
    };
    // Past the last butterfly (when WG does not divide them): a clamped duplicate of it,
    // whose stores are skipped.
    format!(
        "let bi = min(t + {}u, {}u);\nlet c = {cc};\nlet jp = {jp};\nlet k = jp % {nsp}u;\nlet ob = (jp / {nsp}u) * {}u + k;",
        i * wg,
        c * rq - 1,
        nsp * q
    )
}

/// A register pass over tiles in turn (`FftPass::tiles`): each thread fetches its
/// first-sub-pass values of the next tile into registers (`pf*`) before transforming the
/// current tile (`cur*`), so that the reads of one tile overlap the exchanges of the other.
fn pipelined_body(pass: &FftPass) -> String {
    let q = pass.radices[0];
    let rq = pass.radix() / q;
    let cnt = (pass.group * rq).div_ceil(pass.workgroup);
    let prefetch = |tile: &str| -> String {
        let mut code = String::new();
        for i in 0..cnt {
            let _ = writeln!(
                code,
                "{{\n{}\n    let ln = line_of({tile} * C + c);",
                indent(&butterfly_indices(pass, 0, i), 4)
            );
            for s in 0..q {
                let _ = writeln!(code, "    pf{i}_{s} = fetch_line(ln, jp + {}u);", s * rq);
            }
            code.push_str("}\n");
        }
        code
    };
    let mut decl = String::new();
    let mut take = String::new();
    for i in 0..cnt {
        for s in 0..q {
            let _ = writeln!(decl, "var pf{i}_{s} = vec2<f32>(0.0, 0.0);");
            let _ = writeln!(take, "let cur{i}_{s} = pf{i}_{s};");
        }
    }
    format!(
        "{decl}var tile = g0;\nif (tile * C < p.total) {{\n{}}}\nloop {{\n    if (tile * C >= p.total) {{\n        break;\n    }}\n    let next = tile + ng;\n{}    if (next * C < p.total) {{\n{}    }}\n{}\n    workgroupBarrier();\n    tile = next;\n}}",
        indent(&prefetch("tile"), 4),
        indent(&take, 4) + "\n",
        indent(&prefetch("next"), 8),
        indent(&register_body(pass, true), 4),
    )
}

/// The register body: thread `t` does butterflies `t + i * WG` of every sub-pass; the first
/// sub-pass reads global memory and the last writes it, straight from registers. Between
/// sub-passes the real parts go through workgroup memory (f32) first and the imaginary parts
/// after them, each read straight into the registers of the next sub-pass: half the
/// workgroup memory of the values, so that more workgroups fit on a multiprocessor (on the
/// H100, 1.3x faster 4096-point lines than whole complex values), for two more barriers.
fn register_body(pass: &FftPass, pipelined: bool) -> String {
    let r = pass.radix();
    let c = pass.group;
    let wg = pass.workgroup;
    let ns = pass.radices.len();
    let mut body = String::from("let sg = p.sgn;\n");
    // The previous sub-pass's workgroup-memory writes, with `@` for the component.
    let mut pending = String::new();
    let mut nsp = 1u32;
    for (si, &q) in pass.radices.iter().enumerate() {
        let rq = r / q;
        let cnt = (c * rq).div_ceil(wg);
        let stride = r / (nsp * q);
        let first = si == 0;
        let last = si + 1 == ns;
        let nb = c * rq;
        let map = |i: u32| butterfly_indices(pass, si, i);
        let guard = |i: u32| -> String {
            if (i + 1) * wg <= nb {
                String::new()
            } else {
                format!("if (t + {}u < {nb}u) ", i * wg)
            }
        };
        // One line of code per value `s` of each of this thread's butterflies `i`, each
        // butterfly in a block with its indices.
        let per_butterfly = |line: &dyn Fn(u32, u32) -> String| -> String {
            let mut code = String::new();
            for i in 0..cnt {
                let _ = writeln!(code, "{{\n{}", indent(&map(i), 4));
                for s in 0..q {
                    let _ = writeln!(code, "    {}", line(i, s));
                }
                code.push_str("}\n");
            }
            code
        };
        if !first {
            // Exchange: the previous sub-pass's outputs in, this one's inputs out, one
            // component at a time.
            for i in 0..cnt {
                for s in 0..q {
                    let _ = writeln!(body, "var e{si}_{i}_{s}: vec2<f32>;");
                }
            }
            for (pi, comp) in ["x", "y"].into_iter().enumerate() {
                if si > 1 || pi > 0 {
                    body.push_str("workgroupBarrier();\n");
                }
                body.push_str(&pending.replace('@', comp));
                body.push_str("workgroupBarrier();\n");
                body.push_str(&per_butterfly(&|i, s| {
                    format!("e{si}_{i}_{s}.{comp} = sm[ix(c, jp + {}u)];", s * rq)
                }));
            }
        }
        for i in 0..cnt {
            for s in 0..q {
                let _ = writeln!(body, "var x{si}_{i}_{s}: vec2<f32>;");
            }
            let _ = writeln!(body, "{{\n{}", indent(&map(i), 4));
            if first && pipelined {
                // This butterfly's sub-sequence, worked out once for its values.
                let _ = writeln!(body, "    let ln = line_of(tile * C + c);");
            }
            for s in 0..q {
                if first && pipelined {
                    let _ = writeln!(
                        body,
                        "    let y{s} = finish_line(ln, jp + {}u, cur{i}_{s});",
                        s * rq
                    );
                } else if first {
                    let _ = writeln!(body, "    let y{s} = load_value(c, jp + {}u);", s * rq);
                } else if s == 0 {
                    let _ = writeln!(body, "    let y0 = e{si}_{i}_0;");
                } else if pass.computed_inner {
                    // Twiddle s: computed for powers of two, else the product of its highest
                    // power of two and the rest (at most log2 q products deep): on the H100
                    // 1024 x 4096 0.0640 -> 0.0576 ms against computing each (the relative
                    // error at 2^20 1.8e-7 -> 2.1e-7; squaring powers of two as well, 0.0555
                    // but 3.8e-7).
                    let hb = 1u32 << (31 - s.leading_zeros());
                    if hb == s {
                        let _ = writeln!(body, "    let w{s} = inner_tw(k * {}u);", s * stride);
                    } else {
                        let _ = writeln!(body, "    let w{s} = cmul(w{hb}, w{});", s - hb);
                    }
                    let _ = writeln!(body, "    let y{s} = cmul(e{si}_{i}_{s}, w{s});");
                } else {
                    let _ = writeln!(
                        body,
                        "    let y{s} = cmul(e{si}_{i}_{s}, inner_tw(k * {}u));",
                        s * stride
                    );
                }
            }
            let ins: Vec<String> = (0..q).map(|s| format!("y{s}")).collect();
            let (code, outs) = dft_code(&ins, "d");
            let _ = writeln!(body, "{}", indent(&code, 4));
            for (s, o) in outs.iter().enumerate() {
                let _ = writeln!(body, "    x{si}_{i}_{s} = {o};");
            }
            if last {
                let line = match (pipelined, first) {
                    (true, true) => "ln",
                    (true, false) => "line_of(tile * C + c)",
                    (false, _) => "lines[c]",
                };
                let _ = writeln!(body, "    let lo = {line};");
                for s in 0..q {
                    let _ = writeln!(
                        body,
                        "    {}{{ store_line(lo, ob + {}u, x{si}_{i}_{s}); }}",
                        guard(i),
                        s * nsp
                    );
                }
            }
            body.push_str("}\n");
        }
        if !last {
            pending = per_butterfly(&|i, s| {
                format!(
                    "{}{{ sm[ix(c, ob + {}u)] = x{si}_{i}_{s}.@; }}",
                    guard(i),
                    s * nsp
                )
            });
        }
        nsp *= q;
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validate(wgsl: &str) {
        crate::naga_check::validate(wgsl, naga::valid::Capabilities::empty());
    }

    #[test]
    fn the_shift_kernel_validates() {
        validate(ROLL_WGSL);
    }

    /// Evaluates one term of [`dft_code`]'s output (a name, a trivial or a constant
    /// twiddle) over complex values in f64, the direction `sg`.
    fn eval_term(
        t: &str,
        vars: &std::collections::HashMap<String, (f64, f64)>,
        sg: f64,
    ) -> (f64, f64) {
        let get = |n: &str| *vars.get(n.trim()).unwrap_or_else(|| panic!("unbound {n}"));
        if let Some(x) = t.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
            let (a, b) = get(x);
            return (-a, -b);
        }
        if let Some(inner) = t.strip_prefix("cmul(").and_then(|r| r.strip_suffix(')')) {
            let (x, w) = inner.split_once(", vec2<f32>(").expect("cmul form");
            let w = w.strip_suffix(')').expect("constant");
            let (c, sn) = w.split_once(", ").expect("two parts");
            let c: f64 = c.parse().expect("cos");
            let sn: f64 = sn
                .strip_suffix(" * sg")
                .expect("sign")
                .parse()
                .expect("sin");
            let (a, b) = get(x);
            let sn = sn * sg;
            return (a * c - b * sn, a * sn + b * c);
        }
        if let Some(inner) = t
            .strip_prefix("vec2<f32>(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let (first, _) = inner.split_once(".y").expect("rotation");
            let neg = first.starts_with('-');
            let (a, b) = get(first.trim_start_matches('-'));
            // (x.y * sg, -x.x * sg) or (-x.y * sg, x.x * sg)
            return if neg {
                (-b * sg, a * sg)
            } else {
                (b * sg, -a * sg)
            };
        }
        get(t)
    }

    /// Runs [`dft_code`]'s straight-line code on the CPU.
    fn run_dft_code(x: &[(f64, f64)], sg: f64) -> Vec<(f64, f64)> {
        let names: Vec<String> = (0..x.len()).map(|i| format!("in{i}")).collect();
        let (code, outs) = dft_code(&names, "d");
        let mut vars: std::collections::HashMap<String, (f64, f64)> =
            names.iter().cloned().zip(x.iter().copied()).collect();
        for line in code.lines() {
            let line = line.trim().strip_prefix("let ").expect("a let");
            let (name, expr) = line.split_once(" = ").expect("binding");
            let expr = expr.strip_suffix(';').expect("semicolon");
            // Terms joined by top-level " + " / " - ".
            let mut acc = (0.0, 0.0);
            let mut sign = 1.0;
            let mut depth = 0i32;
            let mut start = 0;
            let bytes = expr.as_bytes();
            let mut i = 0;
            while i <= bytes.len() {
                let at_end = i == bytes.len();
                if !at_end {
                    match bytes[i] {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                }
                let op = !at_end
                    && depth == 0
                    && i + 3 <= bytes.len()
                    && (&expr[i..i + 3] == " + " || &expr[i..i + 3] == " - ");
                if at_end || op {
                    let (a, b) = eval_term(&expr[start..i], &vars, sg);
                    acc = (acc.0 + sign * a, acc.1 + sign * b);
                    if op {
                        sign = if &expr[i..i + 3] == " + " { 1.0 } else { -1.0 };
                        start = i + 3;
                        i += 3;
                        continue;
                    }
                }
                i += 1;
            }
            vars.insert(name.to_string(), acc);
        }
        outs.iter().map(|o| vars[o]).collect()
    }

    #[test]
    fn straight_line_butterflies_are_dfts() {
        for q in [1usize, 2, 3, 4, 5, 7, 8, 9, 12, 16, 25, 32, 49, 60] {
            let x: Vec<(f64, f64)> = (0..q)
                .map(|i| ((i as f64 * 0.37).sin() + 0.5, (i as f64 * 1.3).cos() - 0.25))
                .collect();
            for sg in [1.0, -1.0] {
                let got = run_dft_code(&x, sg);
                for (k, g) in got.iter().enumerate() {
                    let mut want = (0.0, 0.0);
                    for (j, v) in x.iter().enumerate() {
                        let a = -sg * 2.0 * std::f64::consts::PI * ((j * k) % q) as f64 / q as f64;
                        want.0 += v.0 * a.cos() - v.1 * a.sin();
                        want.1 += v.0 * a.sin() + v.1 * a.cos();
                    }
                    let err = (g.0 - want.0).hypot(g.1 - want.1);
                    assert!(
                        err < 1e-5 * q as f64,
                        "q={q} sg={sg} k={k}: {g:?} vs {want:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn schedules() {
        assert_eq!(schedule(1, 1024), Some(vec![1]));
        assert_eq!(schedule(1 << 20, 1024), Some(vec![1024, 1024]));
        assert_eq!(schedule(1 << 24, 1024).map(|v| v.len()), Some(3));
        assert_eq!(schedule(1000, 4096), Some(vec![1000]));
        assert_eq!(schedule(11, 4096), None);
        for n in [2usize, 12, 243, 4096, 1 << 16, 3 * 5 * 7 * 64] {
            let s = schedule(n, 256).unwrap();
            assert_eq!(s.iter().map(|&r| r as usize).product::<usize>(), n);
            assert!(s.iter().all(|&r| r <= 256));
        }
        assert_eq!(sub_radices(64), vec![8, 8]);
        assert_eq!(sub_radices(96), vec![8, 4, 3]);
        assert_eq!(sub_radices(1), Vec::<u32>::new());
        assert_eq!(register_radices(4096, 16), Some(vec![16, 16, 16]));
        assert_eq!(register_radices(2048, 16), Some(vec![16, 16, 8]));
        assert_eq!(register_radices(2048, 8), Some(vec![8, 8, 8, 4]));
        assert_eq!(register_radices(2, 16), Some(vec![2]));
        assert_eq!(register_radices(1, 16), None);
        assert_eq!(register_radices(96, 16), None);
        assert_eq!(register_radices(64, 3), None);
    }

    /// A pass of `radices` with each way of loading and storing: complex in and out
    /// (walking values fastest), real in (lines fastest), Hermitian in and real out with
    /// both aux products.
    fn io_variants(radices: &[u32], group: u32, workgroup: u32, body: PassBody) -> Vec<FftPass> {
        [
            (LoadKind::Complex, false, true),
            (LoadKind::Real, false, false),
            (LoadKind::Hermitian, true, true),
        ]
        .into_iter()
        .map(|(load, store_real, fast)| FftPass {
            radices: radices.to_vec(),
            group,
            workgroup,
            batch_fast: !fast,
            load_r_fast: fast,
            store_r_fast: !fast,
            load,
            load_mul: store_real,
            store_mul: !store_real,
            store_real,
            body,
            computed_twiddles: store_real,
            computed_inner: store_real,
            real_dc: !store_real,
            tiles: 1,
            baked: None,
            double: false,
        })
        .collect()
    }

    /// A uniform block with distinct values in every field (floats of both signs, one that
    /// needs all its digits, a negative zero).
    fn sample_params() -> FftParams {
        let mut p = FftParams {
            n: 4096,
            l: 16,
            ns: 256,
            lines: 3,
            total: 48,
            blo: 1,
            groups_x: 7,
            nlog: 4000,
            in_off: 11,
            in_stride: 1,
            in_shi: 4096,
            in_slo: 1,
            in_len: 4000,
            out_off: 13,
            out_stride: 1,
            out_shi: 4096,
            out_slo: 1,
            out_len: 4096,
            tw_inner: 2,
            tw_lo: 40,
            tw_hi: 104,
            tw_shift: 6,
            load_aux: 5,
            store_aux: 9,
            sgn: -1.0,
            scale: 1.0 / 4096.0,
            conj_in: -1.0,
            dc_n: 4096,
            dc_imag: -0.0,
            ..FftParams::default()
        };
        p.set_twiddle_constants(4096);
        p
    }

    #[test]
    fn baking_compiles_in_every_field_but_the_offsets() {
        let params = sample_params();
        let words = params.baked();
        let wgsl = "let a = p.n + p.nlog * p.ns; let o = p.in_off + p.out_off; \
                    let s = p.sgn * p.scale + p.dc_imag + p.tw_cl; let q = sp.n + p.l; \
                    let r = p.lines; let nn = p.nope;";
        let baked = bake(wgsl, &words);
        assert_eq!(
            baked,
            "let a = 4096u + 4000u * 256u; let o = p.in_off + p.out_off; \
             let s = (-1.0f) * (SCALEf) + (-0.0f) + (CLf); let q = sp.n + 16u; \
             let r = 3u; let nn = p.nope;"
                .replace("SCALE", &format!("{:?}", params.scale as f32))
                .replace("CL", &format!("{:?}", params.tw_cl)),
        );
        // Every float literal parses back to the same bits.
        for (i, (name, float)) in PARAM_FIELDS.iter().enumerate() {
            let got = bake(&format!("p.{name}"), &words);
            if RUNTIME_FIELDS.contains(name) {
                assert_eq!(got, format!("p.{name}"));
            } else if *float {
                let lit = got.trim_start_matches('(').trim_end_matches("f)");
                assert_eq!(lit.parse::<f32>().unwrap().to_bits(), words[i], "{name}");
            } else {
                assert_eq!(got, format!("{}u", words[i]), "{name}");
            }
        }
    }

    #[test]
    fn register_passes_validate() {
        for (r, group, workgroup) in [
            (4096, 1, 256),
            (2048, 2, 256),
            (64, 16, 64),
            (8, 64, 64),
            (32, 3, 5),
        ] {
            let radices = register_radices(r, 16).unwrap();
            for mut pass in io_variants(&radices, group, workgroup, PassBody::Register) {
                validate(&generate(&pass));
                pass.tiles = 4;
                validate(&generate(&pass));
                pass.baked = Some(sample_params().baked());
                validate(&generate(&pass));
                pass.double = true;
                validate(&generate(&pass));
            }
        }
    }

    #[test]
    fn lane_passes_validate() {
        let caps = naga::valid::Capabilities::SUBGROUP;
        for (q, g, span, workgroup) in [
            (32, 8, 32, 256),
            (16, 16, 32, 256),
            (16, 4, 8, 64),
            (64, 1, 1, 128),
            (4, 2, 2, 2),
            (24, 8, 8, 64),
            (8, 32, 32, 256),
            (2, 16, 32, 64),
        ] {
            let body = PassBody::Lanes { span };
            for pass in io_variants(&[q, g], workgroup / g, workgroup, body) {
                crate::naga_check::validate(&generate(&pass), caps);
            }
        }
    }

    /// Passes of `radices` for the switches of `row` (from [`switch_rows`]).
    fn pass_of(
        radices: &[u32],
        group: u32,
        workgroup: u32,
        body: PassBody,
        row: &[usize],
    ) -> FftPass {
        let on = |k: usize| row[k + 1] == 1;
        FftPass {
            radices: radices.to_vec(),
            group,
            workgroup,
            load: [LoadKind::Complex, LoadKind::Real, LoadKind::Hermitian][row[0]],
            batch_fast: on(0),
            load_r_fast: on(1),
            store_r_fast: on(2),
            load_mul: on(3),
            store_mul: on(4),
            store_real: on(5),
            computed_twiddles: on(6),
            computed_inner: on(7),
            real_dc: on(8),
            double: on(9),
            baked: on(10).then(|| sample_params().baked()),
            tiles: if on(11) { 4 } else { 1 },
            body,
        }
    }

    /// The switches of a pass (load kind, then 12 on/off choices in `pass_of`'s order) that
    /// the library's plan can set together (crates/kupfer/src/fft/plan.rs: lines walked
    /// fastest only when batches are not, computed twiddles and baked uniforms only in single
    /// precision (`generate` drops them from double passes), the
    /// real DC fix-up only on complex stores, several tiles a workgroup only for register
    /// passes), cut to a set holding every pair of values of two switches: the full product
    /// is 3 * 2^12 variants a pass shape, too many to validate for every shape.
    fn switch_rows(body: PassBody) -> Vec<Vec<usize>> {
        let mut candidates = vec![];
        for load in 0..3 {
            for bits in 0..1usize << 12 {
                let on = |k: usize| (bits >> k) & 1 == 1;
                let (batch_fast, load_r_fast, store_r_fast) = (on(0), on(1), on(2));
                let (store_real, computed_twiddles, computed_inner) = (on(5), on(6), on(7));
                let (real_dc, double, baked, tiles) = (on(8), on(9), on(10), on(11));
                if (batch_fast && (load_r_fast || store_r_fast))
                    || (double && (computed_twiddles || computed_inner || baked))
                    || (store_real && real_dc)
                    || (tiles && body != PassBody::Register)
                {
                    continue;
                }
                let mut row = vec![load];
                row.extend((0..12).map(|k| usize::from(on(k))));
                candidates.push(row);
            }
        }
        crate::naga_check::pairwise_cover(&candidates)
    }

    /// Every pair of pass switches (see [`switch_rows`]) on shared, register and lane passes
    /// of several shapes (the radix schedules, workgroup shapes and lane spans of the tests
    /// above).
    #[test]
    fn every_pair_of_pass_switches_validates() {
        let mut checked = 0;
        let shared = switch_rows(PassBody::Shared);
        for radices in [
            vec![],
            vec![8, 8, 2],
            vec![8, 4, 3, 5, 7],
            vec![16, 9],
            vec![25],
            vec![2],
        ] {
            for row in &shared {
                validate(&generate(&pass_of(&radices, 4, 64, PassBody::Shared, row)));
                checked += 1;
            }
        }
        let register = switch_rows(PassBody::Register);
        for (r, group, workgroup) in [(4096, 1, 256), (64, 16, 64), (32, 3, 5)] {
            let radices = register_radices(r, 16).unwrap();
            for row in &register {
                validate(&generate(&pass_of(
                    &radices,
                    group,
                    workgroup,
                    PassBody::Register,
                    row,
                )));
                checked += 1;
            }
        }
        for (q, g, span, workgroup) in [
            (32, 8, 32, 256),
            (16, 4, 8, 64),
            (24, 8, 8, 64),
            (2, 16, 32, 64),
        ] {
            let body = PassBody::Lanes { span };
            for row in &switch_rows(body) {
                let pass = pass_of(&[q, g], workgroup / g, workgroup, body, row);
                crate::naga_check::validate(&generate(&pass), naga::valid::Capabilities::SUBGROUP);
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn double_uniform_block_matches_the_wgsl_layout() {
        let pass = FftPass {
            double: true,
            ..io_variants(&[8], 4, 64, PassBody::Shared)[0].clone()
        };
        let module = naga::front::wgsl::parse_str(&generate(&pass)).expect("parses");
        let (members, span) = module
            .types
            .iter()
            .find_map(|(_, t)| match (&t.name, &t.inner) {
                (Some(n), naga::TypeInner::Struct { members, span }) if n == "Params" => {
                    Some((members.clone(), *span))
                }
                _ => None,
            })
            .expect("a Params struct");
        let params = FftParams {
            n: 7,
            store_aux: 11,
            sgn: -1.0,
            conj_in: 1.0,
            dc_n: 9,
            dc_imag: -0.0,
            scale: 1.0 / 3.0,
            ..FftParams::default()
        };
        let bytes = params.bytes_f64();
        assert_eq!(bytes.len(), span as usize);
        let at = |name: &str| {
            members
                .iter()
                .find(|m| m.name.as_deref() == Some(name))
                .unwrap_or_else(|| panic!("no field {name}"))
                .offset as usize
        };
        let u = |name: &str| u32::from_le_bytes(bytes[at(name)..at(name) + 4].try_into().unwrap());
        let f = |name: &str| f64::from_le_bytes(bytes[at(name)..at(name) + 8].try_into().unwrap());
        assert_eq!((u("n"), u("store_aux"), u("dc_n")), (7, 11, 9));
        assert_eq!((f("sgn"), f("conj_in"), f("scale")), (-1.0, 1.0, 1.0 / 3.0));
        assert!(f("dc_imag") == 0.0 && f("dc_imag").is_sign_negative());
    }

    #[test]
    fn passes_validate() {
        for radices in [
            vec![],
            vec![8, 8, 2],
            vec![8, 4, 3, 5, 7],
            vec![16, 9],
            vec![25],
            vec![49],
            vec![2],
        ] {
            for (load, store_real) in [
                (LoadKind::Complex, false),
                (LoadKind::Real, false),
                (LoadKind::Hermitian, true),
            ] {
                let pass = FftPass {
                    radices: radices.clone(),
                    group: 4,
                    workgroup: 64,
                    batch_fast: store_real,
                    load_r_fast: true,
                    store_r_fast: false,
                    load,
                    load_mul: store_real,
                    store_mul: !store_real,
                    store_real,
                    body: PassBody::Shared,
                    computed_twiddles: store_real,
                    computed_inner: !store_real,
                    real_dc: !store_real,
                    tiles: 1,
                    baked: None,
                    double: false,
                };
                validate(&generate(&pass));
                validate(&generate(&FftPass {
                    baked: Some(sample_params().baked()),
                    ..pass.clone()
                }));
                let double = generate(&FftPass {
                    double: true,
                    ..pass
                });
                assert!(!double.contains("f32"), "{double}");
                validate(&double);
            }
        }
    }
}
