//! Direct 2-D convolution and correlation (SciPy's `convolve2d` / `correlate2d`): WGSL
//! generation from `shaders/convolve2d.wgsl`.
//!
//! One kernel computes `out[m, n] = sum_{j, k} w[j, k] * img(m + off0 + j, n + off1 + k)`
//! over a strided image and a strided weight array; the caller folds the kernel flip of a
//! convolution into the weights' strides and the mode into the offsets. Small kernels (up to
//! [`MAX_TILED`] in both dimensions) get a tiled kernel with the sizes as compile-time
//! constants and the input window in workgroup memory; larger ones one thread per output.

use crate::codegen::{scalar_uniform_type, Target};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::template::Template;
use std::fmt::Write;

const TEMPLATE: &str = include_str!("../../../shaders/convolve2d.wgsl");

/// Largest kernel height and width of the tiled kernel.
pub const MAX_TILED: usize = 16;

/// Byte offset of the fill value in the uniform block (after 16 u32/i32 fields).
pub const FILL_OFFSET: usize = 64;

/// Size of the uniform block in bytes.
pub const PARAMS_SIZE: usize = 80;

/// How indices outside the image are read (SciPy's `boundary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// A constant fill value (`"fill"`, `"pad"`).
    Fill,
    /// Periodic (`"wrap"`, `"circular"`).
    Wrap,
    /// Mirrored with the edge value repeated, periodic with period 2n (`"symm"`,
    /// `"symmetric"`).
    Symm,
}

impl std::str::FromStr for Boundary {
    type Err = Error;

    /// SciPy's names: `"fill"`/`"pad"`, `"wrap"`/`"circular"`, `"symm"`/`"symmetric"`,
    /// with SciPy's error otherwise.
    fn from_str(s: &str) -> Result<Boundary> {
        match s {
            "fill" | "pad" => Ok(Boundary::Fill),
            "wrap" | "circular" => Ok(Boundary::Wrap),
            "symm" | "symmetric" => Ok(Boundary::Symm),
            _ => Err(Error::invalid(
                "Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and 'symmetric' \
                 (or 'symm').",
            )),
        }
    }
}

/// A convolution kernel's structure (the pipeline-cache key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConvProgram {
    /// Dtype of the image, the weights and the output (they agree).
    pub dtype: DType,
    /// Boundary rule.
    pub boundary: Boundary,
    /// `Some((kh, kw))`: the tiled kernel for this kernel size (each at most
    /// [`MAX_TILED`]); `None`: one thread per output with runtime sizes.
    pub tiled: Option<(usize, usize)>,
}

impl ConvProgram {
    /// Threads per workgroup along x and y, and output rows per thread.
    pub fn tile(&self) -> (u32, u32, u32) {
        match (self.tiled, self.dtype.gpu_size()) {
            (None, _) => (256, 1, 1),
            (Some(_), 4) => (64, 4, 8),
            (Some(_), _) => (32, 8, 2),
        }
    }

    /// Outputs per workgroup along x and y.
    pub fn outputs_per_workgroup(&self) -> (u32, u32) {
        let (tx, ty, r) = self.tile();
        (tx, ty * r)
    }
}

/// Generates the WGSL of a convolution kernel. Bindings: 0 the uniform block
/// ([`PARAMS_SIZE`] bytes; 16 u32/i32 fields in the template's order, then the fill value at
/// [`FILL_OFFSET`] in `scalar_uniform_type` encoding), 1 the image, 2 the weights, 3 the
/// C-contiguous output.
pub fn generate(cp: &ConvProgram, target: &Target) -> Result<String> {
    let d = cp.dtype;
    target.check(d, "this adapter")?;
    if matches!(d, DType::Bool | DType::F16) || d.is_small_int() {
        return Err(Error::unsupported(format!(
            "convolve2d not available for this type ({d})"
        )));
    }
    let (kh, kw) = cp.tiled.unwrap_or((1, 1));
    if kh == 0 || kw == 0 || kh > MAX_TILED || kw > MAX_TILED {
        return Err(Error::invalid(format!(
            "tiled convolution of a {kh}x{kw} kernel (1 to {MAX_TILED} per dimension)"
        )));
    }
    let (tx, ty, r) = cp.tile();
    let th = (ty * r) as usize;
    let tile_len = if cp.tiled.is_some() {
        (th + kh - 1) * (tx as usize + kw - 1)
    } else {
        1
    };
    let boundary = match cp.boundary {
        Boundary::Fill => "    return -1;",
        Boundary::Wrap => "    var r = i % n;\n    if (r < 0) {\n        r = r + n;\n    }\n    return r;",
        Boundary::Symm => {
            "    let p = 2 * n;\n    var r = i % p;\n    if (r < 0) {\n        r = r + p;\n    }\n    \
             if (r >= n) {\n        r = p - 1 - r;\n    }\n    return r;"
        }
    };
    let madd = if d.is_complex() {
        format!(
            "    return acc + {};",
            crate::codegen::cmul_expr(d.wgsl_value(), "w", "v")
        )
    } else {
        "    return acc + w * v;".to_string()
    };
    let enables = if d == DType::F16 { "enable f16;\n" } else { "" };
    let wgsl = Template::new(TEMPLATE)
        .set("ENABLES", enables)
        .set("FILL", scalar_uniform_type(d))
        .set("STORE", d.wgsl_storage())
        .set("T", d.wgsl_value())
        .set("TILED", if cp.tiled.is_some() { "true" } else { "false" })
        .set("TX", tx)
        .set("TY", ty)
        .set("R", r)
        .set("KH", kh)
        .set("KW", kw)
        .set("TILE_LEN", tile_len)
        .set("W_LEN", kh * kw)
        .set("BOUNDARY", boundary)
        .set("FILL_VALUE", "P.fill")
        .set("MADD", &madd)
        .set("TILED_COMPUTE", tiled_compute(cp))
        .render();
    Ok(wgsl)
}

/// The unrolled accumulation and stores of the tiled kernel: R accumulators `a*`; per
/// kernel column `k` (a loop) the R + KH - 1 window values `v*` and the KH weights `w*`.
fn tiled_compute(cp: &ConvProgram) -> String {
    let Some((kh, _)) = cp.tiled else {
        return String::new();
    };
    let (_, _, r) = cp.tile();
    let r = r as usize;
    let t = cp.dtype.wgsl_value();
    let mut s = String::new();
    for i in 0..r {
        let _ = writeln!(s, "        var a{i}: {t};");
    }
    let _ = writeln!(s, "        for (var k = 0u; k < KW; k = k + 1u) {{");
    let _ = writeln!(s, "            let at = yb * HW + lid.x + k;");
    for i in 0..r + kh - 1 {
        let _ = writeln!(s, "            let v{i} = tile[at + {i}u * HW];");
    }
    for j in 0..kh {
        let _ = writeln!(s, "            let w{j} = wk[{j}u * KW + k];");
    }
    for j in 0..kh {
        for i in 0..r {
            let _ = writeln!(s, "            a{i} = kp_madd(a{i}, w{j}, v{});", i + j);
        }
    }
    let _ = writeln!(s, "        }}");
    let _ = writeln!(s, "        if (x < P.ow) {{");
    for i in 0..r {
        let _ = writeln!(
            s,
            "            if (ty0 + yb + {i}u < P.oh) {{ out[(ty0 + yb + {i}u) * P.ow + x] = {}(a{i}); }}",
            cp.dtype.wgsl_storage()
        );
    }
    let _ = writeln!(s, "        }}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validate(wgsl: &str) {
        crate::naga_check::validate(wgsl, naga::valid::Capabilities::empty());
    }

    /// Every dtype the kernel computes in (every dtype less bool, float16 and the small
    /// integers, which it refuses), every boundary, the untiled kernel and every tiled
    /// kernel height (the unrolled accumulation depends on it and on the dtype's rows per
    /// thread) with widths covering 1 to [`MAX_TILED`]: widths are only a loop bound and a
    /// workgroup-memory size, so each height gets three of them rather than all sixteen.
    #[test]
    fn convolution_kernels_validate() {
        let target = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        let mut n = 0;
        for dtype in DType::ALL {
            if matches!(dtype, DType::Bool | DType::F16) || dtype.is_small_int() {
                // Refused here (bool and float16 by `conv_dtype` too; the small integers
                // only here, so convolve2d of int8/int16/uint8/uint16 is an error).
                let cp = ConvProgram {
                    dtype,
                    boundary: Boundary::Fill,
                    tiled: None,
                };
                assert!(generate(&cp, &target).is_err(), "{dtype}");
                continue;
            }
            for boundary in [Boundary::Fill, Boundary::Wrap, Boundary::Symm] {
                // Stops compiling when a variant is added: add it to the list as well.
                match boundary {
                    Boundary::Fill | Boundary::Wrap | Boundary::Symm => {}
                }
                let mut tiles = vec![None];
                for kh in 1..=MAX_TILED {
                    for kw in [1, kh, MAX_TILED + 1 - kh] {
                        if !tiles.contains(&Some((kh, kw))) {
                            tiles.push(Some((kh, kw)));
                        }
                    }
                }
                for tiled in tiles {
                    let cp = ConvProgram {
                        dtype,
                        boundary,
                        tiled,
                    };
                    let wgsl = generate(&cp, &target).unwrap_or_else(|e| panic!("{cp:?}: {e}"));
                    validate(&wgsl);
                    n += 1;
                }
            }
        }
        assert!(n > 900, "{n}");
    }

    #[test]
    fn tiles_fit_webgpu_workgroup_memory() {
        for dtype in [DType::F32, DType::Complex64] {
            let cp = ConvProgram {
                dtype,
                boundary: Boundary::Symm,
                tiled: Some((MAX_TILED, MAX_TILED)),
            };
            let (tx, ty, r) = cp.tile();
            let halo = (ty * r) as usize + MAX_TILED - 1;
            let bytes =
                (halo * (tx as usize + MAX_TILED - 1) + MAX_TILED * MAX_TILED) * dtype.gpu_size();
            assert!(bytes <= 16384, "{dtype}: {bytes} bytes");
        }
    }

    #[test]
    fn bool_and_f16_are_refused() {
        let target = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        for dtype in [DType::Bool, DType::F16] {
            let cp = ConvProgram {
                dtype,
                boundary: Boundary::Fill,
                tiled: None,
            };
            assert!(generate(&cp, &target).is_err());
        }
    }
}
