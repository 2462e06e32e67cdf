//! Packed storage of the small integers: int8/uint8 four to a 32-bit word, int16/uint16 two,
//! little-endian (the bytes NumPy holds). The conversion kernels (`shaders/pack.wgsl`) turn a
//! packed buffer into one sign- or zero-extended word per element and back.

use crate::DType;

/// The pack/unpack kernels: entry points `unpack` (one thread per element slot) and `pack`
/// (one thread per packed word, its only writer).
pub const PACK_WGSL: &str = include_str!("../../../shaders/pack.wgsl");

/// Contiguous assignment into packed storage, word by word (`shaders/pack_write.wgsl`):
/// entry points `write_words` (whole words, plain stores) and `write_edges` (a row's partial
/// end words, atomics).
pub const PACK_WRITE_WGSL: &str = include_str!("../../../shaders/pack_write.wgsl");

/// Bits per element of a dtype stored packed (8 or 16), `None` for every other dtype (bool
/// stays one word per element).
///
/// ```
/// use kupfer_core::{packing::packed_bits, DType};
/// assert_eq!(packed_bits(DType::U8), Some(8));
/// assert_eq!(packed_bits(DType::I16), Some(16));
/// assert_eq!(packed_bits(DType::Bool), None);
/// ```
pub fn packed_bits(dtype: DType) -> Option<u32> {
    match dtype {
        DType::I8 | DType::U8 => Some(8),
        DType::I16 | DType::U16 => Some(16),
        _ => None,
    }
}

/// Elements per 32-bit word of a packed dtype (4 or 2), 1 for every other dtype.
pub fn per_word(dtype: DType) -> usize {
    packed_bits(dtype).map_or(1, |b| (32 / b) as usize)
}

/// The 32-bit words that hold `n` packed elements of `dtype`.
pub fn packed_words(dtype: DType, n: usize) -> usize {
    n.div_ceil(per_word(dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pack_kernels_validate() {
        crate::naga_check::validate(PACK_WGSL, naga::valid::Capabilities::empty());
        crate::naga_check::validate(PACK_WRITE_WGSL, naga::valid::Capabilities::empty());
    }

    #[test]
    fn words_round_up() {
        assert_eq!(packed_words(DType::U8, 5), 2);
        assert_eq!(packed_words(DType::I16, 5), 3);
        assert_eq!(packed_words(DType::F32, 5), 5);
    }
}
