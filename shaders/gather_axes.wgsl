// A gather whose source index is a separate map of every output coordinate (rank <= 8): the
// one kernel of pad, roll, tile, repeat, resize and delete. Output element i (C order over
// out_shape) reads the source at sum_d map_d(c_d) * strides[d] + off, or is `fill` where a
// map falls outside the source (pad's constant mode: fill[2 d] before axis d's source,
// fill[2 d + 1] after it; where several axes fall outside, the last one's value wins, as
// NumPy pads axis after axis). Maps (mode[d], with len = src_len[d],
// a = arg[d], b = arg2[d]):
//   0 shift:     c - a, outside [0, len) -> fill      (pad constant, concatenation offsets)
//   1 edge:      clamp(c - a, 0, len - 1)
//   2 reflect:   c - a reflected about the end elements (period 2 len - 2)
//   3 symmetric: c - a reflected with the end elements repeated (period 2 len)
//   4 wrap:      (c + a) mod len                       (roll, tile, pad wrap with a = len - pad)
//   5 divide:    c / a                                 (repeat by a scalar count)
//   6 table:     table[b + c]                          (repeat by counts, delete, insert)
// Elements are copied as storage units ({{UNIT}}): no conversion.
{{ENABLE}}
struct Params {
    count: u32, rank: u32, off: u32, groups_x: u32,
    fill: array<vec4<u32>, 16>,
    out_shape: array<vec4<u32>, 2>,
    src_len: array<vec4<u32>, 2>,
    strides: array<vec4<i32>, 2>,
    mode: array<vec4<u32>, 2>,
    arg: array<vec4<u32>, 2>,
    arg2: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<{{UNIT}}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{UNIT}}>;
{{TABLE_DECL}}

// `t` folded into [0, period) (period > 0).
fn fold(t: i32, period: i32) -> i32 {
    return ((t % period) + period) % period;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * p.groups_x * 256u;
    if (i >= p.count) {
        return;
    }
    var rem = i;
    var address = i32(p.off);
    var outside = false;
    var which = 0u;
    for (var d = i32(p.rank) - 1; d >= 0; d--) {
        let q = u32(d) / 4u;
        let r = u32(d) % 4u;
        let extent = p.out_shape[q][r];
        let c = rem % extent;
        rem = rem / extent;
        let len = i32(p.src_len[q][r]);
        let a = p.arg[q][r];
        var s = 0i;
        switch p.mode[q][r] {
            case 0u: {
                s = i32(c) - i32(a);
                if (!outside && (s < 0 || s >= len)) {
                    outside = true;
                    which = 2u * u32(d) + select(0u, 1u, s >= len);
                }
            }
            case 1u: {
                s = clamp(i32(c) - i32(a), 0, len - 1);
            }
            case 2u: {
                if (len > 1) {
                    let m = fold(i32(c) - i32(a), 2 * len - 2);
                    s = select(2 * len - 2 - m, m, m < len);
                }
            }
            case 3u: {
                let m = fold(i32(c) - i32(a), 2 * len);
                s = select(2 * len - 1 - m, m, m < len);
            }
            case 4u: {
                s = i32((c + a) % u32(len));
            }
            case 5u: {
                s = i32(c / a);
            }
            default: {
{{TABLE_CASE}}
            }
        }
        address += s * p.strides[q][r];
    }
    if (outside) {
        dst[i] = {{FILL}};
    } else {
        dst[i] = src[u32(address)];
    }
}
