//! Sorting kernels: WGSL generation from `shaders/sort_*.wgsl`.
//!
//! Sorting works on 32-bit key words whose unsigned order is NumPy's order ([`key_words`]
//! lists them per dtype, most significant first). The kernels themselves know no dtype: the
//! radix passes ([`radix`]) and the row sort ([`rows`]) move u32 words, the key kernel
//! ([`key_word`]) turns elements into words, and the gather ([`take`]) copies raw words.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::template::Template;

const RADIX: &str = include_str!("../../../shaders/sort_radix.wgsl");
const ROWS: &str = include_str!("../../../shaders/sort_rows.wgsl");
const KEYS: &str = include_str!("../../../shaders/sort_keys.wgsl");
const TAKE: &str = include_str!("../../../shaders/sort_take.wgsl");
const SEARCH: &str = include_str!("../../../shaders/sort_search.wgsl");

pub(crate) const KEY_HELPERS: &str = include_str!("../../../shaders/sort_key_fns.wgsl");

/// What `searchsorted` compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchKeys {
    /// Precomputed key words, this many per element, of both arrays.
    Words(u32),
    /// Raw elements of both arrays, turned into keys as the load says (1 or 2 key words).
    Raw(KeyLoad, u32),
}

/// The binary-search module (`searchsorted`) writing positions of `out_words` u32 words
/// (1: uint32/int32, 2: int64).
pub fn search(keys: SearchKeys, out_words: u32) -> String {
    let compare = match keys {
        SearchKeys::Words(k) => format!(
            "fn compare(s: u32, q: u32) -> i32 {{
    for (var w = 0u; w < {k}u; w = w + 1u) {{
        let a = sorted_keys[s * {k}u + w];
        let b = query_keys[q * {k}u + w];
        if (a < b) {{
            return -1;
        }}
        if (a > b) {{
            return 1;
        }}
    }}
    return 0;
}}"
        ),
        SearchKeys::Raw(load, k) => {
            let wide = k == 2;
            let (key_fns, _) = search_key_fns(load, wide);
            let cmp = if wide {
                "    if (a.y != b.y) {
        return select(1, -1, a.y < b.y);
    }
    if (a.x != b.x) {
        return select(1, -1, a.x < b.x);
    }
    return 0;"
            } else {
                "    if (a != b) {
        return select(1, -1, a < b);
    }
    return 0;"
            };
            format!(
                "{key_fns}\n\n\
                 fn compare(s: u32, q: u32) -> i32 {{\n    let a = sorted_key(s);\n    \
                 let b = query_key(q);\n{cmp}\n}}"
            )
        }
    };
    Template::new(SEARCH)
        .set("OUT_WORDS", out_words)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("COMPARE", &compare)
        .render()
}

/// Threads per workgroup of the radix passes.
pub const RADIX_WG: u32 = 256;

/// How a radix pass reads its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyLoad {
    /// Key words already (K per element, no offset).
    Words,
    /// Raw float32 elements (from the element offset): the bit-exact bijective key
    /// (`key32_exact`: -0.0 below 0.0, NaNs above +inf, each bit pattern its own key) or,
    /// with `equal_zeros`, NumPy's equality as keys (-0.0 given 0.0's key, every NaN one key).
    F32 {
        /// -0.0 and 0.0 get one key.
        equal_zeros: bool,
    },
    /// Raw int32 elements.
    I32,
    /// Raw uint32 elements.
    U32,
    /// Raw float64 elements (two words each), as `F32`.
    F64 {
        /// -0.0 and 0.0 get one key.
        equal_zeros: bool,
    },
    /// Raw int64 elements.
    I64,
    /// Raw uint64 elements (their words are the key).
    U64,
}

/// What the last radix pass writes beside the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyStore {
    /// The key words.
    Words,
    /// float32 values (the inverse of the bit-exact key: every bit pattern comes back).
    F32,
    /// int32 values.
    I32,
    /// float64 values (the inverse of the bit-exact key).
    F64,
    /// int64 values.
    I64,
    /// No keys (the payload alone).
    Nothing,
}

/// How a radix downsweep ranks keys within a tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ranking {
    /// One key per thread per round, bit masks of the threads holding each digit.
    Masks,
    /// Subgroup ballots; `max_subgroups`: most subgroups a workgroup of 256 threads has
    /// (256 / the adapter's smallest subgroup size, at most 32: subgroups of 8 lanes or more,
    /// at most 128).
    Subgroups {
        /// 256 / the smallest subgroup size.
        max_subgroups: u32,
    },
}

impl Ranking {
    /// Bytes of workgroup memory the downsweep needs besides its tile of staged words.
    pub fn fixed_bytes(self) -> u32 {
        let rank = match self {
            Ranking::Masks => 2048 * 4 + 256 * 4,
            Ranking::Subgroups { max_subgroups } => max_subgroups.div_ceil(2) * 256 * 4,
        };
        rank + 2 * 256 * 4
    }
}

/// One radix pass's kernels: keys of `key_words` (1 or 2) u32 words, `items` per thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RadixPass {
    /// Keys per thread of a tile (a tile is 256 * items keys, at most 65535).
    pub items: u32,
    /// Words per key (1 or 2).
    pub key_words: u32,
    /// How the keys are read.
    pub load: KeyLoad,
    /// What is written.
    pub store: KeyStore,
    /// The payload beside the keys.
    pub payload: Payload,
    /// How keys are ranked in a tile.
    pub ranking: Ranking,
    /// What the scatter stages first to find each slot's destination.
    pub scatter: Scatter,
    /// Single-pass sort: publish each tile's digit counts before ranking it (counted from
    /// the keys in registers) rather than after.
    pub early_counts: bool,
    /// The payload is written as int64 (its word, then a zero word): the last pass of an
    /// argsort into the default int64 positions.
    pub int64_positions: bool,
    /// Variants for timing (all off: the kernels as before).
    pub tuning: RadixTuning,
}

/// Variants of the radix kernels, each off by default (`KUPFER_SORT_HIST`, `_SCAN`,
/// `_BALLOT` and `_SKIP` select them in the engine). The subgroup variants apply only with
/// [`Ranking::Subgroups`]; the single-pass ones only to `histogram_all`, `scan_totals` and
/// `onesweep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RadixTuning {
    /// Ballots as their first u32 word: only for adapters whose subgroups have at most 32
    /// lanes (the other words are zero there), a quarter of the mask arithmetic.
    pub narrow_ballots: bool,
    /// The single-pass digit counts (`histogram_all` and the early tile counts) add once per
    /// group of subgroup lanes sharing a counter, peeling the group of the first remaining
    /// lane while such groups have at least 3 lanes, instead of one atomic per key: keys
    /// whose digit is nearly constant (the top byte of floats in [0, 1)) no longer serialize
    /// on one counter.
    pub subgroup_counts: bool,
    /// The tile's scan of its 256 digit counts in the ranking by subgroup scans (three
    /// barriers) instead of the 16-barrier Hillis-Steele scan.
    pub subgroup_scan: bool,
    /// Single-pass: `scan_totals` flags a pass whose digit is the same for every key, and
    /// `onesweep` copies such a pass's tiles in place (the identity is its stable order)
    /// instead of ranking them, e.g. the three low bytes of float64 values widened from
    /// float32, or the top byte of small integers.
    pub skip_trivial: bool,
    /// Every loop over a thread's keys (`k < ITEMS`, and `histogram_all`'s batches of 16)
    /// written out key by key with a constant `k`, so that the per-key arrays are indexed
    /// by constants (registers) whatever the compiler's unrolling.
    pub unroll: bool,
}

/// What a radix pass's scatter stages in workgroup memory first, in digit order, to learn
/// each slot's destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scatter {
    /// The digits, then each word written in a round of its own (`KUPFER_SORT_SCATTER=old`).
    Digits,
    /// The key word holding the digit, which gives the destination and, unless the last
    /// pass writes float64 values (which need both words), the word written there: one
    /// staging round fewer per pass.
    KeyWords,
}

/// The payload a radix pass carries beside its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Payload {
    /// Keys alone.
    None,
    /// Each key's input position (the first pass of an argsort): no payload is read.
    Position,
    /// A u32 word read beside each key.
    Words,
}

/// The subgroup helpers over ballot masks: `Mask` is the ballot's first word where
/// `narrow` (subgroups of at most 32 lanes), else the whole `vec4<u32>`.
fn subgroup_helpers(narrow: bool) -> String {
    let (ty, ballot, count, none, below, first) = if narrow {
        (
            "u32",
            "subgroupBallot(b).x",
            "return countOneBits(m);",
            "m == 0u",
            "return (1u << lane) - 1u;",
            "    return firstTrailingBit(m);",
        )
    } else {
        (
            "vec4<u32>",
            "subgroupBallot(b)",
            "let c = countOneBits(m);\n    return c.x + c.y + c.z + c.w;",
            "all(m == vec4<u32>(0u))",
            "let w = vec4<u32>(0u, 1u, 2u, 3u);
    let word = vec4<u32>(lane >> 5u);
    let partial = vec4<u32>((1u << (lane & 31u)) - 1u);
    return select(select(vec4<u32>(0u), partial, word == w), vec4<u32>(0xffffffffu), w < word);",
            "    if (m.x != 0u) {
        return firstTrailingBit(m.x);
    }
    if (m.y != 0u) {
        return 32u + firstTrailingBit(m.y);
    }
    if (m.z != 0u) {
        return 64u + firstTrailingBit(m.z);
    }
    return 96u + firstTrailingBit(m.w);",
        )
    };
    format!(
        "alias Mask = {ty};

fn ballot(b: bool) -> Mask {{
    return {ballot};
}}

fn count4(m: Mask) -> u32 {{
    {count}
}}

fn mask_none(m: Mask) -> bool {{
    return {none};
}}

// The lanes below `lane` as a ballot mask.
fn lanes_below(lane: u32) -> Mask {{
    {below}
}}

fn first_lane(m: Mask) -> u32 {{
{first}
}}

// The valid lanes whose digit equals this lane's.
fn same_digit(valid: bool, d: u32) -> Mask {{
    var peers = ballot(valid);
    for (var b = 0u; b < 8u; b = b + 1u) {{
        let one = ((d >> b) & 1u) != 0u;
        let vote = ballot(one);
        peers = peers & select(~vote, vote, one);
    }}
    return peers;
}}

// Inclusive scan of 256 values (`value` is thread lid's) by subgroup scans: the values in
// subgroup order (lane `lane` of subgroup `sid` takes slot sid * sgs + lane, whatever the
// adapter's mapping of lid to subgroups), the subgroups' sums added in turn. Three barriers.
fn scan_256_sub(lid: u32, value: u32, sid: u32, lane: u32, sgs: u32) -> u32 {{
    local_start[lid] = value;
    workgroupBarrier();
    let at = sid * sgs + lane;
    let inclusive = subgroupInclusiveAdd(local_start[at]);
    if (lane == sgs - 1u) {{
        sg_sums[sid] = inclusive;
    }}
    workgroupBarrier();
    var offset = 0u;
    for (var s = 0u; s < sid; s = s + 1u) {{
        offset = offset + sg_sums[s];
    }}
    local_start[at] = offset + inclusive;
    workgroupBarrier();
    return local_start[lid];
}}"
    )
}

/// WGSL adding 1 to `counter[index]` for each lane where `valid` (subgroup-uniform control
/// flow): while the group of lanes sharing the first remaining lane's index has at least 3
/// lanes, that lane adds the group's count once; the remaining lanes add alone.
fn grouped_add(counter: &str, valid: &str, index: &str, indent: &str) -> String {
    let body = format!(
        "{{
    var todo = {valid};
    let at = {index};
    for (var r = 0u; r < 128u; r = r + 1u) {{
        let left = ballot(todo);
        if (mask_none(left)) {{
            break;
        }}
        let leader = first_lane(left);
        let shared_at = subgroupShuffle(at, leader);
        let mine = todo && at == shared_at;
        let size = count4(ballot(mine));
        if (lane == leader) {{
            atomicAdd(&{counter}[shared_at], size);
        }}
        todo = todo && !mine;
        if (size < 3u) {{
            break;
        }}
    }}
    if (todo) {{
        atomicAdd(&{counter}[at], 1u);
    }}
}}"
    );
    body.lines()
        .map(|l| format!("{indent}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

// Both rankings load the whole tile into registers first, so that a thread's loads are in
// flight together rather than one per ranking round.
const RANK_MASKS: &str = "    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = k * WG + lid;
        let i = base + j;
        if (j < tile_len) {
            key[k] = load_key(i);
{{PAYLOAD_LOAD}}
        }
    }
{{EARLY_COUNTS}}
    let mword = lid >> 5u;
    let bit = 1u << (lid & 31u);
    digit_count[lid] = 0u;
    for (var w = 0u; w < 8u; w = w + 1u) {
        atomicStore(&masks[w * 256u + lid], 0u);
    }
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = k * WG + lid;
        let valid = j < tile_len;
        var d = 0u;
        pos[k] = 0xffffffffu;
        if (valid) {
            d = digit_of(key[k]);
            atomicOr(&masks[mword * 256u + d], bit);
        }
        workgroupBarrier();
        if (valid) {
            var below = countOneBits(atomicLoad(&masks[mword * 256u + d]) & (bit - 1u));
            for (var w = 0u; w < mword; w = w + 1u) {
                below = below + countOneBits(atomicLoad(&masks[w * 256u + d]));
            }
            pos[k] = digit_count[d] + below;
        }
        workgroupBarrier();
        var c = 0u;
        for (var w = 0u; w < 8u; w = w + 1u) {
            c = c + countOneBits(atomicExchange(&masks[w * 256u + lid], 0u));
        }
        digit_count[lid] = digit_count[lid] + c;
        workgroupBarrier();
    }
    let count = digit_count[lid];
    let tile_digit_count = count;
    let start = scan_256(lid, count) - count;
    workgroupBarrier();
    local_start[lid] = start;
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        if (pos[k] != 0xffffffffu) {
            pos[k] = pos[k] + local_start[digit_of(key[k])];
        }
    }";

const RANK_SUBGROUPS: &str = "    let nsg = WG / sgs;
    let seg = sid * sgs * ITEMS;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = seg + k * sgs + lane;
        let i = base + j;
        if (j < tile_len) {
            key[k] = load_key(i);
{{PAYLOAD_LOAD}}
        }
    }
{{EARLY_COUNTS}}
    for (var w = lid; w < RANK_WORDS; w = w + WG) {
        atomicStore(&sub_counts[w], 0u);
    }
    workgroupBarrier();
    let row = (sid >> 1u) * 256u;
    let half = (sid & 1u) * 16u;
    let below_mask = lanes_below(lane);
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = seg + k * sgs + lane;
        let valid = j < tile_len;
        var d = 0u;
        if (valid) {
            d = digit_of(key[k]);
        }
        let peers = same_digit(valid, d);
        let below = count4(peers & below_mask);
        var old = 0u;
        if (valid && below == 0u) {
            old = atomicAdd(&sub_counts[row + d], count4(peers) << half);
        }
        let first = subgroupShuffle(old, select(lane, first_lane(peers), valid));
        pos[k] = select(0xffffffffu, ((first >> half) & 0xffffu) + below, valid);
    }
    workgroupBarrier();
    // Digit `lid`: its count in the tile, then each subgroup's start of it in the tile.
    var digit_total = 0u;
    for (var s = 0u; s < nsg; s = s + 1u) {
        digit_total = digit_total
            + ((atomicLoad(&sub_counts[(s >> 1u) * 256u + lid]) >> ((s & 1u) * 16u)) & 0xffffu);
    }
    let tile_digit_count = digit_total;
    let start = {{TILE_SCAN}} - digit_total;
    workgroupBarrier();
    local_start[lid] = start;
    var run = start;
    for (var s = 0u; s < nsg; s = s + 2u) {
        let c = atomicLoad(&sub_counts[(s >> 1u) * 256u + lid]);
        atomicStore(&sub_counts[(s >> 1u) * 256u + lid], run | ((run + (c & 0xffffu)) << 16u));
        run = run + (c & 0xffffu) + (c >> 16u);
    }
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        if (pos[k] != 0xffffffffu) {
            let d = digit_of(key[k]);
            pos[k] = pos[k] + ((atomicLoad(&sub_counts[row + d]) >> half) & 0xffffu);
        }
    }";

// The end of a downsweep or onesweep pass: each key's destination (from `global_start`,
// `local_start` and its position in the tile's digit order), then the staged writes.
const SCATTER_DIGITS: &str =
    "    // Stage the digits in digit order to learn each slot's destination.
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        if (pos[k] != 0xffffffffu) {
            stage[pos[k]] = digit_of(key[k]);
        }
    }
    workgroupBarrier();
    var dst: array<u32, ITEMS>;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = k * WG + lid;
        if (j < tile_len) {
            let d = stage[j];
            dst[k] = global_start[d] + (j - local_start[d]);
        }
    }
{{ROUNDS}}";

// The same, staging the key word that holds the digit (`digit_word`): its slot's digit gives
// the destination, and the word itself (FIRST_WRITE) what is written there where it can.
const SCATTER_KEY_WORDS: &str =
    "    // Stage the key words holding the digit in digit order: each slot's destination and,
    // where that word gives it, what is written there.
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        if (pos[k] != 0xffffffffu) {
            stage[pos[k]] = digit_word(key[k]);
        }
    }
    workgroupBarrier();
    var dst: array<u32, ITEMS>;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = k * WG + lid;
        if (j < tile_len) {
            let w = stage[j];
            let d = (w >> (P.shift & 31u)) & 0xffu;
            dst[k] = global_start[d] + (j - local_start[d]);
{{FIRST_WRITE}}
        }
    }
{{ROUNDS}}";

// Early counts (onesweep): the tile's digit counts from the keys in registers, published as
// its aggregate (tile 0: its inclusive prefix) before the ranking, so that the look-back of
// the tiles after it need not wait for this tile's ranking. SLOT is the tile slot of key k.
const EARLY_COUNTS: &str = "    atomicStore(&counts[lid], 0u);
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
{{EARLY_ADD}}
    }
    workgroupBarrier();
    let status = P.status_at + tile * WG + lid;
    atomicStore(&state[status], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, tile == 0u)
        | atomicLoad(&counts[lid]));";

// Late counts: the aggregate published after the ranking, from its digit counts.
const LATE_COUNTS: &str = "    let status = P.status_at + tile * WG + lid;
    atomicStore(&state[status], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, tile == 0u)
        | tile_digit_count);";

/// Keys each thread of the single-pass sort's all-digit histogram counts.
pub const HIST_ITEMS: u32 = 64;

/// Words of a single-pass sort's `state` buffer before the tile status (digit totals of up to
/// 8 passes, then the passes' tile counters).
pub const ONESWEEP_STATUS_AT: u32 = 4096;

/// The body of a WGSL function of `i` returning key i (`wide`: a `vec2<u32>` (low, high),
/// else a u32) as `load` reads it.
pub(crate) fn key_load_body(load: KeyLoad, wide: bool) -> String {
    match load {
        KeyLoad::Words if wide => {
            "    return vec2<u32>(keys_in[2u * i], keys_in[2u * i + 1u]);".to_string()
        }
        KeyLoad::Words => "    return keys_in[i];".to_string(),
        KeyLoad::F32 { equal_zeros: true } => "    let b = keys_in[P.off + i];\n    \
                                                 return key32(select(b, 0u, b == 0x80000000u));"
            .to_string(),
        KeyLoad::F32 { equal_zeros: false } => {
            "    return key32_exact(keys_in[P.off + i]);".to_string()
        }
        KeyLoad::I32 => "    return keys_in[P.off + i] ^ 0x80000000u;".to_string(),
        KeyLoad::U32 => "    return keys_in[P.off + i];".to_string(),
        KeyLoad::F64 { equal_zeros } => format!(
            "    let e = 2u * (P.off + i);\n    let lo = keys_in[e];\n    let hi = keys_in[e + 1u];\n    \
             return {};",
            if equal_zeros {
                "key64(lo, select(hi, 0u, hi == 0x80000000u && lo == 0u))"
            } else {
                "key64_exact(lo, hi)"
            }
        ),
        KeyLoad::I64 => "    let e = 2u * (P.off + i);\n    \
                         return vec2<u32>(keys_in[e], keys_in[e + 1u] ^ 0x80000000u);"
            .to_string(),
        KeyLoad::U64 => "    let e = 2u * (P.off + i);\n    \
                         return vec2<u32>(keys_in[e], keys_in[e + 1u]);"
            .to_string(),
    }
}

/// `sorted_key(i)` and `query_key(i)` of a search (bindings `sorted_keys` and `query_keys`,
/// element offsets `P.aoff` and `P.qoff`) reading keys as `load` reads them, and the key type
/// (`wide`: `vec2<u32>`, else u32).
pub(crate) fn search_key_fns(load: KeyLoad, wide: bool) -> (String, &'static str) {
    let ty = if wide { "vec2<u32>" } else { "u32" };
    let body = key_load_body(load, wide);
    let sorted = body
        .replace("keys_in", "sorted_keys")
        .replace("P.off", "P.aoff");
    let query = body
        .replace("keys_in", "query_keys")
        .replace("P.off", "P.qoff");
    (
        format!(
            "fn sorted_key(i: u32) -> {ty} {{\n{sorted}\n}}\n\n\
             fn query_key(i: u32) -> {ty} {{\n{query}\n}}"
        ),
        ty,
    )
}

/// `load_key(i)` as a `vec2<u32>` for the selections (a zero high word for one-word keys,
/// which also get `load_word(i)`), reading keys as `load` reads them.
pub(crate) fn select_key_fns(load: KeyLoad, wide: bool) -> String {
    if wide {
        format!(
            "fn load_key(i: u32) -> vec2<u32> {{\n{}\n}}",
            key_load_body(load, true)
        )
    } else {
        format!(
            "fn load_word(i: u32) -> u32 {{\n{}\n}}\n\n\
             fn load_key(i: u32) -> vec2<u32> {{\n    return vec2<u32>(load_word(i), 0u);\n}}",
            key_load_body(load, false)
        )
    }
}

const SELECT: &str = include_str!("../../../shaders/sort_select.wgsl");

/// The radix-selection module (`shaders/sort_select.wgsl`; entry points `count`, `pick`,
/// `emit`) for `targets` order statistics (1 to 3) of keys read as `load` (`key_words` 1 or
/// 2), each thread counting `per` elements per step. `emit` writes values as `store` says.
pub fn select(targets: u32, key_words: u32, load: KeyLoad, store: KeyStore, per: u32) -> String {
    let wide = key_words == 2;
    let key_fns = select_key_fns(load, wide);
    let s = key_words + 1;
    let emit = match store {
        KeyStore::F32 => format!("        values[lid] = unkey32_exact(state[lid * {s}u]);"),
        KeyStore::I32 => format!("        values[lid] = state[lid * {s}u] ^ 0x80000000u;"),
        KeyStore::F64 => format!(
            "        let v = unkey64_exact(vec2<u32>(state[lid * {s}u], state[lid * {s}u + 1u]));\n        \
             values[2u * lid] = v.x;\n        values[2u * lid + 1u] = v.y;"
        ),
        KeyStore::I64 => format!(
            "        values[2u * lid] = state[lid * {s}u];\n        \
             values[2u * lid + 1u] = state[lid * {s}u + 1u] ^ 0x80000000u;"
        ),
        _ if wide => format!(
            "        values[2u * lid] = state[lid * {s}u];\n        \
             values[2u * lid + 1u] = state[lid * {s}u + 1u];"
        ),
        _ => format!("        values[lid] = state[lid * {s}u];"),
    };
    Template::new(SELECT)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("T", targets)
        .set("K", key_words)
        .set("PER", per)
        .set("KEY_FUNCTIONS", &key_fns)
        .set("EMIT", &emit)
        .render()
}

/// The radix-pass module (entry points `upsweep`, `scan_columns` and `downsweep` of the
/// portable sort, and `clear_state`, `histogram_all` and `onesweep` of the single-pass sort;
/// bindings: 1 keys in, 2 histograms, 3 keys out (absent where the pass stores no keys), 4
/// payload in, 5 payload out, 6 the single-pass sort's state: digit totals, tile counters
/// and tile status from [`ONESWEEP_STATUS_AT`]).
pub fn radix(pass: RadixPass) -> String {
    let RadixPass {
        items,
        key_words,
        load,
        store,
        payload,
        ranking,
        scatter,
        early_counts,
        int64_positions,
        tuning,
    } = pass;
    let subgroups = matches!(ranking, Ranking::Subgroups { .. });
    let k = key_words;
    let wide = k == 2;
    let key_type = if wide { "vec2<u32>" } else { "u32" };
    let load_body = key_load_body(load, wide);
    let digit = if wide {
        "    return (select(k.x, k.y, shift >= 32u) >> (shift & 31u)) & 0xffu;"
    } else {
        "    return (k >> shift) & 0xffu;"
    };
    let out_body = match (store, wide) {
        (KeyStore::F32, _) => "    return unkey32_exact(k);",
        (KeyStore::I32, _) => "    return k ^ 0x80000000u;",
        (KeyStore::F64, _) => {
            "    let v = unkey64_exact(k);\n    return select(v.x, v.y, w == 1u);"
        }
        (KeyStore::I64, _) => "    return select(k.x, k.y ^ 0x80000000u, w == 1u);",
        (_, true) => "    return select(k.x, k.y, w == 1u);",
        (_, false) => "    return k;",
    };
    let digit_word = if wide {
        "    return select(k.x, k.y, P.shift >= 32u);"
    } else {
        "    return k;"
    };
    let key_fns = format!(
        "fn load_key(i: u32) -> {key_type} {{\n{load_body}\n}}\n\n\
         fn digit_at(k: {key_type}, shift: u32) -> u32 {{\n{digit}\n}}\n\n\
         fn digit_of(k: {key_type}) -> u32 {{\n    return digit_at(k, P.shift);\n}}\n\n\
         // The key word holding this pass's digit.\n\
         fn digit_word(k: {key_type}) -> u32 {{\n{digit_word}\n}}\n\n\
         // Word w of what the last pass writes for key k.\n\
         fn out_word(k: {key_type}, w: u32) -> u32 {{\n{out_body}\n}}"
    );
    let keys_out = if store == KeyStore::Nothing {
        String::new()
    } else {
        "@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;".to_string()
    };
    let (bindings, registers, payload_load) = match payload {
        Payload::None => ("", "", ""),
        Payload::Position => (
            "@group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;",
            "    var val: array<u32, ITEMS>;",
            "            val[k] = i;",
        ),
        Payload::Words => (
            "@group(0) @binding(4) var<storage, read> vals_in: array<u32>;\n\
             @group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;",
            "    var val: array<u32, ITEMS>;",
            "            val[k] = vals_in[i];",
        ),
    };
    // What is staged and written after the destinations are known: (value, the writes of
    // the staged `stage[j]`).
    let mut rounds: Vec<(String, String)> = Vec::new();
    // Written from the staged digit word (Scatter::KeyWords) along with the destination.
    let mut first_write = String::new();
    let hw = "select(0u, 1u, P.shift >= 32u)";
    match (scatter, store, wide) {
        (_, KeyStore::Nothing, _) => {}
        // Each word in a round of its own (float64 values need both key words).
        (Scatter::Digits, _, _)
        | (Scatter::KeyWords, KeyStore::F64 | KeyStore::F32 | KeyStore::I32, true) => {
            for w in 0..k {
                rounds.push((
                    format!("out_word(key[k], {w}u)"),
                    format!("keys_out[dst[k] * {k}u + {w}u] = stage[j];"),
                ));
            }
        }
        (Scatter::KeyWords, _, false) => {
            first_write = "            keys_out[dst[k]] = out_word(w, 0u);".into();
        }
        // Key words or int64 values: each output word from its key word alone.
        (Scatter::KeyWords, KeyStore::Words, true) => {
            first_write = format!("            keys_out[dst[k] * 2u + {hw}] = w;");
            rounds.push((
                format!("out_word(key[k], 1u - {hw})"),
                format!("keys_out[dst[k] * 2u + 1u - {hw}] = stage[j];"),
            ));
        }
        (Scatter::KeyWords, KeyStore::I64, true) => {
            first_write = format!(
                "            let hw = {hw};\n            \
                 keys_out[dst[k] * 2u + hw] = select(w, w ^ 0x80000000u, hw == 1u);"
            );
            rounds.push((
                format!("out_word(key[k], 1u - {hw})"),
                format!("keys_out[dst[k] * 2u + 1u - {hw}] = stage[j];"),
            ));
        }
    }
    if payload != Payload::None {
        let store = if int64_positions {
            "vals_out[2u * dst[k]] = stage[j];\n            vals_out[2u * dst[k] + 1u] = 0u;"
        } else {
            "vals_out[dst[k]] = stage[j];"
        };
        rounds.push(("val[k]".into(), store.into()));
    }
    let rounds: String = rounds
        .iter()
        .map(|(value, out)| {
            format!(
                "    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {{
        if (pos[k] != 0xffffffffu) {{
            stage[pos[k]] = {value};
        }}
    }}
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {{
        let j = k * WG + lid;
        if (j < tile_len) {{
            {out}
        }}
    }}
"
            )
        })
        .collect();
    let (memory, helpers, up_builtins, up_count, down_builtins, rank) = match ranking {
        Ranking::Masks => (
            "var<workgroup> masks: array<atomic<u32>, 2048>;\n\
             var<workgroup> digit_count: array<u32, 256>;"
                .to_string(),
            String::new(),
            "",
            "        if (valid) {\n            atomicAdd(&counts[d], 1u);\n        }",
            "",
            RANK_MASKS,
        ),
        Ranking::Subgroups { max_subgroups } => (
            format!(
                "const RANK_WORDS: u32 = {}u;\n\
                 var<workgroup> sub_counts: array<atomic<u32>, RANK_WORDS>;\n\
                 var<workgroup> sg_sums: array<u32, 32>;",
                max_subgroups.div_ceil(2) * 256
            ),
            subgroup_helpers(tuning.narrow_ballots),
            ", @builtin(subgroup_invocation_id) lane: u32",
            "        let peers = same_digit(valid, d);
        if (valid && count4(peers & lanes_below(lane)) == 0u) {
            atomicAdd(&counts[d], count4(peers));
        }",
            ", @builtin(subgroup_id) sid: u32,\n        @builtin(subgroup_size) sgs: u32, \
             @builtin(subgroup_invocation_id) lane: u32",
            RANK_SUBGROUPS,
        ),
    };
    let slot = match ranking {
        Ranking::Masks => "k * WG + lid",
        Ranking::Subgroups { .. } => "seg + k * sgs + lane",
    };
    // The single-pass digit counts: one atomic per key, or grouped per subgroup.
    let grouped = subgroups && tuning.subgroup_counts;
    let early_add = if grouped {
        grouped_add(
            "counts",
            &format!("{slot} < tile_len"),
            "digit_of(key[k])",
            "        ",
        )
    } else {
        format!(
            "        if ({slot} < tile_len) {{\n            \
             atomicAdd(&counts[digit_of(key[k])], 1u);\n        }}"
        )
    };
    let (early, publish) = if early_counts {
        (
            Template::new(EARLY_COUNTS)
                .set("EARLY_ADD", &early_add)
                .render(),
            "",
        )
    } else {
        (String::new(), LATE_COUNTS)
    };
    let hist_count = if grouped {
        format!(
            "            let valid = i < P.n;\n            \
             for (var p = 0u; p < P.passes; p = p + 1u) {{\n{}\n            }}",
            grouped_add(
                "all_counts",
                "valid",
                "p * 256u + digit_at(batch[k], p * 8u)",
                "                "
            )
        )
    } else {
        "            if (i < P.n) {
                for (var p = 0u; p < P.passes; p = p + 1u) {
                    atomicAdd(&all_counts[p * 256u + digit_at(batch[k], p * 8u)], 1u);
                }
            }"
        .to_string()
    };
    let tile_scan = if subgroups && tuning.subgroup_scan {
        "scan_256_sub(lid, digit_total, sid, lane, sgs)"
    } else {
        "scan_256(lid, digit_total)"
    };
    // A pass whose digit is one value for every key: flagged by scan_totals, copied in
    // place by onesweep (keys as the pass writes them, the payload, the next pass's status
    // of the tile zeroed).
    let (trivial_flag, skip_read, skip) = if tuning.skip_trivial {
        let mut writes = Vec::new();
        if store != KeyStore::Nothing {
            for w in 0..k {
                writes.push(format!("keys_out[i * {k}u + {w}u] = out_word(kk, {w}u);"));
            }
        }
        let value = match payload {
            Payload::None => None,
            Payload::Position => Some("i"),
            Payload::Words => Some("vals_in[i]"),
        };
        if let Some(v) = value {
            if int64_positions {
                writes.push(format!("vals_out[2u * i] = {v};"));
                writes.push("vals_out[2u * i + 1u] = 0u;".to_string());
            } else {
                writes.push(format!("vals_out[i] = {v};"));
            }
        }
        let writes: String = writes
            .iter()
            .map(|w| format!("\n                {w}"))
            .collect();
        (
            "        if (total == P.n) {\n            \
             atomicStore(&state[TRIVIAL_AT + p], 1u);\n        }"
                .to_string(),
            "        sweep_skip = atomicLoad(&state[TRIVIAL_AT + pass_index]);",
            format!(
                "    if (workgroupUniformLoad(&sweep_skip) != 0u) {{
        // Every key has this pass's digit: the stable order is the input's.
        for (var k = 0u; k < ITEMS; k = k + 1u) {{
            let i = tile * TILE + k * WG + lid;
            if (i < P.n) {{
                let kk = load_key(i);{writes}
            }}
        }}
        if (P.clear_at != 0u) {{
            atomicStore(&state[P.clear_at + tile * WG + lid], 0u);
        }}
        return;
    }}"
            ),
        )
    } else {
        (String::new(), "", String::new())
    };
    let rank_with = |early: &str| {
        Template::new(rank)
            .set_if_held("PAYLOAD_LOAD", payload_load)
            .set("EARLY_COUNTS", early)
            .set_if_held("TILE_SCAN", tile_scan)
            .render()
    };
    let (rank, rank_sweep) = (rank_with(""), rank_with(&early));
    let module = Template::new(RADIX)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("RANKING", format!("{ranking:?}"))
        .set("ITEMS", items)
        .set("KEYS_OUT_BINDING", &keys_out)
        .set("PAYLOAD_BINDINGS", bindings)
        .set("RANK_MEMORY", &memory)
        .set("KEY_FUNCTIONS", &key_fns)
        .set("SUBGROUP_HELPERS", helpers)
        .set("UP_BUILTINS", up_builtins)
        .set("UP_COUNT", up_count)
        .set("DOWN_BUILTINS", down_builtins)
        .set("KEY_TYPE", key_type)
        .set("PAYLOAD_REGISTERS", registers)
        .set("RANK", &rank)
        .set("RANK_SWEEP", &rank_sweep)
        .set("PUBLISH", publish)
        .set(
            "SCATTER",
            Template::new(match scatter {
                Scatter::Digits => SCATTER_DIGITS,
                Scatter::KeyWords => SCATTER_KEY_WORDS,
            })
            .set_if_held("FIRST_WRITE", &first_write)
            .render_part(),
        )
        .set("ROUNDS", &rounds)
        .set("HIST_ITEMS", HIST_ITEMS)
        .set("HIST_BUILTINS", if grouped { up_builtins } else { "" })
        .set("HIST_COUNT", &hist_count)
        .set("TRIVIAL_FLAG", &trivial_flag)
        .set("SKIP_READ", skip_read)
        .set("SKIP", &skip)
        .render();
    if tuning.unroll {
        let per_key = unroll_loops(&module, "for (var k = 0u; k < ITEMS; k = k + 1u) {", items);
        unroll_loops(&per_key, "for (var k = 0u; k < 16u; k = k + 1u) {", 16)
    } else {
        module
    }
}

/// `src` with every loop that starts with `header` (a `for` over `k` ending in `{`, whose
/// body neither breaks out of nor continues it) replaced by `count` blocks of its body, each
/// opening with `let k = <n>u;`.
fn unroll_loops(src: &str, header: &str, count: u32) -> String {
    let mut out = String::with_capacity(src.len() * 2);
    let mut rest = src;
    while let Some(at) = rest.find(header) {
        out.push_str(&rest[..at]);
        let body_start = at + header.len();
        let mut depth = 1usize;
        let mut end = body_start;
        for (i, c) in rest[body_start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = body_start + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body = &rest[body_start..end];
        for n in 0..count {
            out.push_str(&format!("{{ let k = {n}u;{body}}}\n"));
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The row-sort module: `slots` (key, position) pairs in workgroup memory holding rows
/// padded to `row_slots` (powers of two, `row_slots <= slots`), `threads` per workgroup.
pub fn rows(slots: u32, row_slots: u32, threads: u32) -> String {
    Template::new(ROWS)
        .set("WG", threads)
        .set("L", row_slots)
        .set("SLOTS", slots)
        .render()
}

/// One 32-bit word of an element's sort key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyWord {
    /// bool: 0 or 1.
    Bool,
    /// uint32 (or a low word of int64 / key64 is separate).
    U32,
    /// int32: the sign bit flipped.
    I32,
    /// float32 at word `at` of the element (complex parts: 0 real, 1 imaginary).
    F32 {
        /// Word of the element.
        at: u32,
    },
    /// float16.
    F16,
    /// int64: the high word (sign flipped) or the low word.
    I64 {
        /// The high word.
        high: bool,
    },
    /// uint64: the high word or the low word (as stored: the identity key).
    U64 {
        /// The high word.
        high: bool,
    },
    /// float64 at words (2 at, 2 at + 1): the high or the low key word.
    F64 {
        /// First word of the float (complex128: 0 real, 2 imaginary).
        at: u32,
        /// The high key word.
        high: bool,
    },
    /// Complex NaN class: 2 * isnan(real) + isnan(imaginary) (NumPy orders complex values
    /// without NaN first, then NaN imaginary parts, NaN real parts, both NaN).
    ComplexNan {
        /// complex128.
        wide: bool,
    },
    /// The row of flat position p: p / rowlen (segmented sorts).
    Row,
    /// The inverse of the bijective float32 key (keys back to float32 values).
    UnkeyF32,
    /// The inverse of the int32 key.
    UnkeyI32,
}

impl KeyWord {
    /// Significant low bits of the word (the radix passes sort only these).
    pub fn bits(self) -> u32 {
        match self {
            KeyWord::Bool | KeyWord::ComplexNan { .. } => 8,
            KeyWord::F16 => 16,
            _ => 32,
        }
    }
}

/// The key words of `dtype`, most significant first.
pub fn key_words(dtype: DType) -> Vec<KeyWord> {
    match dtype {
        DType::Bool => vec![KeyWord::Bool],
        // The small integers are stored widened to one 32-bit word each (sign- or
        // zero-extended), so their keys are those of int32/uint32.
        DType::U8 | DType::U16 | DType::U32 => vec![KeyWord::U32],
        DType::I8 | DType::I16 | DType::I32 => vec![KeyWord::I32],
        DType::F32 => vec![KeyWord::F32 { at: 0 }],
        DType::F16 => vec![KeyWord::F16],
        DType::I64 => vec![KeyWord::I64 { high: true }, KeyWord::I64 { high: false }],
        DType::U64 => vec![KeyWord::U64 { high: true }, KeyWord::U64 { high: false }],
        DType::F64 => vec![
            KeyWord::F64 { at: 0, high: true },
            KeyWord::F64 { at: 0, high: false },
        ],
        DType::Complex64 => vec![
            KeyWord::ComplexNan { wide: false },
            KeyWord::F32 { at: 0 },
            KeyWord::F32 { at: 1 },
        ],
        DType::Complex128 => vec![
            KeyWord::ComplexNan { wide: true },
            KeyWord::F64 { at: 0, high: true },
            KeyWord::F64 { at: 0, high: false },
            KeyWord::F64 { at: 2, high: true },
            KeyWord::F64 { at: 2, high: false },
        ],
    }
}

/// u32 words per element of `dtype` on the GPU (0 for float16: two elements per word).
pub fn words_per_element(dtype: DType) -> u32 {
    match dtype {
        DType::F16 => 0,
        DType::Bool
        | DType::I8
        | DType::U8
        | DType::I16
        | DType::U16
        | DType::I32
        | DType::U32
        | DType::F32 => 1,
        DType::I64 | DType::U64 | DType::F64 | DType::Complex64 => 2,
        DType::Complex128 => 4,
    }
}

/// The key-word module of `word` for elements of `dtype`. `through_perm`: element `perm[i]`
/// gives word `i` (binding 3); else element `i`. `signed_zero`: -0.0 keys below 0.0 (a
/// bijective float32 key, for keys-only sorts whose values are recovered from the keys);
/// otherwise -0.0 and 0.0 get one key, as NumPy's order has them equal.
pub fn key_word(
    dtype: DType,
    word: KeyWord,
    through_perm: bool,
    signed_zero: bool,
) -> Result<String> {
    let w = words_per_element(dtype);
    let body = match word {
        KeyWord::Bool => "    return select(0u, 1u, src[e] != 0u);".to_string(),
        KeyWord::U32 => "    return src[e];".to_string(),
        KeyWord::I32 => "    return src[e] ^ 0x80000000u;".to_string(),
        KeyWord::F32 { at } => format!("    return key32(src[e * {w}u + {at}u]);"),
        KeyWord::F16 => "    return key16(half_bits(e));".to_string(),
        KeyWord::I64 { high: true } => "    return src[e * 2u + 1u] ^ 0x80000000u;".to_string(),
        KeyWord::I64 { high: false } => "    return src[e * 2u];".to_string(),
        KeyWord::U64 { high: true } => "    return src[e * 2u + 1u];".to_string(),
        KeyWord::U64 { high: false } => "    return src[e * 2u];".to_string(),
        KeyWord::F64 { at, high } => {
            format!("    return key64(src[e * {w}u + {at}u], src[e * {w}u + {at}u + 1u], {high});")
        }
        KeyWord::ComplexNan { wide: false } => "    return select(0u, 2u, is_nan32(src[e * 2u])) \
             + select(0u, 1u, is_nan32(src[e * 2u + 1u]));"
            .to_string(),
        KeyWord::ComplexNan { wide: true } => "    return select(0u, 2u, is_nan64(src[e * 4u], \
             src[e * 4u + 1u])) + select(0u, 1u, is_nan64(src[e * 4u + 2u], src[e * 4u + 3u]));"
            .to_string(),
        KeyWord::Row => "    return p / P.rowlen;".to_string(),
        KeyWord::UnkeyF32 => "    return unkey32(src[e]);".to_string(),
        KeyWord::UnkeyI32 => "    return src[e] ^ 0x80000000u;".to_string(),
    };
    let fits = match word {
        KeyWord::Bool => dtype == DType::Bool,
        KeyWord::U32 => matches!(dtype.compute(), DType::U32 | DType::I32 | DType::F32),
        KeyWord::I32 | KeyWord::UnkeyI32 => matches!(dtype.compute(), DType::I32 | DType::U32),
        KeyWord::F32 { at } => (dtype == DType::F32 && at == 0) || dtype == DType::Complex64,
        KeyWord::F16 => dtype == DType::F16,
        KeyWord::I64 { .. } => dtype == DType::I64,
        KeyWord::U64 { .. } => dtype == DType::U64,
        KeyWord::F64 { at, .. } => (dtype == DType::F64 && at == 0) || dtype == DType::Complex128,
        KeyWord::ComplexNan { wide } => {
            dtype
                == if wide {
                    DType::Complex128
                } else {
                    DType::Complex64
                }
        }
        KeyWord::Row => true,
        KeyWord::UnkeyF32 => matches!(dtype, DType::F32 | DType::U32),
    };
    if !fits {
        return Err(Error::invalid(format!(
            "sort key word {word:?} for {dtype}"
        )));
    }
    let neg_zero = if signed_zero {
        ""
    } else {
        "    if (b == 0x80000000u) {\n        return 0x80000000u;\n    }"
    };
    let (perm, index) = if through_perm {
        (
            "@group(0) @binding(3) var<storage, read> perm: array<u32>;",
            "perm[i]",
        )
    } else {
        ("", "i")
    };
    Ok(Template::new(KEYS)
        .set("PERM_BINDING", perm)
        .set("NEG_ZERO_32", neg_zero)
        .set("WORD", &body)
        .set("INDEX", index)
        .render())
}

/// The gather module for elements of `dtype` (see `shaders/sort_take.wgsl`); one thread per
/// output word.
pub fn take(dtype: DType) -> String {
    let wpe = words_per_element(dtype);
    let body = if wpe == 0 {
        "    let e0 = 2u * t;
    if (e0 >= P.n) {
        return;
    }
    var w = half_bits(source_element(e0));
    if (e0 + 1u < P.n) {
        w = w | (half_bits(source_element(e0 + 1u)) << 16u);
    }
    out[t] = w;"
    } else {
        "    if (t >= P.n * WPE) {
        return;
    }
    let e = t / WPE;
    let c = t - e * WPE;
    out[t] = src[source_element(e) * WPE + c];"
    };
    Template::new(TAKE)
        .set("WPE", wpe.max(1))
        .set("BODY", body)
        .render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::valid::Capabilities;

    /// Every [`KeyLoad`] with its key width in words; the `match` stops compiling when a
    /// variant is added (add it to the list as well).
    fn key_loads() -> Vec<(u32, KeyLoad)> {
        let all = vec![
            (1, KeyLoad::Words),
            (2, KeyLoad::Words),
            (1, KeyLoad::F32 { equal_zeros: false }),
            (1, KeyLoad::F32 { equal_zeros: true }),
            (1, KeyLoad::I32),
            (1, KeyLoad::U32),
            (2, KeyLoad::F64 { equal_zeros: false }),
            (2, KeyLoad::F64 { equal_zeros: true }),
            (2, KeyLoad::I64),
            (2, KeyLoad::U64),
        ];
        for (_, load) in &all {
            match load {
                KeyLoad::Words
                | KeyLoad::F32 { .. }
                | KeyLoad::I32
                | KeyLoad::U32
                | KeyLoad::F64 { .. }
                | KeyLoad::I64
                | KeyLoad::U64 => {}
            }
        }
        all
    }

    /// The stores a radix pass over `key_words`-word keys can make (the 32-bit value stores
    /// read one word, the 64-bit ones two); the `match` stops compiling when a variant is
    /// added.
    fn key_stores(key_words: u32) -> Vec<KeyStore> {
        let all = [
            KeyStore::Words,
            KeyStore::Nothing,
            KeyStore::F32,
            KeyStore::I32,
            KeyStore::F64,
            KeyStore::I64,
        ];
        all.into_iter()
            .filter(|store| match store {
                KeyStore::Words | KeyStore::Nothing => true,
                KeyStore::F32 | KeyStore::I32 => key_words == 1,
                KeyStore::F64 | KeyStore::I64 => key_words == 2,
            })
            .collect()
    }

    /// Every radix pass the sort engine can build: any first-pass load (raw elements of any
    /// kind, or key words) with any store of its width (the engine writes words between
    /// passes and the values or nothing after the last, and a one-pass sort does both at
    /// once), every payload, 4, 8 or 16 keys per thread (and the earlier kernel: staged
    /// digits, late counts, at 16), both rankings (subgroup ballots
    /// for the smallest and the largest subgroup counts the engine admits, 256 / 128 and
    /// 256 / 8).
    #[test]
    fn every_radix_pass_validates() {
        let mut checked = 0;
        for ranking in [
            Ranking::Masks,
            Ranking::Subgroups { max_subgroups: 32 },
            Ranking::Subgroups { max_subgroups: 2 },
        ] {
            let caps = match ranking {
                Ranking::Masks => Capabilities::empty(),
                Ranking::Subgroups { .. } => Capabilities::SUBGROUP,
            };
            for (key_words, load) in key_loads() {
                for store in key_stores(key_words) {
                    for payload in [Payload::None, Payload::Position, Payload::Words] {
                        if store == KeyStore::Nothing && payload == Payload::None {
                            continue;
                        }
                        // The earlier kernel (staged digits, late counts) at one tile size.
                        for (items, scatter) in [
                            (4, Scatter::KeyWords),
                            (8, Scatter::KeyWords),
                            (16, Scatter::KeyWords),
                            (16, Scatter::Digits),
                        ] {
                            let src = radix(RadixPass {
                                items,
                                key_words,
                                load,
                                store,
                                payload,
                                ranking,
                                scatter,
                                early_counts: scatter == Scatter::KeyWords,
                                int64_positions: store == KeyStore::Nothing && items == 8,
                                tuning: RadixTuning::default(),
                            });
                            crate::naga_check::validate(&src, caps);
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 600, "{checked}");
    }

    /// Selection of 1 to 3 order statistics over every raw key load with every store of its
    /// width (the engine passes `raw_load(d, false)` and `value_store(d)` of each dtype), at
    /// the engine's 32 keys per thread and one other count; searches over every raw load and
    /// over 1 to 5 precomputed key words (a complex128 key has 5), writing 1 or 2 words;
    /// every row-sort shape (power-of-two slots up to 4096, rows up to the slots, threads as
    /// the engine clamps them).
    #[test]
    fn every_select_search_and_row_variant_validates() {
        for (key_words, load) in key_loads() {
            for store in key_stores(key_words) {
                if store == KeyStore::Nothing {
                    continue;
                }
                for targets in 1..=3 {
                    for per in [32, 8] {
                        let src = select(targets, key_words, load, store, per);
                        crate::naga_check::validate(&src, Capabilities::empty());
                    }
                }
            }
            for out in [1, 2] {
                if load != KeyLoad::Words {
                    let src = search(SearchKeys::Raw(load, key_words), out);
                    crate::naga_check::validate(&src, Capabilities::empty());
                }
            }
        }
        for k in 1..=5 {
            for out in [1, 2] {
                crate::naga_check::validate(
                    &search(SearchKeys::Words(k), out),
                    Capabilities::empty(),
                );
            }
        }
        for slots_log in 1..=12 {
            let slots = 1u32 << slots_log;
            for l_log in 0..=slots_log {
                let threads = (slots / 2).clamp(32, 256);
                crate::naga_check::validate(
                    &rows(slots, 1 << l_log, threads),
                    Capabilities::empty(),
                );
            }
        }
    }

    /// Every key word of every dtype (and the row word), read directly or through a
    /// permutation, with and without -0.0 kept apart from 0.0; the unkeying words of every
    /// dtype they fit; the take kernel of every dtype.
    #[test]
    fn every_key_word_validates() {
        for d in DType::ALL {
            let mut words = key_words(d);
            words.extend([KeyWord::Row, KeyWord::UnkeyF32, KeyWord::UnkeyI32]);
            for w in words {
                for perm in [false, true] {
                    for signed_zero in [false, true] {
                        match key_word(d, w, perm, signed_zero) {
                            Ok(src) => crate::naga_check::validate(&src, Capabilities::empty()),
                            Err(_) => assert!(
                                matches!(w, KeyWord::UnkeyF32 | KeyWord::UnkeyI32),
                                "{d} {w:?}"
                            ),
                        }
                    }
                }
            }
            crate::naga_check::validate(&take(d), Capabilities::empty());
        }
    }

    #[test]
    fn radix_variants_validate() {
        let loads = [
            (1, KeyLoad::Words, KeyStore::Words),
            (1, KeyLoad::F32 { equal_zeros: false }, KeyStore::F32),
            (1, KeyLoad::F32 { equal_zeros: true }, KeyStore::Nothing),
            (1, KeyLoad::I32, KeyStore::I32),
            (1, KeyLoad::U32, KeyStore::Words),
            (2, KeyLoad::Words, KeyStore::Words),
            (2, KeyLoad::F64 { equal_zeros: false }, KeyStore::F64),
            (2, KeyLoad::F64 { equal_zeros: true }, KeyStore::Nothing),
            (2, KeyLoad::I64, KeyStore::I64),
        ];
        for ranking in [
            Ranking::Masks,
            Ranking::Subgroups { max_subgroups: 32 },
            Ranking::Subgroups { max_subgroups: 2 },
        ] {
            for (key_words, load, store) in loads {
                for items in [4, 8, 16] {
                    for payload in [Payload::None, Payload::Position, Payload::Words] {
                        if store == KeyStore::Nothing && payload == Payload::None {
                            continue;
                        }
                        let src = radix(RadixPass {
                            items,
                            key_words,
                            load,
                            store,
                            payload,
                            ranking,
                            scatter: Scatter::KeyWords,
                            early_counts: items == 8,
                            int64_positions: store == KeyStore::Nothing,
                            tuning: RadixTuning::default(),
                        });
                        let caps = match ranking {
                            Ranking::Masks => Capabilities::empty(),
                            _ => Capabilities::SUBGROUP,
                        };
                        crate::naga_check::validate(&src, caps);
                    }
                }
            }
        }
    }

    /// Every combination of the timing variants (narrow ballots, grouped counts, subgroup
    /// scan, trivial-pass copies) over both subgroup counts, with and without payloads and
    /// stores, one- and two-word keys, early counts, three tile sizes (12 is not a power of
    /// two); the trivial-pass copy also with the bit-mask ranking.
    #[test]
    fn radix_tuning_variants_validate() {
        let mut checked = 0;
        for bits in 0..32u32 {
            let tuning = RadixTuning {
                narrow_ballots: bits & 1 != 0,
                subgroup_counts: bits & 2 != 0,
                subgroup_scan: bits & 4 != 0,
                skip_trivial: bits & 8 != 0,
                unroll: bits & 16 != 0,
            };
            for ranking in [
                Ranking::Masks,
                Ranking::Subgroups { max_subgroups: 8 },
                Ranking::Subgroups { max_subgroups: 32 },
            ] {
                if ranking == Ranking::Masks && bits & 7 != 0 {
                    continue;
                }
                let caps = match ranking {
                    Ranking::Masks => Capabilities::empty(),
                    _ => Capabilities::SUBGROUP,
                };
                for (key_words, load, store, payload, items, int64) in [
                    (
                        1,
                        KeyLoad::F32 { equal_zeros: false },
                        KeyStore::F32,
                        Payload::None,
                        16,
                        false,
                    ),
                    (
                        1,
                        KeyLoad::Words,
                        KeyStore::Words,
                        Payload::Words,
                        12,
                        false,
                    ),
                    (
                        1,
                        KeyLoad::F32 { equal_zeros: true },
                        KeyStore::Nothing,
                        Payload::Position,
                        8,
                        true,
                    ),
                    (
                        2,
                        KeyLoad::F64 { equal_zeros: false },
                        KeyStore::F64,
                        Payload::None,
                        16,
                        false,
                    ),
                    (
                        2,
                        KeyLoad::I64,
                        KeyStore::Words,
                        Payload::Position,
                        12,
                        false,
                    ),
                    (2, KeyLoad::Words, KeyStore::I64, Payload::Words, 4, false),
                ] {
                    for early_counts in [true, false] {
                        let src = radix(RadixPass {
                            items,
                            key_words,
                            load,
                            store,
                            payload,
                            ranking,
                            scatter: Scatter::KeyWords,
                            early_counts,
                            int64_positions: int64,
                            tuning,
                        });
                        if tuning.unroll {
                            assert!(!src.contains("k < ITEMS") && !src.contains("k < 16u"));
                        }
                        crate::naga_check::validate(&src, caps);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn raw_search_variants_validate() {
        for (k, load) in [
            (1, KeyLoad::F32 { equal_zeros: true }),
            (1, KeyLoad::I32),
            (1, KeyLoad::U32),
            (2, KeyLoad::F64 { equal_zeros: true }),
            (2, KeyLoad::I64),
        ] {
            for out in [1, 2] {
                let src = search(SearchKeys::Raw(load, k), out);
                crate::naga_check::validate(&src, Capabilities::empty());
            }
        }
    }

    #[test]
    fn select_variants_validate() {
        for (k, load, store) in [
            (1, KeyLoad::F32 { equal_zeros: false }, KeyStore::F32),
            (1, KeyLoad::I32, KeyStore::I32),
            (1, KeyLoad::U32, KeyStore::Words),
            (2, KeyLoad::F64 { equal_zeros: false }, KeyStore::F64),
            (2, KeyLoad::I64, KeyStore::I64),
        ] {
            for t in 1..=3 {
                crate::naga_check::validate(&select(t, k, load, store, 32), Capabilities::empty());
            }
        }
    }

    #[test]
    fn row_variants_validate() {
        for (slots, l, t) in [(4096, 4096, 256), (2048, 8, 256), (64, 2, 32)] {
            crate::naga_check::validate(&rows(slots, l, t), Capabilities::empty());
        }
    }

    #[test]
    fn key_and_take_variants_validate() {
        for d in DType::ALL {
            let mut words = key_words(d);
            words.push(KeyWord::Row);
            for w in words {
                for perm in [false, true] {
                    let src = key_word(d, w, perm, false).unwrap();
                    crate::naga_check::validate(&src, Capabilities::empty());
                }
            }
            crate::naga_check::validate(&take(d), Capabilities::empty());
            let k = key_words(d).len() as u32;
            crate::naga_check::validate(&search(SearchKeys::Words(k), 2), Capabilities::empty());
        }
        for (d, w) in [
            (DType::F32, KeyWord::UnkeyF32),
            (DType::I32, KeyWord::UnkeyI32),
        ] {
            let src = key_word(d, w, false, true).unwrap();
            crate::naga_check::validate(&src, Capabilities::empty());
        }
        assert!(key_word(DType::F32, KeyWord::I64 { high: true }, false, false).is_err());
    }
}
