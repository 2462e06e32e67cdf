// Partition by selection (`partition`, `argpartition`): the M order statistics of every row
// (the pivots, found beforehand by radix selection) split the row into B = 2M + 1 buckets,
// bucket(x) = 2 * #{pivots below x} + (1 if x equals a pivot), in the order-preserving keys
// of the sort. Writing the buckets one after the other puts every pivot at its rank with
// smaller keys before it and larger after: NumPy's partition contract. Three entry points:
//   count   one workgroup per tile of TILE elements of a row: the tile's count per bucket.
//   scan    one workgroup per row: each (tile, bucket) count becomes the position in the row
//           where that tile's elements of that bucket start (buckets in order, tiles in
//           order inside a bucket).
//   scatter one workgroup per tile again: each element's rank among the tile's elements of
//           its bucket (thread after thread, each thread's ITEMS elements in order; a
//           thread reads every WG-th element, so loads coalesce) comes from one workgroup
//           scan of per-thread counts packed two buckets to a 16-bit field (a tile holds
//           fewer than 2^16 elements). The tile's element indices are staged in workgroup
//           memory in bucket order, then written slot after slot, so that consecutive
//           threads write consecutive places: the tile's start for the bucket plus the rank.
// Writes (WRITE, generated): the element's words (partition) or its position in the row in
// the default integer dtype (argpartition). No workgroup waits on another; loops: ITEMS
// per thread and bucket (count, scatter), at most (tiles per row / 256 + 9) * B (scan).
struct Params {
    rowlen: u32,
    nrows: u32,
    // Tiles per row (ceil(rowlen / TILE)).
    tiles: u32,
    grid_x: u32,
    // Element offsets of the data and of the pivots.
    off: u32,
    poff: u32,
    pad1: u32,
    pad2: u32,
}

const WG: u32 = 256u;
const ITEMS: u32 = {{ITEMS}}u;
const TILE: u32 = WG * ITEMS;
// Pivots per row and buckets.
const M: u32 = {{M}}u;
const B: u32 = 2u * M + 1u;
// vec4<u32> words of packed per-thread bucket counts (8 buckets each).
const GROUPS: u32 = (B + 7u) / 8u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> pivots_in: array<u32>;
@group(0) @binding(3) var<storage, read_write> starts: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;

var<workgroup> pivot_keys: array<{{KEY_TYPE}}, M>;
var<workgroup> tile_count: array<atomic<u32>, B>;
var<workgroup> tile_start: array<u32, B>;
var<workgroup> scan_a: array<vec4<u32>, WG>;
var<workgroup> tile_totals: array<vec4<u32>, GROUPS>;
var<workgroup> local_start: array<u32, B + 1u>;
// The tile's elements in bucket order: their indices in the tile, two 16-bit fields a word.
var<workgroup> staged: array<atomic<u32>, TILE / 2u>;
var<workgroup> row_scan: array<u32, WG>;

{{KEY_HELPERS}}

{{KEY_FUNCTIONS}}

// Whether key `a` is below key `b`, and whether they are equal.
fn key_below(a: {{KEY_TYPE}}, b: {{KEY_TYPE}}) -> bool {
{{BELOW}}
}

fn key_equal(a: {{KEY_TYPE}}, b: {{KEY_TYPE}}) -> bool {
{{EQUAL}}
}

// Loads the pivots of `row` into workgroup memory (a barrier must follow).
fn load_pivots(row: u32, lid: u32) {
    if (row < P.nrows && lid < M) {
        pivot_keys[lid] = pivot_key(row * M + lid);
    }
}

// The bucket of element `i` of row `row` (pivots loaded).
fn bucket_of(row: u32, i: u32) -> u32 {
    let k = data_key(row * P.rowlen + i);
    var below = 0u;
    var equal = 0u;
    for (var j = 0u; j < M; j = j + 1u) {
        let p = pivot_keys[j];
        below = below + select(0u, 1u, key_below(p, k));
        equal = equal | select(0u, 1u, key_equal(p, k));
    }
    return 2u * below + equal;
}

// The packed unit count of bucket `b` in group `g`: 1 in the 16-bit field of b.
fn unit(b: u32, g: u32) -> vec4<u32> {
    let field = b - 8u * g;
    let word = field / 2u;
    let one = select(0u, 1u << (16u * (field & 1u)), b >= 8u * g && b < 8u * g + 8u);
    return vec4<u32>(
        select(0u, one, word == 0u),
        select(0u, one, word == 1u),
        select(0u, one, word == 2u),
        select(0u, one, word == 3u),
    );
}

// The 16-bit field of bucket `b` in its group's packed word `v`.
fn field_of(v: vec4<u32>, b: u32) -> u32 {
    let field = b % 8u;
    let word = field / 2u;
    var w = v.x;
    if (word == 1u) {
        w = v.y;
    } else if (word == 2u) {
        w = v.z;
    } else if (word == 3u) {
        w = v.w;
    }
    return (w >> (16u * (field & 1u))) & 0xffffu;
}

fn tile_of(wid: vec3<u32>) -> u32 {
    return wid.x + wid.y * P.grid_x;
}

@compute @workgroup_size(256)
fn count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = tile_of(wid);
    let row = t / P.tiles;
    let first = (t % P.tiles) * TILE;
    if (lid < B) {
        atomicStore(&tile_count[lid], 0u);
    }
    load_pivots(row, lid);
    workgroupBarrier();
    var packed: array<vec4<u32>, GROUPS>;
    for (var g = 0u; g < GROUPS; g = g + 1u) {
        packed[g] = vec4<u32>(0u);
    }
    if (row < P.nrows) {
        for (var j = 0u; j < ITEMS; j = j + 1u) {
            let i = first + j * WG + lid;
            if (i < P.rowlen) {
                let b = bucket_of(row, i);
                for (var g = 0u; g < GROUPS; g = g + 1u) {
                    packed[g] = packed[g] + unit(b, g);
                }
            }
        }
    }
    for (var b = 0u; b < B; b = b + 1u) {
        let c = field_of(packed[b / 8u], b);
        if (c != 0u) {
            atomicAdd(&tile_count[b], c);
        }
    }
    workgroupBarrier();
    if (row < P.nrows && lid < B) {
        starts[t * B + lid] = atomicLoad(&tile_count[lid]);
    }
}

// Exclusive scan of row_scan (inclusive sums left in `row_scan`); returns this thread's
// exclusive prefix.
fn scan_row_sums(lid: u32, mine: u32) -> u32 {
    row_scan[lid] = mine;
    workgroupBarrier();
    for (var d = 1u; d < WG; d = d * 2u) {
        var add = 0u;
        if (lid >= d) {
            add = row_scan[lid - d];
        }
        workgroupBarrier();
        row_scan[lid] = row_scan[lid] + add;
        workgroupBarrier();
    }
    return row_scan[lid] - mine;
}

@compute @workgroup_size(256)
fn scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = tile_of(wid);
    // Uniform across the workgroup: every thread takes part in the barriers.
    let live = row < P.nrows;
    let chunk = (P.tiles + WG - 1u) / WG;
    let t0 = min(lid * chunk, P.tiles);
    let t1 = min(t0 + chunk, P.tiles);
    let base_tile = select(0u, row * P.tiles, live);
    var bucket_start = 0u;
    for (var b = 0u; b < B; b = b + 1u) {
        var sum = 0u;
        if (live) {
            for (var t = t0; t < t1; t = t + 1u) {
                sum = sum + starts[(base_tile + t) * B + b];
            }
        }
        var at = bucket_start + scan_row_sums(lid, sum);
        let total = row_scan[WG - 1u];
        if (live) {
            for (var t = t0; t < t1; t = t + 1u) {
                let k = (base_tile + t) * B + b;
                let c = starts[k];
                starts[k] = at;
                at = at + c;
            }
        }
        bucket_start = bucket_start + total;
        workgroupBarrier();
    }
}

@compute @workgroup_size(256)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = tile_of(wid);
    let row = t / P.tiles;
    let live = row < P.nrows;
    let first = (t % P.tiles) * TILE;
    if (live && lid < B) {
        tile_start[lid] = starts[t * B + lid];
    }
    for (var w = lid; w < TILE / 2u; w = w + WG) {
        atomicStore(&staged[w], 0u);
    }
    load_pivots(row, lid);
    workgroupBarrier();
    var buckets: array<u32, ITEMS>;
    var packed: array<vec4<u32>, GROUPS>;
    for (var g = 0u; g < GROUPS; g = g + 1u) {
        packed[g] = vec4<u32>(0u);
    }
    for (var j = 0u; j < ITEMS; j = j + 1u) {
        let i = first + j * WG + lid;
        buckets[j] = B;
        if (live && i < P.rowlen) {
            let b = bucket_of(row, i);
            buckets[j] = b;
            for (var g = 0u; g < GROUPS; g = g + 1u) {
                packed[g] = packed[g] + unit(b, g);
            }
        }
    }
    // Exclusive prefix of the packed counts over the threads, group by group; the last
    // inclusive sum is the tile's count per bucket.
    for (var g = 0u; g < GROUPS; g = g + 1u) {
        let mine = packed[g];
        scan_a[lid] = mine;
        workgroupBarrier();
        for (var d = 1u; d < WG; d = d * 2u) {
            var add = vec4<u32>(0u);
            if (lid >= d) {
                add = scan_a[lid - d];
            }
            workgroupBarrier();
            scan_a[lid] = scan_a[lid] + add;
            workgroupBarrier();
        }
        packed[g] = scan_a[lid] - mine;
        if (lid == 0u) {
            tile_totals[g] = scan_a[WG - 1u];
        }
        workgroupBarrier();
    }
    // Where each bucket starts inside the tile's bucket order.
    if (lid == 0u) {
        var at = 0u;
        for (var b = 0u; b < B; b = b + 1u) {
            local_start[b] = at;
            at = at + field_of(tile_totals[b / 8u], b);
        }
        local_start[B] = at;
    }
    workgroupBarrier();
    // Each element's slot in that order gets its index in the tile (16 bits).
    for (var j = 0u; j < ITEMS; j = j + 1u) {
        let b = buckets[j];
        if (b < B) {
            let g = b / 8u;
            let slot = local_start[b] + field_of(packed[g], b);
            packed[g] = packed[g] + unit(b, g);
            atomicOr(&staged[slot / 2u], (j * WG + lid) << (16u * (slot & 1u)));
        }
    }
    workgroupBarrier();
    if (!live) {
        return;
    }
    // Slots in order, so that consecutive threads write consecutive places of a bucket.
    let row_first = row * P.rowlen;
    let filled = local_start[B];
    var b = 0u;
    for (var j = 0u; j < ITEMS; j = j + 1u) {
        let slot = j * WG + lid;
        if (slot < filled) {
            for (var step = 0u; step < B && local_start[b + 1u] <= slot; step = step + 1u) {
                b = b + 1u;
            }
            let local = (atomicLoad(&staged[slot / 2u]) >> (16u * (slot & 1u))) & 0xffffu;
            let i = first + local;
            let src = row_first + i;
            let at = row_first + tile_start[b] + slot - local_start[b];
{{WRITE}}
        }
    }
}
