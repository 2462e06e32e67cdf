// One pass of kupfer's portable LSD radix sort: 8-bit digits of keys of K 32-bit words
// (K = 1 or 2), keys alone or with a 32-bit payload. A pass is three launches and never waits
// on another workgroup (correct without forward-progress guarantees: lavapipe, Metal, WebGPU):
//   upsweep:   each tile of TILE keys counts its digits -> hist[digit * nblocks + tile]
//   scan:      workgroup `digit` turns its row of hist into exclusive prefixes (coalesced, 256
//              tiles at a time) and writes the digit's total to hist[256 * nblocks + digit]
//   downsweep: each tile ranks its keys stably, stages them in digit order in workgroup
//              memory and writes them to global offset
//              (exclusive scan of the totals)[digit] + hist[digit * nblocks + tile] + rank,
//              so that neighbouring threads write neighbouring addresses of one digit.
// Ranking (generated, {{RANKING}}): with subgroups, each subgroup owns a contiguous segment of
// the tile and ranks a round of keys at once: eight ballots give the lanes holding the same
// digit, the lowest of them adds their count to the subgroup's counter of that digit in
// workgroup memory (atomicAdd returns the keys of that digit the subgroup ranked before) and
// shuffles the old count to its peers. Counters are 16-bit halves of u32 words (two
// subgroups per word), later replaced by each (subgroup, digit)'s start in the tile.
// Without subgroups, a round is one key per thread in thread order, ranked by bit masks of
// the threads holding each digit.
// The first pass may read raw elements and turn them into keys (load_key), the last may turn
// keys back into values (out_word) or write the payload alone. Tiles are numbered
// x + y * grid_x (grids over 65535 workgroups spill into y).
//
// The single-pass ("onesweep") variant, for adapters whose workgroups make forward progress,
// replaces the upsweep and scan of every pass:
//   clear_state:    zeroes the first P.words words of `state` (digit totals, tile counters,
//                   the first pass's tile status)
//   histogram_all:  reads the keys once and counts the digits of every pass ->
//                   state[pass * 256 + digit]
//   scan_totals:    one workgroup turns each pass's digit totals into exclusive prefixes
//   onesweep:       per pass, each workgroup takes the next tile number from the pass's
//                   counter (launch order: it only ever waits on tiles that started before
//                   it), ranks its tile as the downsweep does, publishes its digit counts
//                   (AGGREGATE; tile 0: INCLUSIVE) in the tile status (counted from the keys
//                   in registers before the ranking, "early counts", or after it), sums the
//                   counts of the tiles before it by decoupled look-back (Merrill &
//                   Garland), publishes its inclusive prefix
//                   (INCLUSIVE) and scatters like the downsweep. A status word is a 2-bit flag
//                   over a 30-bit count, so one relaxed atomic carries both. Each thread looks
//                   back for its digit on its own; a predecessor that has published nothing
//                   after P.patience reads (or after LOOKBACK_BUDGET reads in all) is counted
//                   from its keys by the whole workgroup instead, so the kernel ends even where
//                   a waited-on workgroup never runs, and every invocation stays inside
//                   lavapipe's loop budget. Each pass zeroes the next pass's status words of
//                   its tile (two status areas alternate).
// Timing variants (kupfer_core::sort::RadixTuning, generated): ballot masks as one u32
// (`Mask`, subgroups of at most 32 lanes); the single-pass digit counts (HIST_COUNT,
// EARLY_ADD) grouped per subgroup; the tile scan by subgroup scans (TILE_SCAN:
// scan_256_sub); a pass whose digit is one value for every key flagged by scan_totals
// (TRIVIAL_FLAG) and copied in place by onesweep (SKIP).
struct Params {
    n: u32,
    shift: u32,
    nblocks: u32,
    grid_x: u32,
    // Element offset of a raw source (first pass).
    off: u32,
    // Single-pass sort: digit passes (histogram_all), words to zero (clear_state), where this
    // pass's tile status starts in `state` and where the next pass's starts (zeroed here; 0:
    // none), rounds of waiting on a tile before counting its digits from its keys (0: count
    // at once, without reading any status: tests the fallback).
    passes: u32,
    words: u32,
    status_at: u32,
    clear_at: u32,
    patience: u32,
    // Portable downsweep: sum the raw tile counts itself (no scan_columns launch).
    inline_scan: u32,
    pad1: u32,
}

const WG: u32 = 256u;
const ITEMS: u32 = {{ITEMS}}u;
const TILE: u32 = WG * ITEMS;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> hist: array<u32>;
{{KEYS_OUT_BINDING}}
{{PAYLOAD_BINDINGS}}
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>>;

var<workgroup> counts: array<atomic<u32>, 256>;
var<workgroup> local_start: array<u32, 256>;
var<workgroup> global_start: array<u32, 256>;
var<workgroup> stage: array<u32, TILE>;
{{RANK_MEMORY}}

{{KEY_HELPERS}}

// Key i of the pass's input.
{{KEY_FUNCTIONS}}

// Inclusive scan of 256 values (one per thread) through local_start (Hillis-Steele).
fn scan_256(lid: u32, value: u32) -> u32 {
    local_start[lid] = value;
    workgroupBarrier();
    for (var off = 1u; off < WG; off = off << 1u) {
        var v = 0u;
        if (lid >= off) {
            v = local_start[lid - off];
        }
        workgroupBarrier();
        local_start[lid] = local_start[lid] + v;
        workgroupBarrier();
    }
    return local_start[lid];
}

{{SUBGROUP_HELPERS}}

@compute @workgroup_size(256)
fn upsweep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32{{UP_BUILTINS}}) {
    let tile = wid.x + wid.y * P.grid_x;
    atomicStore(&counts[lid], 0u);
    workgroupBarrier();
    let base = min(tile, P.nblocks) * TILE;
    // Every digit first (the loads in flight together), then the counting.
    var digits: array<u32, ITEMS>;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let i = base + k * WG + lid;
        if (tile < P.nblocks && i < P.n) {
            digits[k] = digit_of(load_key(i));
        }
    }
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let i = base + k * WG + lid;
        let valid = tile < P.nblocks && i < P.n;
        let d = digits[k];
{{UP_COUNT}}
    }
    workgroupBarrier();
    if (tile < P.nblocks) {
        hist[lid * P.nblocks + tile] = atomicLoad(&counts[lid]);
    }
}

@compute @workgroup_size(256)
fn scan_columns(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.x * P.nblocks;
    let chunks = (P.nblocks + WG - 1u) / WG;
    var carry = 0u;
    for (var c = 0u; c < chunks; c = c + 1u) {
        let j = c * WG + lid;
        var v = 0u;
        if (j < P.nblocks) {
            v = hist[row + j];
        }
        let inclusive = scan_256(lid, v);
        if (j < P.nblocks) {
            hist[row + j] = carry + inclusive - v;
        }
        carry = carry + local_start[WG - 1u];
        workgroupBarrier();
    }
    if (lid == 0u) {
        hist[WG * P.nblocks + wid.x] = carry;
    }
}

@compute @workgroup_size(256)
fn downsweep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32{{DOWN_BUILTINS}}) {
    let tile = wid.x + wid.y * P.grid_x;
    if (tile >= P.nblocks) {
        return;
    }
    let base = tile * TILE;
    let tile_len = min(TILE, P.n - base);
    // Where this tile's keys of digit `lid` start in the output: from the scanned
    // histograms, or (P.inline_scan, few tiles: no scan_columns launch) summed here from the
    // tiles' raw counts.
    var total = 0u;
    var mine = 0u;
    if (P.inline_scan != 0u) {
        for (var t = 0u; t < P.nblocks; t = t + 1u) {
            let c = hist[lid * P.nblocks + t];
            mine = mine + select(0u, c, t < tile);
            total = total + c;
        }
    } else {
        total = hist[WG * P.nblocks + lid];
        mine = hist[lid * P.nblocks + tile];
    }
    let before = scan_256(lid, total) - total;
    global_start[lid] = before + mine;

    var key: array<{{KEY_TYPE}}, ITEMS>;
    // Position in the tile's digit order (0xffffffff: no key).
    var pos: array<u32, ITEMS>;
{{PAYLOAD_REGISTERS}}
{{RANK}}
{{SCATTER}}
}

const FLAG_AGGREGATE: u32 = 0x40000000u;
const FLAG_INCLUSIVE: u32 = 0x80000000u;
const COUNT_MASK: u32 = 0x3fffffffu;
// Where the tile counters of the passes start in `state` (digit totals come first).
const COUNTERS: u32 = 2048u;
// Where the passes' flags "every key has one digit" start (KUPFER_SORT_SKIP).
const TRIVIAL_AT: u32 = 2080u;
// Status reads of a thread's look-back before it leaves every further unready predecessor
// to be counted from its keys.
const LOOKBACK_BUDGET: u32 = 4096u;
// Keys per thread of histogram_all.
const HIST_ITEMS: u32 = {{HIST_ITEMS}}u;

var<workgroup> all_counts: array<atomic<u32>, 2048>;
var<workgroup> sweep_tile: u32;
var<workgroup> sweep_flags: atomic<u32>;
var<workgroup> sweep_uniform: u32;
var<workgroup> sweep_skip: u32;

@compute @workgroup_size(256)
fn clear_state(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * P.grid_x * WG;
    if (i < P.words) {
        atomicStore(&state[i], 0u);
    }
}

@compute @workgroup_size(256)
fn histogram_all(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32{{HIST_BUILTINS}}) {
    let group = wid.x + wid.y * P.grid_x;
    for (var c = lid; c < 2048u; c = c + WG) {
        atomicStore(&all_counts[c], 0u);
    }
    workgroupBarrier();
    // Batches of 16 keys per thread, loaded before they are counted (loads in flight
    // together).
    let base = group * WG * HIST_ITEMS;
    for (var b = 0u; b < HIST_ITEMS; b = b + 16u) {
        var batch: array<{{KEY_TYPE}}, 16>;
        for (var k = 0u; k < 16u; k = k + 1u) {
            let i = base + (b + k) * WG + lid;
            if (i < P.n) {
                batch[k] = load_key(i);
            }
        }
        for (var k = 0u; k < 16u; k = k + 1u) {
            let i = base + (b + k) * WG + lid;
{{HIST_COUNT}}
        }
    }
    workgroupBarrier();
    for (var p = 0u; p < P.passes; p = p + 1u) {
        let c = atomicLoad(&all_counts[p * 256u + lid]);
        if (c != 0u) {
            atomicAdd(&state[p * 256u + lid], c);
        }
    }
}

@compute @workgroup_size(256)
fn scan_totals(@builtin(local_invocation_index) lid: u32) {
    for (var p = 0u; p < P.passes; p = p + 1u) {
        let total = atomicLoad(&state[p * 256u + lid]);
        let before = scan_256(lid, total) - total;
        workgroupBarrier();
        atomicStore(&state[p * 256u + lid], before);
{{TRIVIAL_FLAG}}
    }
}

@compute @workgroup_size(256)
fn onesweep(@builtin(local_invocation_index) lid: u32{{DOWN_BUILTINS}}) {
    let pass_index = P.shift / 8u;
    if (lid == 0u) {
        sweep_tile = atomicAdd(&state[COUNTERS + pass_index], 1u);
{{SKIP_READ}}
    }
    let tile = workgroupUniformLoad(&sweep_tile);
    if (tile >= P.nblocks) {
        return;
    }
{{SKIP}}
    let base = tile * TILE;
    let tile_len = min(TILE, P.n - base);
    // Where the keys of digit `lid` start in the output, before this tile's predecessors.
    let before = atomicLoad(&state[pass_index * 256u + lid]);

    var key: array<{{KEY_TYPE}}, ITEMS>;
    var pos: array<u32, ITEMS>;
{{PAYLOAD_REGISTERS}}
{{RANK_SWEEP}}
{{PUBLISH}}
    // Look back over the tiles before this one: thread `lid` sums digit lid's counts of
    // tiles look - 1, look - 2, ... until a tile's inclusive prefix (or tile 0's count).
    var exclusive = 0u;
    var look = tile;
    var resolved = tile == 0u;
    // First each digit on its own, without barriers, while the predecessor answers within
    // P.patience reads.
    if (P.patience > 0u) {
        var spins = 0u;
        for (var r = 0u; r < LOOKBACK_BUDGET && !resolved; r = r + 1u) {
            let s = atomicLoad(&state[P.status_at + (look - 1u) * WG + lid]);
            if ((s & FLAG_INCLUSIVE) != 0u) {
                exclusive = exclusive + (s & COUNT_MASK);
                resolved = true;
            } else if ((s & FLAG_AGGREGATE) != 0u) {
                exclusive = exclusive + (s & COUNT_MASK);
                look = look - 1u;
                resolved = look == 0u;
                spins = 0u;
            } else {
                spins = spins + 1u;
                if (spins >= P.patience) {
                    break;
                }
            }
        }
    }
    // Then, for digits still waiting: the workgroup counts the digits of the highest tile
    // any of them waits on from its keys (a full tile: it is not the last), which those take
    // as its count; the others read their predecessor once more. The highest waited-on tile
    // drops every round, so this ends after at most `tile` rounds.
    loop {
        if (lid == 0u) {
            atomicStore(&sweep_flags, 0u);
        }
        workgroupBarrier();
        if (!resolved) {
            atomicMax(&sweep_flags, look);
        }
        workgroupBarrier();
        if (lid == 0u) {
            sweep_uniform = atomicLoad(&sweep_flags);
        }
        let top = workgroupUniformLoad(&sweep_uniform);
        if (top == 0u) {
            break;
        }
        atomicStore(&counts[lid], 0u);
        workgroupBarrier();
        let prev = (top - 1u) * TILE;
        for (var k = 0u; k < ITEMS; k = k + 1u) {
            atomicAdd(&counts[digit_of(load_key(prev + k * WG + lid))], 1u);
        }
        workgroupBarrier();
        if (!resolved) {
            var s = 0u;
            if (look == top) {
                s = FLAG_AGGREGATE | atomicLoad(&counts[lid]);
            } else if (P.patience > 0u) {
                s = atomicLoad(&state[P.status_at + (look - 1u) * WG + lid]);
            }
            if ((s & FLAG_INCLUSIVE) != 0u) {
                exclusive = exclusive + (s & COUNT_MASK);
                resolved = true;
            } else if ((s & FLAG_AGGREGATE) != 0u) {
                exclusive = exclusive + (s & COUNT_MASK);
                look = look - 1u;
                resolved = look == 0u;
            }
        }
        workgroupBarrier();
    }
    atomicStore(&state[status], FLAG_INCLUSIVE | (exclusive + tile_digit_count));
    if (P.clear_at != 0u) {
        atomicStore(&state[P.clear_at + tile * WG + lid], 0u);
    }
    global_start[lid] = before + exclusive;
{{SCATTER}}
}
