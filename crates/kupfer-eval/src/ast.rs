//! The syntax tree of an expression. Every node carries the byte range of its source.

use std::fmt;

/// A byte range `[start, end)` of the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The range `[start, end)`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest range covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// An expression node with its source range.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the node is.
    pub kind: ExprKind,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// An integer literal (`3`, `0x1F`, `1_000`), exact up to 128 bits.
    Int(i128),
    /// A float literal (`1.5`, `.5`, `1e-3`).
    Float(f64),
    /// An imaginary literal (`2j`, `2.5j`): the value `0 + x·j`.
    Imag(f64),
    /// A string literal (adjacent literals are already concatenated).
    Str(String),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `...`.
    Ellipsis,
    /// A name (`a`, `np`, `pi`).
    Name(String),
    /// `value.attr`.
    Attribute {
        /// The object.
        value: Box<Expr>,
        /// The attribute name.
        attr: String,
    },
    /// `func(args..., name=value...)`.
    Call {
        /// The callee.
        func: Box<Expr>,
        /// Positional arguments.
        args: Vec<Expr>,
        /// Keyword arguments, in source order.
        keywords: Vec<Keyword>,
    },
    /// `value[index]`; a multi-part index is a [`ExprKind::Tuple`].
    Subscript {
        /// The subscripted object.
        value: Box<Expr>,
        /// The index (may contain [`ExprKind::Slice`] nodes).
        index: Box<Expr>,
    },
    /// `start:stop:step` inside a subscript.
    Slice {
        /// Start, if written.
        start: Option<Box<Expr>>,
        /// Stop, if written.
        stop: Option<Box<Expr>>,
        /// Step, if written.
        step: Option<Box<Expr>>,
    },
    /// A prefix operator.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A binary arithmetic or bitwise operator.
    Binary {
        /// The operator.
        op: BinOp,
        /// Left operand.
        left: Box<Expr>,
        /// Right operand.
        right: Box<Expr>,
    },
    /// A comparison chain `a < b <= c` (Python semantics: `a < b and b <= c`).
    Compare {
        /// The first operand.
        left: Box<Expr>,
        /// Each operator with its right operand.
        rest: Vec<(CmpOp, Expr)>,
    },
    /// `a and b and c` / `a or b`.
    BoolOp {
        /// `and` or `or`.
        op: BoolOpKind,
        /// Two or more operands.
        values: Vec<Expr>,
    },
    /// `(a, b)` or `a, b`.
    Tuple(Vec<Expr>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{key: value, ...}`, in source order.
    Dict(Vec<(Expr, Expr)>),
    /// `*iterable` as a call's positional argument (its items become arguments).
    Starred(Box<Expr>),
    /// `lambda a, b: body`.
    Lambda {
        /// The parameter names.
        params: Vec<String>,
        /// The body, evaluated with the parameters bound.
        body: Box<Expr>,
    },
    /// `[element for target in iterable if condition ...]`, clauses nesting left to right
    /// (a generator expression as a call's only argument is one too).
    ListComp {
        /// The expression evaluated for each binding.
        element: Box<Expr>,
        /// The `for` clauses.
        clauses: Vec<Comprehension>,
    },
}

/// One `for target in iterable if condition ...` clause of a comprehension.
#[derive(Debug, Clone, PartialEq)]
pub struct Comprehension {
    /// The names bound (one, or several unpacked from each item).
    pub targets: Vec<String>,
    /// The sequence iterated.
    pub iterable: Expr,
    /// The `if` filters.
    pub conditions: Vec<Expr>,
}

/// A keyword argument `name=value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyword {
    /// The keyword.
    pub name: String,
    /// Where the keyword is written.
    pub name_span: Span,
    /// The value.
    pub value: Expr,
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `~x`
    Invert,
    /// `not x`
    Not,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `@`
    MatMul,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    LShift,
    /// `>>`
    RShift,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `is` (identity)
    Is,
    /// `is not`
    IsNot,
}

/// `and` / `or`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOpKind {
    /// `and`
    And,
    /// `or`
    Or,
}

impl UnaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Invert => "~",
            UnaryOp::Not => "not",
        }
    }
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
        }
    }
}

impl CmpOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
        }
    }
}

impl Expr {
    /// A node.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// The dotted name of a `Name` / `Attribute` chain (`np.fft.fft`), else `None`.
    pub fn dotted_name(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Name(n) => Some(n.clone()),
            ExprKind::Attribute { value, attr } => {
                let mut s = value.dotted_name()?;
                s.push('.');
                s.push_str(attr);
                Some(s)
            }
            _ => None,
        }
    }
}

/// A fully parenthesised S-expression, e.g. `-2**2` is `(neg (** 2 2))`. Meant for tests and
/// debugging: it shows exactly how the source was grouped.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Int(i) => write!(f, "{i}"),
            ExprKind::Float(x) => f.write_str(&crate::format::py_float_repr(*x)),
            ExprKind::Imag(x) => f.write_str(&crate::format::py_complex_repr(0.0, *x)),
            ExprKind::Str(s) => f.write_str(&crate::format::py_str_repr(s)),
            ExprKind::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            ExprKind::None => f.write_str("None"),
            ExprKind::Ellipsis => f.write_str("..."),
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Attribute { value, attr } => write!(f, "(. {value} {attr})"),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                write!(f, "(call {func}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                for k in keywords {
                    write!(f, " {}={}", k.name, k.value)?;
                }
                f.write_str(")")
            }
            ExprKind::Subscript { value, index } => write!(f, "(sub {value} {index})"),
            ExprKind::Slice { start, stop, step } => {
                f.write_str("(slice")?;
                for part in [start, stop, step] {
                    match part {
                        Some(e) => write!(f, " {e}")?,
                        None => f.write_str(" _")?,
                    }
                }
                f.write_str(")")
            }
            ExprKind::Unary { op, operand } => {
                let name = match op {
                    UnaryOp::Neg => "neg",
                    UnaryOp::Pos => "pos",
                    UnaryOp::Invert => "inv",
                    UnaryOp::Not => "not",
                };
                write!(f, "({name} {operand})")
            }
            ExprKind::Binary { op, left, right } => write!(f, "({} {left} {right})", op.symbol()),
            ExprKind::Compare { left, rest } => {
                write!(f, "(cmp {left}")?;
                for (op, e) in rest {
                    write!(f, " {} {e}", op.symbol())?;
                }
                f.write_str(")")
            }
            ExprKind::BoolOp { op, values } => {
                f.write_str(match op {
                    BoolOpKind::And => "(and",
                    BoolOpKind::Or => "(or",
                })?;
                for v in values {
                    write!(f, " {v}")?;
                }
                f.write_str(")")
            }
            ExprKind::Dict(pairs) => {
                f.write_str("(dict")?;
                for (k, v) in pairs {
                    write!(f, " {k}:{v}")?;
                }
                f.write_str(")")
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let head = if matches!(self.kind, ExprKind::Tuple(_)) {
                    "(tuple"
                } else {
                    "(list"
                };
                f.write_str(head)?;
                for i in items {
                    write!(f, " {i}")?;
                }
                f.write_str(")")
            }
            ExprKind::Starred(inner) => write!(f, "(* {inner})"),
            ExprKind::Lambda { params, body } => {
                write!(f, "(lambda ({}) {body})", params.join(" "))
            }
            ExprKind::ListComp { element, clauses } => {
                write!(f, "(listcomp {element}")?;
                for c in clauses {
                    write!(f, " (for ({}) {}", c.targets.join(" "), c.iterable)?;
                    for cond in &c.conditions {
                        write!(f, " (if {cond})")?;
                    }
                    f.write_str(")")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// One statement of a program (`kupfer eval` takes several, separated by newlines or `;`).
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// An expression; the program's result when it is the last statement.
    Expr(Expr),
    /// `target = value` (also chained: `a = b = value`, every target gets the value).
    Assign {
        /// The targets, left to right.
        targets: Vec<Expr>,
        /// The value.
        value: Expr,
    },
    /// `assert test[, message]`: an error when `test` is false.
    Assert {
        /// The condition.
        test: Expr,
        /// The message of the error.
        message: Option<Expr>,
    },
    /// `target op= value`.
    AugAssign {
        /// A name or a subscript.
        target: Expr,
        /// The operator.
        op: BinOp,
        /// The value.
        value: Expr,
    },
}
