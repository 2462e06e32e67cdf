//! The FFT's pipelined register passes (`KUPFER_FFT_REG=2` with `KUPFER_FFT_PIPE=3` and
//! `KUPFER_FFT_PIPE_MIN=1`: every power-of-two size runs register passes whose workgroups
//! take three tiles in turn, the next tile's values fetched while the current one is
//! transformed), with outer twiddles read from tables (`KUPFER_FFT_TWPOLY=0`; computed ones
//! are the default everywhere else) and every pass baked (`KUPFER_FFT_BAKE_MIN=0`: its
//! uniform block compiled in, by default only in batches of 2^16+ values), on the cases of
//! `common/fft_forced.rs`, against an f64 CPU reference DFT. Three tiles, so that batches
//! end on a partial turn.
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one.

mod common;

#[test]
fn pipelined_register_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(&[
        ("KUPFER_FFT_LANES", "0"),
        ("KUPFER_FFT_REG", "2"),
        ("KUPFER_FFT_PIPE", "3"),
        ("KUPFER_FFT_PIPE_MIN", "1"),
        ("KUPFER_FFT_TWPOLY", "0"),
        ("KUPFER_FFT_BAKE_MIN", "0"),
    ]);
}
