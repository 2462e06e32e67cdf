//! The elementwise op IR: a small set of primitive unary/binary/select/cast nodes that every
//! elementwise function (and, later, reduction maps and fused user code) is composed from.
//!
//! A [`Program`] is a flattened expression DAG over input arrays and uniform scalars. It holds
//! no values — only structure and dtypes — so it doubles as the pipeline-cache key: `x * 2`
//! and `x * 3` are the same program.

use crate::custom::UserFn;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::promote::{float_result, result_type, result_type_weak, true_divide_result, WeakKind};
use crate::random::RandomOp;
use std::sync::Arc;

/// Unary elementwise primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum UnaryOp {
    Negative,
    Absolute,
    Sign,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log1p,
    Log2,
    Log10,
    Sqrt,
    Cbrt,
    Square,
    Reciprocal,
    Sin,
    Cos,
    Tan,
    Arcsin,
    Arccos,
    Arctan,
    Sinh,
    Cosh,
    Tanh,
    Arcsinh,
    Arccosh,
    Arctanh,
    Floor,
    Ceil,
    Trunc,
    Rint,
    IsNan,
    IsInf,
    IsFinite,
    LogicalNot,
    BitwiseNot,
    Real,
    Imag,
    Conj,
    Signbit,
    Spacing,
    FrexpMantissa,
    FrexpExponent,
    I0,
    BitwiseCount,
}

/// Binary elementwise primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    TrueDivide,
    FloorDivide,
    Remainder,
    Power,
    Maximum,
    Minimum,
    Fmax,
    Fmin,
    Arctan2,
    Hypot,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    LeftShift,
    RightShift,
    Copysign,
    Nextafter,
    Ldexp,
    Gcd,
    Lcm,
    /// `re + i im` from two real operands (exact: no arithmetic touches either part).
    Complex,
}

impl UnaryOp {
    /// NumPy's ufunc name.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Negative => "negative",
            Absolute => "absolute",
            Sign => "sign",
            Exp => "exp",
            Exp2 => "exp2",
            Expm1 => "expm1",
            Log => "log",
            Log1p => "log1p",
            Log2 => "log2",
            Log10 => "log10",
            Sqrt => "sqrt",
            Cbrt => "cbrt",
            Square => "square",
            Reciprocal => "reciprocal",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Arcsin => "arcsin",
            Arccos => "arccos",
            Arctan => "arctan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Arcsinh => "arcsinh",
            Arccosh => "arccosh",
            Arctanh => "arctanh",
            Floor => "floor",
            Ceil => "ceil",
            Trunc => "trunc",
            Rint => "rint",
            IsNan => "isnan",
            IsInf => "isinf",
            IsFinite => "isfinite",
            LogicalNot => "logical_not",
            BitwiseNot => "invert",
            Real => "real",
            Imag => "imag",
            Conj => "conjugate",
            Signbit => "signbit",
            Spacing => "spacing",
            FrexpMantissa | FrexpExponent => "frexp",
            I0 => "i0",
            BitwiseCount => "bitwise_count",
        }
    }

    /// True for the functions with a complex form (`shaders/complex_f32.wgsl`, read as f64
    /// for complex128).
    pub fn has_complex_form(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Sqrt | Exp | Log | Log2 | Log10 | Sin | Cos | Tan | Sinh | Cosh | Tanh
        )
    }

    /// True for the float-valued transcendental functions served by the WGSL libm.
    pub fn is_libm(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Exp | Exp2
                | Expm1
                | Log
                | Log1p
                | Log2
                | Log10
                | Cbrt
                | Sin
                | Cos
                | Tan
                | Arcsin
                | Arccos
                | Arctan
                | Sinh
                | Cosh
                | Tanh
                | Arcsinh
                | Arccosh
                | Arctanh
        )
    }

    /// (dtype the operand is cast to, result dtype) for an input of dtype `x`.
    pub fn signature(self, x: DType) -> Result<(DType, DType)> {
        use UnaryOp::*;
        let unsupported = || {
            Err(Error::unsupported(format!(
                "ufunc '{}' not supported for the input type {x}",
                self.name()
            )))
        };
        Ok(match self {
            Negative if x == DType::Bool => {
                return Err(Error::unsupported(
                    "the boolean negative, the `-` operator, is not supported, use `~` or \
                     logical_not instead",
                ))
            }
            // NumPy computes these in int8 for bool.
            Square if x == DType::Bool => (DType::I8, DType::I8),
            Negative | Square => (x, x),
            Sign if x == DType::Bool => return unsupported(),
            Absolute if x == DType::Bool => (x, x),
            Absolute if x.is_complex() => (x, x.real_part()),
            Absolute => (x, x),
            Sign => (x, x),
            Reciprocal if x == DType::Bool => (DType::I8, DType::I8),
            Reciprocal => (x, x),
            Rint if x.is_complex() => (x, x),
            Floor | Ceil | Trunc | Rint => match x.kind() {
                Kind::Complex => return unsupported(),
                Kind::Float => (x, x),
                // NumPy 2.3+: integers (and bools) are already integral and keep their dtype.
                _ if self != Rint => (x, x),
                _ => {
                    let f = float_result(x);
                    (f, f)
                }
            },
            op if (op == Sqrt || op.is_libm()) && x.is_complex() => {
                if op.has_complex_form() {
                    (x, x)
                } else {
                    return unsupported();
                }
            }
            op if op == Sqrt || op.is_libm() => {
                let f = float_result(x);
                (f, f)
            }
            IsNan | IsInf | IsFinite => (x, DType::Bool),
            LogicalNot => (DType::Bool, DType::Bool),
            BitwiseNot => match x.kind() {
                Kind::Bool | Kind::Int => (x, x),
                _ => return unsupported(),
            },
            Real | Imag => match x.kind() {
                Kind::Complex => (x, x.real_part()),
                _ => (x, x),
            },
            Conj if x == DType::Bool => (DType::I8, DType::I8),
            Conj => (x, x),
            // NumPy's loops for these are float-only: integers and bools go through the float
            // dtype `float_result` names (float64 in NumPy; kupfer's 32-bit rule applies).
            Signbit | Spacing | FrexpMantissa | FrexpExponent | I0 => {
                if x.is_complex() {
                    return unsupported();
                }
                let f = float_result(x);
                match self {
                    Signbit => (f, DType::Bool),
                    FrexpExponent => (f, DType::I32),
                    _ => (f, f),
                }
            }
            // NumPy counts the bits of |x| into uint8.
            BitwiseCount => match x.kind() {
                Kind::Int => (x, DType::U8),
                Kind::Bool => (DType::I8, DType::U8),
                _ => return unsupported(),
            },
            _ => unreachable!("all unary ops are covered"),
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
    /// NumPy's ufunc name.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Subtract => "subtract",
            Multiply => "multiply",
            TrueDivide => "divide",
            FloorDivide => "floor_divide",
            Remainder => "remainder",
            Power => "power",
            Maximum => "maximum",
            Minimum => "minimum",
            Fmax => "fmax",
            Fmin => "fmin",
            Arctan2 => "arctan2",
            Hypot => "hypot",
            Equal => "equal",
            NotEqual => "not_equal",
            Less => "less",
            LessEqual => "less_equal",
            Greater => "greater",
            GreaterEqual => "greater_equal",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            BitwiseAnd => "bitwise_and",
            BitwiseOr => "bitwise_or",
            BitwiseXor => "bitwise_xor",
            LeftShift => "left_shift",
            RightShift => "right_shift",
            Copysign => "copysign",
            Nextafter => "nextafter",
            Ldexp => "ldexp",
            Gcd => "gcd",
            Lcm => "lcm",
            Complex => "complex",
        }
    }

    /// True for the comparisons (bool result, operands in their common dtype).
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual
        )
    }

    /// True when this comparison of arrays of dtypes `a` and `b` takes its operands as they are,
    /// without casting them to a common dtype: the pairs whose NumPy common dtype is 64-bit
    /// (int32 with uint32, a 32-bit integer with float16 or float32) but kupfer's is 32-bit,
    /// where comparing in the 32-bit dtype would round. NumPy compares them exactly (in int64 or
    /// float64); so does kupfer, without 64-bit arithmetic. A [`Node::Binary`] of such a
    /// comparison has operands of two dtypes.
    pub fn compares_mixed(self, a: DType, b: DType) -> bool {
        use DType::*;
        // The small integers are held as int32/uint32 values: compared as those.
        self.is_comparison()
            && matches!(
                (a.compute(), b.compute()),
                (I32, U32) | (U32, I32) | (I32 | U32, F16 | F32) | (F16 | F32, I32 | U32)
            )
    }

    /// (dtype both operands are cast to, result dtype).
    pub fn signature(self, a: OperandType, b: OperandType) -> Result<(DType, DType)> {
        use BinaryOp::*;
        let common = common_type(a, b)?;
        let unsupported = || {
            Err(Error::unsupported(format!(
                "ufunc '{}' not supported for the input types ({}, {})",
                self.name(),
                describe(a),
                describe(b)
            )))
        };
        Ok(match self {
            Add | Multiply => (common, common),
            Subtract if common == DType::Bool => {
                return Err(Error::unsupported(
                    "numpy boolean subtract, the `-` operator, is not supported, use the \
                     bitwise_xor, the `^` operator, or the logical_xor function instead",
                ))
            }
            Subtract => (common, common),
            TrueDivide => {
                let out = true_divide_result(strong_or(a, common), strong_or(b, common))?;
                (out, out)
            }
            FloorDivide | Remainder | Power => match common.kind() {
                Kind::Complex => return unsupported(),
                Kind::Bool => (DType::I8, DType::I8),
                _ => (common, common),
            },
            Maximum | Minimum | Fmax | Fmin => (common, common),
            Arctan2 | Hypot => {
                if common.is_complex() {
                    return unsupported();
                }
                let f = float_result(common);
                (f, f)
            }
            Equal | NotEqual => (common, DType::Bool),
            Less | LessEqual | Greater | GreaterEqual => {
                if common.is_complex() {
                    return unsupported();
                }
                (common, DType::Bool)
            }
            LogicalAnd | LogicalOr | LogicalXor => (DType::Bool, DType::Bool),
            BitwiseAnd | BitwiseOr | BitwiseXor => match common.kind() {
                Kind::Bool | Kind::Int => (common, common),
                _ => return unsupported(),
            },
            LeftShift | RightShift => match common.kind() {
                Kind::Int => (common, common),
                Kind::Bool => (DType::I8, DType::I8),
                _ => return unsupported(),
            },
            Copysign | Nextafter => {
                if common.is_complex() {
                    return unsupported();
                }
                let f = float_result(common);
                (f, f)
            }
            // ldexp(x, n): x's float dtype alone decides the result (NumPy's loops are `fi->f`,
            // `fl->f`, ...); n must be an integer and is carried in that float dtype (exactly
            // for every n whose result is not 0 or inf).
            Ldexp => {
                let is_int = |t: OperandType| match t {
                    OperandType::Strong(d) => matches!(d.kind(), Kind::Int | Kind::Bool),
                    OperandType::Weak(k) => matches!(k, WeakKind::Int | WeakKind::Bool),
                };
                if common.is_complex() || !is_int(b) {
                    return unsupported();
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
            Complex => match common {
                DType::F64 | DType::I64 => (DType::F64, DType::Complex128),
                d if d.is_complex() => return unsupported(),
                _ => (DType::F32, DType::Complex64),
            },
            Gcd | Lcm => match common.kind() {
                Kind::Int => (common, common),
                Kind::Bool => (DType::I8, DType::I8),
                _ => return unsupported(),
            },
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
