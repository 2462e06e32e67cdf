//! The elementwise op IR: a small set of primitive unary/binary/select/cast nodes that every
//! elementwise function (and, later, reduction maps and fused user code) is composed from.
//!
//! A [`Program`] is a flattened expression DAG over input arrays and uniform scalars. It holds
//! no values — only structure and dtypes — so it doubles as the pipeline-cache key: `x * 2`
//! and `x * 3` are the same program.

use crate::custom::UserFn;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::ops::{Body, Rule};
use crate::promote::{float_result, result_type, result_type_weak, true_divide_result, WeakKind};
use crate::random::RandomOp;
use std::sync::Arc;

/// Expands the rows of [`unary_op_table!`](crate::unary_op_table) or
/// [`binary_op_table!`](crate::binary_op_table) into an op enum with its `ALL` slice and the
/// match-based accessors of the table's columns.
macro_rules! define_ops {
    ($(#[$enum_doc:meta])* $enum:ident;
     $($(#[doc = $doc:literal])* $variant:ident $name:literal fns [$($fns:ident),*]
        eval [$($eval:literal),*] kinds [$($kind:ident),*] rule $rule:ident
        body $body:ident $(($arg:literal))? complex $complex:literal goldens $goldens:literal;)*
    ) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($(#[doc = $doc])* $variant,)*
        }

        impl $enum {
            /// Every op, in table order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant,)*];

            /// NumPy's ufunc name.
            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }

            /// The op whose NumPy name is `name` (the first in table order).
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|op| op.name() == name)
            }

            /// The operand kinds (of the common dtype, for binary ops) the op accepts.
            pub fn kinds(self) -> &'static [Kind] {
                match self {
                    $($enum::$variant => &[$(Kind::$kind),*],)*
                }
            }

            /// The result-dtype rule.
            pub fn rule(self) -> Rule {
                match self {
                    $($enum::$variant => Rule::$rule,)*
                }
            }

            /// How codegen computes the op.
            pub fn body(self) -> Body {
                match self {
                    $($enum::$variant => Body::$body $(($arg))?,)*
                }
            }

            /// True for the float-valued transcendental functions served by the WGSL libm
            /// (checked against NumPy's umath validation sets).
            pub fn is_libm(self) -> bool {
                self.body() == Body::Libm
            }

            /// True for the functions with a complex form (`shaders/complex_f32.wgsl`, read
            /// as f64 for complex128).
            pub fn has_complex_form(self) -> bool {
                match self {
                    $($enum::$variant => $complex,)*
                }
            }

            /// True for the ops `tests/goldens.rs` checks against NumPy.
            pub fn in_goldens(self) -> bool {
                match self {
                    $($enum::$variant => $goldens,)*
                }
            }

            /// The names of the op's public functions in kupfer (the first one is the
            /// function, the others its aliases).
            pub fn function_names(self) -> &'static [&'static str] {
                match self {
                    $($enum::$variant => &[$(stringify!($fns)),*],)*
                }
            }

            /// The names `kupfer eval` knows the op by (empty where the table does not
            /// register it).
            pub fn eval_names(self) -> &'static [&'static str] {
                match self {
                    $($enum::$variant => &[$($eval),*],)*
                }
            }

            /// The unsupported-dtype error unless `kind` is one the op accepts.
            fn check_kind(self, kind: Kind, unsupported: impl Fn() -> Error) -> Result<()> {
                if crate::ops::accepts(self.kinds(), kind) {
                    Ok(())
                } else {
                    Err(unsupported())
                }
            }
        }
    };
}

macro_rules! define_unary_ops {
    ($($rows:tt)*) => {
        define_ops! {
            /// Unary elementwise primitives (rows of [`unary_op_table!`](crate::unary_op_table)).
            UnaryOp;
            $($rows)*
        }
    };
}

macro_rules! define_binary_ops {
    ($($rows:tt)*) => {
        define_ops! {
            /// Binary elementwise primitives (rows of
            /// [`binary_op_table!`](crate::binary_op_table)).
            BinaryOp;
            $($rows)*
        }
    };
}

crate::unary_op_table!(define_unary_ops);
crate::binary_op_table!(define_binary_ops);

impl UnaryOp {
    /// (dtype the operand is cast to, result dtype) for an input of dtype `x`: the table's
    /// kinds and rule, with the special cases spelled out here.
    pub fn signature(self, x: DType) -> Result<(DType, DType)> {
        use UnaryOp::*;
        let unsupported = || {
            Error::unsupported(format!(
                "ufunc '{}' not supported for the input type {x}",
                self.name()
            ))
        };
        if self == Negative && x == DType::Bool {
            return Err(Error::unsupported(
                "the boolean negative, the `-` operator, is not supported, use `~` or \
                 logical_not instead",
            ));
        }
        self.check_kind(x.kind(), unsupported)?;
        Ok(match (self, self.rule()) {
            // NumPy computes these in int8 for bool.
            (Square | Reciprocal | Conj, _) if x == DType::Bool => (DType::I8, DType::I8),
            (_, Rule::Same) => (x, x),
            (_, Rule::Float) if x.is_complex() && self.has_complex_form() => (x, x),
            (_, Rule::Float) if x.is_complex() => return Err(unsupported()),
            // NumPy's float loops: integers and bools go through the float dtype
            // `float_result` names (float64 in NumPy; kupfer's 32-bit rule applies).
            (_, Rule::Float) => {
                let f = float_result(x);
                (f, f)
            }
            (_, Rule::ToBool) => (x, DType::Bool),
            (_, Rule::Logical) => (DType::Bool, DType::Bool),
            (Absolute, _) if x.is_complex() => (x, x.real_part()),
            (Absolute, _) => (x, x),
            // NumPy 2.3+: integers (and bools) are already integral and keep their dtype for
            // floor, ceil and trunc; rint computes them in their float dtype.
            (Rint, _) => match x.kind() {
                Kind::Complex | Kind::Float => (x, x),
                _ => {
                    let f = float_result(x);
                    (f, f)
                }
            },
            (Real | Imag, _) => match x.kind() {
                Kind::Complex => (x, x.real_part()),
                _ => (x, x),
            },
            (Signbit, _) => (float_result(x), DType::Bool),
            (FrexpExponent, _) => (float_result(x), DType::I32),
            // NumPy counts the bits of |x| into uint8.
            (BitwiseCount, _) if x == DType::Bool => (DType::I8, DType::U8),
            (BitwiseCount, _) => (x, DType::U8),
            // A `Custom` row without its case here (the unit test `custom_rules_are_written`
            // catches it).
            _ => return Err(unsupported()),
        })
    }
}

/// A binary operand's type: an array's dtype (strong) or a Python scalar's kind (weak).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandType {
    /// An array operand.
    Strong(DType),
    /// A Python scalar operand (NEP 50 weak).
    Weak(WeakKind),
}

/// The common dtype of two operands, at least one of them strong.
pub fn common_type(a: OperandType, b: OperandType) -> Result<DType> {
    match (a, b) {
        (OperandType::Strong(x), OperandType::Strong(y)) => result_type(x, y),
        (OperandType::Strong(x), OperandType::Weak(k))
        | (OperandType::Weak(k), OperandType::Strong(x)) => result_type_weak(x, k),
        (OperandType::Weak(_), OperandType::Weak(_)) => Err(Error::invalid(
            "an elementwise operation needs at least one array operand",
        )),
    }
}

impl BinaryOp {
    /// True for the comparisons (bool result, operands in their common dtype).
    pub fn is_comparison(self) -> bool {
        self.rule() == Rule::ToBool
    }

    /// True when this comparison of arrays of dtypes `a` and `b` takes its operands as they are,
    /// without casting them to a common dtype: the pairs whose NumPy common dtype is 64-bit
    /// (int32 with uint32, a 32-bit integer with float16 or float32) but kupfer's is 32-bit,
    /// where comparing in the 32-bit dtype would round. NumPy compares them exactly (in int64 or
    /// float64); so does kupfer, without 64-bit arithmetic. A signed integer against uint64
    /// (NumPy: float64, but it compares the exact values) is compared exactly too. A
    /// [`Node::Binary`] of such a comparison has operands of two dtypes.
    pub fn compares_mixed(self, a: DType, b: DType) -> bool {
        use DType::*;
        // The small integers are held as int32/uint32 values: compared as those.
        self.is_comparison()
            && matches!(
                (a.compute(), b.compute()),
                (I32, U32)
                    | (U32, I32)
                    | (I32 | U32, F16 | F32)
                    | (F16 | F32, I32 | U32)
                    | (I32 | I64, U64)
                    | (U64, I32 | I64)
            )
    }

    /// (dtype both operands are cast to, result dtype): the table's kinds and rule, with the
    /// special cases spelled out here.
    pub fn signature(self, a: OperandType, b: OperandType) -> Result<(DType, DType)> {
        use BinaryOp::*;
        let common = common_type(a, b)?;
        let unsupported = || {
            Error::unsupported(format!(
                "ufunc '{}' not supported for the input types ({}, {})",
                self.name(),
                describe(a),
                describe(b)
            ))
        };
        if self == Subtract && common == DType::Bool {
            return Err(Error::unsupported(
                "numpy boolean subtract, the `-` operator, is not supported, use the \
                 bitwise_xor, the `^` operator, or the logical_xor function instead",
            ));
        }
        self.check_kind(common.kind(), unsupported)?;
        Ok(match (self, self.rule()) {
            // NumPy computes these in int8 for bool.
            (FloorDivide | Remainder | Fmod | Power | LeftShift | RightShift | Gcd | Lcm, _)
                if common == DType::Bool =>
            {
                (DType::I8, DType::I8)
            }
            (_, Rule::Same) => (common, common),
            // No binary op has a complex form: the table's kinds refuse complex operands.
            (_, Rule::Float) => {
                let f = float_result(common);
                (f, f)
            }
            (_, Rule::ToBool) => (common, DType::Bool),
            (_, Rule::Logical) => (DType::Bool, DType::Bool),
            (TrueDivide, _) => {
                let out = true_divide_result(strong_or(a, common), strong_or(b, common))?;
                (out, out)
            }
            // ldexp(x, n): x's float dtype alone decides the result (NumPy's loops are `fi->f`,
            // `fl->f`, ...); n must be an integer and is carried in that float dtype (exactly
            // for every n whose result is not 0 or inf).
            (Ldexp, _) => {
                let is_int = |t: OperandType| match t {
                    OperandType::Strong(d) => matches!(d.kind(), Kind::Int | Kind::Bool),
                    OperandType::Weak(k) => matches!(k, WeakKind::Int | WeakKind::Bool),
                };
                if !is_int(b) {
                    return Err(unsupported());
                }
                // A Python int or bool mantissa takes NumPy's first matching loop, `ei->e`.
                let x = match a {
                    OperandType::Strong(d) => d,
                    OperandType::Weak(WeakKind::Float) => DType::F64,
                    OperandType::Weak(_) => DType::F16,
                };
                let f = float_result(x);
                (f, f)
            }
            (Complex, _) => match common {
                DType::F64 | DType::I64 | DType::U64 => (DType::F64, DType::Complex128),
                _ => (DType::F32, DType::Complex64),
            },
            // A `Custom` row without its case here (the unit test `custom_rules_are_written`
            // catches it).
            _ => return Err(unsupported()),
        })
    }
}

fn strong_or(t: OperandType, common: DType) -> DType {
    match t {
        OperandType::Strong(d) => d,
        OperandType::Weak(_) => common,
    }
}

fn describe(t: OperandType) -> String {
    match t {
        OperandType::Strong(d) => d.name().to_string(),
        OperandType::Weak(k) => format!("Python {k:?}").to_lowercase(),
    }
}

/// Index of a node in a [`Program`].
pub type NodeId = usize;

/// One node of an elementwise program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Node {
    /// Element of input array `.0` at the current output index.
    Load(usize),
    /// Uniform scalar `.0`.
    Scalar(usize),
    /// The output element's linear (C-order) index, as `u32`.
    Index,
    /// Convert a value to the node's dtype.
    Cast(NodeId),
    /// Unary primitive (operand already cast to the op's input dtype).
    Unary(UnaryOp, NodeId),
    /// Binary primitive (operands already cast to the op's input dtype, except for the mixed
    /// comparisons of [`BinaryOp::compares_mixed`]).
    Binary(BinaryOp, NodeId, NodeId),
    /// `where(cond, a, b)`: cond is bool, a and b have the node's dtype.
    Select(NodeId, NodeId, NodeId),
    /// A call of a user's WGSL function (an `ElementwiseKernel` snippet) with these arguments
    /// (each of its parameter's dtype; params first, then in-place initial values), taking
    /// output `.2` of the function; the element index is passed implicitly.
    Call(Arc<UserFn>, Vec<NodeId>, usize),
    /// A random value of the element at the output index (a draw of `crate::random`): the
    /// arguments are the u32 key low and high words, the u32 draw number low and high words,
    /// then the op's parameters. The output index must be the draw's own C-order index (the
    /// array layer materialises a draw before it is broadcast or permuted).
    Random(RandomOp, Vec<NodeId>),
}

/// How a kernel walks an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Dense in output order: element `offset + i`.
    Contiguous,
    /// Arbitrary strides over the (collapsed) output shape.
    Strided,
    /// Every output element reads the same element.
    Broadcast,
}

/// An input array as a kernel sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InputSpec {
    /// Element type.
    pub dtype: DType,
    /// Access pattern.
    pub access: Access,
    /// Stored packed (int8/uint8 four to a 32-bit word, int16/uint16 two; see
    /// [`crate::packing`]): the kernel extracts each element from its word. Only the
    /// elementwise kernel ([`crate::codegen::elementwise`]) reads packed inputs.
    pub packed: bool,
}

/// A flattened elementwise expression DAG (children before parents) plus the kernel's
/// structural parameters. Hash + Eq make it the pipeline-cache key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Program {
    /// Nodes with their result dtypes.
    pub nodes: Vec<(Node, DType)>,
    /// Input arrays, in binding order.
    pub inputs: Vec<InputSpec>,
    /// Scalar dtypes, in uniform order.
    pub scalars: Vec<DType>,
    /// Node written to the output.
    pub output: NodeId,
    /// Rank of the collapsed iteration shape (0 when every input is contiguous or broadcast).
    pub rank: usize,
    /// Read and write contiguous operands as vec4 (see `codegen::vectorisable`).
    pub vector: bool,
}

impl Program {
    /// Dtype of the output.
    pub fn out_dtype(&self) -> DType {
        self.nodes[self.output].1
    }

    /// Every dtype that appears anywhere in the program.
    pub fn dtypes(&self) -> impl Iterator<Item = DType> + '_ {
        self.nodes
            .iter()
            .map(|(_, d)| *d)
            .chain(self.inputs.iter().map(|i| i.dtype))
            .chain(self.scalars.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op, `Custom` rule or not, has a signature for some dtype: a `Custom` row whose case
    /// `signature` lacks would be refused for every input.
    #[test]
    fn custom_rules_are_written() {
        for &op in UnaryOp::ALL {
            assert!(
                DType::ALL.iter().any(|&d| op.signature(d).is_ok()),
                "{op:?} has no signature"
            );
        }
        for &op in BinaryOp::ALL {
            let ok = DType::ALL.iter().any(|&a| {
                DType::ALL.iter().any(|&b| {
                    op.signature(OperandType::Strong(a), OperandType::Strong(b))
                        .is_ok()
                })
            });
            assert!(ok, "{op:?} has no signature");
        }
    }

    /// The table's columns agree with each other: accepted kinds are where a signature
    /// exists, names find their ops, function and eval names are unique.
    #[test]
    fn table_columns_agree() {
        for &op in UnaryOp::ALL {
            for &d in DType::ALL.iter() {
                if op.signature(d).is_ok() {
                    assert!(op.kinds().contains(&d.kind()), "{op:?} {d}");
                }
            }
            assert_eq!(
                UnaryOp::from_name(op.name()).map(|o| o.name()),
                Some(op.name())
            );
            assert!(op.has_complex_form() <= op.kinds().contains(&Kind::Complex));
        }
        for &op in BinaryOp::ALL {
            assert_eq!(BinaryOp::from_name(op.name()), Some(op));
        }
        let mut fns: Vec<&str> = UnaryOp::ALL
            .iter()
            .flat_map(|op| op.function_names())
            .chain(BinaryOp::ALL.iter().flat_map(|op| op.function_names()))
            .copied()
            .collect();
        let n = fns.len();
        fns.sort_unstable();
        fns.dedup();
        assert_eq!(fns.len(), n, "a function name is in two rows");
        let mut eval: Vec<&str> = UnaryOp::ALL
            .iter()
            .flat_map(|op| op.eval_names())
            .chain(BinaryOp::ALL.iter().flat_map(|op| op.eval_names()))
            .copied()
            .collect();
        let n = eval.len();
        eval.sort_unstable();
        eval.dedup();
        assert_eq!(eval.len(), n, "an eval name is in two rows");
    }
}
