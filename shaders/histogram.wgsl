// Histogram / bincount kernel template. Element i of the (contiguous) input falls into bin
// kp_bin(i) (or none, -1): its own value for bincount; NumPy's uniform-bin computation for
// histogram (the fraction of the range times the bin count, truncated, then corrected
// against the bin edges so that edge values land exactly where NumPy puts them). Bins are
// counted with atomics: u32 atomicAdd for counts and integer weights, a compare-exchange
// loop on the bit pattern for float32 weights. With a small bin count each workgroup counts
// into a private histogram in workgroup memory and merges it into the global one at the end.
{{ENABLES}}
struct Params {
{{PARAMS}}
}

@group(0) @binding(0) var<uniform> P: Params;
{{BINDINGS}}

var<workgroup> kp_local: array<atomic<u32>, {{LOCAL_BINS}}>;

fn kp_bin(i: u32) -> i32 {
{{BIN}}
}

fn kp_weight(i: u32) -> {{WEIGHT}} {
{{LOAD_WEIGHT}}
}

fn kp_add_global(b: u32, w: {{WEIGHT}}) {
{{ADD_GLOBAL}}
}

fn kp_add_local(b: u32, w: {{WEIGHT}}) {
{{ADD_LOCAL}}
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let private_bins = {{PRIVATE}};
    if (private_bins) {
        for (var b = lid; b < P.nbins; b = b + 256u) {
            atomicStore(&kp_local[b], 0u);
        }
    }
    workgroupBarrier();
    let stride = nwg.x * 256u;
    for (var i = wid.x * 256u + lid; i < P.n; i = i + stride) {
        let b = kp_bin(i);
        if (b >= 0) {
            if (private_bins) {
                kp_add_local(u32(b), kp_weight(i));
            } else {
                kp_add_global(u32(b), kp_weight(i));
            }
        }
    }
    workgroupBarrier();
    if (private_bins) {
        for (var b = lid; b < P.nbins; b = b + 256u) {
            let v = atomicLoad(&kp_local[b]);
            if (v != 0u) {
                kp_add_global(b, {{FROM_BITS}});
            }
        }
    }
}
