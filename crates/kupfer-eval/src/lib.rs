//! kupfer-eval: the NumPy-syntax expression language of `kupfer eval` and the browser
//! playground.
//!
//! [`parse`] turns source text into an [`ast::Expr`]; [`evaluate`] (or a [`Session`]) runs it
//! over kupfer arrays bound to names and returns a [`Value`]; [`Value::to_host`] reads the
//! result back and [`HostValue`] prints it exactly as NumPy's `print()` does.
//!
//! ```no_run
//! let x = kupfer::arange(0, 6, 1, Some(kupfer::DType::F32))?.reshape(&[2, 3])?;
//! let v = kupfer_eval::evaluate("np.sin(x).sum(axis=0)", &[("x".to_string(), x)])?;
//! println!("{}", v.to_host()?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
pub mod ast;
mod asynch;
mod callable;
mod dragon4;
pub mod error;
pub mod format;
pub(crate) mod functions;
mod interp;
pub mod lexer;
pub mod parser;
mod program;
mod pyscalar;
pub mod value;

pub use asynch::evaluate_async;
pub use error::EvalError;
pub use functions::{function_names, is_ufunc, method_names};
pub use interp::{evaluate, Session};
pub use parser::{parse, parse_program};
pub use value::{HostValue, Value};
