// Matmul for every dtype: one thread per output element, a dot product along k read straight
// through the strides. Used where no faster kernel applies (int, float64, complex, bool).
{{ENABLES}}
{{COMMON}}
@group(0) @binding(1) var<storage, read> A: array<{{A_STORAGE}}>;
@group(0) @binding(2) var<storage, read> B: array<{{B_STORAGE}}>;
@group(0) @binding(3) var<storage, read_write> C: array<{{C_STORAGE}}>;

fn kp_load_a(i: i32) -> {{ACC}} {
    let x = A[u32(i)];
    return {{CAST_A}};
}

fn kp_load_b(i: i32) -> {{ACC}} {
    let x = B[u32(i)];
    return {{CAST_B}};
}

fn kp_mad(acc: {{ACC}}, a: {{ACC}}, b: {{ACC}}) -> {{ACC}} {
    return {{MAD}};
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let col = g.x;
    let row = g.y;
    if (col >= P.n || row >= P.m) {
        return;
    }
    for (var z = g.z; z < P.batch; z += nwg.z) {
        let bo = kp_batch(z);
        var ia = i32(P.oa) + bo.x + i32(row) * P.sam;
        var ib = i32(P.ob) + bo.y + i32(col) * P.sbn;
        var acc = {{ZERO}};
        for (var kk = 0u; kk < P.k; kk++) {
            acc = kp_mad(acc, kp_load_a(ia), kp_load_b(ib));
            ia += P.sak;
            ib += P.sbk;
        }
        let v = acc;
        C[(z * P.m + row) * P.n + col] = {{STORE}};
    }
}
