// Radix selection: the keys of T order statistics (ranks) of n elements without sorting them
// (median, quantiles of one row). Keys are the order-preserving words of the radix sort
// (load_key, generated as in shaders/sort_radix.wgsl), K 32-bit words each. Each step fixes
// the next 8 bits of every target's key, most significant first:
//   count: every element whose key agrees with a target's prefix above the current digit
//          adds 1 to that target's histogram of the digit (workgroup histograms, then one
//          global atomicAdd per nonzero bin); in the first step every prefix is empty, so all
//          targets share histogram 0;
//   pick:  one workgroup scans each target's histogram, finds the digit holding the target's
//          remaining rank, appends it to the prefix, subtracts the ranks below and clears the
//          histograms for the next step.
// After the last step `emit` writes each target's value (the inverse key). No read-back and
// no workgroup waits on another; each thread counts at most PER elements per step.
struct Params {
    n: u32,
    // Bit position of the current digit within the K * 32-bit key.
    shift: u32,
    first: u32,
    off: u32,
    grid_x: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

const WG: u32 = 256u;
const T: u32 = {{T}}u;
const K: u32 = {{K}}u;
const PER: u32 = {{PER}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
// Per target: the key prefix (K words) and the remaining rank, (K + 1) words each.
@group(0) @binding(2) var<storage, read_write> state: array<u32>;
@group(0) @binding(3) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> values: array<u32>;

const HB: u32 = T * 256u;
var<workgroup> local_hist: array<atomic<u32>, HB>;
var<workgroup> scan_buf: array<u32, 256>;

{{KEY_HELPERS}}

// The key of element i as (low word, high word) (K = 1: the high word is 0).
{{KEY_FUNCTIONS}}

// Bits of `k` at and above bit `low` (at most 64) of the two-word key (lo, hi).
fn above(k: vec2<u32>, low: u32) -> vec2<u32> {
    if (low >= 32u) {
        return vec2<u32>(0u, select(k.y & (0xffffffffu << (low - 32u)), 0u, low >= 64u));
    }
    return vec2<u32>(k.x & (0xffffffffu << low), k.y);
}

fn digit(k: vec2<u32>, shift: u32) -> u32 {
    return (select(k.x, k.y, shift >= 32u) >> (shift & 31u)) & 0xffu;
}

fn prefix_of(t: u32) -> vec2<u32> {
    let s = t * (K + 1u);
    if (K == 2u) {
        return vec2<u32>(state[s], state[s + 1u]);
    }
    return vec2<u32>(state[s], 0u);
}

@compute @workgroup_size(256)
fn count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    for (var j = lid; j < HB; j = j + WG) {
        atomicStore(&local_hist[j], 0u);
    }
    workgroupBarrier();
    let group = wid.x + wid.y * P.grid_x;
    var pre: array<vec2<u32>, T>;
    for (var t = 0u; t < T; t = t + 1u) {
        pre[t] = above(prefix_of(t), P.shift + 8u);
    }
    let targets = select(T, 1u, P.first != 0u);
    for (var r = 0u; r < PER; r = r + 1u) {
        let i = (group * PER + r) * WG + lid;
        if (i < P.n) {
            let k = load_key(i);
            let d = digit(k, P.shift);
            let high = above(k, P.shift + 8u);
            for (var t = 0u; t < targets; t = t + 1u) {
                if (all(high == pre[t])) {
                    atomicAdd(&local_hist[t * 256u + d], 1u);
                }
            }
        }
    }
    workgroupBarrier();
    for (var j = lid; j < HB; j = j + WG) {
        let c = atomicLoad(&local_hist[j]);
        if (c != 0u) {
            atomicAdd(&hist[j], c);
        }
    }
}

@compute @workgroup_size(256)
fn pick(@builtin(local_invocation_index) lid: u32) {
    for (var t = 0u; t < T; t = t + 1u) {
        let h = select(t, 0u, P.first != 0u);
        let c = atomicLoad(&hist[h * 256u + lid]);
        scan_buf[lid] = c;
        workgroupBarrier();
        for (var off = 1u; off < WG; off = off << 1u) {
            var v = 0u;
            if (lid >= off) {
                v = scan_buf[lid - off];
            }
            workgroupBarrier();
            scan_buf[lid] = scan_buf[lid] + v;
            workgroupBarrier();
        }
        let inclusive = scan_buf[lid];
        let s = t * (K + 1u);
        let want = state[s + K];
        workgroupBarrier();
        if (inclusive - c <= want && want < inclusive) {
            let word = select(0u, 1u, P.shift >= 32u);
            state[s + word] = state[s + word] | (lid << (P.shift & 31u));
            state[s + K] = want - (inclusive - c);
        }
        storageBarrier();
        workgroupBarrier();
    }
    for (var j = lid; j < HB; j = j + WG) {
        atomicStore(&hist[j], 0u);
    }
}

@compute @workgroup_size(256)
fn emit(@builtin(local_invocation_index) lid: u32) {
    if (lid < T && P.n > 0u) {
{{EMIT}}
    }
}
