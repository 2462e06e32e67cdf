//! `Generator.bytes(n)`: random bytes from the Philox stream.
//!
//! Byte layout: a call takes one draw number `d` (like every draw) and reads the stream of
//! 32-bit words of that draw in order — word `j` is lane `j % 4` of the Philox4x32-10 block of
//! counter `(j / 4, 0, d_lo, d_hi)` (the words of [`RandomOp::Bits`]) — each word as its four
//! little-endian bytes: byte `i` is `(word[i / 4] >> (8 (i % 4))) & 0xff`. The first `n`
//! bytes are returned, so `bytes(n)` is a prefix of `bytes(m)` for `m > n` from the same state,
//! and the bytes are the same on every backend.

use super::Generator;
use crate::array::Array;
use crate::ufuncs as uf;
use kupfer_core::random::RandomOp;
use kupfer_core::{DType, Result};

impl Generator {
    /// `n` random bytes as a lazy uint8 array (the layout of `Generator.bytes`; see the module
    /// docs): works everywhere, wasm32 included.
    ///
    /// ```
    /// let rng = kupfer::random::default_rng(Some(5));
    /// let b = rng.bytes_array(10)?;
    /// assert_eq!(b.shape(), &[10]);
    /// assert_eq!(b.dtype(), kupfer::DType::U8);
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn bytes_array(&self, n: usize) -> Result<Array> {
        let words = n.div_ceil(4);
        let w = self.draw(RandomOp::Bits, &[words, 1], DType::U32, vec![])?;
        let shifts = Array::from_slice(&[0u32, 8, 16, 24], &[4])?;
        let b = uf::bitwise_and(uf::right_shift(&w, &shifts)?, 255u32)?;
        let b = b.reshape(&[(4 * words) as isize])?;
        let b = b.slice(&[kupfer_core::layout::SliceArg::Slice {
            start: Some(0),
            stop: Some(n as isize),
            step: None,
        }])?;
        b.astype(DType::U8)
    }

    /// `n` random bytes (NumPy's `Generator.bytes(n)`; the layout is in the module docs).
    /// Reads back: native only; [`Generator::bytes_async`] everywhere.
    ///
    /// ```
    /// let a = kupfer::random::default_rng(Some(5)).bytes(6)?;
    /// let b = kupfer::random::default_rng(Some(5)).bytes(9)?;
    /// assert_eq!(a.len(), 6);
    /// assert_eq!(a[..], b[..6]); // a prefix of a longer draw from the same state
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn bytes(&self, n: usize) -> Result<Vec<u8>> {
        let a = self.bytes_array(n)?;
        if n == 0 {
            return Ok(Vec::new());
        }
        a.to_vec::<u8>()
    }

    /// [`Generator::bytes`] with an asynchronous read-back (wasm32 and native).
    pub async fn bytes_async(&self, n: usize) -> Result<Vec<u8>> {
        let a = self.bytes_array(n)?;
        if n == 0 {
            return Ok(Vec::new());
        }
        a.to_vec_async::<u8>().await
    }
}
