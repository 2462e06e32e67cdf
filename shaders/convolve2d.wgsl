// Direct 2-D convolution / correlation (SciPy's convolve2d and correlate2d).
//
// out[m, n] = sum_{j < kh, k < kw} w[j, k] * img(m + off0 + j, n + off1 + k)
//
// The host folds everything else into the parameters: convolution flips the kernel through
// its strides (a reversed view), correlation conjugates it beforehand; the mode (full / same
// / valid) only moves (off0, off1). Indices outside the image follow the boundary rule of
// kp_src: fill (the fill value), wrap (periodic) or symm (mirrored with the edge repeated,
// periodic with period 2n), extended without limit as SciPy does.
//
// TILED (kernels up to 16 x 16, sizes compile-time constants): a workgroup of TX x TY threads
// computes a tile of TX x (TY * R) outputs; it first stages the tile's input window (the tile
// plus a halo of kh - 1 rows and kw - 1 columns, every boundary index resolved once) and the
// weights in workgroup memory, then each thread accumulates R outputs of one column in
// registers (generated, unrolled code).
// Otherwise (large kernels): one thread per output, reading the image directly.
{{ENABLES}}
struct Params {
    oh: u32,
    ow: u32,
    nh: i32,
    nw: i32,
    s0: i32,
    s1: i32,
    base: i32,
    k0: i32,
    k1: i32,
    kbase: i32,
    off0: i32,
    off1: i32,
    kh: u32,
    kw: u32,
    gx: u32,
    pad: u32,
    fill: {{FILL}},
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> img: array<{{STORE}}>;
@group(0) @binding(2) var<storage, read> ker: array<{{STORE}}>;
@group(0) @binding(3) var<storage, read_write> out: array<{{STORE}}>;

const TILED: bool = {{TILED}};
const TX: u32 = {{TX}}u;
const TY: u32 = {{TY}}u;
const R: u32 = {{R}}u;
const KH: u32 = {{KH}}u;
const KW: u32 = {{KW}}u;
const TH: u32 = TY * R;
const HH: u32 = TH + KH - 1u;
const HW: u32 = TX + KW - 1u;
const LOADS: u32 = (HH * HW + TX * TY - 1u) / (TX * TY);

var<workgroup> tile: array<{{T}}, {{TILE_LEN}}>;
var<workgroup> wk: array<{{T}}, {{W_LEN}}>;

// The image index that index i (of an axis of length n) reads, or -1 for the fill value.
fn kp_src(i: i32, n: i32) -> i32 {
    if (i >= 0 && i < n) {
        return i;
    }
{{BOUNDARY}}
}

// The image value at (r, c) under the boundary rule.
fn kp_img(r: i32, c: i32) -> {{T}} {
    let rr = kp_src(r, P.nh);
    let cc = kp_src(c, P.nw);
    if (rr < 0 || cc < 0) {
        return {{FILL_VALUE}};
    }
    return {{T}}(img[u32(P.base + rr * P.s0 + cc * P.s1)]);
}

fn kp_weight(j: u32, k: u32) -> {{T}} {
    return {{T}}(ker[u32(P.kbase + i32(j) * P.k0 + i32(k) * P.k1)]);
}

fn kp_madd(acc: {{T}}, w: {{T}}, v: {{T}}) -> {{T}} {
{{MADD}}
}

@compute @workgroup_size({{TX}}, {{TY}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let g = wid.x + wid.y * P.gx;
    if (TILED) {
        let tiles_x = (P.ow + TX - 1u) / TX;
        let tx0 = (g % tiles_x) * TX;
        let ty0 = (g / tiles_x) * TH;
        if (ty0 >= P.oh) {
            return;
        }
        let r0 = i32(ty0) + P.off0;
        let c0 = i32(tx0) + P.off1;
        // A constant trip count, so that the compiler can issue every load before the stores.
        for (var it = 0u; it < LOADS; it = it + 1u) {
            let i = li + it * (TX * TY);
            if (i < HH * HW) {
                tile[i] = kp_img(r0 + i32(i / HW), c0 + i32(i % HW));
            }
        }
        for (var i = li; i < KH * KW; i = i + TX * TY) {
            wk[i] = kp_weight(i / KW, i % KW);
        }
        workgroupBarrier();
        // Each thread: R outputs of column x, rows yb.. yb + R - 1. Per kernel column k the
        // R + KH - 1 input values it needs are read once into registers (v*), the KH
        // weights into w*, and every product is an unrolled statement (no private arrays).
        let x = tx0 + lid.x;
        let yb = lid.y * R;
{{TILED_COMPUTE}}
    } else {
        let t = g * (TX * TY) + li;
        if (t >= P.oh * P.ow) {
            return;
        }
        let m = i32(t / P.ow);
        let n = i32(t % P.ow);
        var acc: {{T}};
        for (var j = 0u; j < P.kh; j = j + 1u) {
            for (var k = 0u; k < P.kw; k = k + 1u) {
                acc = kp_madd(acc, kp_weight(j, k),
                              kp_img(m + P.off0 + i32(j), n + P.off1 + i32(k)));
            }
        }
        out[t] = {{STORE}}(acc);
    }
}
