//! Operator overloads (`&a + &b`, `&a * 2.0`, `-&a`, ...). Like ndarray, they panic with the
//! library's message on a shape or dtype error; the functions in [`crate::ufuncs`]
//! (`kupfer::add`, ...) return `Result` instead.

use crate::array::Array;
use crate::scalar::Operand;
use crate::ufuncs;
use std::ops;

fn unwrap_op(r: kupfer_core::Result<Array>) -> Array {
    r.unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! binop {
    ($trait:ident, $method:ident, $func:path) => {
        impl<R: Into<Operand>> ops::$trait<R> for &Array {
            type Output = Array;
            fn $method(self, rhs: R) -> Array {
                unwrap_op($func(self, rhs))
            }
        }
        impl<R: Into<Operand>> ops::$trait<R> for Array {
            type Output = Array;
            fn $method(self, rhs: R) -> Array {
                unwrap_op($func(&self, rhs))
            }
        }
        impl ops::$trait<&Array> for f64 {
            type Output = Array;
            fn $method(self, rhs: &Array) -> Array {
                unwrap_op($func(self, rhs))
            }
        }
        impl ops::$trait<Array> for f64 {
            type Output = Array;
            fn $method(self, rhs: Array) -> Array {
                unwrap_op($func(self, &rhs))
            }
        }
        impl ops::$trait<&Array> for i64 {
            type Output = Array;
            fn $method(self, rhs: &Array) -> Array {
                unwrap_op($func(self, rhs))
            }
        }
    };
}

binop!(Add, add, ufuncs::add);
binop!(Sub, sub, ufuncs::subtract);
binop!(Mul, mul, ufuncs::multiply);
binop!(Div, div, ufuncs::divide);
binop!(Rem, rem, ufuncs::remainder);
binop!(BitAnd, bitand, ufuncs::bitwise_and);
binop!(BitOr, bitor, ufuncs::bitwise_or);
binop!(BitXor, bitxor, ufuncs::bitwise_xor);
binop!(Shl, shl, ufuncs::left_shift);
binop!(Shr, shr, ufuncs::right_shift);

impl ops::Neg for &Array {
    type Output = Array;
    fn neg(self) -> Array {
        unwrap_op(ufuncs::negative(self))
    }
}

impl ops::Neg for Array {
    type Output = Array;
    fn neg(self) -> Array {
        unwrap_op(ufuncs::negative(&self))
    }
}

impl ops::Not for &Array {
    type Output = Array;
    fn not(self) -> Array {
        unwrap_op(ufuncs::invert(self))
    }
}

impl ops::Not for Array {
    type Output = Array;
    fn not(self) -> Array {
        unwrap_op(ufuncs::invert(&self))
    }
}
