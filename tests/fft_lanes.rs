//! The FFT's lanes passes (`KUPFER_FFT_LANES=2`: every power-of-two size runs them, in
//! registers and subgroup shuffles) on the cases of `common/fft_forced.rs`, against an f64
//! CPU reference DFT, at 4 values per thread: more lanes per sub-sequence, so that on
//! lavapipe (subgroups of 8 lanes) every shuffle stage runs; `fft_lanes_wide.rs` runs the
//! default 32 values per thread.
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one.

mod common;

#[test]
fn lanes_passes_match_reference() {
    // Read once per process, before the first plan; this file's test is its only user.
    std::env::set_var("KUPFER_FFT_LANES", "2");
    std::env::set_var("KUPFER_FFT_LQ", "4");
    common::fft_forced::forced_passes_match_reference();
}
