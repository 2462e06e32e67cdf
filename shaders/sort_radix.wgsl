// One pass of kupfer's portable LSD radix sort: 8-bit digits of 32-bit key words, keys
// alone or with a 32-bit payload. A pass is three launches and never waits on another
// workgroup (correct without forward-progress guarantees: lavapipe, Metal, WebGPU):
//   upsweep:   each tile of TILE keys counts its digits -> hist[digit * nblocks + tile]
//   scan:      workgroup `digit` turns its row of hist into exclusive prefixes and writes
//              the digit's total to hist[256 * nblocks + digit]
//   downsweep: each tile ranks its keys stably (bit masks of the threads holding each digit,
//              one round of WG keys at a time, in index order), stages them in digit order in
//              workgroup memory and writes them to global offset
//              (exclusive scan of the totals)[digit] + hist[digit * nblocks + tile] + rank.
// Tiles are numbered x + y * grid_x (grids over 65535 workgroups spill into y).
struct Params {
    n: u32,
    shift: u32,
    nblocks: u32,
    grid_x: u32,
}

const WG: u32 = 256u;
const ITEMS: u32 = {{ITEMS}}u;
const TILE: u32 = WG * ITEMS;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> hist: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;
{{PAYLOAD_BINDINGS}}

var<workgroup> counts: array<atomic<u32>, 256>;
var<workgroup> masks: array<atomic<u32>, 2048>;
var<workgroup> digit_count: array<u32, 256>;
var<workgroup> local_start: array<u32, 256>;
var<workgroup> global_start: array<u32, 256>;
var<workgroup> stage: array<u32, TILE>;

fn digit_of(key: u32) -> u32 {
    return (key >> P.shift) & 0xffu;
}

// Inclusive scan of digit_count's 256 values into local_start (Hillis-Steele).
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

@compute @workgroup_size(256)
fn {{UPSWEEP}}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let tile = wid.x + wid.y * P.grid_x;
    atomicStore(&counts[lid], 0u);
    workgroupBarrier();
    let base = tile * TILE;
    if (tile < P.nblocks) {
        for (var k = 0u; k < ITEMS; k = k + 1u) {
            let i = base + k * WG + lid;
            if (i < P.n) {
                atomicAdd(&counts[digit_of(keys_in[i])], 1u);
            }
        }
    }
    workgroupBarrier();
    if (tile < P.nblocks) {
        hist[lid * P.nblocks + tile] = atomicLoad(&counts[lid]);
    }
}

@compute @workgroup_size(256)
fn {{SCAN}}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.x * P.nblocks;
    let per = (P.nblocks + WG - 1u) / WG;
    let start = lid * per;
    var sum = 0u;
    for (var k = 0u; k < per; k = k + 1u) {
        let j = start + k;
        if (j < P.nblocks) {
            sum = sum + hist[row + j];
        }
    }
    let inclusive = scan_256(lid, sum);
    var run = inclusive - sum;
    for (var k = 0u; k < per; k = k + 1u) {
        let j = start + k;
        if (j < P.nblocks) {
            let h = hist[row + j];
            hist[row + j] = run;
            run = run + h;
        }
    }
    if (lid == WG - 1u) {
        hist[WG * P.nblocks + wid.x] = inclusive;
    }
}

@compute @workgroup_size(256)
fn {{DOWNSWEEP}}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
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
    digit_count[lid] = 0u;
    for (var w = 0u; w < 8u; w = w + 1u) {
        atomicStore(&masks[lid * 8u + w], 0u);
    }
    workgroupBarrier();

    var key: array<u32, ITEMS>;
    var rank: array<u32, ITEMS>;
{{PAYLOAD_REGISTERS}}
    let word = lid >> 5u;
    let bit = 1u << (lid & 31u);
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let i = base + k * WG + lid;
        let valid = i < P.n;
        var d = 0u;
        if (valid) {
            key[k] = keys_in[i];
{{PAYLOAD_LOAD}}
            d = digit_of(key[k]);
            atomicOr(&masks[d * 8u + word], bit);
        }
        workgroupBarrier();
        if (valid) {
            var below = countOneBits(atomicLoad(&masks[d * 8u + word]) & (bit - 1u));
            for (var w = 0u; w < word; w = w + 1u) {
                below = below + countOneBits(atomicLoad(&masks[d * 8u + w]));
            }
            rank[k] = digit_count[d] + below;
        }
        workgroupBarrier();
        var c = 0u;
        for (var w = 0u; w < 8u; w = w + 1u) {
            c = c + countOneBits(atomicExchange(&masks[lid * 8u + w], 0u));
        }
        digit_count[lid] = digit_count[lid] + c;
        workgroupBarrier();
    }
    let count = digit_count[lid];
    let start = scan_256(lid, count) - count;
    workgroupBarrier();
    local_start[lid] = start;
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        if (base + k * WG + lid < P.n) {
            stage[local_start[digit_of(key[k])] + rank[k]] = key[k];
        }
    }
    workgroupBarrier();
    var dst: array<u32, ITEMS>;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = k * WG + lid;
        if (j < tile_len) {
            let v = stage[j];
            let d = digit_of(v);
            dst[k] = global_start[d] + (j - local_start[d]);
            keys_out[dst[k]] = v;
        }
    }
{{PAYLOAD_STORE}}
}
