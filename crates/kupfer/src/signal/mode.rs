//! SciPy's convolution modes and boundary names.

use kupfer_core::{Error, Result};
use std::str::FromStr;

/// Which part of the full convolution is returned (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Every partial overlap: shape `n + k - 1` per axis (the default).
    #[default]
    Full,
    /// The shape of `in1`, centred on the full result.
    Same,
    /// Only complete overlaps: shape `n - k + 1` per axis.
    Valid,
}

impl FromStr for Mode {
    type Err = Error;

    /// `"full"`, `"same"` or `"valid"`, with SciPy's error otherwise.
    fn from_str(s: &str) -> Result<Mode> {
        match s {
            "full" => Ok(Mode::Full),
            "same" => Ok(Mode::Same),
            "valid" => Ok(Mode::Valid),
            _ => Err(Error::invalid(
                "Acceptable mode flags are 'valid', 'same', or 'full'.",
            )),
        }
    }
}

/// SciPy's `_inputs_swap_needed`: in `valid` mode the larger input must come first; true
/// when `s2` is the larger one, an error when neither is at least as large as the other in
/// every dimension of `axes`.
pub(crate) fn swap_needed(mode: Mode, s1: &[usize], s2: &[usize], axes: &[usize]) -> Result<bool> {
    if mode != Mode::Valid || s1.is_empty() {
        return Ok(false);
    }
    let ok1 = axes.iter().all(|&i| s1[i] >= s2[i]);
    let ok2 = axes.iter().all(|&i| s2[i] >= s1[i]);
    if !(ok1 || ok2) {
        return Err(Error::invalid(
            "For 'valid' mode, one must be at least as large as the other in every dimension",
        ));
    }
    Ok(!ok1)
}

/// The output length of one axis: image length `n`, kernel length `k`.
pub(crate) fn out_len(mode: Mode, n: usize, k: usize) -> usize {
    match mode {
        Mode::Full => (n + k).saturating_sub(1),
        Mode::Same => n,
        Mode::Valid => (n + 1).saturating_sub(k),
    }
}
