#version 460
// A float16 GEMM (float32 accumulation, float16 C) on VK_NV_cooperative_matrix2's
// workgroup-scope matrices with tensor-addressed loads: the driver stages the tiles. An
// experiment beside kupfer's WGSL tensor-core kernel, timed by vkstats (spv:...). Bindings as
// kupfer's matmul kernels: the uniform block (m, n, k first), A, B, C, all row-major.
// Compile with -DBM=.. -DBN=.. -DBK=.. -DWG=.. (workgroup invocations).
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_NV_cooperative_matrix2 : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : enable

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform Params { uint m; uint n; uint k; } P;
layout(set = 0, binding = 1) readonly buffer BufA { float16_t a[]; };
layout(set = 0, binding = 2) readonly buffer BufB { float16_t b[]; };
layout(set = 0, binding = 3) writeonly buffer BufC { float16_t c[]; };

void main() {
    const uint m0 = gl_WorkGroupID.y * BM;
    const uint n0 = gl_WorkGroupID.x * BN;
    tensorLayoutNV<2> la = createTensorLayoutNV(2);
    la = setTensorLayoutDimensionNV(la, P.m, P.k);
    tensorLayoutNV<2> lb = createTensorLayoutNV(2);
    lb = setTensorLayoutDimensionNV(lb, P.k, P.n);
    tensorLayoutNV<2> lc = createTensorLayoutNV(2);
    lc = setTensorLayoutDimensionNV(lc, P.m, P.n);
    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    for (uint k0 = 0; k0 < P.k; k0 += BK) {
        coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
        coopMatLoadTensorNV(ma, a, 0, sliceTensorLayoutNV(la, m0, BM, k0, BK));
        coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(lb, k0, BK, n0, BN));
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> r =
        coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc);
    coopMatStoreTensorNV(r, c, 0, sliceTensorLayoutNV(lc, m0, BM, n0, BN));
}
