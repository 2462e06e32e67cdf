//! WGSL of the deferred checks' flags: words computed on the device from an operand's values
//! and reported at the next sync (crates/kupfer/src/checks.rs). `shaders/sign_flag.wgsl`
//! raises a flag when any signed integer of a contiguous run is negative (integer `power`'s
//! negative exponents).

/// The sign flag kernel: bindings uniform `{count, words, groups_x, first}` (`first`: the run's
/// first word in its binding), the run's words
/// (read) and the flag word (read_write, atomic; zero before the dispatch).
pub const SIGN_FLAG_WGSL: &str = include_str!("../../../shaders/sign_flag.wgsl");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_flag_kernel_validates() {
        crate::naga_check::validate(SIGN_FLAG_WGSL, naga::valid::Capabilities::empty());
    }
}
