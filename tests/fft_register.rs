//! The FFT's register passes (`KUPFER_FFT_REG=2`: every power-of-two size runs them, not
//! only where they are the default) on the cases of `common/fft_forced.rs`, against an f64
//! CPU reference DFT.
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one.

mod common;

#[test]
fn register_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(&[
        ("KUPFER_FFT_LANES", "0"),
        ("KUPFER_FFT_REG", "2"),
    ]);
}
