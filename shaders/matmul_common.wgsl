// Shared by every matmul kernel: the uniform block and the batch-offset helper.
// C[z, i, j] = sum_k A[z, i, k] * B[z, k, j] over a (collapsed, at most 4-d) batch index z;
// A and B are read in place through element strides (any sign) from element offsets oa, ob;
// C is contiguous [batch, m, n].
struct Params {
    m: u32,
    n: u32,
    k: u32,
    batch: u32,
    oa: u32,
    ob: u32,
    sam: i32,
    sak: i32,
    sbk: i32,
    sbn: i32,
    // Always 0.0 (an opaque zero for complex casts, as in elementwise kernels).
    zero: f32,
    pad: u32,
    // Batch dims, innermost last (padded with 1), and A's and B's strides along them.
    bd: vec4<u32>,
    ba: vec4<i32>,
    bb: vec4<i32>,
    // A fused elementwise epilogue's offsets, strides and scalars (kupfer-core epilogue.rs).
{{EPI_FIELDS}}
}

@group(0) @binding(0) var<uniform> P: Params;

// Element offsets of batch z in A (x) and B (y), without oa/ob.
fn kp_batch(z: u32) -> vec2<i32> {
    var r = z;
    var o = vec2<i32>(0, 0);
    for (var j = 3; j >= 0; j--) {
        let d = P.bd[j];
        let c = i32(r % d);
        r = r / d;
        o += vec2<i32>(c * P.ba[j], c * P.bb[j]);
    }
    return o;
}
