//! `kupfer eval EXPR [NAME=FILE.npy ...] [-o OUT.npy]`: a NumPy expression (or a program:
//! statements such as `m = x > 0; x[m] = 0; x` separated by `;` or newlines, the last one the
//! result) over `.npy` files, computed on the default device, printed as NumPy prints it or
//! saved as `.npy`.
//!
//! The language (parser, interpreter, printing) is the kupfer-eval crate; this module only
//! loads the inputs, evaluates with a [`kupfer_eval::Session`] and prints or writes the
//! result: printed as NumPy's `print(result)` shows it, or saved with `-o` as `.npy` (Python
//! scalars as 0-d arrays of NumPy's dtypes: bool, int64, float64).

use crate::error::{CliError, CliResult};
use crate::outln;
use std::path::PathBuf;

/// Arguments of `kupfer eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The expression, in NumPy syntax, e.g. `np.sin(x) + 2 * y`, or statements separated
    /// by `;` or newlines (`x[x > 1] = 0; x`); `cp.` and `cupy.` work as `np.`. One starting
    /// with `-`, such as `-x + 1`, is an expression, not an option.
    #[arg(allow_hyphen_values = true)]
    pub expr: String,
    /// Inputs: NAME=FILE.npy binds the array in FILE.npy to NAME.
    #[arg(value_name = "NAME=FILE.npy")]
    pub inputs: Vec<String>,
    /// Write the result to this `.npy` file instead of printing it.
    #[arg(short, long, value_name = "OUT.npy")]
    pub output: Option<PathBuf>,
}

/// One `NAME=FILE.npy` binding.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Binding {
    name: String,
    path: PathBuf,
}

/// True for a Python identifier (ASCII letters, digits and `_`, not starting with a digit).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_binding(arg: &str) -> CliResult<Binding> {
    let Some((name, path)) = arg.split_once('=') else {
        return Err(CliError::usage(format!(
            "'{arg}' is not an input: write NAME=FILE.npy"
        )));
    };
    let name = name.trim();
    if !is_identifier(name) {
        return Err(CliError::usage(format!(
            "'{name}' in '{arg}' is not a valid name (letters, digits and _, not starting \
             with a digit)"
        )));
    }
    if matches!(name, "np" | "numpy" | "cp" | "kp") {
        return Err(CliError::usage(format!(
            "'{name}' is the module name in expressions; bind the input to another name"
        )));
    }
    if path.is_empty() {
        return Err(CliError::usage(format!(
            "no file given for '{name}' in '{arg}'"
        )));
    }
    Ok(Binding {
        name: name.to_string(),
        path: PathBuf::from(path),
    })
}

fn parse_bindings(args: &[String]) -> CliResult<Vec<Binding>> {
    let mut out: Vec<Binding> = Vec::with_capacity(args.len());
    for a in args {
        let b = parse_binding(a)?;
        if out.iter().any(|o| o.name == b.name) {
            return Err(CliError::usage(format!("'{}' is bound twice", b.name)));
        }
        out.push(b);
    }
    Ok(out)
}

/// An error of kupfer-eval as the CLI shows it: the message, then (for syntax errors) the
/// source line and a caret under the offending column.
fn eval_error(e: &kupfer_eval::EvalError) -> CliError {
    CliError::usage(e.render())
}

/// A kupfer error about input `b`: one line naming the file.
fn input_error(b: &Binding, e: &kupfer::Error) -> CliError {
    let text = e.to_string();
    let msg: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let msg = msg.join("; ");
    let path = b.path.display().to_string();
    if msg.contains(&path) {
        CliError::usage(format!("input '{}': {msg}", b.name))
    } else {
        CliError::usage(format!("input '{}' ({path}): {msg}", b.name))
    }
}

/// Runs `kupfer eval`.
pub fn run(args: &EvalArgs) -> CliResult {
    let bindings = parse_bindings(&args.inputs)?;
    if args.expr.trim().is_empty() {
        return Err(CliError::usage("the expression is empty"));
    }
    // Syntax errors are found before any file is read or device opened.
    kupfer_eval::parse_program(&args.expr).map_err(|e| eval_error(&e))?;
    let mut session = kupfer_eval::Session::new();
    for b in &bindings {
        let host = kupfer::io::read_npy(&b.path).map_err(|e| input_error(b, &e))?;
        let array = kupfer::Array::from_host(&host).map_err(|e| input_error(b, &e))?;
        session.set_array(b.name.clone(), array);
    }
    let result = session.run(&args.expr);
    // What `print(...)` statements wrote comes first, also when a later statement fails.
    let printed = session.take_printed();
    if !printed.is_empty() {
        outln!("{}", printed.strip_suffix('\n').unwrap_or(&printed));
    }
    let result = result.map_err(|e| eval_error(&e))?;
    let host = result.to_host().map_err(|e| eval_error(&e))?;
    match &args.output {
        Some(path) => {
            let array = host.to_host_array().map_err(|e| eval_error(&e))?;
            kupfer::io::write_npy(path, &array).map_err(|e| {
                let e = CliError::from(e);
                if e.message.contains(&path.display().to_string()) {
                    e
                } else {
                    CliError::usage(format!("cannot write {}: {}", path.display(), e.message))
                }
            })?;
        }
        // What NumPy's `print(result)` shows: `str()` of the value.
        None => outln!("{host}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings() {
        let b = parse_bindings(&["x=a.npy".into(), "_y2=dir/b.npy".into()]).unwrap();
        assert_eq!(b[0].name, "x");
        assert_eq!(b[1].path, PathBuf::from("dir/b.npy"));
        assert!(parse_bindings(&["x".into()]).is_err());
        assert!(parse_bindings(&["2x=a.npy".into()]).is_err());
        assert!(parse_bindings(&["x=".into()]).is_err());
        assert!(parse_bindings(&["np=a.npy".into()]).is_err());
        assert!(parse_bindings(&["x=a.npy".into(), "x=b.npy".into()]).is_err());
    }
}
