//! The FFT's lanes passes (`KUPFER_FFT_LANES=1`: every power-of-two size runs them, in
//! registers and subgroup shuffles) on the cases of `common/fft_forced.rs`, against an f64
//! CPU reference DFT, at 4 values per thread: more lanes per sub-sequence than values per
//! thread (radix-2 shuffle stages across the lanes; on lavapipe, whose subgroups have 8
//! lanes, up to 8 lanes); `fft_lanes_wide.rs` runs 32 values per thread (blocks transposed
//! by shuffles). Inner twiddles are computed in every pass here (`KUPFER_FFT_TWINNER=1`;
//! by default only register passes of 1024+ compute them), lanes and workgroup-memory
//! passes included.
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one.

mod common;

#[test]
fn lanes_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(&[
        ("KUPFER_FFT_LANES", "1"),
        ("KUPFER_FFT_LQ", "4"),
        ("KUPFER_FFT_TWINNER", "1"),
    ]);
}
