// Binary search of sorted keys (`searchsorted`): one thread per query finds the first
// position whose key is >= the query's (side 'left') or > it (side 'right'). Keys are the
// order-preserving words of shaders/sort_keys.wgsl, K words per element side by side
// (most significant first), so NaN, -0.0 and complex order follow NumPy's. The loop runs at
// most 33 times (positions fit in 32 bits).
struct Params {
    n: u32,
    nq: u32,
    right: u32,
    grid_x: u32,
}

const K: u32 = {{K}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> sorted_keys: array<u32>;
@group(0) @binding(2) var<storage, read> query_keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

// -1, 0, 1 as sorted element s compares to query q.
fn compare(s: u32, q: u32) -> i32 {
    for (var w = 0u; w < K; w = w + 1u) {
        let a = sorted_keys[s * K + w];
        let b = query_keys[q * K + w];
        if (a < b) {
            return -1;
        }
        if (a > b) {
            return 1;
        }
    }
    return 0;
}

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
    out[q] = lo;
}
