// ufunc.at without atomics (kupfer-core `at_segments`), for the dtypes and ops 32-bit
// atomics cannot accumulate. The host sorts the target offsets stably (kupfer's radix sort,
// original positions as payload), so each run of equal offsets lists its updates in NumPy's
// order. A segmented inclusive scan of the values in that order, each run starting from the
// destination's old value, leaves every run's result at its last element; one plain write
// per run stores it. Each thread scans a chunk of CHUNK elements sequentially; the chunk
// aggregates (a head flag and the value since the chunk's last head) are scanned the same way
// one level up (`level`), then carried into each chunk's elements before its first head.
//   first: level 0 from (keys, perm, vals, dst) into scan, agg_flag, agg_val
//   level: a level above, over head flags `keys` and values `scan` in place
//   carry: scan[i] = up[c - 1] OP scan[i] for chunk c's elements before its first head
//   apply: dst[keys[i]] = scan[i] at the last element of each run
// No thread waits on another; every loop runs at most CHUNK times.
{{ENABLES}}
struct Params {
    n: u32,
    gx: u32,
    keyed: u32,
    zero: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> perm: array<u32>;
@group(0) @binding(3) var<storage, read> vals: array<{{T}}>;
@group(0) @binding(4) var<storage, read_write> dst: array<{{T}}>;
@group(0) @binding(5) var<storage, read_write> scan: array<{{T}}>;
@group(0) @binding(6) var<storage, read_write> agg_flag: array<u32>;
@group(0) @binding(7) var<storage, read_write> agg_val: array<{{T}}>;
@group(0) @binding(8) var<storage, read> up: array<{{T}}>;
{{HELPERS}}
const CHUNK: u32 = {{CHUNK}}u;

fn kp_at(a: {{T}}, b: {{T}}) -> {{T}} {
    return {{COMBINE}};
}

// True where element i starts a run: a new offset (level 0) or a set head flag (above).
fn kp_head(i: u32) -> bool {
    if (P.keyed != 0u) {
        return i == 0u || keys[i] != keys[i - 1u];
    }
    return keys[i] != 0u;
}

fn kp_thread(wid: vec3<u32>, lid: u32) -> u32 {
    return (wid.x + wid.y * P.gx) * 64u + lid;
}

@compute @workgroup_size(64)
fn first(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = kp_thread(wid, lid);
    let begin = c * CHUNK;
    if (begin >= P.n) {
        return;
    }
    let end = min(begin + CHUNK, P.n);
    var acc: {{T}};
    var any = 0u;
    for (var i = begin; i < end; i = i + 1u) {
        let v = {{PREPARE}};
        if (kp_head(i)) {
            acc = kp_at(dst[keys[i]], v);
            any = 1u;
        } else if (i == begin) {
            acc = v;
        } else {
            acc = kp_at(acc, v);
        }
        scan[i] = acc;
    }
    agg_flag[c] = any;
    agg_val[c] = acc;
}

@compute @workgroup_size(64)
fn level(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = kp_thread(wid, lid);
    let begin = c * CHUNK;
    if (begin >= P.n) {
        return;
    }
    let end = min(begin + CHUNK, P.n);
    var acc: {{T}};
    var any = 0u;
    for (var i = begin; i < end; i = i + 1u) {
        let v = scan[i];
        let head = kp_head(i);
        if (head || i == begin) {
            acc = v;
        } else {
            acc = kp_at(acc, v);
        }
        any = any | select(0u, 1u, head);
        scan[i] = acc;
    }
    agg_flag[c] = any;
    agg_val[c] = acc;
}

@compute @workgroup_size(64)
fn carry(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = kp_thread(wid, lid) + 1u;
    let begin = c * CHUNK;
    if (begin >= P.n) {
        return;
    }
    let end = min(begin + CHUNK, P.n);
    let before = up[c - 1u];
    for (var i = begin; i < end; i = i + 1u) {
        if (kp_head(i)) {
            break;
        }
        scan[i] = kp_at(before, scan[i]);
    }
}

@compute @workgroup_size(64)
fn apply(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = kp_thread(wid, lid);
    if (i >= P.n) {
        return;
    }
    if (i + 1u == P.n || keys[i + 1u] != keys[i]) {
        dst[keys[i]] = scan[i];
    }
}
