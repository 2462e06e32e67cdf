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
struct Params {
    n: u32,
    shift: u32,
    nblocks: u32,
    grid_x: u32,
    // Element offset of a raw source (first pass).
    off: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

const WG: u32 = 256u;
const ITEMS: u32 = {{ITEMS}}u;
const TILE: u32 = WG * ITEMS;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> hist: array<u32>;
{{KEYS_OUT_BINDING}}
{{PAYLOAD_BINDINGS}}

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
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let i = base + k * WG + lid;
        let valid = tile < P.nblocks && i < P.n;
        var d = 0u;
        if (valid) {
            d = digit_of(load_key(i));
        }
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
    // Where this tile's keys of digit `lid` start in the output.
    let total = hist[WG * P.nblocks + lid];
    let before = scan_256(lid, total) - total;
    global_start[lid] = before + hist[lid * P.nblocks + tile];

    var key: array<{{KEY_TYPE}}, ITEMS>;
    // Position in the tile's digit order (0xffffffff: no key).
    var pos: array<u32, ITEMS>;
{{PAYLOAD_REGISTERS}}
{{RANK}}
    // Stage the digits in digit order to learn each slot's destination.
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
{{ROUNDS}}
}
