//! The NumPy function table: names (`sin`, `fft.fft`, ...) mapped to handlers taking
//! positional and keyword arguments, the conversions handlers share, array methods and
//! attributes, and name resolution for `np.`/`numpy.` and the sub-namespaces.
//!
//! One file per family registers its functions: [`elementwise`], [`creation`], [`shape`],
//! [`linalg`], [`reductions`], [`scans`], [`fft`], [`signal`], [`complex`], [`builtins`], [`random`], [`sort`]. A later family adds a file and a line to [`build`]; names it implements come
//! off [`PLANNED`].

use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::{flatten_nested, host_data, infer_dtype, Value};
use kupfer::{Array, DType, Device, Operand, Scalar};
use std::collections::HashMap;
use std::sync::OnceLock;

pub(crate) mod bits;
pub(crate) mod builtins;
pub(crate) mod complex;
pub(crate) mod creation;
pub(crate) mod decomp;
pub(crate) mod decomp_orth;
pub(crate) mod eig;
pub(crate) mod elementwise;
pub(crate) mod fft;
pub(crate) mod flat;
pub(crate) mod functional;
pub(crate) mod grids;
pub(crate) mod indexing;
pub(crate) mod linalg;
mod loops;
pub(crate) mod manip;
pub(crate) mod methods;
pub(crate) mod numeric;
mod outputs;
pub(crate) mod poly1d;
pub(crate) mod random;
pub(crate) mod reductions;
pub(crate) mod scans;
pub(crate) mod shape;
pub(crate) mod signal;
pub(crate) mod sort;
pub(crate) mod stats;

pub use methods::method_names;

/// A native handler: takes the whole call.
pub(crate) type Native = fn(Call) -> Result<Value>;

/// How a function is implemented.
#[derive(Clone, Copy)]
pub(crate) enum Func {
    /// A unary ufunc of kupfer (`x`, `dtype=`).
    Unary(fn(Operand) -> kupfer::Result<Array>),
    /// A binary ufunc of kupfer (`x1, x2`, `dtype=`).
    Binary(fn(Operand, Operand) -> kupfer::Result<Array>),
    /// Anything else.
    Native(Native),
}

/// Name → implementation. Keys are NumPy names without the `np.` prefix; sub-namespaces keep
/// theirs (`fft.fft`); Python builtins are `builtins.abs` and resolve only as bare names.
pub(crate) struct Registry {
    map: HashMap<&'static str, Func>,
}

impl Registry {
    pub(crate) fn add(&mut self, names: &[&'static str], f: Func) {
        for n in names {
            self.map.insert(n, f);
        }
    }

    pub(crate) fn native(&mut self, names: &[&'static str], f: Native) {
        self.add(names, Func::Native(f));
    }
}

fn build() -> Registry {
    let mut r = Registry {
        map: HashMap::new(),
    };
    elementwise::register(&mut r);
    fft::register(&mut r);
    creation::register(&mut r);
    shape::register(&mut r);
    manip::register(&mut r);
    linalg::register(&mut r);
    decomp::register(&mut r);
    decomp_orth::register(&mut r);
    eig::register(&mut r);
    reductions::register(&mut r);
    scans::register(&mut r);
    stats::register(&mut r);
    indexing::register(&mut r);
    grids::register(&mut r);
    signal::register(&mut r);
    random::register(&mut r);
    sort::register(&mut r);
    complex::register(&mut r);
    numeric::register(&mut r);
    poly1d::register(&mut r);
    bits::register(&mut r);
    functional::register(&mut r);
    builtins::register(&mut r);
    // `NAME.at` for every elementwise ufunc without a dedicated one (`np.negative.at`,
    // `np.power.at`): the rounds path of `indexing::general_at`.
    let mut ats: Vec<&'static str> = r
        .map
        .iter()
        .filter(|(_, f)| matches!(f, Func::Unary(_) | Func::Binary(_)))
        .map(|(k, _)| *k)
        .filter(|k| !k.contains('.'))
        .collect();
    ats.sort_unstable();
    for k in ats {
        let name = format!("{k}.at");
        if !r.map.contains_key(name.as_str()) {
            let name: &'static str = Box::leak(name.into_boxed_str());
            r.native(&[name], indexing::general_at);
        }
    }
    r
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(build)
}

/// NumPy names that are one function object (`np.conj is np.conjugate`).
const SAME_FUNCTION: &[&[&str]] = &[
    &["abs", "absolute"],
    &["acos", "arccos"],
    &["acosh", "arccosh"],
    &["asin", "arcsin"],
    &["asinh", "arcsinh"],
    &["atan", "arctan"],
    &["atan2", "arctan2"],
    &["atanh", "arctanh"],
    &["bitwise_invert", "bitwise_not", "invert"],
    &["bitwise_left_shift", "left_shift"],
    &["bitwise_right_shift", "right_shift"],
    &["concat", "concatenate"],
    &["conj", "conjugate"],
    &["divide", "true_divide"],
    &["mod", "remainder"],
    &["permute_dims", "transpose"],
    &["pow", "power"],
];

/// Python's `f is g` for two functions of the table.
pub(crate) fn same_function(f: &str, g: &str) -> bool {
    f == g
        || SAME_FUNCTION
            .iter()
            .any(|names| names.contains(&f) && names.contains(&g))
}

/// The registered function `name` (its static key and implementation).
pub(crate) fn lookup(name: &str) -> Option<(&'static str, Func)> {
    registry().map.get_key_value(name).map(|(k, f)| (*k, *f))
}

/// True when `name` is an elementwise ufunc (it prints as `<ufunc 'sin'>`).
pub fn is_ufunc(name: &str) -> bool {
    matches!(lookup(name), Some((_, Func::Unary(_) | Func::Binary(_))))
}

/// Every function name kupfer eval knows (for completion in a playground), sorted.
pub fn function_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = registry()
        .map
        .keys()
        .copied()
        .filter(|k| !k.starts_with("builtins."))
        .collect();
    v.sort_unstable();
    v
}

/// NumPy names that later kupfer issues implement: using them says "not supported yet"
/// rather than "unknown".
pub(crate) const PLANNED: &[&str] = &[
    // statistics and scans
    "logsumexp",
    // joining, splitting, tiling, rearranging
    "unique",
    // indexing
    "searchsorted",
    // sorting
    "sort",
    "argsort",
    "partition",
    "argpartition",
    "lexsort",
    // more elementwise
];

/// Array methods (`a.sum()`) that later issues implement.
pub(crate) const PLANNED_METHODS: &[&str] = &["fill", "resize", "tolist", "tobytes"];

/// The outcome of resolving a global name.
pub(crate) enum Resolved {
    /// A value.
    Value(Value),
    /// A NumPy name that a later issue implements.
    Planned,
    /// Not a name kupfer eval knows.
    Unknown,
}

/// Constants of the `np` namespace.
fn constant(name: &str) -> Option<Value> {
    Some(match name {
        "pi" => Value::Scalar(Scalar::Float(std::f64::consts::PI)),
        "e" => Value::Scalar(Scalar::Float(std::f64::consts::E)),
        "euler_gamma" => Value::Scalar(Scalar::Float(0.577_215_664_901_532_9)),
        "inf" => Value::Scalar(Scalar::Float(f64::INFINITY)),
        "nan" => Value::Scalar(Scalar::Float(f64::NAN)),
        "newaxis" => Value::None,
        _ => return None,
    })
}

/// NumPy's dtype names as attributes of `np` (kupfer's and those it lacks, which resolve to
/// kupfer's clear "unsupported dtype" error).
const DTYPE_NAMES: &[&str] = &[
    "bool",
    "bool_",
    "int32",
    "uint32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "half",
    "single",
    "double",
    "intc",
    "uintc",
    "int_",
    "intp",
    "long",
    "csingle",
    "int8",
    "int16",
    "uint8",
    "uint16",
    "uint64",
    "uint",
    "ulong",
    "uintp",
    "complex128",
    "cdouble",
    "longdouble",
    "clongdouble",
    "float128",
    "complex256",
    "byte",
    "ubyte",
    "short",
    "ushort",
    "longlong",
    "ulonglong",
    "object_",
    "datetime64",
    "timedelta64",
];

/// Python builtins a bare name means: the others of Python's (`abs`, `round`, `sum`, `min`,
/// `max`, `any`, `all`, `pow`) are NumPy's functions after `from numpy import *`. `divmod`
/// stays Python's for Python scalars (`divmod(1, 0)` raises ZeroDivisionError, as Python does).
const BUILTINS: &[&str] = &[
    "len", "float", "int", "bool", "complex", "slice", "divmod", "range", "sorted", "type",
];

/// Resolves `name` in namespace `module` (`""` is `np`; bare names pass `bare`).
pub(crate) fn resolve(module: &'static str, name: &str, bare: bool) -> Result<Resolved> {
    if let Some(r) = numeric::info_attribute(module, name) {
        return Ok(r);
    }
    if module.is_empty() {
        if bare && matches!(name, "np" | "numpy" | "cp" | "cupy") {
            return Ok(Resolved::Value(Value::Module("")));
        }
        if bare && name == "Ellipsis" {
            return Ok(Resolved::Value(Value::Ellipsis));
        }
        if bare && BUILTINS.contains(&name) {
            let key = format!("builtins.{name}");
            if let Some((k, _)) = lookup(&key) {
                return Ok(Resolved::Value(Value::Function(k)));
            }
        }
        match name {
            "fft" => return Ok(Resolved::Value(Value::Module("fft"))),
            "linalg" => return Ok(Resolved::Value(Value::Module("linalg"))),
            "random" => return Ok(Resolved::Value(Value::Module("random"))),
            // scipy.signal as `signal.convolve2d` or `scipy.signal.convolve2d`
            "signal" if bare => return Ok(Resolved::Value(Value::Module("signal"))),
            "scipy" if bare => return Ok(Resolved::Value(Value::Module("scipy"))),
            _ => {}
        }
        if let Some(v) = constant(name) {
            return Ok(Resolved::Value(v));
        }
        if DTYPE_NAMES.contains(&name) {
            return DType::from_name(name)
                .map(|d| Resolved::Value(Value::DType(d)))
                .map_err(EvalError::kupfer(Span::default()));
        }
    }
    if module == "scipy" {
        return Ok(match name {
            "signal" => Resolved::Value(Value::Module("signal")),
            "linalg" => Resolved::Value(Value::Module("scipy.linalg")),
            _ => Resolved::Unknown,
        });
    }
    let key = if module.is_empty() {
        name.to_string()
    } else {
        format!("{module}.{name}")
    };
    if let Some((k, _)) = lookup(&key) {
        return Ok(Resolved::Value(Value::Function(k)));
    }
    if PLANNED.contains(&key.as_str()) {
        return Ok(Resolved::Planned);
    }
    Ok(Resolved::Unknown)
}

// ---------------------------------------------------------------------------------------
// Calls and argument binding
// ---------------------------------------------------------------------------------------

/// One call of a function: its name (for messages), where it is, and its arguments.
pub(crate) struct Call {
    pub name: &'static str,
    pub span: Span,
    pub args: Vec<Value>,
    pub kwargs: Vec<(String, Value)>,
}

/// Arguments bound to a signature; take them out by parameter name.
pub(crate) struct Args {
    name: &'static str,
    span: Span,
    slots: Vec<(&'static str, Option<Value>)>,
}

impl Call {
    /// The name as NumPy users know it (`np.zeros`, `a.reshape`).
    pub(crate) fn display_name(&self) -> String {
        display_name(self.name)
    }

    /// Binds positional and keyword arguments to `params`: `"x"` is required, `"x="`
    /// optional, `"*x="` keyword-only and optional.
    pub(crate) fn bind(self, params: &[&'static str]) -> Result<Args> {
        let fname = self.display_name();
        let mut slots: Vec<(&'static str, Option<Value>)> = Vec::with_capacity(params.len());
        let mut positional = 0;
        let mut required = 0;
        let mut positional_only = Vec::new();
        for p in params {
            let kw_only = p.starts_with('*');
            let n = p
                .trim_start_matches('*')
                .trim_end_matches('/')
                .trim_end_matches('=');
            if !kw_only {
                positional += 1;
                required += usize::from(!p.ends_with('='));
            }
            if p.ends_with('/') {
                positional_only.push(n);
            }
            slots.push((n, None));
        }
        // Inputs of ufuncs are positional-only: NumPy counts `np.sin(x=a)` as a call
        // with no positional argument.
        if self
            .kwargs
            .iter()
            .any(|(k, _)| positional_only.contains(&k.as_str()))
        {
            let given = self.args.len();
            let range = if required == positional {
                format!("{positional}")
            } else {
                format!("from {required} to {positional}")
            };
            return Err(EvalError::type_error(
                self.span,
                format!(
                    "{fname}() takes {range} positional arguments but {given} {} given",
                    if given == 1 { "was" } else { "were" }
                ),
            ));
        }
        if self.args.len() > positional {
            return Err(EvalError::type_error(
                self.span,
                format!(
                    "{fname}() takes {} positional argument{} but {} {} given",
                    positional,
                    if positional == 1 { "" } else { "s" },
                    self.args.len(),
                    if self.args.len() == 1 { "was" } else { "were" }
                ),
            ));
        }
        for (i, v) in self.args.into_iter().enumerate() {
            slots[i].1 = Some(v);
        }
        for (k, v) in self.kwargs {
            let Some(slot) = slots.iter_mut().find(|(n, _)| *n == k) else {
                return Err(EvalError::type_error(
                    self.span,
                    format!("{fname}() got an unexpected keyword argument '{k}'"),
                ));
            };
            if slot.1.is_some() {
                return Err(EvalError::type_error(
                    self.span,
                    format!("{fname}() got multiple values for argument '{k}'"),
                ));
            }
            slot.1 = Some(v);
        }
        for (p, (n, v)) in params.iter().zip(&slots) {
            if v.is_none() && !p.trim_end_matches('/').ends_with('=') {
                return Err(EvalError::type_error(
                    self.span,
                    format!("{fname}() missing required argument '{n}'"),
                ));
            }
        }
        Ok(Args {
            name: self.name,
            span: self.span,
            slots,
        })
    }

    /// Binds keyword arguments only (for functions taking `*args`); returns the positionals.
    pub(crate) fn split_varargs(self, kw_params: &[&'static str]) -> Result<(Vec<Value>, Args)> {
        let Call {
            name,
            span,
            args,
            kwargs,
        } = self;
        let kw: Vec<&'static str> = kw_params.to_vec();
        let rest = Call {
            name,
            span,
            args: Vec::new(),
            kwargs,
        }
        .bind(&kw)?;
        Ok((args, rest))
    }
}

/// `zeros` → `np.zeros`, `fft.fft` → `np.fft.fft`, `builtins.len` → `len`,
/// `ndarray.reshape` → `a.reshape`.
pub(crate) fn display_name(name: &str) -> String {
    if let Some(b) = name.strip_prefix("builtins.") {
        b.to_string()
    } else if name.starts_with("signal.") {
        format!("scipy.{name}")
    } else if let Some(m) = name.strip_prefix("ndarray.") {
        format!("ndarray.{m}")
    } else {
        format!("np.{name}")
    }
}

impl Args {
    pub(crate) fn span(&self) -> Span {
        self.span
    }

    fn ctx(&self, p: &str) -> String {
        format!("{}(): argument '{p}'", display_name(self.name))
    }

    /// The argument (absent or `None` give `None`).
    pub(crate) fn get(&mut self, p: &str) -> Option<Value> {
        self.slots
            .iter_mut()
            .find(|(n, _)| *n == p)
            .and_then(|(_, v)| v.take())
            .filter(|v| !matches!(v, Value::None))
    }

    /// The argument as given, an explicit `None` included (absent: `None`).
    pub(crate) fn get_raw(&mut self, p: &str) -> Option<Value> {
        self.slots
            .iter_mut()
            .find(|(n, _)| *n == p)
            .and_then(|(_, v)| v.take())
    }

    /// The argument, which must be given and not `None`.
    pub(crate) fn req(&mut self, p: &str) -> Result<Value> {
        let ctx = self.ctx(p);
        let span = self.span;
        self.get(p)
            .ok_or_else(|| EvalError::type_error(span, format!("{ctx} must not be None")))
    }

    pub(crate) fn int(&mut self, p: &str) -> Result<Option<i64>> {
        let ctx = self.ctx(p);
        self.get(p).map(|v| to_int(&v, &ctx, self.span)).transpose()
    }

    pub(crate) fn req_int(&mut self, p: &str) -> Result<i64> {
        let ctx = self.ctx(p);
        let v = self.req(p)?;
        to_int(&v, &ctx, self.span)
    }

    pub(crate) fn float(&mut self, p: &str) -> Result<Option<f64>> {
        let ctx = self.ctx(p);
        self.get(p).map(|v| to_f64(&v, &ctx, self.span)).transpose()
    }

    pub(crate) fn bool_or(&mut self, p: &str, default: bool) -> Result<bool> {
        let ctx = self.ctx(p);
        match self.get(p) {
            None => Ok(default),
            Some(Value::Scalar(s)) if !matches!(s, Scalar::Complex { .. }) => {
                Ok(crate::pyscalar::truthy(&s))
            }
            Some(v) => Err(EvalError::type_error(
                self.span,
                format!("{ctx} must be a bool, got '{}'", v.type_name()),
            )),
        }
    }

    pub(crate) fn string(&mut self, p: &str) -> Result<Option<String>> {
        let ctx = self.ctx(p);
        match self.get(p) {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(v) => Err(EvalError::type_error(
                self.span,
                format!("{ctx} must be a string, got '{}'", v.type_name()),
            )),
        }
    }

    pub(crate) fn dtype(&mut self, p: &str) -> Result<Option<DType>> {
        let ctx = self.ctx(p);
        self.get(p)
            .map(|v| to_dtype(&v, &ctx, self.span))
            .transpose()
    }

    pub(crate) fn shape(&mut self, p: &str) -> Result<Vec<usize>> {
        let ctx = self.ctx(p);
        let v = self.req(p)?;
        to_shape(&v, &ctx, self.span)
    }

    /// `axis=` of a reduction or scan: `None`, an int or a tuple of ints.
    pub(crate) fn axis_tuple(&mut self, p: &str) -> Result<Option<Vec<isize>>> {
        let span = self.span;
        self.get(p).map(|v| to_axis_tuple(&v, span)).transpose()
    }

    pub(crate) fn axes(&mut self, p: &str) -> Result<Option<Vec<isize>>> {
        let ctx = self.ctx(p);
        self.get(p)
            .map(|v| to_axes(&v, &ctx, self.span))
            .transpose()
    }

    pub(crate) fn array(&mut self, p: &str) -> Result<Array> {
        let v = self.req(p)?;
        to_array(&v, None, self.span)
    }

    pub(crate) fn operand(&mut self, p: &str) -> Result<Operand> {
        let ctx = self.ctx(p);
        let v = self.req(p)?;
        to_operand(&v, &ctx, self.span)
    }

    pub(crate) fn scalar(&mut self, p: &str) -> Result<Option<Scalar>> {
        let ctx = self.ctx(p);
        match self.get(p) {
            None => Ok(None),
            Some(Value::Scalar(s)) => Ok(Some(s)),
            // A NumPy scalar (`np.arange(np.int64(3))`): read to the host, one sync.
            Some(Value::Array(x)) if x.ndim() == 0 => host_scalar(&x, self.span).map(Some),
            Some(v) => Err(EvalError::type_error(
                self.span,
                format!("{ctx} must be a Python number, got '{}'", v.type_name()),
            )),
        }
    }

    /// `order=` (`'C'`, `'F'`, `'A'`, `'K'`; None gives `default`).
    pub(crate) fn order(&mut self, p: &str, default: kupfer::Order) -> Result<kupfer::Order> {
        match self.string(p)? {
            None => Ok(default),
            Some(o) => kupfer::Order::parse(&o)
                .map_err(|e| EvalError::value_error(self.span, e.to_string())),
        }
    }

    /// `order=` of a function that makes a new array: `'C'` or `'F'` only, as NumPy's.
    pub(crate) fn order_cf(&mut self, p: &str) -> Result<kupfer::Order> {
        match self.order(p, kupfer::Order::C)? {
            o @ (kupfer::Order::C | kupfer::Order::F) => Ok(o),
            _ => Err(EvalError::value_error(
                self.span,
                "only 'C' or 'F' order is permitted",
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------

fn array_not_python(ctx: &str, span: Span) -> EvalError {
    EvalError::type_error(
        span,
        format!("{ctx} must be a Python value or an integer NumPy scalar or array"),
    )
}

/// The integers of a small integer (or bool) array, read to the host (one sync): where NumPy
/// takes an array_like of ints that sets a result's structure (`np.split(x, np.array([3,
/// 6]))`). Other dtypes are NumPy's TypeError for a non-integer index.
pub(crate) fn host_ints(arr: &Array, ctx: &str, span: Span) -> Result<Vec<i64>> {
    let d = arr.dtype();
    if d.is_float() || d.is_complex() {
        return Err(EvalError::type_error(
            span,
            format!("{ctx} must be integers, got an array of {}", d.name()),
        ));
    }
    let ints = arr.astype(DType::I64).map_err(EvalError::kupfer(span))?;
    crate::program::wait(ints.to_vec_async::<i64>(), ctx).map_err(EvalError::kupfer(span))
}

/// The value of a 0-d array as a Python scalar (one sync), where NumPy takes a number.
pub(crate) fn host_scalar(a: &Array, span: Span) -> Result<Scalar> {
    crate::program::wait(a.item_async(), "a NumPy scalar argument").map_err(EvalError::kupfer(span))
}

/// An integer array of at most `max_ndim` dimensions as the Python value NumPy reads from it
/// where it takes ints (`np.eye(np.int64(3))`, `np.tile(a, np.array([2, 1]))`,
/// `np.reshape(a, np.array([2, 3]))`): a 0-d array is an int, a 1-D one a list of ints, a 2-D
/// one a list of lists. Read to the host (one sync). `None` for anything else (other dtypes
/// keep their errors).
pub(crate) fn host_int_value(v: &Value, max_ndim: usize, span: Span) -> Result<Option<Value>> {
    let Value::Array(arr) = v else {
        return Ok(None);
    };
    let d = arr.dtype();
    if d.is_float() || d.is_complex() || d == DType::Bool || arr.ndim() > max_ndim {
        return Ok(None);
    }
    let ints = host_ints(arr, "an integer argument", span)?;
    let int = |i: i64| Value::Scalar(Scalar::Int(i));
    Ok(Some(match arr.shape() {
        [] => int(ints[0]),
        [_] => Value::List(ints.into_iter().map(int).collect()),
        [_, cols] => Value::List(
            ints.chunks((*cols).max(1))
                .map(|row| Value::List(row.iter().map(|&i| int(i)).collect()))
                .collect(),
        ),
        _ => return Ok(None),
    }))
}

/// Python's error for an int beyond 64 bits where an index-sized integer is needed.
pub(crate) fn too_big_for_index(span: Span) -> EvalError {
    EvalError::value_error(span, "cannot fit 'int' into an index-sized integer")
}

/// A Python int (or bool).
pub(crate) fn to_int(v: &Value, ctx: &str, span: Span) -> Result<i64> {
    if let Some(h) = host_int_value(v, 0, span)? {
        return to_int(&h, ctx, span);
    }
    match v {
        Value::Scalar(Scalar::Int(i)) => Ok(*i),
        Value::Scalar(Scalar::BigInt(_)) => Err(too_big_for_index(span)),
        Value::Scalar(Scalar::Bool(b)) => Ok(i64::from(*b)),
        Value::Array(_) => Err(array_not_python(ctx, span)),
        other => Err(EvalError::type_error(
            span,
            format!("{ctx} must be an integer, got '{}'", other.type_name()),
        )),
    }
}

/// A Python real number.
pub(crate) fn to_f64(v: &Value, ctx: &str, span: Span) -> Result<f64> {
    match v {
        Value::Scalar(s) if !matches!(s, Scalar::Complex { .. }) => Ok(s.as_f64()),
        // A 0-d real array (a NumPy scalar such as `np.float64(1.0)`): read to the host.
        Value::Array(a) if a.ndim() == 0 && !a.dtype().is_complex() => {
            Ok(host_scalar(a, span)?.as_f64())
        }
        Value::Array(_) => Err(array_not_python(ctx, span)),
        other => Err(EvalError::type_error(
            span,
            format!("{ctx} must be a real number, got '{}'", other.type_name()),
        )),
    }
}

/// An integer where NumPy's C code takes one (an axis, a dimension): a Python int; a bool, a
/// float or a sequence raises NumPy's TypeError.
pub(crate) fn to_index_int(v: &Value, span: Span) -> Result<i64> {
    if let Some(h) = host_int_value(v, 0, span)? {
        return to_index_int(&h, span);
    }
    match v {
        Value::Scalar(Scalar::Int(i)) => Ok(*i),
        Value::Scalar(Scalar::BigInt(_)) => Err(too_big_for_index(span)),
        Value::Scalar(Scalar::Bool(_)) => {
            Err(EvalError::type_error(span, "an integer is required"))
        }
        Value::Array(_) => Err(array_not_python("an integer", span)),
        other => Err(EvalError::type_error(
            span,
            format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ),
        )),
    }
}

/// A shape: an int or a sequence of ints, none negative (NumPy's errors for bools, floats,
/// negative and oversized lengths; the total is checked where the array is made).
pub(crate) fn to_shape(v: &Value, ctx: &str, span: Span) -> Result<Vec<usize>> {
    if let Some(h) = host_int_value(v, 1, span)? {
        return to_shape(&h, ctx, span);
    }
    let dims: Vec<i64> = match v {
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|i| to_index_int(i, span))
            .collect::<Result<_>>()?,
        Value::Scalar(s @ (Scalar::Bool(_) | Scalar::Float(_))) => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "expected a sequence of integers or a single integer, got '{}'",
                    crate::value::py_scalar_repr(s)
                ),
            ))
        }
        other => vec![to_int(other, ctx, span).map_err(|_| {
            EvalError::type_error(
                span,
                format!(
                    "{ctx} must be an int or a tuple of ints, got '{}'",
                    other.type_name()
                ),
            )
        })?],
    };
    kupfer::shape_from_signed(&dims).map_err(EvalError::kupfer(span))
}

/// `axis=` of reductions and scans: an int or a tuple of ints (NumPy refuses bools, lists
/// and floats with a TypeError).
pub(crate) fn to_axis_tuple(v: &Value, span: Span) -> Result<Vec<isize>> {
    match v {
        Value::Tuple(items) => items
            .iter()
            .map(|i| to_index_int(i, span).map(|x| x as isize))
            .collect(),
        other => Ok(vec![to_index_int(other, span)? as isize]),
    }
}

/// Axes: an int or a sequence of ints.
pub(crate) fn to_axes(v: &Value, ctx: &str, span: Span) -> Result<Vec<isize>> {
    if let Some(h) = host_int_value(v, 1, span)? {
        return to_axes(&h, ctx, span);
    }
    match v {
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|i| to_int(i, ctx, span).map(|x| x as isize))
            .collect(),
        other => Ok(vec![to_int(other, ctx, span)? as isize]),
    }
}

/// A dtype: `np.float32`, `'float32'`, `'f4'`, `float`, `int`, `bool`, `complex`, `a.dtype`.
pub(crate) fn to_dtype(v: &Value, ctx: &str, span: Span) -> Result<DType> {
    let name = match v {
        Value::DType(d) => return Ok(*d),
        Value::Str(s) => s.as_str(),
        Value::Function("builtins.float") => "float64",
        Value::Function("builtins.int") => "int64",
        Value::Function("builtins.bool") => "bool",
        Value::Function("builtins.complex") => "complex128",
        other => {
            return Err(EvalError::type_error(
                span,
                format!("{ctx} must be a dtype, got '{}'", other.type_name()),
            ))
        }
    };
    DType::from_name(name).map_err(EvalError::kupfer(span))
}

/// The device new arrays go to.
pub(crate) fn device(span: Span) -> Result<Device> {
    Device::current().map_err(EvalError::kupfer(span))
}

/// An elementwise operand: arrays as they are, Python scalars weak, sequences as arrays.
pub(crate) fn to_operand(v: &Value, ctx: &str, span: Span) -> Result<Operand> {
    match v {
        Value::Array(a) | Value::Poly1d(a) => Ok(Operand::Array(a.clone())),
        Value::Scalar(s) => Ok(Operand::Scalar(*s)),
        Value::Tuple(_) | Value::List(_) => Ok(Operand::Array(to_array(v, None, span)?)),
        other => Err(EvalError::type_error(
            span,
            format!(
                "{ctx} must be an array or a number, got '{}'",
                other.type_name()
            ),
        )),
    }
}

/// `np.asarray(v, dtype)`: arrays (cast if `dtype` differs), Python scalars as 0-d arrays,
/// nested sequences of Python scalars uploaded.
pub(crate) fn to_array(v: &Value, dtype: Option<DType>, span: Span) -> Result<Array> {
    let k = EvalError::kupfer(span);
    match v {
        Value::Array(a) | Value::Poly1d(a) => match dtype {
            Some(d) if d != a.dtype() => a.astype(d).map_err(k),
            _ => Ok(a.clone()),
        },
        Value::Scalar(s) => {
            let dev = device(span)?;
            let d = dtype.unwrap_or_else(|| s.default_dtype(&dev));
            kupfer::full_on(&dev, &[], *s, Some(d)).map_err(k)
        }
        Value::Tuple(_) | Value::List(_) => match flatten_nested(v) {
            Some(Ok((shape, values))) => {
                let dev = device(span)?;
                let d = match dtype {
                    Some(d) => d,
                    None => infer_dtype(&values, dev.default_int(), dev.default_float())
                        .map_err(|e| e.at(span))?,
                };
                let data = host_data(&values, d).map_err(|e| e.at(span))?;
                Array::from_host_on(&dev, &kupfer::HostArray { shape, data }).map_err(k)
            }
            Some(Err(msg)) => Err(EvalError::value_error(span, msg)),
            None => {
                let a = manip::array_of_items(v, span)?;
                match dtype {
                    Some(d) if d != a.dtype() => a.astype(d).map_err(k),
                    _ => Ok(a),
                }
            }
        },
        other => Err(EvalError::type_error(
            span,
            format!("cannot convert '{}' to an array", other.type_name()),
        )),
    }
}

/// The value as a Python tuple of ints.
pub(crate) fn int_tuple(xs: &[usize]) -> Value {
    Value::Tuple(
        xs.iter()
            .map(|&x| Value::Scalar(Scalar::Int(x as i64)))
            .collect(),
    )
}

/// Calls a registered function.
pub(crate) fn call(f: Func, call: Call) -> Result<Value> {
    match f {
        Func::Unary(u) => elementwise::call_unary(u, call),
        Func::Binary(b) => elementwise::call_binary(b, call),
        Func::Native(n) => n(call),
    }
}
