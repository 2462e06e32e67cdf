//! The FFT's lanes passes (`KUPFER_FFT_LANES=1`) at 32 values per thread and passes of up
//! to 256 (the longest straight-line DFTs, blocks of up to 8 lanes transposed by shuffles)
//! on the cases of `common/fft_forced.rs`, every pass baked (`KUPFER_FFT_BAKE_MIN=0`: its
//! uniform block compiled in), against an f64 CPU reference DFT.
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one.

mod common;

#[test]
fn wide_lanes_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(&[
        ("KUPFER_FFT_LANES", "1"),
        ("KUPFER_FFT_LQ", "32"),
        ("KUPFER_FFT_LRMAX", "256"),
        ("KUPFER_FFT_BAKE_MIN", "0"),
    ]);
}
