//! Accurate transcendental functions in WGSL, appended to generated kernels that call them.
//!
//! Builtins such as `sin` or `exp` are approximate on many drivers (NVIDIA's `sin` loses all
//! accuracy for large arguments, and Vulkan defines no f64 transcendentals at all), so kupfer
//! carries its own: `kp_<name>_f32` and `kp_<name>_f64` for sin, cos, tan, arcsin, arccos,
//! arctan, arctan2, sinh, cosh, tanh, arcsinh, arccosh, arctanh, exp, exp2, expm1, log, log2,
//! log10, log1p, cbrt, hypot and power. They use only correctly rounded arithmetic (with their
//! own range reduction), so results are the same on every backend. The sources live in
//! `shaders/libm_f32.wgsl` and `shaders/libm_f64.wgsl`; the accuracy is checked against NumPy's
//! umath validation sets in `tests/umath_validation.rs`.

/// The f32 library (also used by f16, which computes in f32 and rounds once, and complex64).
pub const LIBM_F32: &str = include_str!("../../../shaders/libm_f32.wgsl");
/// The f64 library (needs `SHADER_F64`).
pub const LIBM_F64: &str = include_str!("../../../shaders/libm_f64.wgsl");
/// complex64 functions (`kp_<name>_c64`), built on the f32 library: a kernel that needs them
/// takes its subset of `LIBM_F32` and this file together.
pub const LIBM_C64: &str = include_str!("../../../shaders/complex_f32.wgsl");

/// The f32 library and the complex64 functions built on it, as one source: what a kernel's
/// subset of f32 and complex64 functions is taken from.
pub fn f32_library() -> &'static str {
    static LIB: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LIB.get_or_init(|| format!("{LIBM_F32}\n{LIBM_C64}"))
}

/// The f64 library (needs `SHADER_F64`) and the complex128 functions (`kp_<name>_c128`) built
/// on it, as one source. The complex128 functions are [`LIBM_C64`] with every f32 read as
/// f64; the one constant that depends on the precision is tanh's cut-off, past which tanh(x)
/// is +-1 (|x| > 10 in f32, 20 in f64).
pub fn f64_library() -> &'static str {
    static LIB: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let c128 = LIBM_C64
            .replace("bitcast<u32>(f32(", "bitcast<u32>(f32_KEEP(")
            .replace("_c64(", "_c128(")
            .replace("_f32(", "_f64(")
            .replace("vec2<f32>", "vec2<f64>")
            .replace("f32_KEEP(", "f32(")
            .replace("abs(z.x) > 10.0", "abs(z.x) > 20.0");
        format!("{LIBM_F64}\n{c128}")
    })
}

/// The part of a libm source that the functions `roots` need: their items (functions,
/// constants, structs) and everything those refer to, in source order. A kernel that calls
/// `sin` then compiles a few dozen lines instead of the whole library, which matters on drivers
/// that compile slowly (lavapipe spends most of a test run compiling shaders).
///
/// ```
/// let src = kupfer_core::libm::subset(kupfer_core::libm::LIBM_F32, ["kp_exp_f32"]);
/// assert!(src.contains("fn kp_exp_f32"));
/// assert!(!src.contains("fn kp_sin_f32"));
/// ```
pub fn subset<'a>(lib: &str, roots: impl IntoIterator<Item = &'a str>) -> String {
    let items = items(lib);
    let index: std::collections::HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.name, i))
        .collect();
    let mut keep = vec![false; items.len()];
    let mut stack: Vec<usize> = roots
        .into_iter()
        .filter_map(|r| index.get(r).copied())
        .collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut keep[i], true) {
            continue;
        }
        for word in identifiers(items[i].text) {
            if let Some(&j) = index.get(word) {
                if !keep[j] {
                    stack.push(j);
                }
            }
        }
    }
    let mut out = String::new();
    for (it, _) in items.iter().zip(&keep).filter(|(_, &k)| k) {
        out.push_str(it.text);
        out.push('\n');
    }
    out
}

/// One top-level WGSL item of a library source.
struct Item<'a> {
    name: &'a str,
    text: &'a str,
}

/// The top-level `fn`, `const` and `struct` items of `lib`, without the comments between them.
/// The library is written so that every item starts at column 0 and a function or struct ends
/// with a `}` at column 0.
fn items(lib: &str) -> Vec<Item<'_>> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut start: Option<(usize, &str)> = None;
    for line in lib.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        if let Some((s, name)) = start {
            if line.starts_with('}') {
                out.push(Item {
                    name,
                    text: &lib[s..offset],
                });
                start = None;
            }
            continue;
        }
        let Some((keyword, rest)) = ["fn ", "const ", "struct "]
            .iter()
            .find_map(|k| line.strip_prefix(k).map(|r| (*k, r)))
        else {
            continue;
        };
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        let code = line.split("//").next().unwrap_or(line);
        let one_line = if keyword == "const " {
            code.contains(';')
        } else {
            code.matches('{').count() == code.matches('}').count() && code.contains('}')
        };
        if one_line {
            out.push(Item {
                name,
                text: &lib[at..offset],
            });
        } else {
            start = Some((at, name));
        }
    }
    out
}

/// The identifiers in a piece of WGSL (comments included; an extra name only keeps more).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public_names(lib: &str) -> Vec<&str> {
        items(lib)
            .iter()
            .map(|i| i.name)
            .filter(|n| n.starts_with("kp_"))
            .collect()
    }

    /// Every function of both libraries (f32 with complex64, f64 with complex128), each as the
    /// subset a kernel calling it alone appends, and each library whole, validate with naga.
    #[test]
    fn every_function_subset_validates() {
        for lib in [f32_library(), f64_library()] {
            crate::naga_check::validate(lib, naga::valid::Capabilities::empty());
            for n in public_names(lib) {
                crate::naga_check::validate(&subset(lib, [n]), naga::valid::Capabilities::empty());
            }
        }
    }

    #[test]
    fn every_public_function_is_an_item_and_subsets_are_closed() {
        for lib in [f32_library(), f64_library()] {
            let names = public_names(lib);
            assert!(names.len() >= 23, "{names:?}");
            let all_items = items(lib);
            // Every item's text parses back to exactly one item (no item swallowed another).
            for it in &all_items {
                assert_eq!(items(it.text).len(), 1, "{}", it.name);
            }
            for n in names {
                let src = subset(lib, [n]);
                assert!(src.contains(&format!("fn {n}(")), "{n}");
                // Closed: every library item the subset mentions is defined in it.
                let defined: Vec<&str> = items(&src).iter().map(|i| i.name).collect();
                for w in identifiers(&src) {
                    if all_items.iter().any(|i| i.name == w) {
                        assert!(defined.contains(&w), "{n} needs {w}");
                    }
                }
            }
        }
    }
}
