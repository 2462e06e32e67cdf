// Stream compaction (mask selection, nonzero): keep the values of the elements whose flag is
// set, in order. Two passes over blocks of P.block elements (a workgroup each, 256 threads x
// 4 consecutive elements per round), with an exclusive scan of the block counts between them
// (kupfer's scan kernels); no workgroup waits on another, so no forward-progress guarantee is
// needed:
//   "count": counts[w] = number of set flags in block w;
//   "write": every set element of block w goes to out[prefix[w] + its rank in the block];
//            the last block also writes the total to count_out[0] (the one value the host
//            reads back).
// kp_eval(g) evaluates the fused flag (and value) expression at linear index g.
{{ENABLES}}
struct Params {
{{PARAMS}}
}

@group(0) @binding(0) var<uniform> P: Params;
{{BINDINGS}}
{{HELPERS}}
struct KpRoots {
{{ROOT_FIELDS}}
}

fn kp_eval(g: u32) -> KpRoots {
{{MAP}}
}
{{EVAL4}}
var<workgroup> kp_sh: array<u32, 256>;
// The write pass's sum of the earlier blocks' counts (its direct form only).
var<workgroup> kp_before: atomic<u32>;

// Exclusive sum of x over the workgroup's threads; kp_sh[255] holds the inclusive total of
// the last thread afterwards (read before the next call). Call in uniform control flow.
fn kp_wg_excl(x: u32, tid: u32) -> u32 {
    kp_sh[tid] = x;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off = off * 2u) {
        var y = kp_sh[tid];
        if (tid >= off) {
            y = y + kp_sh[tid - off];
        }
        workgroupBarrier();
        kp_sh[tid] = y;
        workgroupBarrier();
    }
    return kp_sh[tid] - x;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = wid.x + wid.y * nwg.x;
    if (w >= P.nblocks) {
        return;
    }
    let tid = lid;
    let begin = w * P.block;
    let end = min(P.n, begin + P.block);
{{BODY}}
}
