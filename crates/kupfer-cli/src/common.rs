//! Helpers shared by the subcommands: a deterministic host random generator, medians, and
//! human-readable numbers.

use crate::error::{CliError, CliResult};
use crate::outln;

/// A small deterministic generator (SplitMix64): random-looking inputs without a random
/// number API on the GPU, identical on every run and machine.
#[derive(Debug, Clone)]
pub struct HostRng {
    state: u64,
}

impl HostRng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> HostRng {
        HostRng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 24 random bits (every value exactly representable in f32).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform in [0, 1) with 53 random bits (`rng.random(dtype=float64)`).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `n` uniform values in [0, 1) (`rng.random(n, dtype=float32)`).
    pub fn uniform_f32(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.next_f32()).collect()
    }
}

/// The median of `xs` (the mean of the middle two for an even count); NaN when empty.
pub fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    }
}

/// `2^k` for powers of two of at least 2^10, else the plain number.
pub fn fmt_count(n: usize) -> String {
    if n >= 1024 && n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// Bytes as B / KiB / MiB / GiB.
pub fn fmt_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Milliseconds with about four significant digits.
pub fn fmt_ms(ms: f64) -> String {
    if !ms.is_finite() {
        "-".into()
    } else if ms >= 100.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.3}")
    } else {
        format!("{ms:.4}")
    }
}

/// Parses an element count: `1048576`, `2^20`, `1<<20`, `1M` / `16Mi`-style suffixes
/// (K = 2^10, M = 2^20, G = 2^30).
pub fn parse_count(s: &str) -> CliResult<usize> {
    let t = s.trim();
    let bad = || {
        CliError::usage(format!(
            "'{s}' is not an element count (write e.g. 1048576, 2^20, 1<<20 or 1M)"
        ))
    };
    let n: Option<usize> = if let Some((b, e)) = t.split_once('^') {
        let (b, e) = (b.trim().parse::<usize>().ok(), e.trim().parse::<u32>().ok());
        b.zip(e).and_then(|(b, e)| b.checked_pow(e))
    } else if let Some((b, e)) = t.split_once("<<") {
        let (b, e) = (b.trim().parse::<usize>().ok(), e.trim().parse::<u32>().ok());
        b.zip(e).and_then(|(b, e)| {
            if e < usize::BITS {
                b.checked_mul(1 << e)
            } else {
                None
            }
        })
    } else {
        let lower = t.to_ascii_lowercase();
        let lower = lower.trim_end_matches('i');
        let (digits, shift) = match lower.chars().last() {
            Some('k') => (&lower[..lower.len() - 1], 10),
            Some('m') => (&lower[..lower.len() - 1], 20),
            Some('g') => (&lower[..lower.len() - 1], 30),
            _ => (lower, 0),
        };
        digits
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|d| d.checked_mul(1 << shift))
    };
    match n {
        Some(n) if n > 0 => Ok(n),
        _ => Err(bad()),
    }
}

/// clap value parser for element counts (see [`parse_count`]).
pub fn count_arg(s: &str) -> Result<usize, String> {
    parse_count(s).map_err(|e| e.message)
}

/// What to tell a person whose default device is a software adapter (Mesa's lavapipe or
/// llvmpipe: the shaders run on the CPU), or the GL backend's subset: how to get a real GPU
/// and the whole feature set. `None` on a hardware adapter with Vulkan, Metal or DX12.
pub fn adapter_advice(info: &kupfer::DeviceInfo) -> Option<String> {
    let software = info.device_type == "Cpu";
    let gl = info.backend == "gl";
    let real_gpu = "For a real GPU, install its driver with Vulkan support (Linux: \
                    `apt-get install mesa-vulkan-drivers` for AMD and Intel, the NVIDIA driver \
                    for NVIDIA; macOS uses Metal and Windows DX12 or Vulkan), then check that \
                    `kupfer info` lists it (KUPFER_BACKEND / KUPFER_ADAPTER pick one).";
    let gl_subset = "The GL backend runs a subset of kupfer: no float16, float64 or int64, no \
                     subgroup operations, no persistent kernel cache; a Vulkan driver (Mesa's \
                     lavapipe will do: `apt-get install mesa-vulkan-drivers`) runs everything.";
    match (software, gl) {
        (true, true) => Some(format!(
            "This is a software adapter through OpenGL: the \"GPU\" is your CPU. {real_gpu} \
             {gl_subset}"
        )),
        (true, false) => Some(format!(
            "This is a software adapter: the \"GPU\" is your CPU running the shaders. {real_gpu}"
        )),
        (false, true) => Some(gl_subset.to_string()),
        (false, false) => None,
    }
}

/// Prints `text` wrapped at 90 columns, indented by 3.
pub fn para(text: &str) {
    let mut line = String::from("  ");
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > 90 && line.len() > 2 {
            outln!("{line}");
            line = String::from("  ");
        }
        line.push(' ');
        line.push_str(word);
    }
    if line.len() > 2 {
        outln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("1048576").unwrap(), 1 << 20);
        assert_eq!(parse_count("2^20").unwrap(), 1 << 20);
        assert_eq!(parse_count("1<<16").unwrap(), 1 << 16);
        assert_eq!(parse_count("4K").unwrap(), 4096);
        assert_eq!(parse_count("16Mi").unwrap(), 16 << 20);
        assert!(parse_count("0").is_err());
        assert!(parse_count("lots").is_err());
        assert!(parse_count("2^99").is_err());
        assert!(parse_count("1<<70").is_err());
    }

    #[test]
    fn formats() {
        assert_eq!(fmt_count(1 << 20), "2^20");
        assert_eq!(fmt_count(16), "16");
        assert_eq!(fmt_bytes(1 << 20), "1 MiB");
        assert_eq!(fmt_bytes(1536), "1.5 KiB");
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let a = HostRng::new(0).uniform_f32(1000);
        let b = HostRng::new(0).uniform_f32(1000);
        assert_eq!(a, b);
        assert!(a.iter().all(|&v| (0.0..1.0).contains(&v)));
    }
}
