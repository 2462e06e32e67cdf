// Device-side compaction for `unique` and the set functions (flags -> inclusive scan ->
// scatter; the caller reads back only the count, scan[n - 1]).
//   flags:   flag[i] = 1 where sorted element i starts a new run of equal keys (K key words
//            per element, side by side; element 0 always starts one; with nan_distinct every
//            NaN starts its own run, NumPy's equal_nan=False; else all NaN form one run).
//   scatter: from the inclusive scan of the flags, r = scan[i] - 1 for the run holding i:
//            first[r] = i where a run starts, next[r - 1] = i (the previous run's end) and
//            next[last] = n; with_inverse: inverse[perm[i]] = r (unique's inverse).
struct Params {
    n: u32,
    nan_distinct: u32,
    grid_x: u32,
    with_inverse: u32,
}

const K: u32 = {{K}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> flag: array<u32>;
@group(0) @binding(3) var<storage, read> scan: array<u32>;
@group(0) @binding(4) var<storage, read> perm: array<u32>;
@group(0) @binding(5) var<storage, read_write> first: array<u32>;
@group(0) @binding(6) var<storage, read_write> next: array<u32>;
@group(0) @binding(7) var<storage, read_write> inverse: array<u32>;

fn is_nan_key(i: u32) -> bool {
{{NAN_TEST}}
}

@compute @workgroup_size(256)
fn flags(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * P.grid_x * 256u;
    if (i >= P.n) {
        return;
    }
    var starts = i == 0u;
    if (!starts) {
        for (var w = 0u; w < K; w = w + 1u) {
            if (keys[i * K + w] != keys[(i - 1u) * K + w]) {
                starts = true;
            }
        }
        if (is_nan_key(i)) {
            // Every NaN its own run (equal_nan=False), or all NaN one run (complex values
            // with NaN parts differ in their other part: NumPy still takes them as one).
            starts = P.nan_distinct != 0u || !is_nan_key(i - 1u);
        }
    }
    flag[i] = select(0u, 1u, starts);
}

@compute @workgroup_size(256)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * P.grid_x * 256u;
    if (i >= P.n) {
        return;
    }
    let s = scan[i];
    var before = 0u;
    if (i > 0u) {
        before = scan[i - 1u];
    }
    let r = s - 1u;
    if (s != before) {
        first[r] = i;
        if (r > 0u) {
            next[r - 1u] = i;
        }
    }
    if (i == P.n - 1u && s > 0u) {
        next[r] = P.n;
    }
    if (P.with_inverse != 0u) {
        inverse[perm[i]] = r;
    }
}
