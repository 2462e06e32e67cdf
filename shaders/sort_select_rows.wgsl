// Radix selection per row: one workgroup finds T order statistics (ranks) of one row of
// `rowlen` elements without sorting it (median, several quantiles along an axis). Keys are
// the order-preserving words of the radix sort (load_key, generated as in
// shaders/sort_select.wgsl), K 32-bit words each. Each of the 4 * K steps fixes the next 8
// bits of every target's key, most significant first:
//   count: every element of the row whose key agrees with a target's prefix above the
//          current digit adds 1 to a histogram of the digit. Targets with equal prefixes
//          share one histogram (that of the first of them: `group_of`), so an element adds
//          at most once;
//   pick:  16 threads per target sum 16 bins each, then the target's thread walks those
//          sums and the 16 bins of the chunk holding its remaining rank, appends the digit
//          to its prefix and subtracts the ranks below.
// The targets of a row need not be sorted or distinct. After the last step each target
// writes its value (the inverse key) to `values[(row * cols + col0 + t) * K ..]`.
// The row's elements are read from memory once per step; no workgroup waits on another.
struct Params {
    rowlen: u32,
    nrows: u32,
    grid_x: u32,
    // Element offset of the raw source.
    off: u32,
    // Ranks of row r start at ranks[r * rank_stride + col0] (0: every row shares them).
    rank_stride: u32,
    // First output column of this launch and the columns of a row.
    col0: u32,
    cols: u32,
    pad0: u32,
}

const WG: u32 = 256u;
const T: u32 = {{T}}u;
const K: u32 = {{K}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> ranks: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;

var<workgroup> hist: array<atomic<u32>, T * 256u>;
var<workgroup> partial: array<u32, T * 16u>;
var<workgroup> pre_lo: array<u32, T>;
var<workgroup> pre_hi: array<u32, T>;
var<workgroup> want: array<u32, T>;
var<workgroup> group_of: array<u32, T>;

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

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * P.grid_x;
    // Uniform per workgroup: every barrier below is reached by all threads or none.
    if (row >= P.nrows) {
        return;
    }
    let base = P.off + row * P.rowlen;
    if (lid < T) {
        pre_lo[lid] = 0u;
        pre_hi[lid] = 0u;
        want[lid] = ranks[row * P.rank_stride + P.col0 + lid];
        group_of[lid] = 0u;
    }
    for (var step = 0u; step < 4u * K; step = step + 1u) {
        let shift = 32u * K - 8u - 8u * step;
        for (var j = lid; j < T * 256u; j = j + WG) {
            atomicStore(&hist[j], 0u);
        }
        workgroupBarrier();
        for (var j = lid; j < P.rowlen; j = j + WG) {
            let k = load_key(base + j);
            let high = above(k, shift + 8u);
            // The first target with this prefix leads its group.
            for (var t = 0u; t < T; t = t + 1u) {
                if (high.x == pre_lo[t] && high.y == pre_hi[t]) {
                    atomicAdd(&hist[t * 256u + digit(k, shift)], 1u);
                    break;
                }
            }
        }
        workgroupBarrier();
        if (lid < T * 16u) {
            let g = group_of[lid / 16u];
            let first = g * 256u + (lid % 16u) * 16u;
            var s = 0u;
            for (var b = 0u; b < 16u; b = b + 1u) {
                s = s + atomicLoad(&hist[first + b]);
            }
            partial[lid] = s;
        }
        workgroupBarrier();
        if (lid < T) {
            var w = want[lid];
            var c = 0u;
            for (; c < 15u; c = c + 1u) {
                let p = partial[lid * 16u + c];
                if (w < p) {
                    break;
                }
                w = w - p;
            }
            let first = group_of[lid] * 256u + c * 16u;
            var b = 0u;
            for (; b < 15u; b = b + 1u) {
                let h = atomicLoad(&hist[first + b]);
                if (w < h) {
                    break;
                }
                w = w - h;
            }
            want[lid] = w;
            let d = c * 16u + b;
            if (shift >= 32u) {
                pre_hi[lid] = pre_hi[lid] | (d << (shift - 32u));
            } else {
                pre_lo[lid] = pre_lo[lid] | (d << shift);
            }
        }
        workgroupBarrier();
        if (lid < T) {
            var g = lid;
            for (var u = 0u; u < lid; u = u + 1u) {
                if (pre_lo[u] == pre_lo[lid] && pre_hi[u] == pre_hi[lid]) {
                    g = u;
                    break;
                }
            }
            group_of[lid] = g;
        }
        workgroupBarrier();
    }
    if (lid < T) {
        let at = (row * P.cols + P.col0 + lid) * K;
{{EMIT}}
    }
}
