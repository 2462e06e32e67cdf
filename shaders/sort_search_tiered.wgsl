// Binary search of sorted keys (`searchsorted`) in two tiers: each workgroup first copies
// every STRIDE-th key of the sorted array (at most SAMPLES of them) into workgroup memory and
// searches those, which leaves a window of at most STRIDE elements; then it searches the
// window in memory. The first tier replaces the top levels of the search (dependent loads
// from memory) with loads from workgroup memory. Each thread searches QPT queries
// (queries base + k * WG + lid) one after the other, each query's position and key scalars
// in registers (interleaving them step by step, or a 4-ary second tier, measured slower on
// the H200: 0.343 and 0.430 ms against 0.294 for 2^20 queries into 2^24).
// The predicate is that of sort_search.wgsl: position p is before the answer when its key
// is below the query's (side 'left') or at most equal to it (side 'right'); keys are made
// from the raw elements by `sorted_key` / `query_key` (generated). The result (WRITE,
// generated) is either the position in the default integer dtype (OUT_WORDS words) or, for
// `isin`, whether the key found there equals the query's (never for NaN) as a bool word.
// SEARCH (generated, kupfer_core::sort_search::TieredForm) is the queries in turn (the
// default) or several stepped together branch-free; with a table (TABLE_ENTRY) the samples
// come from a contiguous table `make_table` writes first; with a third tier (FINE_ENTRY,
// for arrays larger than the cache) `make_fine` first writes every FINE-th key to a table,
// and each query bisects that table's part of its window (probes the cache holds) before at
// most FINE - 1 keys of the array. Loops: at most SAMPLES / WG
// copies, 13 first-tier steps (14 with 8192 samples) and 33 second-tier steps per query.
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
{{TABLE_BINDING}}
{{FINE_BINDING}}

var<workgroup> sample_keys: array<{{KEY_TYPE}}, SAMPLES>;

{{KEY_HELPERS}}

{{KEY_FUNCTIONS}}

// Whether a key `s` of the sorted array comes before the answer for query key `q`.
fn before(s: {{KEY_TYPE}}, q: {{KEY_TYPE}}) -> bool {
{{BEFORE}}
}

{{TABLE_ENTRY}}
{{FINE_ENTRY}}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let group = wid.x + wid.y * P.grid_x;
    for (var j = lid; j < P.samples; j = j + WG) {
        sample_keys[j] = {{SAMPLE_KEY}};
    }
    workgroupBarrier();
{{SEARCH}}
}
