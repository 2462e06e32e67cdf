//! The FFT's pipelined register passes (`KUPFER_FFT_REG=2` with `KUPFER_FFT_PIPE=3` and
//! `KUPFER_FFT_PIPE_MIN=1`: every power-of-two size of contiguous lines runs register passes
//! whose workgroups take three tiles in turn, the next tile's values fetched while the
//! current one is transformed), with outer twiddles read from tables
//! (`KUPFER_FFT_TWPOLY=0`; computed ones are the default everywhere else), on the cases of
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
    ]);
}
