//! The one error type of kupfer-eval.

use crate::ast::Span;
use thiserror::Error;

/// Everything that can go wrong while parsing or evaluating an expression.
///
/// `Display` gives one line that names the problem. [`EvalError::render`] adds, for syntax
/// errors, the offending source line and a caret under the offending column:
///
/// ```
/// let err = kupfer_eval::parse("a + (b * 2").unwrap_err();
/// assert_eq!(
///     err.render(),
///     "syntax error at column 5: '(' was never closed\n  a + (b * 2\n      ^"
/// );
/// ```
#[derive(Debug, Clone, Error)]
pub enum EvalError {
    /// Input that is not a valid expression.
    #[error("syntax error at {}: {message}", position(*.line, *.column))]
    Syntax {
        /// What is wrong, e.g. `unexpected ')'`.
        message: String,
        /// Byte range of the offending text.
        span: Span,
        /// 1-based line of the offending text.
        line: usize,
        /// 1-based column (in characters) of the offending text.
        column: usize,
        /// The source line holding the offending text (without its newline).
        source_line: String,
    },
    /// A name that is neither a variable of the environment nor a NumPy name.
    #[error("unknown name '{name}'")]
    UnknownName {
        /// The name as written, e.g. `np.foo`.
        name: String,
        /// Where it is written.
        span: Span,
    },
    /// A call of a name that is no function kupfer eval knows.
    #[error("unknown function '{name}'")]
    UnknownFunction {
        /// The name as written, e.g. `np.foo`.
        name: String,
        /// Where it is written.
        span: Span,
    },
    /// An operand or argument of the wrong type, a wrong keyword, a wrong number of
    /// arguments (Python's `TypeError`).
    #[error("{message}")]
    Type {
        /// The one-line message.
        message: String,
        /// The expression at fault.
        span: Span,
    },
    /// An argument of the right type but a bad value: division by zero, an index out of
    /// range, an unknown dtype name (Python's `ValueError` and friends).
    #[error("{message}")]
    Value {
        /// The one-line message.
        message: String,
        /// The expression at fault.
        span: Span,
    },
    /// A NumPy feature that kupfer eval does not implement yet.
    #[error("{what} is not supported yet")]
    NotSupported {
        /// The feature, e.g. `'np.sum'`.
        what: String,
        /// Where it is used.
        span: Span,
    },
    /// An error raised by kupfer itself: shape mismatch, unsupported dtype on this adapter,
    /// invalid argument, out of memory, device lost.
    #[error("{source}")]
    Kupfer {
        /// kupfer's error.
        source: kupfer::Error,
        /// The expression that raised it (empty when not tied to the source).
        span: Span,
    },
}

fn position(line: usize, column: usize) -> String {
    if line <= 1 {
        format!("column {column}")
    } else {
        format!("line {line}, column {column}")
    }
}

/// `Result` with [`EvalError`].
pub type Result<T, E = EvalError> = std::result::Result<T, E>;

impl EvalError {
    /// A syntax error at `span` of `src`; computes line, column and the source line.
    pub(crate) fn syntax(src: &str, span: Span, message: impl Into<String>) -> EvalError {
        let start = floor_char_boundary(src, span.start.min(src.len()));
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        let line = src[..start].matches('\n').count() + 1;
        let column = src[line_start..start].chars().count() + 1;
        EvalError::Syntax {
            message: message.into(),
            span,
            line,
            column,
            source_line: src[line_start..line_end].trim_end_matches('\r').to_string(),
        }
    }

    pub(crate) fn type_error(span: Span, message: impl Into<String>) -> EvalError {
        EvalError::Type {
            message: message.into(),
            span,
        }
    }

    pub(crate) fn value_error(span: Span, message: impl Into<String>) -> EvalError {
        EvalError::Value {
            message: message.into(),
            span,
        }
    }

    pub(crate) fn not_supported(span: Span, what: impl Into<String>) -> EvalError {
        EvalError::NotSupported {
            what: what.into(),
            span,
        }
    }

    pub(crate) fn kupfer(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
        move |source| EvalError::Kupfer { source, span }
    }

    /// This error pointing at `span` if it does not point anywhere yet.
    pub(crate) fn at(mut self, at: Span) -> EvalError {
        match &mut self {
            EvalError::Syntax { .. } => {}
            EvalError::UnknownName { span, .. }
            | EvalError::UnknownFunction { span, .. }
            | EvalError::Type { span, .. }
            | EvalError::Value { span, .. }
            | EvalError::NotSupported { span, .. }
            | EvalError::Kupfer { span, .. } => {
                if *span == Span::default() {
                    *span = at;
                }
            }
        }
        self
    }

    /// The byte range of the source this error points at, when it points at one.
    pub fn span(&self) -> Option<Span> {
        match self {
            EvalError::Syntax { span, .. }
            | EvalError::UnknownName { span, .. }
            | EvalError::UnknownFunction { span, .. }
            | EvalError::Type { span, .. }
            | EvalError::Value { span, .. }
            | EvalError::NotSupported { span, .. }
            | EvalError::Kupfer { span, .. } => Some(*span),
        }
    }

    /// True for syntax errors (the input is not an expression at all).
    pub fn is_syntax(&self) -> bool {
        matches!(self, EvalError::Syntax { .. })
    }

    /// The message for a terminal: one line; for syntax errors followed by the source line
    /// and a caret line under the offending column.
    pub fn render(&self) -> String {
        match self {
            EvalError::Syntax {
                column,
                source_line,
                ..
            } => {
                let pad: String = source_line
                    .chars()
                    .take(column.saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                format!("{self}\n  {source_line}\n  {pad}^")
            }
            _ => self.to_string(),
        }
    }
}

/// The largest char boundary of `s` not above `i`.
fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_position_and_caret() {
        let e = EvalError::syntax("a +\n\tb )", Span::new(7, 8), "unmatched ')'");
        assert_eq!(
            e.to_string(),
            "syntax error at line 2, column 4: unmatched ')'"
        );
        assert_eq!(
            e.render(),
            "syntax error at line 2, column 4: unmatched ')'\n  \tb )\n  \t  ^"
        );
    }

    #[test]
    fn span_past_end_and_inside_char() {
        let e = EvalError::syntax("é", Span::new(1, 2), "x");
        assert_eq!(e.to_string(), "syntax error at column 1: x");
        let e = EvalError::syntax("ab", Span::new(9, 9), "x");
        assert_eq!(e.to_string(), "syntax error at column 3: x");
    }

    #[test]
    fn non_syntax_render_is_one_line() {
        let e = EvalError::UnknownName {
            name: "foo".into(),
            span: Span::new(0, 3),
        };
        assert_eq!(e.render(), "unknown name 'foo'");
        assert!(!e.is_syntax());
    }
}
