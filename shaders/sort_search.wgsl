// Binary search of sorted keys (`searchsorted`): one thread per query finds the first
// position whose key is >= the query's (side 'left') or > it (side 'right'). Keys are the
// order-preserving words of the sort (NaN, -0.0 and complex order follow NumPy's): either
// precomputed (K words per element side by side, most significant first) or computed from
// the raw elements of both arrays in `compare` (generated). The result is written in the
// default integer dtype (OUT_WORDS words per position). The loop runs at most 33 times.
struct Params {
    n: u32,
    nq: u32,
    right: u32,
    grid_x: u32,
    // Element offsets of raw sorted and query arrays.
    aoff: u32,
    qoff: u32,
    pad0: u32,
    pad1: u32,
}

const OUT_WORDS: u32 = {{OUT_WORDS}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> sorted_keys: array<u32>;
@group(0) @binding(2) var<storage, read> query_keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

{{KEY_HELPERS}}

// -1, 0, 1 as sorted element s compares to query q.
{{COMPARE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x + gid.y * P.grid_x * 256u;
    if (q >= P.nq) {
        return;
    }
    var lo = 0u;
    var hi = P.n;
    for (var step = 0u; step < 33u && lo < hi; step = step + 1u) {
        let mid = lo + (hi - lo) / 2u;
        let c = compare(mid, q);
        if (c < 0 || (P.right != 0u && c == 0)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    out[q * OUT_WORDS] = lo;
    if (OUT_WORDS == 2u) {
        out[q * OUT_WORDS + 1u] = 0u;
    }
}
