//! Sorting kernels: WGSL generation from `shaders/sort_*.wgsl`.
//!
//! Sorting works on 32-bit key words whose unsigned order is NumPy's order ([`key_words`]
//! lists them per dtype, most significant first). The kernels themselves know no dtype: the
//! radix passes ([`radix`]) and the row sort ([`rows`]) move u32 words, the key kernel
//! ([`key_word`]) turns elements into words, and the gather ([`take`]) copies raw words.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::template::Template;

const RADIX: &str = include_str!("../../../shaders/sort_radix.wgsl");
const ROWS: &str = include_str!("../../../shaders/sort_rows.wgsl");
const KEYS: &str = include_str!("../../../shaders/sort_keys.wgsl");
const TAKE: &str = include_str!("../../../shaders/sort_take.wgsl");
const SEARCH: &str = include_str!("../../../shaders/sort_search.wgsl");

/// The binary-search module over keys of `words` words per element (`searchsorted`).
pub fn search(words: usize) -> String {
    Template::new(SEARCH).set("K", words).render()
}

/// Threads per workgroup of the radix passes.
pub const RADIX_WG: u32 = 256;
/// Bytes of workgroup memory a radix downsweep needs besides its tile of staged words.
pub const RADIX_FIXED_BYTES: u32 = (256 * 4) * 5 + 2048 * 4;

/// The payload a radix pass carries beside its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Payload {
    /// Keys alone.
    None,
    /// Each key's input position (the first pass of an argsort): no payload is read.
    Position,
    /// A u32 word read beside each key.
    Words,
}

/// The radix-pass module for `items` keys per thread and a payload; entry points `upsweep`,
/// `scan_columns` and `downsweep` (bindings: 1 keys in, 2 histograms, 3 keys out, 4 payload
/// in, 5 payload out).
pub fn radix(items: u32, payload: Payload) -> String {
    let bindings = match payload {
        Payload::None => "",
        Payload::Position => "@group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;",
        Payload::Words => {
            "@group(0) @binding(4) var<storage, read> vals_in: array<u32>;\n\
             @group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;"
        }
    };
    let (registers, load, store) = match payload {
        Payload::None => ("", "", ""),
        p => (
            "    var val: array<u32, ITEMS>;",
            if p == Payload::Words {
                "            val[k] = vals_in[i];"
            } else {
                "            val[k] = i;"
            },
            "    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        if (base + k * WG + lid < P.n) {
            stage[local_start[digit_of(key[k])] + rank[k]] = val[k];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let j = k * WG + lid;
        if (j < tile_len) {
            vals_out[dst[k]] = stage[j];
        }
    }",
        ),
    };
    Template::new(RADIX)
        .set("ITEMS", items)
        .set("PAYLOAD_BINDINGS", bindings)
        .set("PAYLOAD_REGISTERS", registers)
        .set("PAYLOAD_LOAD", load)
        .set("PAYLOAD_STORE", store)
        .set("UPSWEEP", "upsweep")
        .set("SCAN", "scan_columns")
        .set("DOWNSWEEP", "downsweep")
        .render()
}

/// The row-sort module: `slots` (key, position) pairs in workgroup memory holding rows
/// padded to `row_slots` (powers of two, `row_slots <= slots`), `threads` per workgroup.
pub fn rows(slots: u32, row_slots: u32, threads: u32) -> String {
    Template::new(ROWS)
        .set("WG", threads)
        .set("L", row_slots)
        .set("SLOTS", slots)
        .render()
}

/// One 32-bit word of an element's sort key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyWord {
    /// bool: 0 or 1.
    Bool,
    /// uint32 (or a low word of int64 / key64 is separate).
    U32,
    /// int32: the sign bit flipped.
    I32,
    /// float32 at word `at` of the element (complex parts: 0 real, 1 imaginary).
    F32 {
        /// Word of the element.
        at: u32,
    },
    /// float16.
    F16,
    /// int64: the high word (sign flipped) or the low word.
    I64 {
        /// The high word.
        high: bool,
    },
    /// float64 at words (2 at, 2 at + 1): the high or the low key word.
    F64 {
        /// First word of the float (complex128: 0 real, 2 imaginary).
        at: u32,
        /// The high key word.
        high: bool,
    },
    /// Complex NaN class: 2 * isnan(real) + isnan(imaginary) (NumPy orders complex values
    /// without NaN first, then NaN imaginary parts, NaN real parts, both NaN).
    ComplexNan {
        /// complex128.
        wide: bool,
    },
    /// The row of flat position p: p / rowlen (segmented sorts).
    Row,
    /// The inverse of the bijective float32 key (keys back to float32 values).
    UnkeyF32,
    /// The inverse of the int32 key.
    UnkeyI32,
}

impl KeyWord {
    /// Significant low bits of the word (the radix passes sort only these).
    pub fn bits(self) -> u32 {
        match self {
            KeyWord::Bool | KeyWord::ComplexNan { .. } => 8,
            KeyWord::F16 => 16,
            _ => 32,
        }
    }
}

/// The key words of `dtype`, most significant first.
pub fn key_words(dtype: DType) -> Vec<KeyWord> {
    match dtype {
        DType::Bool => vec![KeyWord::Bool],
        DType::U32 => vec![KeyWord::U32],
        DType::I32 => vec![KeyWord::I32],
        DType::F32 => vec![KeyWord::F32 { at: 0 }],
        DType::F16 => vec![KeyWord::F16],
        DType::I64 => vec![KeyWord::I64 { high: true }, KeyWord::I64 { high: false }],
        DType::F64 => vec![
            KeyWord::F64 { at: 0, high: true },
            KeyWord::F64 { at: 0, high: false },
        ],
        DType::Complex64 => vec![
            KeyWord::ComplexNan { wide: false },
            KeyWord::F32 { at: 0 },
            KeyWord::F32 { at: 1 },
        ],
        DType::Complex128 => vec![
            KeyWord::ComplexNan { wide: true },
            KeyWord::F64 { at: 0, high: true },
            KeyWord::F64 { at: 0, high: false },
            KeyWord::F64 { at: 2, high: true },
            KeyWord::F64 { at: 2, high: false },
        ],
    }
}

/// u32 words per element of `dtype` on the GPU (0 for float16: two elements per word).
pub fn words_per_element(dtype: DType) -> u32 {
    match dtype {
        DType::F16 => 0,
        DType::Bool | DType::I32 | DType::U32 | DType::F32 => 1,
        DType::I64 | DType::F64 | DType::Complex64 => 2,
        DType::Complex128 => 4,
    }
}

/// The key-word module of `word` for elements of `dtype`. `through_perm`: element `perm[i]`
/// gives word `i` (binding 3); else element `i`. `signed_zero`: -0.0 keys below 0.0 (a
/// bijective float32 key, for keys-only sorts whose values are recovered from the keys);
/// otherwise -0.0 and 0.0 get one key, as NumPy's order has them equal.
pub fn key_word(
    dtype: DType,
    word: KeyWord,
    through_perm: bool,
    signed_zero: bool,
) -> Result<String> {
    let w = words_per_element(dtype);
    let body = match word {
        KeyWord::Bool => "    return select(0u, 1u, src[e] != 0u);".to_string(),
        KeyWord::U32 => "    return src[e];".to_string(),
        KeyWord::I32 => "    return src[e] ^ 0x80000000u;".to_string(),
        KeyWord::F32 { at } => format!("    return key32(src[e * {w}u + {at}u]);"),
        KeyWord::F16 => "    return key16(half_bits(e));".to_string(),
        KeyWord::I64 { high: true } => "    return src[e * 2u + 1u] ^ 0x80000000u;".to_string(),
        KeyWord::I64 { high: false } => "    return src[e * 2u];".to_string(),
        KeyWord::F64 { at, high } => {
            format!("    return key64(src[e * {w}u + {at}u], src[e * {w}u + {at}u + 1u], {high});")
        }
        KeyWord::ComplexNan { wide: false } => "    return select(0u, 2u, is_nan32(src[e * 2u])) \
             + select(0u, 1u, is_nan32(src[e * 2u + 1u]));"
            .to_string(),
        KeyWord::ComplexNan { wide: true } => "    return select(0u, 2u, is_nan64(src[e * 4u], \
             src[e * 4u + 1u])) + select(0u, 1u, is_nan64(src[e * 4u + 2u], src[e * 4u + 3u]));"
            .to_string(),
        KeyWord::Row => "    return p / P.rowlen;".to_string(),
        KeyWord::UnkeyF32 => "    return unkey32(src[e]);".to_string(),
        KeyWord::UnkeyI32 => "    return src[e] ^ 0x80000000u;".to_string(),
    };
    let fits = match word {
        KeyWord::Bool => dtype == DType::Bool,
        KeyWord::U32 => matches!(dtype, DType::U32 | DType::I32 | DType::F32),
        KeyWord::I32 | KeyWord::UnkeyI32 => matches!(dtype, DType::I32 | DType::U32),
        KeyWord::F32 { at } => (dtype == DType::F32 && at == 0) || dtype == DType::Complex64,
        KeyWord::F16 => dtype == DType::F16,
        KeyWord::I64 { .. } => dtype == DType::I64,
        KeyWord::F64 { at, .. } => (dtype == DType::F64 && at == 0) || dtype == DType::Complex128,
        KeyWord::ComplexNan { wide } => {
            dtype
                == if wide {
                    DType::Complex128
                } else {
                    DType::Complex64
                }
        }
        KeyWord::Row => true,
        KeyWord::UnkeyF32 => matches!(dtype, DType::F32 | DType::U32),
    };
    if !fits {
        return Err(Error::invalid(format!(
            "sort key word {word:?} for {dtype}"
        )));
    }
    let neg_zero = if signed_zero {
        ""
    } else {
        "    if (b == 0x80000000u) {\n        return 0x80000000u;\n    }"
    };
    let (perm, index) = if through_perm {
        (
            "@group(0) @binding(3) var<storage, read> perm: array<u32>;",
            "perm[i]",
        )
    } else {
        ("", "i")
    };
    Ok(Template::new(KEYS)
        .set("PERM_BINDING", perm)
        .set("NEG_ZERO_32", neg_zero)
        .set("WORD", &body)
        .set("INDEX", index)
        .render())
}

/// The gather module for elements of `dtype` (see `shaders/sort_take.wgsl`); one thread per
/// output word.
pub fn take(dtype: DType) -> String {
    let wpe = words_per_element(dtype);
    let body = if wpe == 0 {
        "    let e0 = 2u * t;
    if (e0 >= P.n) {
        return;
    }
    var w = half_bits(source_element(e0));
    if (e0 + 1u < P.n) {
        w = w | (half_bits(source_element(e0 + 1u)) << 16u);
    }
    out[t] = w;"
    } else {
        "    if (t >= P.n * WPE) {
        return;
    }
    let e = t / WPE;
    let c = t - e * WPE;
    out[t] = src[source_element(e) * WPE + c];"
    };
    Template::new(TAKE)
        .set("WPE", wpe.max(1))
        .set("BODY", body)
        .render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::valid::Capabilities;

    #[test]
    fn radix_variants_validate() {
        for items in [4, 8, 16] {
            for p in [Payload::None, Payload::Position, Payload::Words] {
                crate::naga_check::validate(&radix(items, p), Capabilities::empty());
            }
        }
    }

    #[test]
    fn row_variants_validate() {
        for (slots, l, t) in [(4096, 4096, 256), (2048, 8, 256), (64, 2, 32)] {
            crate::naga_check::validate(&rows(slots, l, t), Capabilities::empty());
        }
    }

    #[test]
    fn key_and_take_variants_validate() {
        for d in DType::ALL {
            let mut words = key_words(d);
            words.push(KeyWord::Row);
            for w in words {
                for perm in [false, true] {
                    let src = key_word(d, w, perm, false).unwrap();
                    crate::naga_check::validate(&src, Capabilities::empty());
                }
            }
            crate::naga_check::validate(&take(d), Capabilities::empty());
            crate::naga_check::validate(&search(key_words(d).len()), Capabilities::empty());
        }
        for (d, w) in [
            (DType::F32, KeyWord::UnkeyF32),
            (DType::I32, KeyWord::UnkeyI32),
        ] {
            let src = key_word(d, w, false, true).unwrap();
            crate::naga_check::validate(&src, Capabilities::empty());
        }
        assert!(key_word(DType::F32, KeyWord::I64 { high: true }, false, false).is_err());
    }
}
