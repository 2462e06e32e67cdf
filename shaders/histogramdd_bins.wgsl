// histogramdd's bin index kernel: one thread per sample (a row of the (N, D) contiguous
// sample matrix, already cast to the comparison dtype T) finds, for every dimension k, the
// bin NumPy's histogramdd gives it (`searchsorted(edges_k, x, side='right') - 1`, one less
// on the right-most edge) and writes the flattened index of the sample's bin
// (sum of bin_k * stride_k), or 0xFFFFFFFF when it falls outside any dimension's edges
// (NaN included). Comparisons follow NumPy's sort order (NaN after every number).
// Dimensions with uniform edges (from a bin count: NumPy's linspace) first guess the bin by
// arithmetic and verify it against the two edges around it; the others, and a failed
// guess, binary-search the edges (at most 32 steps per dimension).
{{ENABLES}}
struct Params {
    n: u32,
    d: u32,
    gx: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
// The samples, row-major (N, D).
@group(0) @binding(1) var<storage, read> xs: array<{{T}}>;
// Every dimension's edges, one after another.
@group(0) @binding(2) var<storage, read> edges: array<{{T}}>;
// Per dimension: first edge, edge count, flat stride, uniform (1) or not (0).
@group(0) @binding(3) var<storage, read> dims: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;

// NumPy's `e <= x` in sort order (NaN after every number, equal to NaN).
fn kp_le(e: {{T}}, x: {{T}}) -> bool {
{{LE}}
}

// searchsorted(edges[first .. first + m], x, side='right'): the count of edges <= x.
fn kp_count(x: {{T}}, first: u32, m: u32, uniform: bool) -> u32 {
{{GUESS}}
    var lo = 0u;
    var hi = m;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (kp_le(edges[first + mid], x)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * P.gx * 256u + gid.x;
    if (i >= P.n) {
        return;
    }
    var flat = 0u;
    for (var k = 0u; k < P.d; k = k + 1u) {
        let x = xs[i * P.d + k];
        let first = dims[4u * k];
        let m = dims[4u * k + 1u];
        let c = kp_count(x, first, m, dims[4u * k + 3u] != 0u);
        // The bin (c - 1), one less on the right-most edge; in [0, m - 2] or an outlier.
        var b = i32(c) - 1;
        if (x == edges[first + m - 1u]) {
            b = b - 1;
        }
        if (b < 0 || b > i32(m) - 2) {
            out[i] = 0xFFFFFFFFu;
            return;
        }
        flat = flat + u32(b) * dims[4u * k + 2u];
    }
    out[i] = flat;
}
