//! `np.poly1d`, NumPy's polynomial object ([`Value::Poly1d`]): construction from
//! coefficients, `p(x)`, `+ - *` with polynomials and numbers, `p ** n`, `p / number`, `-p`,
//! `==`, `.c`/`.coeffs`/`.coef`/`.coefficients`, `.order`/`.o`, `.variable`, `.deriv(m)`,
//! `.integ(m, k)`, and NumPy's printing (`repr` as `poly1d([...])`, `str` with the powers
//! raised a line). The coefficient arithmetic is kupfer's polynomial module; a new
//! polynomial reads its (few) coefficients back to trim leading zeros, as NumPy does, so in
//! the browser, where nothing may block, poly1d is a clear error. Roots (`r=True`, `.roots`)
//! wait for `np.roots`.

use super::{to_array, Call, Registry};
use crate::ast::{BinOp, Span};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, HostArray, HostData, Scalar, SliceArg};

pub(super) fn register(r: &mut Registry) {
    r.native(&["poly1d"], poly1d);
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

fn poly1d(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["c_or_r", "r=", "variable="])?;
    let c = a.req("c_or_r")?;
    if a.bool_or("r", false)? {
        return Err(EvalError::not_supported(
            span,
            "'np.poly1d(..., r=True)' (it needs np.roots' inverse, np.poly)",
        ));
    }
    if let Some(v) = a.string("variable")? {
        if v != "x" {
            return Err(EvalError::not_supported(
                span,
                "'np.poly1d(..., variable=...)' other than 'x'",
            ));
        }
    }
    match c {
        Value::Poly1d(p) => Ok(Value::Poly1d(p)),
        other => new(to_array(&other, None, span)?, span),
    }
}

/// A polynomial of coefficients `c` (0-d taken as 1-d): leading zeros trimmed, `[0]` when
/// nothing is left, as NumPy's poly1d.
pub(crate) fn new(c: Array, span: Span) -> Result<Value> {
    let c = if c.ndim() == 0 {
        c.reshape(&[1]).map_err(kerr(span))?
    } else {
        c
    };
    if c.ndim() > 1 {
        return Err(EvalError::value_error(span, "Polynomial must be 1d only."));
    }
    if c.shape()[0] == 0 {
        let zero = kupfer::full_on(c.device(), &[1], Scalar::Int(0), Some(c.dtype()));
        return Ok(Value::Poly1d(zero.map_err(kerr(span))?));
    }
    let first = first_nonzero(&c, span)?;
    let start = first.unwrap_or(c.shape()[0] - 1);
    if start == 0 {
        return Ok(Value::Poly1d(c));
    }
    let tail = c
        .slice(&[SliceArg::Slice {
            start: Some(start as isize),
            stop: None,
            step: None,
        }])
        .map_err(kerr(span))?;
    Ok(Value::Poly1d(tail))
}

/// The index of the first nonzero coefficient (a read-back of the few coefficients).
#[cfg(not(target_arch = "wasm32"))]
fn first_nonzero(c: &Array, span: Span) -> Result<Option<usize>> {
    let nonzero = kupfer::not_equal(c, 0)
        .and_then(|m| m.to_vec::<bool>())
        .map_err(kerr(span))?;
    Ok(nonzero.iter().position(|&b| b))
}

#[cfg(target_arch = "wasm32")]
fn first_nonzero(_c: &Array, span: Span) -> Result<Option<usize>> {
    Err(EvalError::not_supported(
        span,
        "'np.poly1d' in the browser (it reads its coefficients back to trim leading zeros, \
         and the page must not block)",
    ))
}

/// The coefficients of a polynomial operand: a poly1d's, or a number or sequence as
/// `poly1d(other)` makes them.
fn coeffs(v: &Value, span: Span) -> Result<Array> {
    match v {
        Value::Poly1d(c) => Ok(c.clone()),
        other => match new(to_array(other, None, span)?, span)? {
            Value::Poly1d(c) => Ok(c),
            _ => unreachable!("new returns a poly1d"),
        },
    }
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Scalar(_)) || matches!(v, Value::Array(a) if a.ndim() == 0)
}

/// `l op r` where one side is a poly1d (NumPy's poly1d operators); None when neither is.
pub(crate) fn binary(op: BinOp, l: &Value, r: &Value, span: Span) -> Option<Result<Value>> {
    if !matches!(l, Value::Poly1d(_)) && !matches!(r, Value::Poly1d(_)) {
        return None;
    }
    Some(binary_poly(op, l, r, span))
}

fn binary_poly(op: BinOp, l: &Value, r: &Value, span: Span) -> Result<Value> {
    let k = kerr(span);
    match op {
        BinOp::Add => new(
            kupfer::polyadd(&coeffs(l, span)?, &coeffs(r, span)?).map_err(k)?,
            span,
        ),
        BinOp::Sub => new(
            kupfer::polysub(&coeffs(l, span)?, &coeffs(r, span)?).map_err(k)?,
            span,
        ),
        BinOp::Mul => {
            // A number scales the coefficients; anything else multiplies as a polynomial.
            let (p, other) = match (l, r) {
                (Value::Poly1d(p), o) | (o, Value::Poly1d(p)) => (p, o),
                _ => unreachable!("one side is a poly1d"),
            };
            if is_number(other) {
                let s = super::to_operand(other, "poly1d factor", span)?;
                new(kupfer::multiply(p, s).map_err(k)?, span)
            } else {
                new(
                    kupfer::polymul(&coeffs(l, span)?, &coeffs(r, span)?).map_err(k)?,
                    span,
                )
            }
        }
        BinOp::Div if matches!(l, Value::Poly1d(_)) && is_number(r) => {
            let Value::Poly1d(p) = l else { unreachable!() };
            let s = super::to_operand(r, "poly1d divisor", span)?;
            new(kupfer::divide(p, s).map_err(k)?, span)
        }
        BinOp::Div => Err(EvalError::not_supported(
            span,
            "'poly1d / poly1d' (np.polydiv)",
        )),
        BinOp::Pow => {
            let Value::Poly1d(p) = l else {
                return Err(unsupported(op, l, r, span));
            };
            let n = match r {
                Value::Scalar(Scalar::Int(n)) if *n >= 0 => *n,
                Value::Scalar(Scalar::Float(f)) if *f >= 0.0 && f.fract() == 0.0 => *f as i64,
                _ => {
                    return Err(EvalError::value_error(
                        span,
                        "Power to non-negative integers only.",
                    ))
                }
            };
            let mut res = kupfer::full_on(p.device(), &[1], Scalar::Int(1), Some(p.dtype()))
                .map_err(kerr(span))?;
            for _ in 0..n {
                res = kupfer::polymul(p, &res).map_err(kerr(span))?;
            }
            new(res, span)
        }
        _ => Err(unsupported(op, l, r, span)),
    }
}

fn unsupported(op: BinOp, l: &Value, r: &Value, span: Span) -> EvalError {
    EvalError::type_error(
        span,
        format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.symbol(),
            l.type_name(),
            r.type_name()
        ),
    )
}

/// `-p` and `+p`.
pub(crate) fn negate(p: &Array, span: Span) -> Result<Value> {
    new(kupfer::negative(p).map_err(kerr(span))?, span)
}

/// `p == q` for two polynomials: Python's False for different lengths, else whether every
/// coefficient is equal (a NumPy bool, as NumPy's `(c1 == c2).all()`).
pub(crate) fn equal(p: &Array, q: &Array, span: Span) -> Result<Value> {
    if p.shape() != q.shape() {
        return Ok(Value::Scalar(Scalar::Bool(false)));
    }
    let eq = kupfer::equal(p, q).map_err(kerr(span))?;
    Ok(Value::Array(
        kupfer::all(&eq, kupfer::Axis::All, false).map_err(kerr(span))?,
    ))
}

/// `p.attr`.
pub(crate) fn attribute(p: &Array, attr: &str, span: Span) -> Result<Value> {
    Ok(match attr {
        "c" | "coef" | "coefficients" | "coeffs" => Value::Array(p.clone()),
        "order" | "o" => Value::Scalar(Scalar::Int(p.shape()[0] as i64 - 1)),
        "variable" => Value::Str("x".into()),
        "deriv" => Value::Method(p.clone(), "poly1d.deriv"),
        "integ" => Value::Method(p.clone(), "poly1d.integ"),
        "r" | "roots" => return Err(EvalError::not_supported(span, "'poly1d.roots'")),
        _ => {
            return Err(EvalError::type_error(
                span,
                format!("'poly1d' object has no attribute '{attr}'"),
            ))
        }
    })
}

/// `p.deriv(m=1)` and `p.integ(m=1, k=0)`; None for other method names.
pub(crate) fn call_method(p: &Array, name: &str, call: Call) -> Option<Result<Value>> {
    match name {
        "poly1d.deriv" => Some(deriv(p, call)),
        "poly1d.integ" => Some(integ(p, call)),
        _ => None,
    }
}

fn deriv(p: &Array, call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["m="])?;
    let m = order(a.int("m")?, span)?;
    new(kupfer::polyder(p, m).map_err(kerr(span))?, span)
}

fn integ(p: &Array, call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["m=", "k="])?;
    let m = order(a.int("m")?, span)?;
    let k = match a.get("k") {
        None => vec![],
        Some(Value::Scalar(s)) => vec![s.as_f64(); m],
        Some(Value::List(v) | Value::Tuple(v)) => v
            .iter()
            .map(|x| super::to_f64(x, "poly1d.integ(): argument 'k'", span))
            .collect::<Result<_>>()?,
        Some(v) => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "poly1d.integ(): k must be a number or a list, got '{}'",
                    v.type_name()
                ),
            ))
        }
    };
    new(kupfer::polyint(p, m, &k).map_err(kerr(span))?, span)
}

fn order(m: Option<i64>, span: Span) -> Result<usize> {
    let m = m.unwrap_or(1);
    usize::try_from(m).map_err(|_| {
        EvalError::value_error(span, "Order of derivative must be positive (see polyint)")
    })
}

/// `p(x)`: the polynomial at `x` (np.polyval), or the composition `p(q)` for a poly1d `q`.
pub(crate) fn call(p: &Array, args: Vec<Value>, span: Span) -> Result<Value> {
    let [x] = <[Value; 1]>::try_from(args).map_err(|args| {
        EvalError::type_error(
            span,
            format!("poly1d.__call__() takes 1 argument ({} given)", args.len()),
        )
    })?;
    polyval(p, &x, span)
}

/// NumPy's `polyval(p, x)`: Horner's rule, on polynomials when `x` is a poly1d.
pub(crate) fn polyval(p: &Array, x: &Value, span: Span) -> Result<Value> {
    match x {
        Value::Poly1d(q) => {
            let n = p.shape()[0];
            let mut y = new(
                kupfer::full_on(p.device(), &[1], Scalar::Int(0), Some(p.dtype()))
                    .map_err(kerr(span))?,
                span,
            )?;
            for i in 0..n {
                let c = p
                    .slice(&[SliceArg::Index(i as isize)])
                    .map_err(kerr(span))?;
                let yx = binary_poly(BinOp::Mul, &y, &Value::Poly1d(q.clone()), span)?;
                y = binary_poly(BinOp::Add, &yx, &Value::Array(c), span)?;
            }
            Ok(y)
        }
        other => {
            let x = super::to_operand(other, "polyval's x", span)?;
            Ok(Value::Array(kupfer::polyval(p, x).map_err(kerr(span))?))
        }
    }
}

/// NumPy's `str()` of a poly1d: `9 x + 5 x + 4` with the powers raised onto the line
/// above (`_raise_power`), coefficients as `%.4g`.
pub(crate) fn poly_str(c: &HostArray) -> String {
    let values = complex_values(&c.data);
    let first = values
        .iter()
        .position(|&(re, im)| re != 0.0 || im != 0.0)
        .unwrap_or(values.len());
    let coeffs = &values[first..];
    let n = coeffs.len() as i64 - 1;
    let mut s = String::from("0");
    for (k, &(re, im)) in coeffs.iter().enumerate() {
        let coef = if im == 0.0 {
            fmt_g4(re)
        } else if re == 0.0 {
            format!("{}j", fmt_g4(im))
        } else {
            format!("({} + {}j)", fmt_g4(re), fmt_g4(im))
        };
        let power = n - k as i64;
        let term = match power {
            0 if coef != "0" => coef,
            0 if k == 0 => "0".into(),
            0 => String::new(),
            _ if coef == "0" => String::new(),
            1 => format!("{coef} x"),
            _ => format!("{coef} x**{power}"),
        };
        if k == 0 {
            s = term;
        } else if let Some(rest) = term.strip_prefix('-') {
            s = format!("{s} - {rest}");
        } else if !term.is_empty() {
            s = format!("{s} + {term}");
        }
    }
    raise_power(&s, 70)
}

/// The coefficients as (re, im) pairs.
fn complex_values(d: &HostData) -> Vec<(f64, f64)> {
    match d {
        HostData::Complex64(v) => v.iter().map(|z| (z.re.into(), z.im.into())).collect(),
        HostData::Complex128(v) => v.iter().map(|z| (z.re, z.im)).collect(),
        HostData::Bool(v) => v.iter().map(|&b| (f64::from(u8::from(b)), 0.0)).collect(),
        HostData::I8(v) => v.iter().map(|&x| (x.into(), 0.0)).collect(),
        HostData::U8(v) => v.iter().map(|&x| (x.into(), 0.0)).collect(),
        HostData::I16(v) => v.iter().map(|&x| (x.into(), 0.0)).collect(),
        HostData::U16(v) => v.iter().map(|&x| (x.into(), 0.0)).collect(),
        HostData::I32(v) => v.iter().map(|&x| (x.into(), 0.0)).collect(),
        HostData::U32(v) => v.iter().map(|&x| (x.into(), 0.0)).collect(),
        HostData::I64(v) => v.iter().map(|&x| (x as f64, 0.0)).collect(),
        HostData::U64(v) => v.iter().map(|&x| (x as f64, 0.0)).collect(),
        HostData::F16(v) => v.iter().map(|&x| (x.to_f64(), 0.0)).collect(),
        HostData::F32(v) => v.iter().map(|&x| (x.into(), 0.0)).collect(),
        HostData::F64(v) => v.iter().map(|&x| (x, 0.0)).collect(),
    }
}

/// Python's `'%.4g' % q` without a trailing `.0000`.
fn fmt_g4(q: f64) -> String {
    if q.is_nan() {
        return "nan".into();
    }
    if q.is_infinite() {
        return if q > 0.0 { "inf" } else { "-inf" }.into();
    }
    if q == 0.0 {
        return if q.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent of q rounded to 4 significant digits decides the style.
    let sci = format!("{q:.3e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |t: &str| -> String {
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t.to_string()
        }
    };
    if !(-4..4).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    } else {
        let decimals = (3 - exp).max(0) as usize;
        trim(&format!("{q:.decimals$}"))
    }
}

/// NumPy's `_raise_power`: each `**N` moves onto a line above its term.
fn raise_power(s: &str, wrap: usize) -> String {
    let (mut line1, mut line2) = (String::new(), String::new());
    let mut output = String::from(" ");
    let mut n = 0;
    while let Some(at) = s[n..].find("**").map(|i| i + n) {
        let digits: String = s[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let part = &s[n..at];
        n = at + 2 + digits.len();
        let pad = digits.len().saturating_sub(1);
        let add2 = format!("{part}{}", " ".repeat(pad));
        let add1 = format!("{}{digits}", " ".repeat(part.len().saturating_sub(1)));
        if line2.len() + add2.len() > wrap || line1.len() + add1.len() > wrap {
            output += &format!("{line1}\n{line2}\n ");
            line1 = add1;
            line2 = add2;
        } else {
            line2 += &add2;
            line1 += &add1;
        }
    }
    output += &format!("{line1}\n{line2}");
    output + &s[n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g_and_raised_powers_are_numpys() {
        assert_eq!(fmt_g4(9.0), "9");
        assert_eq!(fmt_g4(0.333333), "0.3333");
        assert_eq!(fmt_g4(12346.0), "1.235e+04");
        assert_eq!(fmt_g4(0.00012345), "0.0001234");
        assert_eq!(fmt_g4(1e-5), "1e-05");
        assert_eq!(fmt_g4(-2.5), "-2.5");
        assert_eq!(raise_power("9 x**2 + 5 x + 4", 70), "   2\n9 x + 5 x + 4");
        assert_eq!(raise_power("1 x**11 - 5", 70), "   11\n1 x  - 5");
    }
}
