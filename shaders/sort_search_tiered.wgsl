// Binary search of sorted keys (`searchsorted`) in two tiers: each workgroup first copies
// every STRIDE-th key of the sorted array (at most SAMPLES of them) into workgroup memory and
// searches those, which leaves a window of at most STRIDE elements; then it searches the
// window in memory. The first tier replaces the top levels of the search (dependent loads
// from memory) with loads from workgroup memory. Each thread searches QPT queries
// (queries base + k * WG + lid) side by side, so their loads from memory are independent.
// The predicate is that of sort_search.wgsl: position p is before the answer when its key
// is below the query's (side 'left') or at most equal to it (side 'right'); keys are made
// from the raw elements by `sorted_key` / `query_key` (generated). The result (WRITE,
// generated) is either the position in the default integer dtype (OUT_WORDS words) or, for
// `isin`, whether the key found there equals the query's (never for NaN) as a bool word. Loops: at most SAMPLES / WG
// copies, 12 first-tier steps and 33 second-tier steps per query. Two entry points: `main`
// interleaves a thread's queries step by step, `sequential` (below) searches them in turn,
// `kary` as `sequential` with a 4-ary second tier.
struct Params {
    n: u32,
    nq: u32,
    right: u32,
    grid_x: u32,
    // Element offsets of raw sorted and query arrays.
    aoff: u32,
    qoff: u32,
    // Elements between samples, and the number of samples (ceil(n / stride)).
    stride: u32,
    samples: u32,
    // Membership: write whether the query is NOT present (isin's invert=True).
    invert: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

const WG: u32 = 256u;
const QPT: u32 = {{QPT}}u;
const SAMPLES: u32 = {{SAMPLES}}u;
const OUT_WORDS: u32 = {{OUT_WORDS}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> sorted_keys: array<u32>;
@group(0) @binding(2) var<storage, read> query_keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

var<workgroup> sample_keys: array<{{KEY_TYPE}}, SAMPLES>;

{{KEY_HELPERS}}

{{KEY_FUNCTIONS}}

// Whether a key `s` of the sorted array comes before the answer for query key `q`.
fn before(s: {{KEY_TYPE}}, q: {{KEY_TYPE}}) -> bool {
{{BEFORE}}
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let group = wid.x + wid.y * P.grid_x;
    for (var j = lid; j < P.samples; j = j + WG) {
        sample_keys[j] = sorted_key(j * P.stride);
    }
    workgroupBarrier();
    var lo: array<u32, QPT>;
    var hi: array<u32, QPT>;
    var key: array<{{KEY_TYPE}}, QPT>;
    for (var k = 0u; k < QPT; k = k + 1u) {
        let q = (group * QPT + k) * WG + lid;
        lo[k] = 0u;
        hi[k] = 0u;
        if (q < P.nq) {
            let qk = query_key(q);
            key[k] = qk;
            var a = 0u;
            var b = P.samples;
            for (var step = 0u; step < 13u && a < b; step = step + 1u) {
                let mid = a + (b - a) / 2u;
                if (before(sample_keys[mid], qk)) {
                    a = mid + 1u;
                } else {
                    b = mid;
                }
            }
            // Samples below a come before the answer, sample a (if any) does not.
            lo[k] = select(0u, (a - 1u) * P.stride + 1u, a > 0u);
            hi[k] = select(P.n, a * P.stride, a < P.samples);
        }
    }
    for (var step = 0u; step < 33u; step = step + 1u) {
        var busy = false;
        for (var k = 0u; k < QPT; k = k + 1u) {
            if (lo[k] < hi[k]) {
                busy = true;
                let mid = lo[k] + (hi[k] - lo[k]) / 2u;
                if (before(sorted_key(mid), key[k])) {
                    lo[k] = mid + 1u;
                } else {
                    hi[k] = mid;
                }
            }
        }
        if (!busy) {
            break;
        }
    }
    for (var k = 0u; k < QPT; k = k + 1u) {
        let q = (group * QPT + k) * WG + lid;
        if (q < P.nq) {
{{WRITE}}
        }
    }
}

// The same search with each thread's QPT queries one after the other (`KUPFER_SEARCHSORTED`
// default): the position and key of a query are scalars in registers, where the interleaved
// form above keeps per-query arrays that a driver may place in local memory (a load and
// store of it per step and query).
@compute @workgroup_size(256)
fn sequential(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let group = wid.x + wid.y * P.grid_x;
    for (var j = lid; j < P.samples; j = j + WG) {
        sample_keys[j] = sorted_key(j * P.stride);
    }
    workgroupBarrier();
    for (var k = 0u; k < QPT; k = k + 1u) {
        let q = (group * QPT + k) * WG + lid;
        if (q >= P.nq) {
            break;
        }
        let qk = query_key(q);
        var a = 0u;
        var b = P.samples;
        for (var step = 0u; step < 13u && a < b; step = step + 1u) {
            let mid = a + (b - a) / 2u;
            if (before(sample_keys[mid], qk)) {
                a = mid + 1u;
            } else {
                b = mid;
            }
        }
        var lo = select(0u, (a - 1u) * P.stride + 1u, a > 0u);
        var hi = select(P.n, a * P.stride, a < P.samples);
        for (var step = 0u; step < 33u && lo < hi; step = step + 1u) {
            let mid = lo + (hi - lo) / 2u;
            if (before(sorted_key(mid), qk)) {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
{{WRITE_ONE}}
    }
}

// `sequential` with a 4-ary second tier (`KUPFER_SEARCHSORTED=kary`): each step reads three
// keys of the window at once (independent loads) and keeps the quarter that holds the
// answer, so a query waits on memory about half as many times (7 rounds for a window of
// 8192) for half as many loads again. For timing against the binary second tier.
@compute @workgroup_size(256)
fn kary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let group = wid.x + wid.y * P.grid_x;
    for (var j = lid; j < P.samples; j = j + WG) {
        sample_keys[j] = sorted_key(j * P.stride);
    }
    workgroupBarrier();
    for (var k = 0u; k < QPT; k = k + 1u) {
        let q = (group * QPT + k) * WG + lid;
        if (q >= P.nq) {
            break;
        }
        let qk = query_key(q);
        var a = 0u;
        var b = P.samples;
        for (var step = 0u; step < 13u && a < b; step = step + 1u) {
            let mid = a + (b - a) / 2u;
            if (before(sample_keys[mid], qk)) {
                a = mid + 1u;
            } else {
                b = mid;
            }
        }
        var lo = select(0u, (a - 1u) * P.stride + 1u, a > 0u);
        var hi = select(P.n, a * P.stride, a < P.samples);
        // Positions below lo come before the answer, those from hi on do not; the probes
        // m1 <= m2 <= m3 lie in [lo, hi), and each step leaves at most a quarter plus one.
        for (var step = 0u; step < 20u && lo < hi; step = step + 1u) {
            let len = hi - lo;
            let m1 = lo + len / 4u;
            let m2 = lo + len / 2u;
            let m3 = lo + (len / 4u) * 3u + ((len % 4u) * 3u) / 4u;
            let p1 = before(sorted_key(m1), qk);
            let p2 = before(sorted_key(m2), qk);
            let p3 = before(sorted_key(m3), qk);
            if (p3) {
                lo = m3 + 1u;
            } else if (p2) {
                lo = m2 + 1u;
                hi = m3;
            } else if (p1) {
                lo = m1 + 1u;
                hi = m2;
            } else {
                hi = m1;
            }
        }
{{WRITE_ONE}}
    }
}
