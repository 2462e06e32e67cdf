//! Runtime values of the interpreter, and their host-side counterparts for printing and
//! saving.

use crate::error::{EvalError, Result};
use crate::format::{self, PrintOptions};
use crate::pyscalar;
use kupfer::{Array, DType, HostArray, HostData, Scalar};
use std::fmt;

/// A runtime value: what an expression evaluates to.
#[derive(Debug, Clone)]
pub enum Value {
    /// A kupfer array (possibly 0-d, possibly lazy).
    Array(Array),
    /// A Python scalar (`True`, `3`, `1.5`, `2j`): weak in NumPy 2's promotion (NEP 50), so
    /// `a * 2` keeps `a`'s dtype.
    Scalar(Scalar),
    /// A Python string.
    Str(String),
    /// A Python tuple.
    Tuple(Vec<Value>),
    /// A Python list.
    List(Vec<Value>),
    /// A Python dict: its (key, value) pairs in insertion order, keys distinct
    /// ([`Value::dict`] builds one).
    Dict(Vec<(Value, Value)>),
    /// `None` (also `np.newaxis`).
    None,
    /// `...`
    Ellipsis,
    /// A slice `start:stop:step` (each part an integer or absent).
    Slice(Slice),
    /// A NumPy dtype (`np.float32`, `a.dtype`).
    DType(DType),
    /// A function of the NumPy table (`np.sin`), not yet called.
    Function(&'static str),
    /// A method of an array (`a.reshape`), not yet called.
    Method(Array, &'static str),
    /// A namespace: `""` for `np` itself, `"fft"`, `"linalg"`, `"random"`.
    Module(&'static str),
    /// A random generator (`np.random.default_rng(seed)`).
    Generator(kupfer::random::Generator),
    /// A method of a random generator (`rng.normal`), not yet called.
    GeneratorMethod(kupfer::random::Generator, &'static str),
    /// `np.poly1d`: a polynomial's coefficients, highest power first, leading zeros trimmed.
    Poly1d(Array),
    /// `a.flat`: NumPy's flat iterator over `a` in C order; indexing reads the flattened
    /// array and assignment through it writes into `a`.
    FlatIter(Array),
    /// A `lambda` (its parameters, body and the variables it sees).
    Lambda(std::sync::Arc<crate::callable::Lambda>),
    /// `np.vectorize(f)`: `f` called once per element of its broadcast arguments.
    Vectorized(std::sync::Arc<crate::callable::Vectorized>),
    /// A named tuple (NumPy 2's `UniqueAllResult` and kin) as a function returned it: it
    /// keeps its field names while it is bound to a name, for attribute access
    /// (`uniq.counts`); every other use sees the plain tuple ([`Value::plain`]).
    Named(NamedTuple),
}

/// A Python named tuple: field names beside the items.
#[derive(Debug, Clone)]
pub struct NamedTuple {
    /// The Python type's name (`UniqueAllResult`).
    pub type_name: &'static str,
    /// The field names, one per item.
    pub fields: &'static [&'static str],
    /// The items.
    pub items: Vec<Value>,
}

impl NamedTuple {
    /// The item named `field`.
    pub fn field(&self, field: &str) -> Option<&Value> {
        self.fields
            .iter()
            .position(|f| *f == field)
            .and_then(|i| self.items.get(i))
    }
}

/// A Python slice with integer (or absent) parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Slice {
    /// Start.
    pub start: Option<i64>,
    /// Stop.
    pub stop: Option<i64>,
    /// Step.
    pub step: Option<i64>,
}

impl Slice {
    /// Python's `slice.indices(len)`: concrete start, stop and step for a sequence.
    pub fn indices(&self, len: usize) -> std::result::Result<(i64, i64, i64), String> {
        let len = len as i64;
        let step = self.step.unwrap_or(1);
        if step == 0 {
            return Err("slice step cannot be zero".into());
        }
        let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
        let clamp = |v: Option<i64>, default: i64| match v {
            None => default,
            Some(v) if v < 0 => (v.saturating_add(len)).max(lower),
            Some(v) => v.min(upper),
        };
        let start = clamp(self.start, if step < 0 { upper } else { lower });
        let stop = clamp(self.stop, if step < 0 { lower } else { upper });
        Ok((start, stop, step))
    }

    /// The positions of a sequence of `len` items this slice selects.
    pub fn positions(&self, len: usize) -> std::result::Result<Vec<usize>, String> {
        let (start, stop, step) = self.indices(len)?;
        let mut out = Vec::new();
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(i as usize);
            i += step;
        }
        Ok(out)
    }
}

impl Value {
    /// A dict from `pairs` in order, as Python builds `{k: v, ...}`: a repeated key keeps
    /// its first position and takes the last value (keys equal as Python's are: `1`, `1.0`
    /// and `True` are one key). Errors: an unhashable key (Python's `TypeError`).
    pub fn dict(pairs: Vec<(Value, Value)>) -> std::result::Result<Value, String> {
        let mut out: Vec<(Value, Value)> = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            let k = k.plain();
            if !hashable(&k) {
                return Err(format!("unhashable type: '{}'", k.type_name()));
            }
            match out.iter_mut().find(|(old, _)| same_key(old, &k)) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        Ok(Value::Dict(out))
    }

    /// `d[key]` of a dict (Python's `KeyError` message, the key's repr, when absent).
    pub fn dict_get(pairs: &[(Value, Value)], key: &Value) -> std::result::Result<Value, String> {
        if !hashable(key) {
            return Err(format!("unhashable type: '{}'", key.type_name()));
        }
        pairs
            .iter()
            .find(|(k, _)| same_key(k, key))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| key.host_repr().unwrap_or_default())
    }

    /// This value with a named tuple turned into its plain tuple (all other values as they
    /// are): what every use of a value but attribute access and binding a name sees.
    pub fn plain(self) -> Value {
        match self {
            Value::Named(t) => Value::Tuple(t.items),
            v => v,
        }
    }

    /// Python's type name (`ndarray`, `int`, `tuple`, ...), for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Named(t) => t.type_name,
            Value::Array(_) => "ndarray",
            Value::Scalar(s) => pyscalar::type_name(s),
            Value::Str(_) => "str",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
            Value::None => "NoneType",
            Value::Ellipsis => "ellipsis",
            Value::Slice(_) => "slice",
            Value::DType(_) => "dtype",
            Value::Function(_) => "function",
            Value::Method(..) => "method",
            Value::Module(_) => "module",
            Value::Generator(_) => "Generator",
            Value::GeneratorMethod(..) => "method",
            Value::Poly1d(_) => "poly1d",
            Value::FlatIter(_) => "numpy.flatiter",
            Value::Lambda(_) => "function",
            Value::Vectorized(_) => "numpy.vectorize",
        }
    }

    /// The arrays inside this value, in print order.
    fn arrays<'a>(&'a self, out: &mut Vec<&'a Array>) {
        match self {
            Value::Array(a) | Value::Poly1d(a) => out.push(a),
            Value::Tuple(items) | Value::List(items) | Value::Named(NamedTuple { items, .. }) => {
                for i in items {
                    i.arrays(out);
                }
            }
            Value::Dict(pairs) => {
                for (_, v) in pairs {
                    v.arrays(out);
                }
            }
            _ => {}
        }
    }

    /// This value with each array replaced by the next host array of `hosts`.
    fn with_hosts(&self, hosts: &mut impl Iterator<Item = HostArray>) -> Result<HostValue> {
        Ok(match self {
            Value::Array(_) => HostValue::Array(hosts.next().ok_or_else(|| EvalError::Kupfer {
                source: kupfer::Error::invalid("an array was not read back"),
                span: Default::default(),
            })?),
            Value::Scalar(s) => HostValue::Scalar(*s),
            Value::Str(s) => HostValue::Str(s.clone()),
            Value::Tuple(items) | Value::Named(NamedTuple { items, .. }) => HostValue::Tuple(
                items
                    .iter()
                    .map(|i| i.with_hosts(hosts))
                    .collect::<Result<_>>()?,
            ),
            Value::List(items) => HostValue::List(
                items
                    .iter()
                    .map(|i| i.with_hosts(hosts))
                    .collect::<Result<_>>()?,
            ),
            Value::Dict(pairs) => HostValue::Dict(
                pairs
                    .iter()
                    .map(|(k, v)| Ok((k.with_hosts(hosts)?, v.with_hosts(hosts)?)))
                    .collect::<Result<_>>()?,
            ),
            Value::None => HostValue::None,
            Value::Ellipsis => HostValue::Ellipsis,
            Value::Slice(s) => HostValue::Slice(*s),
            Value::DType(d) => HostValue::DType(*d),
            Value::Function(name) => HostValue::Function(name),
            Value::Method(_, name) => HostValue::Method(name),
            Value::Module(name) => HostValue::Module(name),
            Value::Generator(_) => HostValue::Object("Generator(Philox)".into()),
            Value::GeneratorMethod(_, name) => HostValue::Object(format!(
                "<built-in method {name} of numpy.random._generator.Generator object>"
            )),
            Value::FlatIter(_) => HostValue::Object("<numpy.flatiter object>".into()),
            Value::Lambda(_) => HostValue::Object("<function <lambda>>".into()),
            Value::Vectorized(_) => HostValue::Object("<numpy.vectorize object>".into()),
            Value::Poly1d(_) => {
                HostValue::Poly1d(hosts.next().ok_or_else(|| EvalError::Kupfer {
                    source: kupfer::Error::invalid("an array was not read back"),
                    span: Default::default(),
                })?)
            }
        })
    }

    /// Reads every array of this value back to the host (async: the browser's way).
    pub async fn to_host_async(&self) -> Result<HostValue> {
        let mut arrays = Vec::new();
        self.arrays(&mut arrays);
        let mut hosts = Vec::with_capacity(arrays.len());
        for a in arrays {
            hosts.push(
                a.to_host_async()
                    .await
                    .map_err(EvalError::kupfer(Default::default()))?,
            );
        }
        self.with_hosts(&mut hosts.into_iter())
    }

    /// Python's `repr()` of a value holding no arrays (None where it holds one).
    pub(crate) fn host_repr(&self) -> Option<String> {
        let mut arrays = Vec::new();
        self.arrays(&mut arrays);
        if !arrays.is_empty() {
            return None;
        }
        self.with_hosts(&mut std::iter::empty())
            .ok()
            .map(|h| h.repr())
    }

    /// Reads every array of this value back to the host (blocking).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_host(&self) -> Result<HostValue> {
        let mut arrays = Vec::new();
        self.arrays(&mut arrays);
        let hosts = arrays
            .into_iter()
            .map(|a| a.to_host().map_err(EvalError::kupfer(Default::default())))
            .collect::<Result<Vec<_>>>()?;
        self.with_hosts(&mut hosts.into_iter())
    }
}

/// A [`Value`] with its arrays read back to host memory: ready to print or save.
///
/// `Display` is Python's `str()` (what `print()` shows); [`HostValue::repr`] is `repr()`.
#[derive(Debug, Clone, PartialEq)]
pub enum HostValue {
    /// An array.
    Array(HostArray),
    /// A Python scalar.
    Scalar(Scalar),
    /// A string.
    Str(String),
    /// A tuple.
    Tuple(Vec<HostValue>),
    /// A list.
    List(Vec<HostValue>),
    /// A dict: (key, value) pairs in insertion order.
    Dict(Vec<(HostValue, HostValue)>),
    /// `None`.
    None,
    /// `...`
    Ellipsis,
    /// A slice.
    Slice(Slice),
    /// A dtype.
    DType(DType),
    /// A function.
    Function(&'static str),
    /// A bound method.
    Method(&'static str),
    /// A namespace.
    Module(&'static str),
    /// Any other object, as its repr.
    Object(String),
    /// An `np.poly1d`: its coefficients.
    Poly1d(HostArray),
}

/// Whether Python could use `v` as a dict key.
fn hashable(v: &Value) -> bool {
    match v {
        Value::Scalar(_) | Value::Str(_) | Value::None | Value::Ellipsis | Value::DType(_) => true,
        Value::Tuple(items) => items.iter().all(hashable),
        _ => false,
    }
}

/// Python's `==` of two hashable keys (numbers by value across int, float, bool, complex).
fn same_key(a: &Value, b: &Value) -> bool {
    let number = |s: &Scalar| match *s {
        Scalar::Complex { re, im } => (re, im, None),
        s => (s.as_f64(), 0.0, s.as_i128()),
    };
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => match (number(x), number(y)) {
            ((_, _, Some(i)), (_, _, Some(j))) => i == j,
            ((r1, i1, _), (r2, i2, _)) => r1 == r2 && i1 == i2,
        },
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::DType(x), Value::DType(y)) => x == y,
        (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_key(p, q))
        }
        _ => false,
    }
}

/// Python's `repr()` of a Python scalar.
pub(crate) fn py_scalar_repr(s: &Scalar) -> String {
    match *s {
        Scalar::Bool(b) => if b { "True" } else { "False" }.into(),
        Scalar::Int(i) => i.to_string(),
        Scalar::BigInt(i) => i.to_string(),
        Scalar::Float(f) => format::py_float_repr(f),
        Scalar::Complex { re, im } => format::py_complex_repr(re, im),
    }
}

fn opt_repr(v: Option<i64>) -> String {
    v.map_or_else(|| "None".to_string(), |v| v.to_string())
}

impl HostValue {
    /// Python's `str()` with these print options.
    pub fn to_str_with(&self, opts: &PrintOptions) -> String {
        match self {
            HostValue::Array(a) => format::array_str(a, opts),
            HostValue::Str(s) => s.clone(),
            HostValue::DType(d) => d.name().to_string(),
            HostValue::Poly1d(c) => crate::functions::poly1d::poly_str(c),
            other => other.repr_with(opts),
        }
    }

    /// Python's `repr()`.
    pub fn repr(&self) -> String {
        self.repr_with(&PrintOptions::default())
    }

    /// Python's `repr()` with these print options. 0-d arrays show as NumPy scalars
    /// (`np.float32(1.5)`), which is what NumPy returns where kupfer returns 0-d arrays.
    pub fn repr_with(&self, opts: &PrintOptions) -> String {
        match self {
            HostValue::Array(a) if a.shape.is_empty() && !a.data.is_empty() => {
                format::scalar_repr(&a.data, 0)
            }
            HostValue::Array(a) => format::array_repr(a, opts),
            HostValue::Scalar(s) => py_scalar_repr(s),
            HostValue::Str(s) => format::py_str_repr(s),
            HostValue::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(|i| i.repr_with(opts)).collect();
                if inner.len() == 1 {
                    format!("({},)", inner[0])
                } else {
                    format!("({})", inner.join(", "))
                }
            }
            HostValue::List(items) => {
                let inner: Vec<String> = items.iter().map(|i| i.repr_with(opts)).collect();
                format!("[{}]", inner.join(", "))
            }
            HostValue::Dict(pairs) => {
                let inner: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.repr_with(opts), v.repr_with(opts)))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            HostValue::None => "None".into(),
            HostValue::Ellipsis => "Ellipsis".into(),
            HostValue::Slice(s) => format!(
                "slice({}, {}, {})",
                opt_repr(s.start),
                opt_repr(s.stop),
                opt_repr(s.step)
            ),
            HostValue::DType(d) => format!("dtype('{}')", d.name()),
            HostValue::Function(name) => {
                if crate::functions::is_ufunc(name) {
                    format!("<ufunc '{name}'>")
                } else {
                    format!("<function {name}>")
                }
            }
            HostValue::Method(name) => format!("<built-in method {name} of numpy.ndarray>"),
            HostValue::Module("") => "<module 'numpy'>".into(),
            HostValue::Module("scipy") => "<module 'scipy'>".into(),
            HostValue::Module("signal") => "<module 'scipy.signal'>".into(),
            HostValue::Module(name) if name.contains("info.") => {
                let (kind, dtype) = name.split_once('.').unwrap_or((name, ""));
                // NumPy's repr of iinfo, exact for uint64's 2**64 - 1.
                match DType::from_name(dtype).and_then(kupfer::iinfo) {
                    Ok(i) if kind == "iinfo" => {
                        format!("iinfo(min={}, max={}, dtype={dtype})", i.min, i.max)
                    }
                    _ => format!("{kind}(dtype={dtype})"),
                }
            }
            HostValue::Module("scipy.linalg") => "<module 'scipy.linalg'>".into(),
            HostValue::Module(name) => format!("<module 'numpy.{name}'>"),
            HostValue::Object(repr) => repr.clone(),
            // NumPy's: the coefficients' array repr with `array` renamed.
            HostValue::Poly1d(c) => {
                let r = format::array_repr(c, opts);
                format!("poly1d{}", r.strip_prefix("array").unwrap_or(&r))
            }
        }
    }

    /// The value as one array, as `np.save` would store it: arrays as they are, Python
    /// scalars as 0-d arrays of NumPy's default dtype (bool, int64, float64, complex128),
    /// nested tuples/lists of numbers or of
    /// equal-shaped arrays stacked.
    pub fn to_host_array(&self) -> Result<HostArray> {
        let bad = |what: &str| {
            EvalError::type_error(
                Default::default(),
                format!("cannot store {what} as an array"),
            )
        };
        match self {
            HostValue::Array(a) | HostValue::Poly1d(a) => Ok(a.clone()),
            HostValue::Scalar(s) => {
                let dtype = infer_dtype(&[*s], DType::I64, DType::F64)?;
                Ok(HostArray {
                    shape: vec![],
                    data: host_data(&[*s], dtype)?,
                })
            }
            HostValue::Tuple(items) | HostValue::List(items) => {
                if let Some(nested) = flatten_nested(self) {
                    let (shape, values) =
                        nested.map_err(|m| EvalError::value_error(Default::default(), m))?;
                    let dtype = infer_dtype(&values, DType::I64, DType::F64)?;
                    return Ok(HostArray {
                        shape,
                        data: host_data(&values, dtype)?,
                    });
                }
                let parts = items
                    .iter()
                    .map(HostValue::to_host_array)
                    .collect::<Result<Vec<_>>>()?;
                stack(&parts).map_err(|m| EvalError::value_error(Default::default(), m))
            }
            HostValue::Str(_) => Err(bad("a string")),
            other => Err(bad(&other.repr())),
        }
    }
}

impl fmt::Display for HostValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_str_with(&PrintOptions::default()))
    }
}

/// Values that may be nested sequences of Python scalars (`[[1, 2], [3, 4]]`).
pub(crate) trait Nested: Sized {
    /// The items, when this is a tuple or list.
    fn items(&self) -> Option<&[Self]>;
    /// The scalar, when this is a Python scalar.
    fn scalar(&self) -> Option<Scalar>;
}

impl Nested for Value {
    fn items(&self) -> Option<&[Value]> {
        match self {
            Value::Tuple(v) | Value::List(v) | Value::Named(NamedTuple { items: v, .. }) => Some(v),
            _ => None,
        }
    }
    fn scalar(&self) -> Option<Scalar> {
        match self {
            Value::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

impl Nested for HostValue {
    fn items(&self) -> Option<&[HostValue]> {
        match self {
            HostValue::Tuple(v) | HostValue::List(v) => Some(v),
            _ => None,
        }
    }
    fn scalar(&self) -> Option<Scalar> {
        match self {
            HostValue::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

/// A shape and its C-order elements.
pub(crate) type Flat = (Vec<usize>, Vec<Scalar>);

/// The shape and C-order elements of nested sequences of Python scalars, `None` when some
/// leaf is not a Python scalar, an error message for ragged nesting.
pub(crate) fn flatten_nested<T: Nested>(v: &T) -> Option<std::result::Result<Flat, String>> {
    fn shape_of<T: Nested>(v: &T) -> Vec<usize> {
        let mut shape = Vec::new();
        let mut cur = v;
        while let Some(items) = cur.items() {
            shape.push(items.len());
            match items.first() {
                Some(first) => cur = first,
                None => break,
            }
        }
        shape
    }
    fn walk<T: Nested>(v: &T, shape: &[usize], out: &mut Vec<Scalar>) -> Option<bool> {
        match (v.items(), shape.split_first()) {
            (Some(items), Some((&n, rest))) => {
                if items.len() != n {
                    return Some(false);
                }
                for i in items {
                    if !walk(i, rest, out)? {
                        return Some(false);
                    }
                }
                Some(true)
            }
            (None, None) => {
                out.push(v.scalar()?);
                Some(true)
            }
            (Some(_), None) => Some(false),
            (None, Some(_)) => v.scalar().map(|_| false),
        }
    }
    let shape = shape_of(v);
    let mut out = Vec::new();
    let regular = walk(v, &shape, &mut out)?;
    if !regular {
        return Some(Err(
            "setting an array element with a sequence: the nested sequences have an \
             inhomogeneous shape"
                .into(),
        ));
    }
    Some(Ok((shape, out)))
}

/// NumPy's dtype for an array made of these Python scalars (with the given default integer
/// and float dtypes): an int from 2^63 up is a uint64, which with a signed int makes float64,
/// and an int that fits neither int64 nor uint64 would make an object array (an error here).
pub(crate) fn infer_dtype(values: &[Scalar], int: DType, float: DType) -> Result<DType> {
    let (mut bool_, mut signed, mut unsigned, mut real, mut complex) =
        (false, false, false, false, false);
    for v in values {
        match *v {
            Scalar::Bool(_) => bool_ = true,
            Scalar::Int(_) => signed = true,
            Scalar::BigInt(i) if u64::try_from(i).is_ok() => unsigned = true,
            Scalar::BigInt(i) => {
                return Err(EvalError::not_supported(
                    Default::default(),
                    format!("object arrays (the Python int {i} fits neither int64 nor uint64)"),
                ))
            }
            Scalar::Float(_) => real = true,
            Scalar::Complex { .. } => complex = true,
        }
    }
    Ok(if complex {
        float.complex_of()
    } else if real || (signed && unsigned) {
        float
    } else if unsigned {
        DType::U64
    } else if signed {
        int
    } else if bool_ {
        DType::Bool
    } else {
        float
    })
}

/// Python scalars converted to host data of `dtype` (NumPy 2: out-of-range Python ints are
/// an error; floats to ints truncate).
pub(crate) fn host_data(values: &[Scalar], dtype: DType) -> Result<HostData> {
    let int = |s: &Scalar, lo: i128, hi: i128| -> Result<i128> {
        let v = match *s {
            Scalar::Bool(b) => i128::from(b),
            Scalar::Int(_) | Scalar::BigInt(_) => {
                // NumPy 2's range check (and CPython's overflow beyond a C long).
                s.encode(dtype)
                    .map_err(EvalError::kupfer(Default::default()))?;
                s.as_i128().unwrap_or_default()
            }
            Scalar::Float(f) => {
                if !f.is_finite() {
                    return Err(EvalError::value_error(
                        Default::default(),
                        format!(
                            "cannot convert float {} to integer",
                            format::py_float_repr(f)
                        ),
                    ));
                }
                f.trunc() as i128
            }
            Scalar::Complex { .. } => {
                return Err(EvalError::type_error(
                    Default::default(),
                    format!("cannot convert a complex number to {dtype}"),
                ))
            }
        };
        if v < lo || v > hi {
            return Err(EvalError::value_error(
                Default::default(),
                format!("Python integer {v} out of bounds for {dtype}"),
            ));
        }
        Ok(v)
    };
    let real = |s: &Scalar| -> Result<f64> {
        match s {
            Scalar::Complex { im, .. } if *im != 0.0 => Err(EvalError::type_error(
                Default::default(),
                format!("cannot convert a complex number to {dtype}"),
            )),
            s => Ok(s.as_f64()),
        }
    };
    Ok(match dtype {
        DType::Bool => HostData::Bool(values.iter().map(pyscalar::truthy).collect()),
        DType::I8 => HostData::I8(
            values
                .iter()
                .map(|s| int(s, i8::MIN.into(), i8::MAX.into()).map(|v| v as i8))
                .collect::<Result<_>>()?,
        ),
        DType::U8 => HostData::U8(
            values
                .iter()
                .map(|s| int(s, 0, u8::MAX.into()).map(|v| v as u8))
                .collect::<Result<_>>()?,
        ),
        DType::I16 => HostData::I16(
            values
                .iter()
                .map(|s| int(s, i16::MIN.into(), i16::MAX.into()).map(|v| v as i16))
                .collect::<Result<_>>()?,
        ),
        DType::U16 => HostData::U16(
            values
                .iter()
                .map(|s| int(s, 0, u16::MAX.into()).map(|v| v as u16))
                .collect::<Result<_>>()?,
        ),
        DType::I32 => HostData::I32(
            values
                .iter()
                .map(|s| int(s, i32::MIN.into(), i32::MAX.into()).map(|v| v as i32))
                .collect::<Result<_>>()?,
        ),
        DType::U32 => HostData::U32(
            values
                .iter()
                .map(|s| int(s, 0, u32::MAX.into()).map(|v| v as u32))
                .collect::<Result<_>>()?,
        ),
        DType::I64 => HostData::I64(
            values
                .iter()
                .map(|s| int(s, i64::MIN.into(), i64::MAX.into()).map(|v| v as i64))
                .collect::<Result<_>>()?,
        ),
        DType::U64 => HostData::U64(
            values
                .iter()
                .map(|s| int(s, 0, u64::MAX.into()).map(|v| v as u64))
                .collect::<Result<_>>()?,
        ),
        DType::F16 => HostData::F16(
            values
                .iter()
                .map(|s| real(s).map(kupfer::f16::from_f64))
                .collect::<Result<_>>()?,
        ),
        DType::F32 => HostData::F32(
            values
                .iter()
                .map(|s| real(s).map(|v| v as f32))
                .collect::<Result<_>>()?,
        ),
        DType::F64 => HostData::F64(values.iter().map(real).collect::<Result<_>>()?),
        DType::Complex64 => HostData::Complex64(
            values
                .iter()
                .map(|s| match *s {
                    Scalar::Complex { re, im } => kupfer::Complex32::new(re as f32, im as f32),
                    other => kupfer::Complex32::new(other.as_f64() as f32, 0.0),
                })
                .collect(),
        ),
        DType::Complex128 => HostData::Complex128(
            values
                .iter()
                .map(|s| match *s {
                    Scalar::Complex { re, im } => kupfer::Complex64::new(re, im),
                    other => kupfer::Complex64::new(other.as_f64(), 0.0),
                })
                .collect(),
        ),
    })
}

/// Stacks equal-shaped host arrays of one dtype along a new first axis.
fn stack(parts: &[HostArray]) -> std::result::Result<HostArray, String> {
    let Some(first) = parts.first() else {
        return Ok(HostArray {
            shape: vec![0],
            data: HostData::F64(Vec::new()),
        });
    };
    if parts
        .iter()
        .any(|p| p.shape != first.shape || p.dtype() != first.dtype())
    {
        return Err(
            "cannot store a sequence of arrays with different shapes or dtypes as one array".into(),
        );
    }
    let mut shape = vec![parts.len()];
    shape.extend_from_slice(&first.shape);
    macro_rules! cat {
        ($variant:ident) => {
            HostData::$variant(
                parts
                    .iter()
                    .flat_map(|p| match &p.data {
                        HostData::$variant(v) => v.clone(),
                        _ => Vec::new(),
                    })
                    .collect(),
            )
        };
    }
    let data = match first.data {
        HostData::Bool(_) => cat!(Bool),
        HostData::I8(_) => cat!(I8),
        HostData::U8(_) => cat!(U8),
        HostData::I16(_) => cat!(I16),
        HostData::U16(_) => cat!(U16),
        HostData::I32(_) => cat!(I32),
        HostData::U32(_) => cat!(U32),
        HostData::I64(_) => cat!(I64),
        HostData::U64(_) => cat!(U64),
        HostData::F16(_) => cat!(F16),
        HostData::F32(_) => cat!(F32),
        HostData::F64(_) => cat!(F64),
        HostData::Complex64(_) => cat!(Complex64),
        HostData::Complex128(_) => cat!(Complex128),
    };
    Ok(HostArray { shape, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_indices_match_python() {
        let s = |start, stop, step| Slice { start, stop, step };
        assert_eq!(
            s(None, None, Some(-1)).positions(4).unwrap(),
            vec![3, 2, 1, 0]
        );
        assert_eq!(s(Some(1), None, None).positions(3).unwrap(), vec![1, 2]);
        assert_eq!(s(Some(-2), None, None).positions(3).unwrap(), vec![1, 2]);
        assert_eq!(
            s(Some(10), Some(-10), Some(-2)).positions(5).unwrap(),
            vec![4, 2, 0]
        );
        assert_eq!(
            s(Some(-100), Some(100), None).positions(2).unwrap(),
            vec![0, 1]
        );
        assert!(s(None, None, Some(0)).positions(2).is_err());
    }

    #[test]
    fn reprs() {
        let t = HostValue::Tuple(vec![HostValue::Scalar(Scalar::Int(3))]);
        assert_eq!(t.to_string(), "(3,)");
        let t = HostValue::Tuple(vec![
            HostValue::Scalar(Scalar::Int(3)),
            HostValue::Str("a".into()),
            HostValue::DType(DType::F32),
        ]);
        assert_eq!(t.to_string(), "(3, 'a', dtype('float32'))");
        assert_eq!(HostValue::DType(DType::F32).to_string(), "float32");
        assert_eq!(HostValue::Scalar(Scalar::Float(1e16)).to_string(), "1e+16");
        let z = HostArray::new(vec![], HostData::F32(vec![1.5])).unwrap();
        assert_eq!(
            HostValue::Tuple(vec![HostValue::Array(z.clone())]).to_string(),
            "(np.float32(1.5),)"
        );
        assert_eq!(HostValue::Array(z).to_string(), "1.5");
    }

    #[test]
    fn to_host_array() {
        let v = HostValue::List(vec![
            HostValue::Scalar(Scalar::Int(1)),
            HostValue::Scalar(Scalar::Int(2)),
        ]);
        let a = v.to_host_array().unwrap();
        assert_eq!(a.shape, vec![2]);
        assert_eq!(a.data, HostData::I64(vec![1, 2]));
        let s = |x: f64| HostValue::Scalar(Scalar::Float(x));
        let i = |x: i64| HostValue::Scalar(Scalar::Int(x));
        let nested = HostValue::List(vec![
            HostValue::Tuple(vec![i(1), s(2.5)]),
            HostValue::List(vec![i(3), i(4)]),
        ]);
        let a = nested.to_host_array().unwrap();
        assert_eq!(a.shape, vec![2, 2]);
        assert_eq!(a.data, HostData::F64(vec![1.0, 2.5, 3.0, 4.0]));
        let ragged = HostValue::List(vec![HostValue::List(vec![i(1)]), i(2)]);
        assert!(ragged.to_host_array().is_err());
        let empty = HostValue::List(vec![]).to_host_array().unwrap();
        assert_eq!((empty.shape, empty.data), (vec![0], HostData::F64(vec![])));
        assert!(HostValue::Str("x".into()).to_host_array().is_err());
    }
}
