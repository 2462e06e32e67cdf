//! Histograms and bincount: WGSL generation from `shaders/histogram.wgsl`.
//!
//! Bins are counted with 32-bit atomics (WGSL has no 64-bit ones): counts and integer
//! weights with `atomicAdd` (two's complement, so int32 weights add exactly with wrap-around
//! as NumPy's int32), float32 weights with a compare-exchange loop on the bit pattern. Small
//! bin counts use a per-workgroup private histogram merged at the end.
//!
//! histogramdd's bin index kernel (`shaders/histogramdd_bins.wgsl`, [`generate_bin_index`])
//! finds each sample's flattened bin over every dimension; its counts then come from the
//! bincount kernel.

use crate::codegen::{cast_expr, enables, Target};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::template::Template;
use std::fmt::Write;

const TEMPLATE: &str = include_str!("../../../shaders/histogram.wgsl");

/// Bins that fit a workgroup-private histogram (16 KiB of workgroup memory).
pub const LOCAL_BINS: u32 = 4096;

/// How an element's bin is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binning {
    /// The element's own (non-negative integer) value; values >= nbins are dropped.
    Value,
    /// NumPy's uniform bins: values are cast to `edges` (the bin-edge dtype), the bin index is
    /// `((x - lo) / denom) * nbins` computed in `calc`, then corrected against the edges.
    Uniform {
        /// Dtype of the bin edges (and of the comparisons).
        edges: DType,
        /// Dtype of the index computation (float64 where NumPy divides by a float64).
        calc: DType,
    },
}

/// A histogram kernel's structure.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HistProgram {
    /// Dtype of the input values.
    pub x: DType,
    /// Dtype of the weights (F32, I32 or U32), or none (counts).
    pub weights: Option<DType>,
    /// How bins are found.
    pub binning: Binning,
    /// Count into a workgroup-private histogram first (nbins <= [`LOCAL_BINS`]).
    pub private: bool,
}

/// Byte offsets of the uniform fields, for the host to fill.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistParams {
    /// Total size (a multiple of 16).
    pub size: usize,
    /// `denom` and `nb` (calc dtype; f16 travels as f32), `lo` and `hi` (edge dtype).
    pub denom: usize,
    /// See `denom`.
    pub nb: usize,
    /// See `denom`.
    pub lo: usize,
    /// See `denom`.
    pub hi: usize,
    /// u32 fields: element count, bin count, element offsets of x and weights.
    pub n: usize,
    /// See `n`.
    pub nbins: usize,
    /// See `n`.
    pub ox: usize,
    /// See `n`.
    pub ow: usize,
}

fn uniform_type(d: DType) -> &'static str {
    match d {
        DType::F64 => "f64",
        _ => "f32",
    }
}

fn uniform_size(d: DType) -> usize {
    if d == DType::F64 {
        8
    } else {
        4
    }
}

/// Generates a histogram kernel. Bindings: 0 uniforms, 1 the values, then the weights (if
/// any), then the edges (uniform binning), last the bins (`array<atomic<u32>>`).
pub fn generate(hp: &HistProgram, target: &Target) -> Result<(String, HistParams)> {
    target.check(hp.x, "this adapter")?;
    if hp.x.is_complex() {
        return Err(Error::unsupported(format!("histograms of {} arrays", hp.x)));
    }
    let (edge, calc) = match hp.binning {
        Binning::Value => (DType::F32, DType::F32),
        Binning::Uniform { edges, calc } => {
            target.check(edges, "this adapter")?;
            target.check(calc, "this adapter")?;
            if !edges.is_float() || !calc.is_float() {
                return Err(Error::invalid("histogram edges must be float dtypes"));
            }
            (edges, calc)
        }
    };
    if let Some(w) = hp.weights {
        if !matches!(w, DType::F32 | DType::I32 | DType::U32) {
            return Err(Error::unsupported(format!(
                "weights of dtype {w} (float32, int32 and uint32 weights accumulate with \
                 32-bit atomics)"
            )));
        }
    }
    // Uniform block: 8-byte fields first.
    let mut p = HistParams::default();
    let mut fields = String::new();
    let mut at = 0usize;
    let mut put = |name: &str, ty: &str, size: usize, fields: &mut String| {
        let o = at;
        at += size;
        let _ = writeln!(fields, "    {name}: {ty},");
        o
    };
    p.denom = put("denom", uniform_type(calc), uniform_size(calc), &mut fields);
    p.nb = put("nb", uniform_type(calc), uniform_size(calc), &mut fields);
    p.lo = put("lo", uniform_type(edge), uniform_size(edge), &mut fields);
    p.hi = put("hi", uniform_type(edge), uniform_size(edge), &mut fields);
    p.n = put("n", "u32", 4, &mut fields);
    p.nbins = put("nbins", "u32", 4, &mut fields);
    p.ox = put("ox", "u32", 4, &mut fields);
    p.ow = put("ow", "u32", 4, &mut fields);
    p.size = at.div_ceil(16) * 16;

    let mut bindings = format!(
        "@group(0) @binding(1) var<storage, read> xs: array<{}>;\n",
        hp.x.wgsl_storage()
    );
    let mut next = 2;
    if let Some(w) = hp.weights {
        let _ = writeln!(
            bindings,
            "@group(0) @binding({next}) var<storage, read> ws: array<{}>;",
            w.wgsl_storage()
        );
        next += 1;
    }
    if matches!(hp.binning, Binning::Uniform { .. }) {
        let _ = writeln!(
            bindings,
            "@group(0) @binding({next}) var<storage, read> edges: array<{}>;",
            edge.wgsl_storage()
        );
        next += 1;
    }
    let _ = writeln!(
        bindings,
        "@group(0) @binding({next}) var<storage, read_write> bins: array<atomic<u32>>;"
    );

    let load_x = if hp.x == DType::Bool {
        "(xs[P.ox + i] != 0u)".to_string()
    } else {
        "xs[P.ox + i]".to_string()
    };
    let bin = match hp.binning {
        Binning::Value => {
            let v = match hp.x {
                DType::Bool => format!("select(0u, 1u, {load_x})"),
                DType::U8 | DType::U16 | DType::U32 => load_x.clone(),
                DType::I8 | DType::I16 | DType::I32 | DType::I64 => {
                    format!("u32(max({load_x}, {}(0)))", hp.x.wgsl_value())
                }
                d => {
                    return Err(Error::invalid(format!(
                        "bincount of {d} values (non-negative integers only)"
                    )))
                }
            };
            let guard = if hp.x == DType::I64 {
                format!("    if ({load_x} >= i64(P.nbins)) {{\n        return -1;\n    }}\n")
            } else {
                String::new()
            };
            format!(
                "{guard}    let v = {v};\n    if (v >= P.nbins) {{\n        return -1;\n    }}\n    return i32(v);"
            )
        }
        Binning::Uniform { edges, calc } => {
            let e = edges.wgsl_value();
            let c = calc.wgsl_value();
            let from_uniform = |name: &str, d: DType| {
                if d == DType::F16 {
                    format!("f16(P.{name})")
                } else {
                    format!("P.{name}")
                }
            };
            let lo = from_uniform("lo", edges);
            let hi = from_uniform("hi", edges);
            format!(
                "    let x = {xe};
    if (!(x >= {lo} && x <= {hi})) {{
        return -1;
    }}
    let f = ({dc} / {denom}) * {nb};
    var idx = i32(min(f, {c}(P.nbins - 1u)));
    if (x < edges[idx]) {{
        idx = max(idx - 1, 0);
    }}
    if (x >= edges[idx + 1] && idx != i32(P.nbins) - 1) {{
        idx = idx + 1;
    }}
    return idx;",
                xe = cast_expr(&load_x, hp.x, edges),
                dc = cast_expr(&format!("(x - {lo})"), edges, calc),
                denom = from_uniform("denom", calc),
                nb = from_uniform("nb", calc),
            )
            .replace("{e}", e)
        }
    };
    let (weight, load_weight, add_global, add_local, from_bits) = match hp.weights {
        None => (
            "u32",
            "    return 1u;".to_string(),
            "    atomicAdd(&bins[b], w);".to_string(),
            "    atomicAdd(&kp_local[b], w);".to_string(),
            "v",
        ),
        Some(DType::F32) => {
            let cas = |arr: &str| {
                format!(
                    "    var old = atomicLoad(&{arr}[b]);
    loop {{
        let r = atomicCompareExchangeWeak(&{arr}[b], old, bitcast<u32>(bitcast<f32>(old) + w));
        if (r.exchanged) {{
            break;
        }}
        old = r.old_value;
    }}"
                )
            };
            (
                "f32",
                "    return ws[P.ow + i];".to_string(),
                cas("bins"),
                cas("kp_local"),
                "bitcast<f32>(v)",
            )
        }
        Some(_) => (
            "u32",
            "    return bitcast<u32>(ws[P.ow + i]);".to_string(),
            "    atomicAdd(&bins[b], w);".to_string(),
            "    atomicAdd(&kp_local[b], w);".to_string(),
            "v",
        ),
    };
    let binning = match hp.binning {
        Binning::Uniform { edges, calc } => vec![edges, calc],
        Binning::Value => Vec::new(),
    };
    let enables = enables([hp.x].into_iter().chain(binning));
    let wgsl = Template::new(TEMPLATE)
        .set("ENABLES", enables)
        .set("PARAMS", fields.trim_end())
        .set("BINDINGS", bindings.trim_end())
        .set("LOCAL_BINS", if hp.private { LOCAL_BINS } else { 1 })
        .set("BIN", &bin)
        .set("WEIGHT", weight)
        .set("LOAD_WEIGHT", &load_weight)
        .set("ADD_GLOBAL", &add_global)
        .set("ADD_LOCAL", &add_local)
        .set("FROM_BITS", from_bits)
        .set("PRIVATE", if hp.private { "true" } else { "false" })
        .render();
    Ok((wgsl, p))
}

const BIN_INDEX_TEMPLATE: &str = include_str!("../../../shaders/histogramdd_bins.wgsl");

/// The dtypes [`generate_bin_index`] compares in (the others are cast to one of these).
pub const BIN_INDEX_DTYPES: [DType; 6] = [
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I32,
    DType::U32,
    DType::I64,
];

/// Generates histogramdd's bin index kernel (`shaders/histogramdd_bins.wgsl`) for samples and
/// edges of dtype `cmp` (one of [`BIN_INDEX_DTYPES`]). Its uniform block is four u32: sample
/// count, dimension count, the dispatch's x size in workgroups, padding. Bindings: 1 the
/// samples, 2 the edges, 3 the per-dimension table, 4 the flat bin indices (u32).
pub fn generate_bin_index(cmp: DType, target: &Target) -> Result<String> {
    target.check(cmp, "this adapter")?;
    if !BIN_INDEX_DTYPES.contains(&cmp) {
        return Err(Error::invalid(format!(
            "histogramdd compares in float16/32/64, int32, uint32 or int64, not {cmp}"
        )));
    }
    let t = cmp.wgsl_value();
    let (le, guess) = if cmp.is_float() {
        (
            "    return e <= x || x != x;".to_string(),
            format!(
                "    if (uniform && m >= 2u) {{
        let e0 = edges[first];
        let nb = m - 1u;
        let f = (x - e0) / (edges[first + nb] - e0) * {t}(nb);
        if (f >= {t}(0) && f < {t}(nb)) {{
            let g = u32(f);
            if (kp_le(edges[first + g], x) && !kp_le(edges[first + g + 1u], x)) {{
                return g + 1u;
            }}
        }}
    }}"
            ),
        )
    } else {
        ("    return e <= x;".to_string(), String::new())
    };
    Ok(Template::new(BIN_INDEX_TEMPLATE)
        .set("ENABLES", enables(std::iter::once(cmp)))
        .set("T", t)
        .set("LE", le)
        .set("GUESS", guess)
        .render())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Target = Target {
        f16: true,
        f64: true,
        i64: true,
    };

    fn validate(wgsl: &str) {
        crate::naga_check::validate(wgsl, naga::valid::Capabilities::empty());
    }

    /// Every program `bincount` and `histogram` request (crates/kupfer/src/stats.rs): bool and
    /// integer data for bincount; every non-complex dtype for histogram, with NumPy's edge
    /// dtype (the data's when it is a float, else float64, float32 without SHADER_F64) and
    /// every dtype the bin width is computed in (float64 for a given range or integer data,
    /// float32 without SHADER_F64, the data's float dtype for a range taken from the data);
    /// every weight accumulator (`weight_acc`: float32, int32, uint32) and none; workgroup-
    /// private bins or not.
    #[test]
    fn bincount_and_histogram_kernels_validate() {
        let weight_accs = [None, Some(DType::F32), Some(DType::I32), Some(DType::U32)];
        let mut n = 0;
        for private in [false, true] {
            for weights in weight_accs {
                for x in DType::ALL {
                    if x.is_complex() {
                        continue;
                    }
                    let mut binnings = vec![];
                    // NumPy's bincount refuses uint64 (no safe cast to int64).
                    if x == DType::Bool || (x.is_int() && x != DType::U64) {
                        binnings.push(Binning::Value);
                    }
                    for f64_ok in [true, false] {
                        let wide = if f64_ok { DType::F64 } else { DType::F32 };
                        let edges = if x.is_float() { x } else { wide };
                        let mut calcs = vec![wide];
                        if x.is_float() {
                            calcs.push(x);
                        }
                        for calc in calcs {
                            let b = Binning::Uniform { edges, calc };
                            if !binnings.contains(&b) {
                                binnings.push(b);
                            }
                        }
                    }
                    for binning in binnings {
                        let hp = HistProgram {
                            x,
                            weights,
                            binning,
                            private,
                        };
                        let (wgsl, _) =
                            generate(&hp, &ALL).unwrap_or_else(|e| panic!("{hp:?}: {e}"));
                        validate(&wgsl);
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 200, "{n}");
    }

    #[test]
    fn bin_index_kernels_validate() {
        for cmp in BIN_INDEX_DTYPES {
            validate(&generate_bin_index(cmp, &ALL).unwrap());
        }
        assert!(generate_bin_index(DType::Complex64, &ALL).is_err());
        assert!(generate_bin_index(DType::F64, &Target::default()).is_err());
    }

    #[test]
    fn bad_histogram_programs_are_errors() {
        let hp = HistProgram {
            x: DType::F32,
            weights: None,
            binning: Binning::Value,
            private: false,
        };
        assert!(generate(&hp, &ALL).is_err());
        let hp = HistProgram {
            x: DType::I32,
            weights: Some(DType::F64),
            binning: Binning::Value,
            private: false,
        };
        assert!(generate(&hp, &ALL).is_err());
        let hp = HistProgram {
            x: DType::F64,
            weights: None,
            binning: Binning::Uniform {
                edges: DType::F64,
                calc: DType::F64,
            },
            private: false,
        };
        assert!(generate(&hp, &Target::default()).is_err());
    }
}
