// Order-preserving key words of the radix sort, selection and search (spliced into
// shaders/sort_radix.wgsl, sort_select.wgsl and sort_search.wgsl).
// key32/key64 (searches, argsorts): every NaN the one largest key.
// key32_exact/key64_exact (keys-only sorts, selection, partition) are bijective, so values come
// back bit for bit: the sign flip (all bits of negatives, the sign bit of the rest), then
// rotated down by 2^23 - 1 (float64: 2^52 - 1), so that the negative NaNs, which flip to the
// lowest keys, wrap above everything: -inf is key 0, -0.0 just below 0.0, +inf below the
// positive NaNs, the negative NaNs at the top (NaNs in any order among themselves).
fn key32(b: u32) -> u32 {
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return 0xffffffffu;
    }
    if ((b & 0x80000000u) != 0u) {
        return ~b;
    }
    return b | 0x80000000u;
}

fn key64(lo: u32, hi: u32) -> vec2<u32> {
    let h = hi & 0x7fffffffu;
    if (h > 0x7ff00000u || (h == 0x7ff00000u && lo != 0u)) {
        return vec2<u32>(0xffffffffu, 0xffffffffu);
    }
    if ((hi & 0x80000000u) != 0u) {
        return vec2<u32>(~lo, ~hi);
    }
    return vec2<u32>(lo, hi | 0x80000000u);
}

fn key32_exact(b: u32) -> u32 {
    let flipped = select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
    return flipped - 0x007fffffu;
}

fn unkey32_exact(k: u32) -> u32 {
    let flipped = k + 0x007fffffu;
    return select(~flipped, flipped ^ 0x80000000u, (flipped & 0x80000000u) != 0u);
}

// (low, high) words. The low word of f - (2^52 - 1) is f.x + 1, borrowing unless f.x is
// 0xffffffff.
fn key64_exact(lo: u32, hi: u32) -> vec2<u32> {
    let f = select(vec2<u32>(lo, hi | 0x80000000u), vec2<u32>(~lo, ~hi), (hi & 0x80000000u) != 0u);
    let borrow = select(1u, 0u, f.x == 0xffffffffu);
    return vec2<u32>(f.x + 1u, f.y - 0x000fffffu - borrow);
}

fn unkey64_exact(k: vec2<u32>) -> vec2<u32> {
    let carry = select(0u, 1u, k.x != 0u);
    let f = vec2<u32>(k.x - 1u, k.y + 0x000fffffu + carry);
    return select(vec2<u32>(~f.x, ~f.y), vec2<u32>(f.x, f.y ^ 0x80000000u), (f.y & 0x80000000u) != 0u);
}
