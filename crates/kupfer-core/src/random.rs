//! Counter-based random numbers for generated kernels: the Philox4x32-10 bit generator, the
//! layout of its counters, the transforms of the distributions that run inside kernels
//! ([`RandomOp`], a [`crate::Node::Random`] leaf), and a CPU reference of all of them.
//!
//! # Bit generator
//!
//! Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
//! SC 2011) maps a 128-bit counter and a 64-bit key to 128 random bits in ten rounds of
//! multiplications and xors. The WGSL (`shaders/random.wgsl`) uses u32 arithmetic only — the
//! high half of a 32 x 32-bit product is assembled from 16-bit halves — so Vulkan, Metal, DX12
//! and WebGPU compute the same bits. [`philox4x32_10`] is the CPU reference; the tests check it
//! against the Random123 known-answer vectors.
//!
//! # Keys and counters
//!
//! - key = [`seed_key`]`(seed)`: the seed through SplitMix64 (Steele, Lea and Flood 2014), low
//!   word first. `Generator::spawn` derives each child's key from its parent's key and the
//!   child's number through SplitMix64 again.
//! - Every draw of a generator (one call of `random`, `normal`, ...) takes the generator's next
//!   64-bit draw number `d`; `jumped(j)` starts the draw numbers at `j * 2^48` above the
//!   parent's.
//! - Element `e` (the C-order index within the draw's shape) reads a stream of 32-bit words:
//!   word 0 is lane `e % 4` of the block at counter `(e / 4, 0, d_lo, d_hi)` — one Philox block
//!   serves four neighbouring elements, which is what makes the common draws bandwidth-bound —
//!   and words `4 (j - 1) + 1 ..= 4 j` are the block at counter `(e, j, d_lo, d_hi)` for
//!   `j >= 1` (the element's own blocks, for the transforms that need more words).
//!
//! A value therefore depends on the key, the draw number and the element index only: never on
//! how many other arrays were drawn in between, on the kernel that computes it, or on the GPU.
//! NumPy's own streams (PCG64, or its Philox4x64) are not reproduced.
//!
//! # Transforms
//!
//! - uniform float32: `(w0 >> 8) * 2^-24`, in [0, 1) (open (0, 1): `((w0 >> 9) + 1/2) 2^-23`);
//!   float64: `((w0 >> 5) * 2^26 + (w1 >> 6))
//!   * 2^-53` (NumPy's 53-bit construction).
//! - normal and exponential, default: the ziggurats of [`ziggurat`] (float32 normal: 16384
//!   layers, word 0 gives the layer and a signed 18-bit integer, `KUPFER_ZIG_NORMAL32=4096`
//!   or `8192` for fewer; float32 exponential: 256
//!   layers, the layer and a 24-bit integer: one exact multiply and an integer test; rejected
//!   draws continue on the element's own blocks 1..=17 with fenced arithmetic; float64: a
//!   52-bit integer from word 0 and the element's block 1, the slow path on blocks 2..=18):
//!   the same bits on every driver. The tables are a read-only storage buffer made once per
//!   device and bound to every kernel that draws ([`ziggurat::TABLE_BINDINGS`];
//!   `KUPFER_ZIG_TABLES=private` for per-thread module-scope arrays, [`ziggurat::TableSource`]).
//!   `normal(loc, scale)`: [`RandomOp::NormalAffine`], the product fenced.
//! - normal float32, the other forms (`KUPFER_RANDN`): Box–Muller on the pair of words of lanes
//!   `2 (e % 4 / 2)` and `+ 1` of the shared block: `u1 = ((w >> 8) + 1) 2^-24` in (0, 1], `u2` uniform, `sqrt(-2 ln u1)` times
//!   `cos(2 pi u2)` for even `e`, `sin` for odd `e`: one block gives four normals. float64:
//!   `u1` from words 0 and 1, `u2` from words 2 and 3, the cosine only. The float32 logarithm,
//!   sine and cosine are polynomials in `random.wgsl` (the angle's quadrant is taken from
//!   u2's bits, so there is no range-reduction error). Three forms ([`NormalForm`],
//!   `KUPFER_RANDN`): `lean` (plain polynomials, the fastest; a driver that
//!   contracts products into fused multiply-adds may differ from another by an ulp or a few),
//!   `accurate` (libm_f32's log and sine/cosine) and `fenced`, which fences every product
//!   that is added, so no driver can contract it, converts integers exactly, uses no division
//!   and corrects the driver's square root to the correctly rounded one by an exact integer
//!   test: its float32 normals are the same bits on every driver, those of the CPU emulation
//!   [`normal_pair_fenced`]. float64 (these forms): Box-Muller through the libm.
//! - choice with probabilities (`shaders/random_choice.wgsl`): with replacement, element
//!   `e`'s 53-bit integer uniform `U = (w0 >> 5) 2^26 + (w1 >> 6)` (words 0 and 1) is compared
//!   with the thresholds `ceil(cdf_i 2^53)` as pairs of u32 words: the index is NumPy's
//!   `cdf.searchsorted(U 2^-53, side='right')` exactly, in integer arithmetic on every
//!   adapter ([`choice_thresholds`] on the host in float64; [`choice_thresholds_f32`] for a
//!   device `p`, summed in an order fixed by its length). Without replacement, exponential
//!   races on fenced keys ([`choice_race_key`]).
//! - Philox's 32 x 32-bit products: on adapters with SHADER_INT64 both words of each come
//!   from one 64-bit multiply (`KUPFER_PHILOX=mulhi`: the high word from a 64-bit multiply and
//!   the low from a 32-bit one, for timing), elsewhere (WebGPU) the high word from an exact
//!   16-bit-halves form: the same bits.
//! - gamma, Poisson, binomial, von Mises, zipf and hypergeometric are written once
//!   (`shaders/random_float.wgsl`) for float32 and float64; float64 takes its uniforms from
//!   one 32-bit word each (`kp_unit_f64`: `(w + 1/2) 2^-32`) and its normals from Box–Muller
//!   on two words with the libm's log, sin and cos.
//! - gamma: Marsaglia–Tsang, two attempts per own block, at most 32 (then the mode-like
//!   candidate `d`; probability below 1e-41); shape < 1 boosted by `U^(1/a)` from word 0.
//!   float32: fenced Box-Muller normals, fenced test, log and exp, Newton reciprocals from
//!   integer guesses: the same bits on every driver ([`gamma::gamma_f32`]).
//! - Poisson: inversion of word 0 below lam = 10, Hörmann's PTRS above (32 attempts, then
//!   `floor(lam)`), with Loader's saddle-point log-probabilities.
//! - permutations of [0, n): element `e` is computed on its own: no sort, one kernel, and a
//!   prefix of it (choice without replacement) costs only its own elements. n <= 64: the rank
//!   of e's 64-bit key (words 0, 1 of the block at counter `(e, 2^32 - 3, d)`) among the n
//!   keys, ties by index — exactly uniform. Larger n: a keyed bijection of `e` (a four-round
//!   Feistel network on the smallest [0, 4^h) holding n, round keys from the block at counter
//!   `(0, 2^32 - 1, d)`, walked along its cycles until below n). A balanced Feistel network
//!   makes only even permutations, so a key bit first swaps positions 0 and 1: the parity is
//!   uniform; the law is not exactly uniform over all n! orderings (128 key bits cannot
//!   reach them), but passes the position, pair and parity tests in tests/random.rs.
//! - `permuted` along an axis: element `e` of a draw over rows of n is row `e / n`'s own
//!   permutation of `e % n`: the rank method over the keys of elements `(e / n) n + i`, or the
//!   walk keyed by the block at counter `(e / n, 2^32 - 2, d)`.
//! - Zipf (`random_float.wgsl`, float32 or float64): Devroye's rejection method, as NumPy,
//!   with `-log U` and `T - 1` through log1p / expm1; 64 attempts (each accepted with
//!   probability above 0.7), then 1.
//! - hypergeometric (`random_float.wgsl`): NumPy's split — urn draws (at most 9, each by
//!   Lemire's exact bounded integer; past 128 words a word is no longer rejected) when the
//!   sample or its complement is below 10, else Stadlober's HRUA on Loader's log-probabilities
//!   (128 attempts, each accepted with probability above 0.4, then the mode).
//! - float32 transforms of uniforms, quotients, Poisson, binomial, von Mises, zipf and
//!   hypergeometric, with deterministic arithmetic ([`RandomOp::Det`],
//!   [`transforms`], emulated in [`poisson`], [`binomial`], [`vonmises`], [`zipf`],
//!   [`hypergeometric`]): the same bits on every driver (`KUPFER_RANDDET=off`: the libm
//!   forms); their float64 forms likewise ([`transforms64`]; von Mises, zipf and
//!   hypergeometric emulated by [`vonmises::vonmises_f64`], [`zipf::zipf_f64`],
//!   [`hypergeometric::hypergeometric_f64`]: one attempt per block, two 53-bit words each).
//! - bounded integers in [0, r): Lemire's multiply-and-reject (unbiased), word 0 first, then up
//!   to 64 more words; past them (probability below 2^-65) the last candidate is kept.

use crate::dtype::DType;
use crate::error::{Error, Result};

pub mod binomial;
pub mod gamma;
pub mod hypergeometric;
pub mod poisson;
pub mod transforms;
pub mod transforms64;
pub mod vonmises;
pub mod ziggurat;
pub mod zipf;

/// The WGSL of the bit generator and the transforms (a library: kernels take the subset they
/// call with [`crate::libm::subset`]).
pub const RANDOM_WGSL: &str = include_str!("../../../shaders/random.wgsl");

/// The WGSL of the transforms written once for both precisions (`shaders/random_float.wgsl`,
/// float32 as written; [`random_source`] adds its float64 reading).
pub const RANDOM_FLOAT_WGSL: &str = include_str!("../../../shaders/random_float.wgsl");

/// The WGSL of the float32 distributions that every driver draws to the same bits
/// (`shaders/random_det.wgsl`; [`transforms`]).
pub const RANDOM_DET_WGSL: &str = include_str!("../../../shaders/random_det.wgsl");

/// The WGSL of the float64 transforms of uniforms that every driver draws to the same bits
/// (`shaders/random_det64.wgsl`; [`transforms64`]).
pub const RANDOM_DET64_WGSL: &str = include_str!("../../../shaders/random_det64.wgsl");

/// [`RANDOM_WGSL`], [`RANDOM_FLOAT_WGSL`] and its float64 form (every `f32` read as `f64`):
/// the source the random functions of a kernel are taken from.
pub fn random_source() -> &'static str {
    static SRC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SRC.get_or_init(|| {
        let f64_form = RANDOM_FLOAT_WGSL.replace("f32", "f64");
        format!(
            "{RANDOM_WGSL}\n{RANDOM_FLOAT_WGSL}\n{f64_form}\n{RANDOM_DET_WGSL}\n{RANDOM_DET64_WGSL}"
        )
    })
}

/// Whether `KUPFER_PHILOX=mulhi` asks for the Philox round that takes each product's high
/// word (`kp_mulhi`) and low word (a 32-bit multiply) separately on SHADER_INT64 adapters too,
/// instead of both from one 64-bit multiply (the same bits; for timing). Read once.
fn philox_round_mulhi() -> bool {
    static OLD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OLD.get_or_init(|| std::env::var("KUPFER_PHILOX").is_ok_and(|v| v == "mulhi"))
}

/// The WGSL of the random functions `functions` (and what they call in [`RANDOM_WGSL`]; the
/// libm functions they call are not included) for an adapter with (`int64`) or without 64-bit
/// integers: `kp_mulhi` is the 64-bit multiply's high word where there are, else its exact
/// 16-bit-halves form, and a Philox round takes each product's two words from one 64-bit
/// multiply where there are (the same bits either way). The ziggurat tables the functions
/// read come as [`ziggurat::table_source`] holds them (by default the declarations of the
/// storage buffers of [`ziggurat::TABLE_BINDINGS`], which the runtime binds; the workgroup
/// source, which needs the kernel to fill workgroup memory first, reads storage here: see
/// [`library_with`]). Empty when `functions` is.
pub fn library<'a>(functions: impl IntoIterator<Item = &'a str>, int64: bool) -> String {
    let tables = match ziggurat::table_source() {
        ziggurat::TableSource::Workgroup => ziggurat::TableSource::Storage,
        other => other,
    };
    library_with(functions, int64, tables)
}

/// [`library`] with the ziggurat tables read from `tables` (with
/// [`ziggurat::TableSource::Workgroup`], a kernel must call [`ziggurat::FILL`] where the
/// library defines it).
pub fn library_with<'a>(
    functions: impl IntoIterator<Item = &'a str>,
    int64: bool,
    tables: ziggurat::TableSource,
) -> String {
    let mulhi = if int64 {
        "kp_mulhi_u64"
    } else {
        "kp_mulhi_u16"
    };
    let round = if int64 && !philox_round_mulhi() {
        "kp_philox_round_u64"
    } else {
        "kp_philox_round_mulhi"
    };
    let mut roots: Vec<&str> = functions.into_iter().collect();
    if roots.is_empty() {
        return String::new();
    }
    roots.push(mulhi);
    roots.push(round);
    let mut src = crate::libm::subset(random_source(), roots);
    let tables = ziggurat::wgsl_tables_with(&src, tables);
    src.push_str(&tables);
    src.push_str(&format!(
        "fn kp_mulhi(a: u32, b: u32) -> u32 {{\n    return {mulhi}(a, b);\n}}\n\
         fn kp_philox_round(x: vec4<u32>, k: vec2<u32>) -> vec4<u32> {{\n    \
         return {round}(x, k);\n}}\n"
    ));
    src
}

/// The names in `src` that may be libm items (`kp_*` functions, `kpl*` helpers and `KPL*`
/// constants): the roots of the libm subset that random functions call.
pub fn libm_calls(src: &str) -> std::collections::BTreeSet<&str> {
    src.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("kp") || w.starts_with("KPL"))
        .collect()
}

/// The forms of the standard normal (`KUPFER_RANDN`): the ziggurat (the default), or
/// Box-Muller on the same words in one of three ways of evaluating the logarithm, square
/// root, sine and cosine (float32; float64 then takes Box-Muller through the libm).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormalForm {
    /// The default (`ziggurat`): Marsaglia and Tsang's ziggurat from the element's word 0
    /// ([`ziggurat`]; float32: 16384 layers, the layer from the word's low 14 bits and an
    /// odd signed integer below 2^18 from the other 18 (`KUPFER_ZIG_NORMAL32=4096`: 12 and
    /// 20); float64: 256 layers and 52 bits from word 0 and block 1): an exact
    /// integer-to-float conversion times a table value (the tables in a read-only storage
    /// buffer every thread shares, [`ziggurat::TableSource`]), accepted by an integer test
    /// (float32: all but 0.03% of tries; 4096 layers: 0.12%), with a fenced slow path on the
    /// element's own blocks. The same bits on every
    /// driver, those of [`ziggurat::normal_f32`] (float64: [`ziggurat::normal_f64`]); not a
    /// Box-Muller pair.
    Ziggurat,
    /// `fenced`: the lean form's polynomials with every product that is added fenced (no
    /// driver can contract it into a fused multiply-add), integers turned into floats by exact
    /// conversions, no division, and the driver's square root corrected to the correctly
    /// rounded one by an exact integer test. Its float32 normals are the same bits on every
    /// driver, those of the CPU emulation [`normal_pair_fenced`]: all 65536 of one seed's
    /// normals were identical on lavapipe and the H200. Slower: 0.186 ms for 2^26 draws on
    /// the H200 against the lean form's 0.122.
    Fenced,
    /// `accurate`: libm_f32's logarithm (with a division) and sine/cosine, the driver's sqrt
    /// (0.130 ms for 2^26 draws on the H200; 54931 of 65536 normals identical to lavapipe's,
    /// at most 3 ulp apart).
    Accurate,
    /// `lean`: a logarithm without division (f + f^2 S(f)), sine and cosine by an exact
    /// quadrant split, plain products and sums (a driver may contract them into fused
    /// multiply-adds or not) and the driver's sqrt (0.122 ms for 2^26 draws on the H200),
    /// within a few ulp of float64 Box-Muller; 54615 of 65536 normals were identical to
    /// lavapipe's, at most 3 ulp apart.
    Lean,
}

static NORMAL_FORM: std::sync::OnceLock<NormalForm> = std::sync::OnceLock::new();

/// The normal form of this process: the one [`set_normal_form`] chose, else the one the
/// environment variable `KUPFER_RANDN` asks for (`ziggurat`, the default; `lean`; `fenced`;
/// `accurate`), fixed at the first draw; wasm32 has no environment and takes the default
/// unless the page sets one.
pub fn normal_form() -> NormalForm {
    *NORMAL_FORM.get_or_init(|| match std::env::var("KUPFER_RANDN").as_deref() {
        Ok("accurate") => NormalForm::Accurate,
        Ok("fenced") => NormalForm::Fenced,
        Ok("lean") => NormalForm::Lean,
        _ => NormalForm::Ziggurat,
    })
}

/// The forms of the standard exponential (`KUPFER_RANDEXP`; float32 and float64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExponentialForm {
    /// The default (`ziggurat`): the 256-layer ziggurat of [`ziggurat::exponential_f32`]
    /// (float64: [`ziggurat::exponential_f64`]), the same bits on every driver.
    Ziggurat,
    /// `log`: `-log(U)` of the open uniform through the libm (a driver may contract the
    /// logarithm's polynomial differently from another).
    Log,
}

/// The exponential form of this process: the one [`set_exponential_form`] chose, else
/// `KUPFER_RANDEXP=log` for `-log(U)`, else the ziggurat; read once.
pub fn exponential_form() -> ExponentialForm {
    *EXPONENTIAL_FORM.get_or_init(|| match std::env::var("KUPFER_RANDEXP").as_deref() {
        Ok("log") => ExponentialForm::Log,
        _ => ExponentialForm::Ziggurat,
    })
}

static EXPONENTIAL_FORM: std::sync::OnceLock<ExponentialForm> = std::sync::OnceLock::new();

/// Chooses the exponential form for the whole process, before the first exponential is drawn
/// (as [`set_normal_form`]); returns the form in force when it was already fixed.
pub fn set_exponential_form(form: ExponentialForm) -> Result<(), ExponentialForm> {
    EXPONENTIAL_FORM.set(form).map_err(|_| exponential_form())
}

/// Chooses the normal form for the whole process, before the first normal is drawn (after
/// that the form is fixed, so that a seed keeps giving the same numbers): `Lean`, `Fenced`
/// or `Accurate` for Box-Muller normals instead of the default ziggurat's. Returns the form
/// in force when it was already fixed.
///
/// ```
/// use kupfer_core::random::{normal_form, set_normal_form, NormalForm};
/// let _ = set_normal_form(NormalForm::Fenced);
/// assert_eq!(normal_form(), NormalForm::Fenced);
/// ```
pub fn set_normal_form(form: NormalForm) -> Result<(), NormalForm> {
    NORMAL_FORM.set(form).map_err(|_| normal_form())
}

/// The float32 standard normal's WGSL functions (one element, four of a block) of the form
/// [`normal_form`] selects.
pub fn normal_f32_functions() -> (&'static str, &'static str) {
    match normal_form() {
        NormalForm::Fenced => ("kp_normal_fenced_f32", "kp_normal4_fenced_f32"),
        NormalForm::Accurate => ("kp_normal_f32", "kp_normal4_f32"),
        NormalForm::Lean => ("kp_normal_lean_f32", "kp_normal4_lean_f32"),
        NormalForm::Ziggurat => ("kp_normal_zig_f32", "kp_normal4_zig_f32"),
    }
}

/// The float64 standard normal's WGSL function: the ziggurat's in the default form, else
/// Box-Muller through the libm.
fn normal_f64_function() -> &'static str {
    if normal_form() == NormalForm::Ziggurat {
        "kp_normal_zig_f64"
    } else {
        "kp_normal_f64"
    }
}

/// A WGSL float literal as WGSL rounds it to float32 (through float64).
fn lit(v: f64) -> f32 {
    v as f32
}

/// `kp_ln_unit_fenced_f32` on the CPU (IEEE float32, no fused multiply-adds: what the fences
/// make every driver compute).
pub(crate) fn ln_unit_fenced(x: f32) -> f32 {
    let b = x.to_bits().wrapping_add(0x004a_fb0d);
    let k = f32::from_bits((b >> 23) | 0x4b00_0000) - 8_388_735.0;
    let f = f32::from_bits((b & 0x007f_ffff) + 0x3f35_04f3) - 1.0;
    let mut s = f * lit(0.087_337_240_576_744_08) + lit(-0.143_060_952_424_999_05);
    for c in [
        0.149_177_432_060_241_7,
        -0.165_706_828_236_579_9,
        0.199_621_081_352_233_9,
        -0.250_017_493_963_241_6,
        0.333_339_482_545_852_66,
        -0.499_999_910_593_032_84,
    ] {
        s = f * s + lit(c);
    }
    let lo = ((f * f) * s + f) + k * f32::from_bits(0x35bf_be8e);
    lo + k * f32::from_bits(0x3f31_7200)
}

/// `kp_sincos_turn24_fenced` on the CPU: (cos, sin) of 2 pi t / 2^24.
fn sincos_turn24_fenced(t: u32) -> [f32; 2] {
    let qq = t.wrapping_add(0x20_0000) >> 22;
    let r = t.wrapping_sub(qq << 22);
    let x =
        (f32::from_bits(r.wrapping_add(0x4b40_0000)) - 12_582_912.0) * lit(3.745_070_282_923_9e-7);
    let z = x * x;
    let sp = z * (z * lit(-0.000_195_154_483_662_918_2) + lit(0.008_332_162_164_151_669))
        - lit(0.166_666_552_424_430_85);
    let s = (x * z) * sp + x;
    let cp = z * (z * lit(2.443_328_594_381_455_3e-5) - lit(0.001_388_731_761_835_515_5))
        + lit(0.041_666_645_556_688_31);
    let c = (z * z) * cp + (1.0 - 0.5 * z);
    let odd = qq & 1 == 1;
    let (cs, sn) = if odd { (s, c) } else { (c, s) };
    let cs = cs.to_bits() ^ ((qq.wrapping_add(1) << 30) & 0x8000_0000);
    let sn = sn.to_bits() ^ ((qq << 30) & 0x8000_0000);
    [f32::from_bits(cs), f32::from_bits(sn)]
}

/// The fenced form's Box-Muller pair of the words `a` (u1) and `b` (u2) on the CPU: the
/// GPU's values bit for bit (see [`NormalForm::Fenced`]).
pub fn normal_pair_fenced(a: u32, b: u32) -> [f32; 2] {
    let u1 = ((a >> 8) + 1) as f32 * (1.0 / 16_777_216.0);
    let r = (-2.0 * ln_unit_fenced(u1)).sqrt();
    let [c, s] = sincos_turn24_fenced(b >> 8);
    [r * c, r * s]
}

/// What a [`crate::Node::Random`] leaf computes for its element. Its arguments are four u32
/// nodes — key low, key high, draw number low, draw number high — followed by the operation's
/// parameters ([`RandomOp::params`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RandomOp {
    /// The raw word 0 (u32).
    Bits,
    /// Uniform in [0, 1) (float32 or float64).
    Uniform,
    /// Uniform in the open interval (0, 1): `(k + 1/2) 2^-23` for a 23-bit `k` (float32),
    /// `(k + 1/2) 2^-52` for a 52-bit `k` (float64) — never 0 or 1, symmetric about 1/2.
    OpenUniform,
    /// Standard normal (float32 or float64).
    Normal,
    /// Standard exponential by the ziggurat (float32 or float64; [`ziggurat::exponential_f32`],
    /// [`ziggurat::exponential_f64`]).
    Exponential,
    /// `loc + scale Z` of the standard normal `Z` ([`RandomOp::Normal`]) with the product
    /// fenced (no driver contracts it into a fused multiply-add): two parameters loc and
    /// scale of the draw's float dtype.
    NormalAffine,
    /// `exp(loc + scale Z)` ([`RandomOp::NormalAffine`] through the fenced exponential:
    /// lognormal): two parameters loc and scale of the draw's float dtype.
    LogNormal,
    /// Unbiased integer in [0, r) as u32; one u32 parameter `r` (0 stands for 2^32).
    Bounded,
    /// Standard gamma (float32 or float64) of the parameter shape of the same dtype
    /// (Marsaglia–Tsang).
    Gamma,
    /// Poisson count as float32 or float64 of the parameter lam of the same dtype (inversion
    /// below 10, PTRS above).
    Poisson,
    /// Element `e` of a random permutation of [0, n) as u32; one u32 parameter `n` (a keyed
    /// Feistel bijection walked along its cycles: no sort, one kernel).
    Permute,
    /// Element `e % n` of an independent random permutation of [0, n) for each row `e / n`, as
    /// u32; one u32 parameter `n` (`permuted` along an axis).
    PermuteRows,
    /// Binomial count as float32 or float64 of the parameters n and p of the same dtype
    /// (inversion below n p = 10, BTRS above).
    Binomial,
    /// Von Mises angle around 0 as float32 or float64 of the parameter kappa of the same dtype
    /// (Best–Fisher).
    VonMises,
    /// Zipf count (float32 or float64, the parameter `a` of the same dtype; Devroye's
    /// rejection method as NumPy).
    Zipf,
    /// Hypergeometric count (float32 or float64) of the parameters good, bad and sample (of
    /// the same dtype): NumPy's urn draws for small samples, Stadlober's HRUA otherwise.
    Hypergeometric,
    /// A float32 distribution whose values are the same bits on every driver
    /// ([`transforms::Transform`]; its float32 parameters follow the stream words), or its
    /// float64 form where [`transforms::Transform::has_f64`] ([`transforms64`]; float64
    /// parameters).
    Det(transforms::Transform),
}

impl RandomOp {
    /// Number of parameter arguments after the four stream arguments.
    pub fn params(self) -> usize {
        match self {
            RandomOp::Bits
            | RandomOp::Uniform
            | RandomOp::OpenUniform
            | RandomOp::Normal
            | RandomOp::Exponential => 0,
            RandomOp::Bounded
            | RandomOp::Gamma
            | RandomOp::Poisson
            | RandomOp::Permute
            | RandomOp::PermuteRows
            | RandomOp::VonMises
            | RandomOp::Zipf => 1,
            RandomOp::Binomial | RandomOp::NormalAffine | RandomOp::LogNormal => 2,
            RandomOp::Hypergeometric => 3,
            RandomOp::Det(t) => t.params(),
        }
    }

    /// Checks that this op can produce `dtype`.
    pub fn check(self, dtype: DType) -> Result<()> {
        let ok = match self {
            RandomOp::Bits | RandomOp::Bounded | RandomOp::Permute | RandomOp::PermuteRows => {
                dtype == DType::U32
            }
            RandomOp::Gamma
            | RandomOp::Poisson
            | RandomOp::Binomial
            | RandomOp::VonMises
            | RandomOp::Uniform
            | RandomOp::OpenUniform
            | RandomOp::Normal
            | RandomOp::Exponential
            | RandomOp::NormalAffine
            | RandomOp::LogNormal
            | RandomOp::Zipf
            | RandomOp::Hypergeometric => matches!(dtype, DType::F32 | DType::F64),
            RandomOp::Det(t) => dtype == DType::F32 || (dtype == DType::F64 && t.has_f64()),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::unsupported(format!(
                "random {self:?} does not produce dtype {dtype}"
            )))
        }
    }

    /// How many storage bindings of ziggurat tables ([`ziggurat::TABLE_BINDINGS`]) a kernel
    /// drawing this op in `dtype` reads beside its own (0 or 1; 0 when its tables are
    /// per-thread arrays): launchers count them against the adapter's storage-buffer limit.
    pub fn table_bindings(self, dtype: DType) -> usize {
        type Counts = std::sync::Mutex<std::collections::HashMap<(RandomOp, DType), usize>>;
        static COUNTS: std::sync::OnceLock<Counts> = std::sync::OnceLock::new();
        let counts = COUNTS.get_or_init(Default::default);
        let lock = || counts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&c) = lock().get(&(self, dtype)) {
            return c;
        }
        let src = library(self.functions(dtype), false);
        let c = ziggurat::table_bindings_in(&src).count();
        lock().insert((self, dtype), c);
        c
    }

    /// The WGSL functions of [`RANDOM_WGSL`] an op of `dtype` calls (the kernel takes them
    /// and what they call with [`crate::libm::subset`]).
    pub fn functions(self, dtype: DType) -> [&'static str; 5] {
        let transform = match (self, dtype) {
            (RandomOp::Bits, _) => "kp_lane",
            (RandomOp::Uniform, DType::F64) => "kp_u01_f64",
            (RandomOp::Uniform, _) => {
                return [
                    "kp_rng_block0",
                    "kp_rng_block",
                    "kp_lane",
                    "kp_u01_f32",
                    "kp_u01x4_f32",
                ]
            }
            (RandomOp::OpenUniform, DType::F64) => "kp_u01_mid_f64",
            (RandomOp::OpenUniform, _) => {
                return [
                    "kp_rng_block0",
                    "kp_rng_block",
                    "kp_lane",
                    "kp_u01_mid_f32",
                    "kp_u01_midx4_f32",
                ]
            }
            (RandomOp::Normal, DType::F64) => normal_f64_function(),
            (RandomOp::Exponential, DType::F64) => "kp_exponential_zig_f64",
            (RandomOp::Normal, _) => {
                let (one, four) = normal_f32_functions();
                return ["kp_rng_block0", "kp_rng_block", "kp_lane", one, four];
            }
            (RandomOp::NormalAffine | RandomOp::LogNormal, DType::F64) => {
                return [
                    "kp_rng_block0",
                    "kp_rng_block",
                    "kp_lane",
                    normal_f64_function(),
                    if self == RandomOp::LogNormal {
                        "kp_lognormal_f64"
                    } else {
                        "kp_affine_f64"
                    },
                ]
            }
            (RandomOp::NormalAffine | RandomOp::LogNormal, _) => {
                return [
                    "kp_rng_block0",
                    "kp_rng_block",
                    "kp_lane",
                    normal_f32_functions().0,
                    if self == RandomOp::LogNormal {
                        "kp_lognormal_f32"
                    } else {
                        "kp_affine_f32"
                    },
                ]
            }
            (RandomOp::Exponential, _) => {
                return [
                    "kp_rng_block0",
                    "kp_rng_block",
                    "kp_lane",
                    "kp_exponential_zig_f32",
                    "kp_exponential4_zig_f32",
                ]
            }
            (RandomOp::Bounded, _) => "kp_bounded",
            (RandomOp::Gamma, DType::F64) if transforms::enabled() => "kp_gamma_det_f64",
            (RandomOp::Gamma, DType::F64) => "kp_gamma_f64",
            (RandomOp::Gamma, _) => "kp_gamma_f32",
            (RandomOp::Poisson, DType::F64) if transforms::enabled() => "kp_poisson_det_f64",
            (RandomOp::Poisson, DType::F64) => "kp_poisson_f64",
            (RandomOp::Poisson, _) => "kp_poisson_f32",
            (RandomOp::Permute, _) => "kp_permute",
            (RandomOp::PermuteRows, _) => "kp_permute_rows",
            (RandomOp::Binomial, DType::F64) if transforms::enabled() => "kp_binomial_det_f64",
            (RandomOp::Binomial, DType::F64) => "kp_binomial_f64",
            (RandomOp::Binomial, _) => "kp_binomial_f32",
            (RandomOp::VonMises, DType::F64) => "kp_vonmises_f64",
            (RandomOp::VonMises, _) => "kp_vonmises_f32",
            (RandomOp::Zipf, DType::F64) => "kp_zipf_f64",
            (RandomOp::Zipf, _) => "kp_zipf_f32",
            (RandomOp::Hypergeometric, DType::F64) => "kp_hypergeometric_f64",
            (RandomOp::Hypergeometric, _) => "kp_hypergeometric_f32",
            (RandomOp::Det(t), DType::F64) => {
                return [
                    "kp_rng_block0",
                    "kp_rng_block",
                    "kp_lane",
                    t.function_f64(),
                    "kp_d64_canon",
                ]
            }
            (RandomOp::Det(t), _) => t.function(),
        };
        [
            "kp_rng_block0",
            "kp_rng_block",
            "kp_lane",
            transform,
            transform,
        ]
    }

    /// The WGSL expression of the four values (a vec4) of the elements `e0 .. e0 + 4` (`e0` a
    /// multiple of 4) whose block 0 is `b`, under key `k` and draw `d`, for the float32 ops
    /// whose value comes from its words (the ziggurat's slow path from the element's own
    /// blocks too): a vectorised kernel computes them once per block. `None` for the others.
    pub fn block_wgsl(self, dtype: DType, k: &str, d: &str, e0: &str, b: &str) -> Option<String> {
        match (self, dtype) {
            (RandomOp::Bits, _) => Some(b.to_string()),
            (RandomOp::Uniform, DType::F32) => Some(format!("kp_u01x4_f32({b})")),
            (RandomOp::OpenUniform, DType::F32) => Some(format!("kp_u01_midx4_f32({b})")),
            (RandomOp::Normal, DType::F32) if normal_form() == NormalForm::Ziggurat => {
                Some(format!("kp_normal4_zig_f32({k}, {d}, {e0}, {b})"))
            }
            (RandomOp::Normal, DType::F32) => Some(format!("{}({b})", normal_f32_functions().1)),
            (RandomOp::Exponential, DType::F32) => {
                Some(format!("kp_exponential4_zig_f32({k}, {d}, {e0}, {b})"))
            }
            _ => None,
        }
    }

    /// The WGSL expression of element `e`'s value, given the key `k` and draw `d` (`vec2<u32>`
    /// expressions), its block 0 `b` (`vec4<u32>`), its lane in it (`lane`: a constant when the
    /// kernel knows it, else `e & 3u`) and the parameters' expressions.
    #[allow(clippy::too_many_arguments)]
    pub fn wgsl(
        self,
        dtype: DType,
        k: &str,
        d: &str,
        e: &str,
        b: &str,
        lane: Option<u32>,
        params: &[String],
    ) -> String {
        let word = |l: Option<u32>, plus: u32| match l {
            Some(l) => format!("{b}.{}", ["x", "y", "z", "w"][(l + plus) as usize]),
            None if plus == 0 => format!("kp_lane({b}, {e} & 3u)"),
            None => format!("kp_lane({b}, ({e} & 2u) + {plus}u)"),
        };
        let w0 = word(lane, 0);
        match (self, dtype) {
            (RandomOp::Bits, _) => w0,
            (RandomOp::Uniform, DType::F64) => {
                format!("kp_u01_f64({w0}, kp_rng_block({k}, {d}, {e}, 1u).x)")
            }
            (RandomOp::Uniform, _) => format!("kp_u01_f32({w0})"),
            (RandomOp::OpenUniform, DType::F64) => {
                format!("kp_u01_mid_f64({w0}, kp_rng_block({k}, {d}, {e}, 1u).x)")
            }
            (RandomOp::OpenUniform, _) => format!("kp_u01_mid_f32({w0})"),
            (RandomOp::Normal, DType::F64) if normal_form() == NormalForm::Ziggurat => {
                format!("kp_normal_zig_f64({k}, {d}, {e}, {w0})")
            }
            (RandomOp::Exponential, DType::F64) => {
                format!("kp_exponential_zig_f64({k}, {d}, {e}, {w0})")
            }
            (RandomOp::Normal, DType::F64) => {
                format!("kp_normal_f64({w0}, kp_rng_block({k}, {d}, {e}, 1u))")
            }
            (RandomOp::Normal, _) if normal_form() == NormalForm::Ziggurat => {
                format!("kp_normal_zig_f32({k}, {d}, {e}, {w0})")
            }
            (RandomOp::Exponential, _) => format!("kp_exponential_zig_f32({k}, {d}, {e}, {w0})"),
            (RandomOp::NormalAffine | RandomOp::LogNormal, _) => format!(
                "kp_{}_{}({}, {}, {})",
                if self == RandomOp::LogNormal {
                    "lognormal"
                } else {
                    "affine"
                },
                dtype.wgsl_value(),
                RandomOp::Normal.wgsl(dtype, k, d, e, b, lane, &[]),
                params[0],
                params[1]
            ),
            (RandomOp::Normal, _) => {
                // The pair (lanes 2 (e % 4 / 2) and + 1); even elements take the cosine.
                let (first, second, odd) = match lane {
                    Some(l) => (
                        word(Some(l & 2), 0),
                        word(Some(l & 2), 1),
                        (if l & 1 == 1 { "true" } else { "false" }).to_string(),
                    ),
                    None => (
                        format!("kp_lane({b}, {e} & 2u)"),
                        word(None, 1),
                        format!("(({e} & 1u) == 1u)"),
                    ),
                };
                format!("{}({first}, {second}, {odd})", normal_f32_functions().0)
            }
            (RandomOp::Bounded, _) => {
                format!("kp_bounded({k}, {d}, {e}, {w0}, {})", params[0])
            }
            (RandomOp::Gamma | RandomOp::Poisson, DType::F64) if transforms::enabled() => format!(
                "kp_{}_det_f64({k}, {d}, {e}, {w0}, {})",
                format!("{self:?}").to_lowercase(),
                params[0]
            ),
            (RandomOp::Gamma | RandomOp::Poisson | RandomOp::VonMises, _) => format!(
                "kp_{}_{}({k}, {d}, {e}, {w0}, {})",
                format!("{self:?}").to_lowercase(),
                dtype.wgsl_value(),
                params[0]
            ),
            (RandomOp::Permute, _) => format!("kp_permute({k}, {d}, {e}, {})", params[0]),
            (RandomOp::PermuteRows, _) => {
                format!("kp_permute_rows({k}, {d}, {e}, {})", params[0])
            }
            (RandomOp::Binomial, DType::F64) if transforms::enabled() => format!(
                "kp_binomial_det_f64({k}, {d}, {e}, {w0}, {}, {})",
                params[0], params[1]
            ),
            (RandomOp::Binomial, _) => format!(
                "kp_binomial_{}({k}, {d}, {e}, {w0}, {}, {})",
                dtype.wgsl_value(),
                params[0],
                params[1]
            ),
            (RandomOp::Zipf, _) => format!(
                "kp_zipf_{}({k}, {d}, {e}, {})",
                dtype.wgsl_value(),
                params[0]
            ),
            (RandomOp::Hypergeometric, _) => format!(
                "kp_hypergeometric_{}({k}, {d}, {e}, {}, {}, {})",
                dtype.wgsl_value(),
                params[0],
                params[1],
                params[2]
            ),
            (RandomOp::Det(t), DType::F64) => t.wgsl_f64(k, d, e, &w0, params),
            (RandomOp::Det(t), _) => t.wgsl(k, d, e, &w0, params),
        }
    }
}

/// Philox4x32-10 of `counter` under `key` (the CPU reference of `kp_philox`).
///
/// ```
/// // Random123's known-answer vector for the zero counter and key.
/// let out = kupfer_core::random::philox4x32_10([0; 4], [0; 2]);
/// assert_eq!(out, [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
/// ```
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    const M0: u64 = 0xD251_1F53;
    const M1: u64 = 0xCD9E_8D57;
    let mut x = counter;
    let mut k = key;
    for _ in 0..10 {
        let p0 = M0 * u64::from(x[0]);
        let p1 = M1 * u64::from(x[2]);
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ k[1],
            p0 as u32,
        ];
        k = [
            k[0].wrapping_add(0x9E37_79B9),
            k[1].wrapping_add(0xBB67_AE85),
        ];
    }
    x
}

/// SplitMix64's output function of state `x + golden gamma` (one step from state `x`).
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The Philox key of a seed: SplitMix64 of the seed, low word first.
pub fn seed_key(seed: u64) -> [u32; 2] {
    let z = splitmix64(seed);
    [z as u32, (z >> 32) as u32]
}

/// The key of child `n` spawned from a generator with key `key`.
pub fn child_key(key: [u32; 2], n: u64) -> [u32; 2] {
    let parent = u64::from(key[0]) | (u64::from(key[1]) << 32);
    let z = splitmix64(splitmix64(parent) ^ splitmix64(n.wrapping_add(0x5EED)));
    [z as u32, (z >> 32) as u32]
}

/// Word `k` of element `e`'s stream in draw `draw` (see the module docs for the layout).
pub fn stream_word(key: [u32; 2], draw: u64, e: u32, k: u32) -> u32 {
    let (dl, dh) = (draw as u32, (draw >> 32) as u32);
    if k == 0 {
        philox4x32_10([e >> 2, 0, dl, dh], key)[(e & 3) as usize]
    } else {
        let j = (k - 1) / 4 + 1;
        philox4x32_10([e, j, dl, dh], key)[((k - 1) % 4) as usize]
    }
}

/// The float32 uniform of a word (the reference of `kp_u01_f32`).
pub fn u01_f32(w: u32) -> f32 {
    (w >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// The float64 uniform of two words (the reference of `kp_u01_f64`).
pub fn u01_f64(a: u32, b: u32) -> f64 {
    ((a >> 5) as f64 * 67_108_864.0 + (b >> 6) as f64) * (1.0 / 9_007_199_254_740_992.0)
}

/// The reference value of element `e` of a draw of `op` (float results as f64; `param` is
/// [`RandomOp::Bounded`]'s `r`). Normals are computed in f64 and differ from the GPU's
/// float32 by rounding only.
pub fn reference(op: RandomOp, dtype: DType, key: [u32; 2], draw: u64, e: u32, param: u32) -> f64 {
    let w = |k: u32| stream_word(key, draw, e, k);
    match (op, dtype) {
        (RandomOp::Bits, _) => f64::from(w(0)),
        (RandomOp::Uniform, DType::F64) => u01_f64(w(0), w(1)),
        (RandomOp::Uniform, _) => f64::from(u01_f32(w(0))),
        (RandomOp::OpenUniform, DType::F64) => {
            ((w(0) >> 6) as f64 * 67_108_864.0 + (w(1) >> 6) as f64 + 0.5)
                * (1.0 / 4_503_599_627_370_496.0)
        }
        (RandomOp::OpenUniform, _) => ((w(0) >> 9) as f64 + 0.5) * (1.0 / 8_388_608.0),
        (RandomOp::Normal, DType::F64) if normal_form() == NormalForm::Ziggurat => {
            ziggurat::normal_f64(key, draw, e)
        }
        (RandomOp::Exponential, DType::F64) => ziggurat::exponential_f64(key, draw, e),
        (RandomOp::Normal, DType::F64) => {
            let u1 = 1.0 - u01_f64(w(0), w(1));
            let u2 = u01_f64(w(2), w(3));
            (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        }
        (RandomOp::Normal, _) if normal_form() == NormalForm::Ziggurat => {
            f64::from(ziggurat::normal_f32(key, draw, e))
        }
        (RandomOp::Exponential, _) => f64::from(ziggurat::exponential_f32(key, draw, e)),
        // Its parameters are floats: the tests compose it from the normal's reference.
        (RandomOp::NormalAffine | RandomOp::LogNormal, _) => f64::NAN,
        (RandomOp::Normal, _) => {
            let pair = e & !1;
            let a = stream_word(key, draw, pair, 0);
            let b = stream_word(key, draw, pair + 1, 0);
            let u1 = f64::from(((a >> 8) + 1) as f32 * (1.0 / 16_777_216.0));
            let u2 = f64::from(u01_f32(b));
            let t = std::f64::consts::TAU * u2;
            let r = (-2.0 * u1.ln()).sqrt();
            if e & 1 == 1 {
                r * t.sin()
            } else {
                r * t.cos()
            }
        }
        (RandomOp::Bounded, _) => f64::from(bounded(w, param)),
        // The rejection samplers are checked statistically, not against a reference.
        (
            RandomOp::Gamma
            | RandomOp::Poisson
            | RandomOp::Binomial
            | RandomOp::VonMises
            | RandomOp::Zipf
            | RandomOp::Hypergeometric,
            _,
        ) => f64::NAN,
        // Float parameters: transforms::Transform::value is their reference.
        (RandomOp::Det(_), _) => f64::NAN,
        (RandomOp::Permute, _) => f64::from(permute(key, draw, e, param)),
        (RandomOp::PermuteRows, _) => f64::from(permute_rows(key, draw, e, param)),
    }
}

/// Lemire's bounded integer in [0, r) from a word stream (the reference of `kp_bounded`).
pub fn bounded(mut word: impl FnMut(u32) -> u32, r: u32) -> u32 {
    if r == 0 {
        return word(0);
    }
    let t = r.wrapping_neg() % r;
    let mut w = 0;
    for k in 0..65 {
        w = word(k);
        if w.wrapping_mul(r) >= t {
            break;
        }
    }
    ((u64::from(w) * u64::from(r)) >> 32) as u32
}

fn mix32(x: u32) -> u32 {
    let mut h = x;
    h = (h ^ (h >> 16)).wrapping_mul(0x7feb_352d);
    h = (h ^ (h >> 15)).wrapping_mul(0x846c_a68b);
    h ^ (h >> 16)
}

/// Permutations of [0, n) up to this size rank random 64-bit keys (`KP_RANK_MAX`).
pub const RANK_MAX: u32 = 64;

/// Element `e` of the random permutation of [0, n) of draw `draw` (the reference of
/// `kp_permute`; see the module docs).
pub fn permute(key: [u32; 2], draw: u64, e: u32, n: u32) -> u32 {
    if n <= RANK_MAX {
        return permute_rank(key, draw, 0, e, n);
    }
    let rk = philox4x32_10([0, u32::MAX, draw as u32, (draw >> 32) as u32], key);
    cycle_walk(rk, e, n)
}

/// Element `e` of a draw of one random permutation of [0, n) per row of n elements (the
/// reference of `kp_permute_rows`).
pub fn permute_rows(key: [u32; 2], draw: u64, e: u32, n: u32) -> u32 {
    let row = e / n.max(1);
    let j = e - row * n;
    if n <= RANK_MAX {
        return permute_rank(key, draw, row * n, j, n);
    }
    let rk = philox4x32_10([row, u32::MAX - 1, draw as u32, (draw >> 32) as u32], key);
    cycle_walk(rk, j, n)
}

/// The rank of element `j`'s 64-bit key among elements `0..n` (the reference of
/// `kp_permute_rank`).
fn permute_rank(key: [u32; 2], draw: u64, base: u32, j: u32, n: u32) -> u32 {
    let k = |i: u32| {
        let b = philox4x32_10(
            [base + i, u32::MAX - 2, draw as u32, (draw >> 32) as u32],
            key,
        );
        ((u64::from(b[0]) << 32) | u64::from(b[1]), i)
    };
    let kj = k(j);
    (0..n).filter(|&i| k(i) < kj).count() as u32
}

/// Element `j` of the Feistel permutation of [0, n) under round keys `rk`, positions 0 and 1
/// swapped first by a key bit, walked along its cycles (the reference of `kp_cycle_walk`).
fn cycle_walk(rk: [u32; 4], j: u32, n: u32) -> u32 {
    if n <= 1 {
        return 0;
    }
    let bits = 32 - (n - 1).leading_zeros();
    let h = bits.div_ceil(2);
    let mask = (1u32 << h) - 1;
    let mut x = if j < 2 && mix32(rk[0] ^ rk[3]) & 1 == 1 {
        j ^ 1
    } else {
        j
    };
    for _ in 0..512 {
        let (mut l, mut r) = (x >> h, x & mask);
        for k in rk {
            let t = l ^ (mix32(r ^ k) & mask);
            l = r;
            r = t;
        }
        x = (l << h) | r;
        if x < n {
            break;
        }
    }
    x
}

/// The WGSL of `choice` with probabilities (`shaders/random_choice.wgsl`): the exact integer
/// inversion of the cumulative distribution and the fenced race keys.
pub const RANDOM_CHOICE_WGSL: &str = include_str!("../../../shaders/random_choice.wgsl");

/// The complete module of `choice` with probabilities for an adapter with (`int64`) or
/// without 64-bit integers: the bit generator, libm_f32's fence and
/// [`RANDOM_CHOICE_WGSL`] (entry points `chunk_totals`, `cumulate`, `thresholds`, `draw` and
/// `race_keys`).
pub fn choice_wgsl(int64: bool) -> String {
    let mut src = library(["kp_rng_block0", "kp_rng_block", "kp_lane"], int64);
    src.push_str(&crate::libm::subset(
        crate::libm::f32_library(),
        ["kpl32_opq"],
    ));
    src.push_str(RANDOM_CHOICE_WGSL);
    src
}

/// Thresholds are integers in [0, 2^53]: `ceil(cdf 2^53)`.
const CHOICE_ONE: u64 = 1 << 53;

/// The thresholds `ceil(cdf_i 2^53)` of host probabilities `p` (as `(high, low)` words), the
/// cumulative sum taken in float64 in index order and divided by its last entry, as NumPy's
/// `choice` does: an index drawn by [`choice_index`] is NumPy's
/// `cdf.searchsorted(U 2^-53, side='right')` for the 53-bit uniform `U` exactly.
pub fn choice_thresholds(p: &[f64]) -> Vec<[u32; 2]> {
    let mut cdf = Vec::with_capacity(p.len());
    let mut s = 0.0f64;
    for &q in p {
        s += q;
        cdf.push(s);
    }
    let total = s;
    cdf.iter()
        .map(|&c| split_words((c / total * CHOICE_ONE as f64).ceil() as u64))
        .collect()
}

fn split_words(t: u64) -> [u32; 2] {
    [(t >> 32) as u32, t as u32]
}

/// The elements per chunk of a device `p`'s cumulative sum (`cumulate`): a power of two of
/// at least 64 and about sqrt(n), so that no thread adds more than about 2 sqrt(n) terms. The
/// order of every addition depends on `n` alone.
pub fn choice_chunk(n: usize) -> usize {
    ((n as f64).sqrt().ceil() as usize)
        .next_power_of_two()
        .max(64)
}

/// The thresholds a device float32 `p` gets (the reference of `chunk_totals`, `cumulate` and
/// `thresholds`): float32 cumulative sums in [`choice_chunk`]'s order, then the exact
/// `ceil(cdf_i / total 2^53)`.
pub fn choice_thresholds_f32(p: &[f32]) -> Vec<[u32; 2]> {
    let n = p.len();
    let chunk = choice_chunk(n);
    let mut sums = Vec::with_capacity(n);
    let mut offset = 0.0f32;
    for part in p.chunks(chunk) {
        let mut r = 0.0f32;
        for &q in part {
            r += q;
            sums.push(offset + r);
        }
        offset += part.iter().fold(0.0f32, |a, &q| a + q);
    }
    let Some(&total) = sums.last() else {
        return Vec::new();
    };
    sums.iter()
        .map(|&x| split_words(fixed53(x, total)))
        .collect()
}

/// `ceil(x / t 2^53)` exactly for 0 <= x <= t, t > 0 (0 where either is 0).
fn fixed53(x: f32, t: f32) -> u64 {
    let parts = |v: f32| {
        let b = v.to_bits();
        let e = b >> 23;
        let s = if e == 0 {
            b & 0x7f_ffff
        } else {
            (b & 0x7f_ffff) | 0x80_0000
        };
        (u128::from(s), i32::try_from(e.max(1)).unwrap_or(1))
    };
    let ((xs, xe), (ts, te)) = (parts(x), parts(t));
    if xs == 0 || ts == 0 {
        return 0;
    }
    let s = xe - te + 53;
    if s < 0 {
        return 1;
    }
    let num = xs << s.min(100);
    (num.div_ceil(ts)) as u64
}

/// The 53-bit integer uniform of element `e` of draw `draw`: `(w0 >> 5) 2^26 + (w1 >> 6)` of
/// its words 0 and 1 (the integer behind [`u01_f64`]).
pub fn choice_uniform53(key: [u32; 2], draw: u64, e: u32) -> u64 {
    let w0 = stream_word(key, draw, e, 0);
    let w1 = stream_word(key, draw, e, 1);
    (u64::from(w0 >> 5) << 26) | u64::from(w1 >> 6)
}

/// Element `e`'s index of a draw with replacement (the reference of `draw` in
/// `random_choice.wgsl`): how many thresholds are at most its 53-bit uniform, at most n - 1.
pub fn choice_index(key: [u32; 2], draw: u64, e: u32, thresholds: &[[u32; 2]]) -> u32 {
    let u = choice_uniform53(key, draw, e);
    let below = thresholds.partition_point(|t| (u64::from(t[0]) << 32 | u64::from(t[1])) <= u);
    below.min(thresholds.len().saturating_sub(1)) as u32
}

/// The host's race weight of a probability: `1 / p` in float32 (at most 2^123, so that a key
/// stays finite), 0 for p = 0 (drawn last).
pub fn choice_race_weight(p: f64) -> f32 {
    if p > 0.0 {
        (1.0 / p).min(2f64.powi(123)) as f32
    } else {
        0.0
    }
}

/// The fenced float32 logarithm of `race_keys` (every operation rounds as in IEEE float32;
/// no fused multiply-adds: the WGSL fences make the GPU's agree bit for bit).
fn choice_ln(x: f32) -> f32 {
    // The WGSL's literals, rounded to float32 as WGSL rounds them (through float64).
    let c = |v: f64| v as f32;
    let b = x.to_bits().wrapping_add(0x004a_fb0d);
    let k = ((b >> 23) as i32 - 127) as f32;
    let f = f32::from_bits((b & 0x007f_ffff) + 0x3f35_04f3) - 1.0;
    let mut s = c(0.087_337_240_576_744_08);
    for coef in [
        -0.143_060_952_424_999_05,
        0.149_177_432_060_241_7,
        -0.165_706_828_236_579_9,
        0.199_621_081_352_233_9,
        -0.250_017_493_963_241_6,
        0.333_339_482_545_852_66,
        -0.499_999_910_593_032_84,
    ] {
        s = f * s + c(coef);
    }
    let t = (f * f) * s;
    ((t + f) + k * c(1.428_606_765_330_187e-6)) + k * c(0.693_145_751_953_125)
}

/// Element `i`'s race key with the host weight `q` ([`choice_race_weight`]): `-ln(U_i) q`
/// with `U_i = ((w0 >> 9) + 1/2) 2^-23` (the reference of `race_keys`, bit for bit); the
/// largest float32 for `q = 0`.
pub fn choice_race_key(key: [u32; 2], draw: u64, i: u32, q: f32) -> f32 {
    if q > 0.0 {
        let w = stream_word(key, draw, i, 0);
        let u = ((w >> 9) as f32 + 0.5) * f32::EPSILON;
        -choice_ln(u) * q
    } else {
        f32::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_random123_known_answers() {
        // Random123 kat_vectors, philox4x32 10 rounds: counter, key, expected output.
        let kat: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
            (
                [0; 4],
                [0; 2],
                [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
            ),
            (
                [u32::MAX; 4],
                [u32::MAX; 2],
                [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
            ),
            (
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0],
                [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
            ),
        ];
        for (c, k, want) in kat {
            assert_eq!(philox4x32_10(c, k), want);
        }
    }

    #[test]
    fn splitmix_matches_the_published_sequence() {
        // SplitMix64 seeded with 1234567: its first outputs (Vigna's reference code).
        let mut s = 1_234_567u64;
        let mut next = || {
            let out = splitmix64(s);
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            out
        };
        assert_eq!(next(), 6_457_827_717_110_365_317);
        assert_eq!(next(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn bounded_is_in_range_and_uses_the_whole_range() {
        let mut seen = [false; 7];
        for e in 0..200u32 {
            let v = bounded(|k| stream_word([1, 2], 3, e, k), 7);
            seen[v as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(bounded(|_| 0xffff_ffff, 1), 0);
    }

    #[test]
    fn permute_is_a_bijection() {
        for n in [1u32, 2, 3, 10, 1000, 4096, 5000] {
            let mut seen = vec![false; n as usize];
            for e in 0..n {
                let p = permute([5, 6], 7, e, n);
                assert!(p < n && !seen[p as usize], "n {n} e {e}");
                seen[p as usize] = true;
            }
        }
        // Rows: each a bijection, and rows differ.
        let rows: Vec<Vec<u32>> = (0..3u32)
            .map(|r| {
                (0..50)
                    .map(|j| permute_rows([5, 6], 7, r * 50 + j, 50))
                    .collect()
            })
            .collect();
        for row in &rows {
            let mut v = row.clone();
            v.sort_unstable();
            assert_eq!(v, (0..50).collect::<Vec<u32>>());
        }
        assert_ne!(rows[0], rows[1]);
    }

    #[test]
    fn every_op_generates_valid_wgsl() {
        use crate::naga_check::validate;
        for (op, dtype) in [
            (RandomOp::Bits, DType::U32),
            (RandomOp::Uniform, DType::F32),
            (RandomOp::Uniform, DType::F64),
            (RandomOp::OpenUniform, DType::F32),
            (RandomOp::OpenUniform, DType::F64),
            (RandomOp::Normal, DType::F32),
            (RandomOp::Normal, DType::F64),
            (RandomOp::Exponential, DType::F32),
            (RandomOp::Exponential, DType::F64),
            (RandomOp::NormalAffine, DType::F32),
            (RandomOp::NormalAffine, DType::F64),
            (RandomOp::LogNormal, DType::F32),
            (RandomOp::LogNormal, DType::F64),
            (RandomOp::Bounded, DType::U32),
            (RandomOp::Gamma, DType::F32),
            (RandomOp::Gamma, DType::F64),
            (RandomOp::Poisson, DType::F32),
            (RandomOp::Poisson, DType::F64),
            (RandomOp::Permute, DType::U32),
            (RandomOp::PermuteRows, DType::U32),
            (RandomOp::Binomial, DType::F32),
            (RandomOp::Binomial, DType::F64),
            (RandomOp::VonMises, DType::F32),
            (RandomOp::VonMises, DType::F64),
            (RandomOp::Zipf, DType::F32),
            (RandomOp::Zipf, DType::F64),
            (RandomOp::Hypergeometric, DType::F32),
            (RandomOp::Hypergeometric, DType::F64),
        ] {
            for (lane, int64, tables) in [
                (None, false, ziggurat::TableSource::Storage),
                (Some(0), true, ziggurat::TableSource::Storage),
                (Some(3), false, ziggurat::TableSource::Storage),
                (Some(1), true, ziggurat::TableSource::Private),
            ] {
                let mut src = library_with(op.functions(dtype), int64, tables);
                let src_copy = src.clone();
                // Both libraries, as a kernel takes them (float64 samplers call float32 ones).
                for lib in [crate::libm::f32_library(), crate::libm::f64_library()] {
                    src.push_str(&crate::libm::subset(lib, libm_calls(&src_copy)));
                }
                let mut params = vec![if matches!(
                    op,
                    RandomOp::Bounded | RandomOp::Permute | RandomOp::PermuteRows
                ) {
                    "7u"
                } else {
                    "2.5"
                }
                .to_string()];
                params.push("0.25".to_string());
                params.push("3.0".to_string());
                let expr = op.wgsl(dtype, "k", "d", "e", "b", lane, &params);
                src.push_str(&format!(
                    "struct Params {{ zero: f32 }}\n@group(0) @binding(0) var<uniform> P: Params;\n\
                     @group(0) @binding(1) var<storage, read_write> out: array<{}>;\n\
                     @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
                     let k = vec2<u32>(1u, 2u); let d = vec2<u32>(3u, 4u); let e = id.x;\n\
                     let b = kp_rng_block0(k, d, e);\n out[e] = {expr};\n}}\n",
                    dtype.wgsl_storage()
                ));
                validate(&src, naga::valid::Capabilities::empty());
            }
        }
    }

    #[test]
    fn choice_module_validates_and_its_thresholds_are_exact() {
        for int64 in [false, true] {
            crate::naga_check::validate(&choice_wgsl(int64), naga::valid::Capabilities::empty());
        }
        // Dyadic p: the float32 and float64 cumulative sums are exact, so both thresholds
        // agree, and they are ceil(cdf 2^53).
        let p = [0.125f32, 0.0, 0.375, 0.25, 0.25, 0.0];
        let p64: Vec<f64> = p.iter().map(|&v| f64::from(v)).collect();
        let t = choice_thresholds(&p64);
        assert_eq!(t, choice_thresholds_f32(&p));
        let as_u64 = |w: [u32; 2]| (u64::from(w[0]) << 32) | u64::from(w[1]);
        assert_eq!(
            t.iter().map(|&w| as_u64(w)).collect::<Vec<_>>(),
            [1 << 50, 1 << 50, 1 << 52, 3 << 51, 1 << 53, 1 << 53]
        );
        // Rounding up: 1/3 of 2^53 is not an integer.
        assert_eq!(fixed53(1.0, 3.0), (1u64 << 53).div_ceil(3));
        assert_eq!(fixed53(0.0, 3.0), 0);
        assert_eq!(fixed53(f32::from_bits(1), 1.0), 1);
        // The last index is never past n - 1, even for a uniform above every threshold.
        assert!(choice_index([1, 2], 3, 4, &t) < 6);
        assert!(choice_chunk(5000) >= 64 && choice_chunk(1 << 28) == 1 << 14);
    }

    #[test]
    fn every_float32_normal_form_validates() {
        use crate::naga_check::validate;
        for (one, four) in [
            ("kp_normal_f32", "kp_normal4_f32"),
            ("kp_normal_lean_f32", "kp_normal4_lean_f32"),
            ("kp_normal_fenced_f32", "kp_normal4_fenced_f32"),
        ] {
            let mut src = library(["kp_rng_block0", one, four], false);
            let copy = src.clone();
            src.push_str(&crate::libm::subset(
                crate::libm::f32_library(),
                libm_calls(&copy),
            ));
            src.push_str(&format!(
                "@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;\n\
                 @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
                 let b = kp_rng_block0(vec2<u32>(1u, 2u), vec2<u32>(3u, 4u), id.x);\n\
                 out[id.x] = {four}(b) + vec4<f32>({one}(b.x, b.y, true));\n}}\n"
            ));
            validate(&src, naga::valid::Capabilities::empty());
        }
        // The ziggurat forms (their four-element functions take the key, draw and element),
        // with the tables from each source, the normal with each layer count.
        for (((one, four), tables), layers) in [
            ("kp_normal_zig_f32", "kp_normal4_zig_f32"),
            ("kp_exponential_zig_f32", "kp_exponential4_zig_f32"),
        ]
        .into_iter()
        .flat_map(|f| {
            [
                ziggurat::TableSource::Storage,
                ziggurat::TableSource::Private,
            ]
            .map(|t| (f, t))
        })
        .flat_map(|c| ziggurat::NORMAL32_LAYER_CHOICES.map(|l| (c, l)))
        {
            let mut src = ziggurat::with_normal32_layers(layers, || {
                library_with(["kp_rng_block0", one, four], true, tables)
            });
            if one == "kp_normal_zig_f32" {
                let mask = format!("const KP_ZIG_N32_MASK: u32 = {}u;", layers - 1);
                assert!(src.contains(&mask), "{mask}");
            }
            let copy = src.clone();
            src.push_str(&crate::libm::subset(
                crate::libm::f32_library(),
                libm_calls(&copy),
            ));
            src.push_str(&format!(
                "@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;\n\
                 @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
                 let k = vec2<u32>(1u, 2u); let d = vec2<u32>(3u, 4u);\n\
                 let b = kp_rng_block0(k, d, 4u * id.x);\n\
                 out[id.x] = {four}(k, d, 4u * id.x, b) + vec4<f32>({one}(k, d, id.x, b.x));\n}}\n"
            ));
            validate(&src, naga::valid::Capabilities::empty());
        }
    }

    #[test]
    fn the_float64_box_muller_form_validates() {
        // Not the default (the ziggurat is): generated here so that it stays valid.
        let mut src = library(["kp_rng_block0", "kp_rng_block", "kp_normal_f64"], false);
        let copy = src.clone();
        for lib in [crate::libm::f32_library(), crate::libm::f64_library()] {
            src.push_str(&crate::libm::subset(lib, libm_calls(&copy)));
        }
        src.push_str(
            "@group(0) @binding(0) var<storage, read_write> out: array<f64>;\n\
             @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {\n\
             let k = vec2<u32>(1u, 2u); let d = vec2<u32>(3u, 4u);\n\
             out[id.x] = kp_normal_f64(kp_rng_block0(k, d, id.x).x, kp_rng_block(k, d, id.x, 1u));\n}\n",
        );
        crate::naga_check::validate(&src, naga::valid::Capabilities::empty());
    }

    #[test]
    fn each_table_source_declares_what_its_kernels_read() {
        use ziggurat::{table_bindings_in, TableSource, TABLE_BINDINGS};
        let storage = |f: &[&str]| library_with(f.iter().copied(), false, TableSource::Storage);
        let read = |src: &str| {
            table_bindings_in(src)
                .map(|b| b.binding)
                .collect::<Vec<_>>()
        };
        // float32 draws read the float32 buffer, float64 draws the float64 one, others none.
        assert_eq!(read(&storage(&["kp_normal4_zig_f32"])), [64]);
        assert_eq!(read(&storage(&["kp_exponential_zig_f32"])), [64]);
        assert_eq!(read(&storage(&["kp_normal_zig_f64"])), [65]);
        assert_eq!(
            read(&storage(&["kp_exponential_zig_f64", "kp_normal_zig_f32"])),
            [64, 65]
        );
        assert!(read(&storage(&["kp_u01_f32", "kp_gamma_f32"])).is_empty());
        let src = library_with(
            ["kp_normal_zig_f32", "kp_normal_zig_f64"],
            false,
            TableSource::Private,
        );
        // Private: per-thread arrays of the 256-row tables; the float32 normal's tables stay
        // in storage.
        assert_eq!(read(&src), [64]);
        assert!(
            src.contains("KP_ZIG_N64_FAST: array<vec2<f64>") && !src.contains("KP_ZIG_N32_FAST")
        );
        let src = library_with(["kp_exponential_zig_f32"], false, TableSource::Private);
        assert!(read(&src).is_empty() && src.contains("KP_ZIG_E32_FAST: array<vec2<u32>, 256>"));
        // The buffers: float32, 2 tables of 16384 row slots (normal) and 2 of 256
        // (exponential); float64, 4 tables of 256 rows; the rows the arrays hold.
        let b32 = (TABLE_BINDINGS[0].bytes)();
        let b64 = (TABLE_BINDINGS[1].bytes)();
        assert_eq!(
            (b32.len(), b64.len()),
            ((2 * 16384 + 2 * 256) * 8, 4 * 256 * 16)
        );
        let word = |b: &[u8], k: usize| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
        let e = ziggurat::exponential_tables();
        assert_eq!(
            [word(&b32, 2 * 32768 + 6), word(&b32, 2 * 32768 + 7)],
            e.fast[3]
        );
        let n32 = ziggurat::normal32_tables();
        assert_eq!(
            [word(&b32, 2 * 16000), word(&b32, 2 * 16000 + 1)],
            n32.fast[16000]
        );
        assert_eq!(
            [word(&b32, 2 * 16389), word(&b32, 2 * 16389 + 1)],
            n32.slow[5]
        );
        let n = ziggurat::normal_tables();
        let f = |k: usize| f64::from_le_bytes(b64[8 * k..8 * k + 8].try_into().unwrap());
        // float64 K_i is exact as a float64 (below 2^52).
        assert_eq!((f(2 * 7) as u64, f(2 * 7 + 1)), (n.k64[7], n.w64[7]));
        assert!(n.k64.iter().chain(&e.k64).all(|&k| k < 1 << 52));
        assert_eq!(f(2 * (256 + 9) + 1), n.d64[9]);
        if ziggurat::table_source() == TableSource::Storage {
            assert_eq!(RandomOp::Exponential.table_bindings(DType::F32), 1);
            assert_eq!(RandomOp::Exponential.table_bindings(DType::F64), 1);
            assert_eq!(RandomOp::Uniform.table_bindings(DType::F32), 0);
        }
    }
}
