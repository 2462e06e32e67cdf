//! User code in generated kernels: the parameter lists of `ElementwiseKernel` and
//! `ReductionKernel` (`"T x, float32 a"`), type placeholders, the WGSL wrapper function that a
//! user's snippet becomes ([`UserFn`], called by [`crate::Node::Call`] like any op, so it fuses),
//! the snippets of a custom reduction ([`UserReduce`]), and the validation of user WGSL with
//! naga, with errors located in the user's own text.

use crate::dtype::DType;
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The comment line that opens every function made from a user's snippet: a kernel whose WGSL
/// contains it runs with wgpu's runtime checks, every other generated kernel without them.
pub const USER_CODE_MARK: &str = "// kupfer: user code\n";

/// The type of a kernel parameter: a concrete dtype or a placeholder resolved per call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A fixed dtype (`float32 x`).
    Concrete(DType),
    /// A type placeholder (`T x`), bound by the arguments of each call.
    Placeholder(String),
}

/// One parameter of a kernel's `in_params` / `out_params`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    /// The name the snippet uses.
    pub name: String,
    /// Its type.
    pub ty: ParamType,
}

/// Parses a kernel type name: CuPy/NumPy names (`float32`, `int32`, ...), C names as CuPy
/// reads them (`float` is float32, `double` float64, `int` int32, `half` float16) and WGSL
/// names (`f32`, `i32`, `u32`, `f16`, `f64`, `i64`, `bool`). `None` for anything else (which
/// is then a placeholder).
pub fn kernel_type(name: &str) -> Option<DType> {
    Some(match name {
        "bool" => DType::Bool,
        "int32" | "int" | "i32" => DType::I32,
        "uint32" | "uint" | "unsigned" | "u32" => DType::U32,
        "int64" | "i64" | "long" => DType::I64,
        "uint64" | "u64" => DType::U64,
        "float16" | "half" | "f16" => DType::F16,
        "float32" | "float" | "f32" => DType::F32,
        "float64" | "double" | "f64" => DType::F64,
        "complex64" => DType::Complex64,
        "complex128" => DType::Complex128,
        _ => return None,
    })
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Parses `"T x, float32 a"` into parameters. `what` names the list in errors
/// (`in_params`).
pub fn parse_params(list: &str, what: &str) -> Result<Vec<Param>> {
    let mut out: Vec<Param> = Vec::new();
    for part in list.split(',') {
        let words: Vec<&str> = part.split_whitespace().collect();
        if words.is_empty() {
            if list.trim().is_empty() {
                break;
            }
            return Err(Error::invalid(format!(
                "{what}: empty parameter in '{list}'"
            )));
        }
        if words[0] == "raw" {
            return Err(Error::unsupported(format!(
                "{what}: 'raw' parameters (indexing a whole array) are not supported in an \
                 ElementwiseKernel; use a RawKernel for '{}'",
                part.trim()
            )));
        }
        if words.len() != 2 {
            return Err(Error::invalid(format!(
                "{what}: '{}' is not '<type> <name>'",
                part.trim()
            )));
        }
        let (ty, name) = (words[0], words[1]);
        if !is_ident(name) || !is_ident(ty) {
            return Err(Error::invalid(format!(
                "{what}: '{}' is not '<type> <name>' with identifiers",
                part.trim()
            )));
        }
        if name == "i" || name.starts_with("kp") {
            return Err(Error::invalid(format!(
                "{what}: the parameter name '{name}' is reserved ('i' is the element index, \
                 names starting with 'kp' are kupfer's)"
            )));
        }
        if out.iter().any(|p| p.name == name) {
            return Err(Error::invalid(format!(
                "{what}: duplicate parameter name '{name}'"
            )));
        }
        let ty = match kernel_type(ty) {
            Some(d) => ParamType::Concrete(d),
            None => ParamType::Placeholder(ty.to_string()),
        };
        out.push(Param {
            name: name.to_string(),
            ty,
        });
    }
    Ok(out)
}

/// Placeholder bindings of one call (`T` → float32).
pub type Bindings = BTreeMap<String, DType>;

/// The dtype of `ty` under `bindings`, if bound.
pub fn resolve(ty: &ParamType, bindings: &Bindings) -> Option<DType> {
    match ty {
        ParamType::Concrete(d) => Some(*d),
        ParamType::Placeholder(p) => bindings.get(p).copied(),
    }
}

/// Replaces every identifier token of `text` that names a bound placeholder with its WGSL
/// type (`T(1)` → `f32(1)`), outside comments.
pub fn substitute(text: &str, bindings: &Bindings) -> String {
    if bindings.is_empty() {
        return text.to_string();
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut k = 0;
    while k < b.len() {
        let c = b[k];
        if c == b'/' && b.get(k + 1) == Some(&b'/') {
            let end = text[k..].find('\n').map_or(b.len(), |e| k + e);
            out.push_str(&text[k..end]);
            k = end;
        } else if c == b'/' && b.get(k + 1) == Some(&b'*') {
            let end = text[k + 2..].find("*/").map_or(b.len(), |e| k + 2 + e + 2);
            out.push_str(&text[k..end]);
            k = end;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = k;
            while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
                k += 1;
            }
            let word = &text[start..k];
            match bindings.get(word) {
                Some(d) => out.push_str(d.wgsl_value()),
                None => out.push_str(word),
            }
        } else if c.is_ascii_digit() {
            // A number with its suffix (`1u`, `2.0f`, `0x1p3`): never a placeholder.
            let start = k;
            while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_' || b[k] == b'.') {
                k += 1;
            }
            out.push_str(&text[start..k]);
        } else {
            let ch = text[k..].chars().next().unwrap_or(' ');
            out.push(ch);
            k += ch.len_utf8();
        }
    }
    out
}

/// The statement terminator a snippet may leave out: CuPy writes `y = a * x + b` without `;`.
fn terminated(body: &str) -> String {
    let t = body.trim_end();
    if t.is_empty() || t.ends_with(';') || t.ends_with('}') {
        body.to_string()
    } else {
        format!("{body};")
    }
}

/// A user's elementwise snippet as a WGSL function: `fn NAME(params..., [kp_init_out...,]
/// i: u32) -> out_type` (a struct of the outputs when there are several). A
/// [`crate::Node::Call`] node calls it; so does every generated kernel that fuses it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UserFn {
    /// The kernel's name (for comments and errors).
    pub name: String,
    /// Input parameters with their resolved dtypes.
    pub params: Vec<(String, DType)>,
    /// Outputs with their resolved dtypes, and whether each starts from a value passed in
    /// (`kp_init_<name>`, for in-place outputs) rather than zero.
    pub outputs: Vec<(String, DType, bool)>,
    /// The snippet, placeholders already substituted.
    pub body: String,
    /// True when `body` is an expression whose value is the (single) output, converted to the
    /// output's dtype (a reduction's `map_expr`); else statements assigning the outputs.
    pub expression: bool,
    /// Module-scope WGSL the snippet may use (CuPy's `preamble`: helper functions,
    /// constants), included once per kernel however many calls share it. Empty if none.
    pub preamble: String,
}

impl UserFn {
    /// Number of arguments a call passes before the index: params, then the init values.
    pub fn arity(&self) -> usize {
        self.params.len() + self.outputs.iter().filter(|o| o.2).count()
    }

    /// The WGSL of the function named `fname` (and its output struct, named `fname` + `_out`,
    /// when there are several outputs) with `body` in place of [`UserFn::body`]; returns the
    /// text and the byte offset where `body` starts.
    pub fn wrapper(&self, fname: &str, body: &str) -> (String, usize) {
        let mut s = String::from(USER_CODE_MARK);
        let multi = self.outputs.len() > 1;
        if multi {
            let _ = writeln!(s, "struct {fname}_out {{");
            for (n, d, _) in &self.outputs {
                let _ = writeln!(s, "    {n}: {},", d.wgsl_value());
            }
            s.push_str("}\n");
        }
        let mut args: Vec<String> = self
            .params
            .iter()
            .map(|(n, d)| format!("{n}: {}", d.wgsl_value()))
            .collect();
        for (n, d, init) in &self.outputs {
            if *init {
                args.push(format!("kp_init_{n}: {}", d.wgsl_value()));
            }
        }
        args.push("i: u32".into());
        let ret = if multi {
            format!("{fname}_out")
        } else {
            self.outputs
                .first()
                .map_or("u32", |o| o.1.wgsl_value())
                .to_string()
        };
        let _ = writeln!(s, "fn {fname}({}) -> {ret} {{", args.join(", "));
        if self.expression {
            let _ = writeln!(s, "    return {ret}(");
            let at = s.len();
            s.push_str(body);
            s.push_str("\n    );\n}\n");
            return (s, at);
        }
        for (n, d, init) in &self.outputs {
            if *init {
                let _ = writeln!(s, "    var {n}: {} = kp_init_{n};", d.wgsl_value());
            } else {
                let _ = writeln!(s, "    var {n}: {};", d.wgsl_value());
            }
        }
        let at = s.len();
        s.push_str(&terminated(body));
        s.push('\n');
        if multi {
            let names: Vec<&str> = self.outputs.iter().map(|o| o.0.as_str()).collect();
            let _ = writeln!(s, "    return {ret}({});", names.join(", "));
        } else if let Some((n, _, _)) = self.outputs.first() {
            let _ = writeln!(s, "    return {n};");
        }
        s.push_str("}\n");
        (s, at)
    }
}

/// The snippets of a custom reduction (CuPy's `ReductionKernel`), types resolved: values are
/// combined by `reduce_expr` over `a` and `b` (accumulators of `acc`), starting from
/// `identity`, and each result is written by `post_map_expr` (statements assigning `out_name`
/// from `a`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UserReduce {
    /// The kernel's name.
    pub name: String,
    /// `reduce_expr`, placeholders substituted.
    pub reduce: String,
    /// `post_map_expr`, placeholders substituted.
    pub post: String,
    /// `identity`, placeholders substituted.
    pub identity: String,
    /// The output parameter's name.
    pub out_name: String,
    /// Accumulator dtype.
    pub acc: DType,
    /// Output dtype.
    pub out: DType,
    /// The kernel's preamble (see [`UserFn::preamble`]).
    pub preamble: String,
}

/// Which snippet of a custom reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceSnippet {
    /// `reduce_expr`.
    Reduce,
    /// `post_map_expr`.
    PostMap,
    /// `identity`.
    Identity,
}

impl UserReduce {
    /// The WGSL function of one snippet with `text` in its place, and the byte offset of
    /// `text`: `kp_user_combine(a, b)`, `kp_user_post(a)`, `kp_user_identity()`.
    pub fn wrapper(&self, which: ReduceSnippet, text: &str) -> (String, usize) {
        let acc = self.acc.wgsl_value();
        let out = self.out.wgsl_value();
        let mut s = String::from(USER_CODE_MARK);
        let at;
        match which {
            ReduceSnippet::Reduce => {
                let _ = write!(
                    s,
                    "fn kp_user_combine(a: {acc}, b: {acc}) -> {acc} {{\n    return {acc}(\n"
                );
                at = s.len();
                s.push_str(text);
                s.push_str("\n    );\n}\n");
            }
            ReduceSnippet::Identity => {
                let _ = write!(s, "fn kp_user_identity() -> {acc} {{\n    return {acc}(\n");
                at = s.len();
                s.push_str(text);
                s.push_str("\n    );\n}\n");
            }
            ReduceSnippet::PostMap => {
                let _ = write!(
                    s,
                    "fn kp_user_post(a: {acc}) -> {out} {{\n    var {}: {out};\n",
                    self.out_name
                );
                at = s.len();
                s.push_str(&terminated(text));
                let _ = write!(s, "\n    return {};\n}}\n", self.out_name);
            }
        }
        (s, at)
    }

    /// The three functions as the reduction template includes them.
    pub fn helpers(&self) -> String {
        let mut s = String::new();
        for (w, t) in [
            (ReduceSnippet::Reduce, &self.reduce),
            (ReduceSnippet::PostMap, &self.post),
            (ReduceSnippet::Identity, &self.identity),
        ] {
            s.push_str(&self.wrapper(w, t).0);
        }
        s
    }
}

/// Optional WGSL features user code may use, for validation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// SHADER_F16.
    pub f16: bool,
    /// SHADER_F64.
    pub f64: bool,
    /// SHADER_INT64.
    pub i64: bool,
    /// SUBGROUP.
    pub subgroups: bool,
}

fn validator(features: Features) -> naga::valid::Validator {
    use naga::valid::Capabilities as C;
    let mut caps = C::empty();
    if features.f16 {
        caps |= C::SHADER_FLOAT16 | C::SHADER_FLOAT16_IN_FLOAT32;
    }
    if features.f64 {
        caps |= C::FLOAT64;
    }
    if features.i64 {
        caps |= C::SHADER_INT64;
    }
    if features.subgroups {
        caps |= C::SUBGROUP | C::SUBGROUP_BARRIER;
    }
    let mut v = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps);
    if features.subgroups {
        v.subgroup_stages(naga::valid::ShaderStages::COMPUTE);
        v.subgroup_operations(naga::valid::SubgroupOperationSet::all());
    }
    v
}

/// Where a snippet sits in a generated module: its byte range and how to describe it.
#[derive(Debug, Clone)]
pub struct SnippetSpan<'a> {
    /// Byte offset of the snippet in the module.
    pub start: usize,
    /// The snippet text as the user wrote it.
    pub text: &'a str,
    /// What it is, for messages (`kernel 'sigmoid' (operation)`).
    pub what: String,
}

/// 1-based (line, column) of byte `offset` in `text` (columns count characters).
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn compile_error(
    source: &str,
    span: Option<std::ops::Range<usize>>,
    message: String,
    snippets: &[SnippetSpan],
) -> Error {
    let primary = &snippets[0];
    let Some(r) = span else {
        return Error::Compile {
            message: format!("{}: {message}", primary.what),
            line: 1,
            column: 1,
        };
    };
    if let Some(sn) = snippets
        .iter()
        .find(|sn| r.start >= sn.start && r.start <= sn.start + sn.text.len())
    {
        let (line, column) = line_col(sn.text, r.start - sn.start);
        return Error::Compile {
            message: format!("{}: {message}", sn.what),
            line,
            column,
        };
    }
    let (l, c) = line_col(source, r.start);
    let text = source.lines().nth(l - 1).unwrap_or("").trim();
    Error::Compile {
        message: format!(
            "{}: {message} (in the generated wrapper, line {l} column {c}: `{text}`; check the \
             parameter names and types)",
            primary.what
        ),
        line: 1,
        column: 1,
    }
}

/// Parses and validates a generated module that contains user snippets (the first is the
/// main one); an error is reported with naga's message and the line and column within the
/// snippet it is in.
pub fn validate_snippet(source: &str, snippet: &[SnippetSpan], features: Features) -> Result<()> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        let span = e.labels().next().and_then(|(s, _)| s.to_range());
        compile_error(source, span, e.message().to_string(), snippet)
    })?;
    validator(features).validate(&module).map_err(|e| {
        let span = e.spans().next().and_then(|(s, _)| s.to_range());
        compile_error(source, span, error_chain(e.as_inner()), snippet)
    })?;
    Ok(())
}

/// An error and its sources, one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let _ = write!(s, ": {inner}");
        src = inner.source();
    }
    s
}

/// A whole user module (RawKernel / RawModule), parsed and validated: naga's module and
/// analysis, or the error at its line and column in `source`.
pub fn validate_module(
    source: &str,
    features: Features,
) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let whole = SnippetSpan {
        start: 0,
        text: source,
        what: "RawModule".into(),
    };
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        let span = e.labels().next().and_then(|(s, _)| s.to_range());
        compile_error(
            source,
            span,
            e.message().to_string(),
            std::slice::from_ref(&whole),
        )
    })?;
    let info = validator(features).validate(&module).map_err(|e| {
        let span = e.spans().next().and_then(|(s, _)| s.to_range());
        let msg = error_chain(e.as_inner());
        if !features.subgroups && msg.to_lowercase().contains("subgroup") {
            return Error::unsupported(format!(
                "this module uses subgroup operations, which this adapter does not have \
                 (SUBGROUP feature): {msg}"
            ));
        }
        compile_error(source, span, msg, std::slice::from_ref(&whole))
    })?;
    Ok((module, info))
}

/// Module-scope aliases of the placeholders (for validating a snippet as the user wrote it).
pub fn aliases(bindings: &Bindings) -> String {
    let mut s = String::new();
    for (name, d) in bindings {
        let _ = writeln!(s, "alias {name} = {};", d.wgsl_value());
    }
    s
}

/// `enable f16;` when any of `dtypes` is f16.
pub fn enables(dtypes: impl Iterator<Item = DType>) -> &'static str {
    crate::codegen::enables(dtypes)
}

/// Appends `preamble` to `src` and returns its span.
fn preamble_span<'a>(src: &mut String, preamble: &'a str, kernel: &str) -> SnippetSpan<'a> {
    let start = src.len();
    src.push_str(preamble);
    src.push('\n');
    SnippetSpan {
        start,
        text: preamble,
        what: format!("kernel '{kernel}' (preamble)"),
    }
}

/// Validates a user elementwise function as the user wrote it (placeholders as aliases).
pub fn validate_user_fn(
    f: &UserFn,
    original: &str,
    bindings: &Bindings,
    what: &str,
    features: Features,
) -> Result<()> {
    let dtypes = f
        .params
        .iter()
        .map(|p| p.1)
        .chain(f.outputs.iter().map(|o| o.1))
        .chain(bindings.values().copied());
    let mut src = String::from(enables(dtypes));
    src.push_str(&aliases(bindings));
    let pre = preamble_span(&mut src, &f.preamble, &f.name);
    let (w, at) = f.wrapper("kp_user_fn", original);
    let start = src.len() + at;
    src.push_str(&w);
    let main = SnippetSpan {
        start,
        text: original,
        what: what.to_string(),
    };
    validate_snippet(&src, &[main, pre], features)
}

/// Validates the three snippets of a custom reduction as the user wrote them.
pub fn validate_user_reduce(
    r: &UserReduce,
    originals: [&str; 3],
    bindings: &Bindings,
    features: Features,
) -> Result<()> {
    let names = ["reduce_expr", "post_map_expr", "identity"];
    for (k, which) in [
        ReduceSnippet::Reduce,
        ReduceSnippet::PostMap,
        ReduceSnippet::Identity,
    ]
    .into_iter()
    .enumerate()
    {
        let mut src = String::from(enables(
            [r.acc, r.out].into_iter().chain(bindings.values().copied()),
        ));
        src.push_str(&aliases(bindings));
        let pre = preamble_span(&mut src, &r.preamble, &r.name);
        let (w, at) = r.wrapper(which, originals[k]);
        let start = src.len() + at;
        src.push_str(&w);
        let main = SnippetSpan {
            start,
            text: originals[k],
            what: format!("kernel '{}' ({})", r.name, names[k]),
        };
        validate_snippet(&src, &[main, pre], features)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_parse() {
        let p = parse_params("T x, float32 a, int b", "in_params").unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].ty, ParamType::Placeholder("T".into()));
        assert_eq!(p[1].ty, ParamType::Concrete(DType::F32));
        assert_eq!(p[2].ty, ParamType::Concrete(DType::I32));
        assert!(parse_params("", "x").unwrap().is_empty());
        assert!(parse_params("float32", "x").is_err());
        assert!(parse_params("float32 x, float32 x", "x").is_err());
        assert!(parse_params("raw T x", "x").is_err());
        assert!(parse_params("T i", "x").is_err());
        assert!(parse_params("T x,", "x").is_err());
    }

    #[test]
    fn substitution_skips_comments_and_numbers() {
        let mut b = Bindings::new();
        b.insert("T".into(), DType::F16);
        assert_eq!(
            substitute("y = T(1) + x; // T stays\nT2 = 1e3T;", &b),
            "y = f16(1) + x; // T stays\nT2 = 1e3T;"
        );
    }

    fn sigmoid() -> UserFn {
        UserFn {
            name: "sigmoid".into(),
            params: vec![("x".into(), DType::F32)],
            outputs: vec![("y".into(), DType::F32, false)],
            body: "y = 1.0 / (1.0 + exp(-x))".into(),
            expression: false,
            preamble: String::new(),
        }
    }

    #[test]
    fn good_snippet_validates() {
        let f = sigmoid();
        validate_user_fn(&f, &f.body, &Bindings::new(), "k", Features::default()).unwrap();
    }

    #[test]
    fn errors_point_into_the_snippet() {
        let mut f = sigmoid();
        f.body = "let t = 1.0;\ny = t + undefined_name;".into();
        let e =
            validate_user_fn(&f, &f.body, &Bindings::new(), "k", Features::default()).unwrap_err();
        match e {
            Error::Compile {
                line,
                column,
                message,
            } => {
                assert_eq!((line, column), (2, 9), "{message}");
                assert!(
                    message.contains("undefined_name") || message.contains("no definition"),
                    "{message}"
                );
            }
            e => panic!("{e}"),
        }
        // A type error (validation, not parsing): an i32 assigned to the f32 output.
        f.body = "y = 1i;".into();
        let e =
            validate_user_fn(&f, &f.body, &Bindings::new(), "k", Features::default()).unwrap_err();
        assert!(matches!(e, Error::Compile { line: 1, .. }), "{e}");
    }

    fn check(wgsl: &str) {
        let all = Features {
            f16: true,
            f64: true,
            i64: true,
            subgroups: false,
        };
        let snippet = SnippetSpan {
            start: 0,
            text: "",
            what: "generated".into(),
        };
        validate_snippet(wgsl, &[snippet], all).unwrap_or_else(|e| panic!("{e}\n---\n{wgsl}"));
    }

    /// User functions of every dtype (one or two outputs, outputs initialised from the
    /// arguments or not) in elementwise kernels over contiguous (vectorised where the library
    /// would), strided and broadcast inputs; custom reductions of every accumulator dtype in
    /// both strategies, as the first pass (finalized or writing partials, with a user map)
    /// and as the second pass over partials.
    #[test]
    fn user_code_of_every_dtype_validates() {
        use crate::codegen::{elementwise, vectorisable, Target};
        use crate::expr::{Access, InputSpec, Node, Program};
        use crate::reduce::{generate, identity_map, Combine, ReduceProgram, Strategy};
        use std::sync::Arc;
        let target = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        for d in DType::ALL {
            for (outs, init) in [(1, false), (2, false), (2, true)] {
                let outputs: Vec<(String, DType, bool)> =
                    (0..outs).map(|k| (format!("y{k}"), d, init)).collect();
                let f = Arc::new(UserFn {
                    name: "k".into(),
                    params: vec![("x".into(), d), ("s".into(), d)],
                    body: outputs
                        .iter()
                        .map(|o| format!("{} = select(s, x, true);", o.0))
                        .collect::<Vec<_>>()
                        .join(" "),
                    outputs,
                    expression: false,
                    preamble: String::new(),
                });
                let mut args = vec![0, 1];
                if init {
                    args.extend([0, 0]);
                }
                for access in [Access::Contiguous, Access::Strided, Access::Broadcast] {
                    let mut p = Program {
                        nodes: vec![
                            (Node::Load(0), d),
                            (Node::Scalar(0), d),
                            (Node::Call(f.clone(), args.clone(), outs - 1), d),
                        ],
                        inputs: vec![InputSpec {
                            dtype: d,
                            access,
                            packed: false,
                        }],
                        scalars: vec![d],
                        output: 2,
                        rank: if access == Access::Strided { 2 } else { 0 },
                        vector: false,
                    };
                    check(&elementwise(&p, &target).unwrap().wgsl);
                    if vectorisable(&p) {
                        p.vector = true;
                        check(&elementwise(&p, &target).unwrap().wgsl);
                    }
                }
            }
            let map_fn = Arc::new(UserFn {
                name: "pick".into(),
                params: vec![("x".into(), d)],
                outputs: vec![("v".into(), d, false)],
                body: "select(x, x, true)".into(),
                expression: true,
                preamble: String::new(),
            });
            let user = Arc::new(UserReduce {
                name: "pick".into(),
                reduce: "select(b, a, true)".into(),
                post: "y = a".into(),
                identity: "0".into(),
                out_name: "y".into(),
                acc: d,
                out: d,
                preamble: String::new(),
            });
            let user_map = Program {
                nodes: vec![(Node::Load(0), d), (Node::Call(map_fn, vec![0], 0), d)],
                inputs: vec![InputSpec {
                    dtype: d,
                    access: Access::Strided,
                    packed: false,
                }],
                scalars: vec![],
                output: 1,
                rank: 2,
                vector: false,
            };
            for (map, partials, finalize) in [
                (user_map.clone(), false, true),
                (user_map, false, false),
                (identity_map(d, Access::Contiguous, 0), true, true),
            ] {
                for strategy in [Strategy::Inner, Strategy::Outer] {
                    let rp = ReduceProgram {
                        map: map.clone(),
                        partials,
                        combine: Combine::Sum,
                        acc: d,
                        out: d,
                        finalize,
                        strategy,
                        custom: Some(user.clone()),
                    };
                    check(&generate(&rp, &target).unwrap().0);
                }
            }
        }
    }

    /// Generated kernels that call user functions validate: elementwise (vector, strided,
    /// several outputs, in place) and reductions (custom combine, both passes).
    #[test]
    fn generated_kernels_with_user_functions_validate() {
        use crate::codegen::{elementwise, vectorisable, Target};
        use crate::expr::{Access, InputSpec, Node, Program};
        use crate::reduce::{generate, identity_map, Combine, ReduceProgram, Strategy};
        use std::sync::Arc;
        let target = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        for d in [
            DType::F32,
            DType::F16,
            DType::F64,
            DType::I32,
            DType::Complex64,
            DType::Complex128,
        ] {
            for (outs, init) in [(1, false), (2, false), (2, true)] {
                let outputs: Vec<(String, DType, bool)> =
                    (0..outs).map(|k| (format!("y{k}"), d, init)).collect();
                let f = Arc::new(UserFn {
                    name: "k".into(),
                    params: vec![("x".into(), d), ("s".into(), d)],
                    body: outputs
                        .iter()
                        .map(|o| format!("{} = x + s;", o.0))
                        .collect::<Vec<_>>()
                        .join(" "),
                    outputs,
                    expression: false,
                    preamble: "const KP_TEST: u32 = 1u;".into(),
                });
                let mut args = vec![0, 1];
                if init {
                    args.extend([0, 0]);
                }
                for access in [Access::Contiguous, Access::Strided] {
                    let mut p = Program {
                        nodes: vec![
                            (Node::Load(0), d),
                            (Node::Scalar(0), d),
                            (Node::Call(f.clone(), args.clone(), outs - 1), d),
                        ],
                        inputs: vec![InputSpec {
                            dtype: d,
                            access,
                            packed: false,
                        }],
                        scalars: vec![d],
                        output: 2,
                        rank: if access == Access::Strided { 2 } else { 0 },
                        vector: false,
                    };
                    p.vector = vectorisable(&p);
                    check(&elementwise(&p, &target).unwrap().wgsl);
                }
            }
        }
        let map_fn = Arc::new(UserFn {
            name: "ssq".into(),
            params: vec![("x".into(), DType::F32)],
            outputs: vec![("v".into(), DType::F32, false)],
            body: "x * x".into(),
            expression: true,
            preamble: "fn kp_twice(v: f32) -> f32 { return 2.0 * v; }".into(),
        });
        let user = Arc::new(UserReduce {
            name: "ssq".into(),
            reduce: "a + b".into(),
            post: "y = kp_twice(sqrt(a))".into(),
            identity: "0".into(),
            out_name: "y".into(),
            acc: DType::F32,
            out: DType::F32,
            preamble: map_fn.preamble.clone(),
        });
        for partials in [false, true] {
            let map = if partials {
                identity_map(DType::F32, Access::Contiguous, 0)
            } else {
                Program {
                    nodes: vec![
                        (Node::Load(0), DType::F32),
                        (Node::Call(map_fn.clone(), vec![0], 0), DType::F32),
                    ],
                    inputs: vec![InputSpec {
                        dtype: DType::F32,
                        access: Access::Strided,
                        packed: false,
                    }],
                    scalars: vec![],
                    output: 1,
                    rank: 2,
                    vector: false,
                }
            };
            for strategy in [Strategy::Inner, Strategy::Outer] {
                let rp = ReduceProgram {
                    map: map.clone(),
                    partials,
                    combine: Combine::Sum,
                    acc: DType::F32,
                    out: DType::F32,
                    finalize: true,
                    strategy,
                    custom: Some(user.clone()),
                };
                check(&generate(&rp, &target).unwrap().0);
            }
        }
    }
}
