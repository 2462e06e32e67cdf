// Contiguous assignment into packed small integers (int8/uint8: 4 per u32 word; int16/uint16:
// 2 per word): rows of `cols` consecutive destination elements from element `d0`, row `r` at
// `d0 + r * d_stride`, take the elements of source rows at `s0 + r * s_stride` of a packed
// source (any phase within its words), or one `fill` value. Words a row covers whole are
// written by `write_words`, one thread per word and a plain store (no other thread writes
// them); the partial words at a row's two ends (which a neighbouring row may share) by
// `write_edges`, one thread per end, flipping only the bits of its covered elements that
// differ with one `atomicXor`, so a neighbour's elements written by another thread survive.

struct Params {
    // Threads in this dispatch.
    threads: u32,
    // Elements per row; log2 of the elements per word (2 or 1).
    cols: u32,
    shift: u32,
    // 8 or 16.
    bits: u32,
    groups_x: u32,
    // First destination element, destination row stride (elements).
    d0: u32,
    d_stride: u32,
    // First source element, source row stride (elements).
    s0: u32,
    s_stride: u32,
    // 1: every element is `value` (the element's bits replicated over a word).
    fill: u32,
    value: u32,
    // Word slots per row of `write_words` (its largest count of whole words).
    slots: u32,
    // write_words: all rows' word slots.
    words: u32,
    q0: u32, q1: u32, q2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst_edges: array<atomic<u32>>;

fn thread_index(gid: vec3<u32>) -> u32 {
    return gid.x + gid.y * p.groups_x * 256u;
}

// The value of word `w` with the destination elements [lo, hi) (lanes of the word, from the
// row starting at destination element `start`, source element `s_start`) from the source;
// the other lanes zero.
fn lanes(w: u32, lo: u32, hi: u32, start: u32, s_start: u32) -> u32 {
    if (p.fill != 0u) {
        return p.value;
    }
    let per = 1u << p.shift;
    let first = (w << p.shift) + lo;
    let sa = s_start + (first - start);
    let a = sa >> p.shift;
    let w0 = src[a];
    let phase = sa & (per - 1u);
    var w1 = w0;
    if (phase + (hi - lo) > per) {
        w1 = src[a + 1u];
    }
    if (hi - lo == per) {
        // A whole word: the source's at the same phase, else two source words shifted.
        if (phase == 0u) {
            return w0;
        }
        let shift = phase * p.bits;
        return (w0 >> shift) | (w1 << (32u - shift));
    }
    var word = 0u;
    for (var j = lo; j < hi; j++) {
        let s = sa + (j - lo);
        let holder = select(w0, w1, (s >> p.shift) != a);
        word = insertBits(word, extractBits(holder, (s & (per - 1u)) * p.bits, p.bits), j * p.bits, p.bits);
    }
    return word;
}

// Word `t` of the whole words (slot `k` of row `r`, `p.slots` per row).
fn write_word(t: u32) {
    let per = 1u << p.shift;
    // One row needs no division (a C-contiguous range).
    var r = 0u;
    if (t >= p.slots) {
        r = t / p.slots;
    }
    let k = t - r * p.slots;
    let start = p.d0 + r * p.d_stride;
    let end = start + p.cols;
    let w = ((start + per - 1u) >> p.shift) + k;
    if (((w + 1u) << p.shift) > end) {
        return;
    }
    if (p.fill != 0u) {
        dst[w] = p.value;
        return;
    }
    // The source element of the word's first lane, and its phase within its word.
    let sa = p.s0 + r * p.s_stride + ((w << p.shift) - start);
    let a = sa >> p.shift;
    let phase = sa & (per - 1u);
    if (phase == 0u) {
        dst[w] = src[a];
    } else {
        let bits = phase * p.bits;
        dst[w] = (src[a] >> bits) | (src[a + 1u] << (32u - bits));
    }
}

// Four whole words per thread, strided by the thread count (`p.threads`): every load and
// store instruction of a subgroup stays contiguous.
@compute @workgroup_size(256)
fn write_words(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = thread_index(gid);
    if (t >= p.threads) {
        return;
    }
    for (var i = 0u; i < 4u; i++) {
        let word = t + i * p.threads;
        if (word < p.words) {
            write_word(word);
        }
    }
}

@compute @workgroup_size(256)
fn write_edges(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = thread_index(gid);
    if (t >= p.threads) {
        return;
    }
    let per = 1u << p.shift;
    let r = t / 2u;
    let start = p.d0 + r * p.d_stride;
    let end = start + p.cols;
    let first_word = start >> p.shift;
    let last_word = (end - 1u) >> p.shift;
    var w = first_word;
    if ((t & 1u) == 1u) {
        // The last word, unless it is the first (handled by the first end) or whole.
        if (last_word == first_word || (end & (per - 1u)) == 0u) {
            return;
        }
        w = last_word;
    } else if ((start & (per - 1u)) == 0u && (last_word > first_word || (end & (per - 1u)) == 0u)) {
        // The first word is whole (written by write_words).
        return;
    }
    let base = w << p.shift;
    let lo = max(start, base) - base;
    let hi = min(end, base + per) - base;
    let word = lanes(w, lo, hi, start, p.s0 + r * p.s_stride);
    let covered = (select((1u << ((hi - lo) * p.bits)) - 1u, 0xffffffffu, (hi - lo) * p.bits >= 32u)) << (lo * p.bits);
    let cur = atomicLoad(&dst_edges[w]);
    let flip = (cur ^ word) & covered;
    if (flip != 0u) {
        atomicXor(&dst_edges[w], flip);
    }
}
