// Order-preserving key words of the radix sort, selection and search (spliced into
// shaders/sort_radix.wgsl, sort_select.wgsl and sort_search.wgsl): bijective (-0.0 just
// below 0.0, every NaN the one largest key) and their inverses (NaN comes back canonical).
fn key32(b: u32) -> u32 {
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return 0xffffffffu;
    }
    if ((b & 0x80000000u) != 0u) {
        return ~b;
    }
    return b | 0x80000000u;
}

fn unkey32(k: u32) -> u32 {
    if (k == 0xffffffffu) {
        return 0x7fc00000u;
    }
    if ((k & 0x80000000u) != 0u) {
        return k ^ 0x80000000u;
    }
    return ~k;
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

fn unkey64(k: vec2<u32>) -> vec2<u32> {
    if (k.x == 0xffffffffu && k.y == 0xffffffffu) {
        return vec2<u32>(0u, 0x7ff80000u);
    }
    if ((k.y & 0x80000000u) != 0u) {
        return vec2<u32>(k.x, k.y ^ 0x80000000u);
    }
    return vec2<u32>(~k.x, ~k.y);
}
