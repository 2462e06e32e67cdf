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
// Elements are copied as storage units ({{UNIT}}): no conversion. Each thread writes
// {{ITEMS}} consecutive elements of one row (the last axis' extent is a multiple of it): the
// other axes' coordinates and address are computed once per thread, and 4 items are stored
// as one vec4 (4-byte units). The items are unrolled (no local array).
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
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST}}>;
{{TABLE_DECL}}

// `t` folded into [0, period) (period > 0); the common in-range case without a division.
fn fold(t: i32, period: i32) -> i32 {
    if (t >= 0 && t < period) {
        return t;
    }
    return ((t % period) + period) % period;
}

// Where coordinate c of output axis d reads along source axis d: x = the source coordinate,
// y = 0 inside the source, 1 before it, 2 after it (shift mode only).
fn map_axis(d: u32, c: u32) -> vec2<i32> {
    let q = d / 4u;
    let r = d % 4u;
    let len = i32(p.src_len[q][r]);
    let a = p.arg[q][r];
    var s = 0i;
    var side = 0i;
    switch p.mode[q][r] {
        case 0u: {
            s = i32(c) - i32(a);
            if (s < 0) {
                side = 1;
            } else if (s >= len) {
                side = 2;
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
            let t = c + a;
            let n = u32(len);
            if (t < n) {
                s = i32(t);
            } else if (t < 2u * n) {
                s = i32(t - n);
            } else {
                s = i32(t % n);
            }
        }
        case 5u: {
            s = i32(c / a);
        }
        default: {
{{TABLE_CASE}}
        }
    }
    return vec2<i32>(s, side);
}

fn stride_of(d: u32) -> i32 {
    return p.strides[d / 4u][d % 4u];
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = gid.x + gid.y * p.groups_x * 256u;
    let i = t * {{ITEMS}}u;
    if (i >= p.count) {
        return;
    }
    // The last axis: the row and the first coordinate of this thread's items.
    let last = p.rank - 1u;
    let extent = p.out_shape[last / 4u][last % 4u];
    let c_last = i % extent;
    var rem = i / extent;
    // Every other axis, once per thread.
    var address = i32(p.off);
    var outside = false;
    var which = 0u;
    for (var d = i32(last) - 1; d >= 0; d--) {
        let e = p.out_shape[u32(d) / 4u][u32(d) % 4u];
        let c = rem % e;
        rem = rem / e;
        let m = map_axis(u32(d), c);
        if (!outside && m.y != 0) {
            outside = true;
            which = 2u * u32(d) + u32(m.y - 1);
        }
        address += m.x * stride_of(u32(d));
    }
{{ITEMS_BODY}}
{{STORE}}
}

// The element at coordinate c of the last axis, the other axes giving `address` (or, when
// `outside`, the fill value `which`).
fn item(last: u32, c: u32, address: i32, outside: bool, which: u32) -> {{UNIT}} {
    let m = map_axis(last, c);
    if (m.y != 0) {
        return {{FILL_LAST}};
    }
    if (outside) {
        return {{FILL}};
    }
    return src[u32(address + m.x * stride_of(last))];
}
