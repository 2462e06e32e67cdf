//! Printing values exactly as NumPy and Python print them.
//!
//! [`array_str`] is NumPy's `str(arr)` (what `print(arr)` shows) and [`array_repr`] its
//! `repr(arr)`, for every kupfer dtype, following `numpy/_core/arrayprint.py` with the default
//! print options: shortest round-trip digits capped at `precision` 8 (`floatmode='maxprec'`),
//! scientific notation when the largest magnitude is ≥ 1e8 (1e6 for float32, 1e3 for float16,
//! as NumPy ≥ 2.3), the smallest < 1e-4 or their ratio > 1e3, `nan`/`inf`, a trailing `.` on integral floats, aligned columns, summaries
//! with `...` above 1000 elements (3 edge items), lines wrapped at 75 characters. 0-d arrays
//! print as NumPy scalars. [`py_float_repr`] and friends print Python scalars.

use crate::dragon4::{self, FloatParts, Options, Trim};
use kupfer::{f16, DType, HostArray, HostData};

/// NumPy's print options (`np.set_printoptions`) that kupfer eval honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintOptions {
    /// Digits after the point (or of the mantissa) at most; NumPy's default is 8.
    pub precision: usize,
    /// Arrays with more elements than this are summarised; default 1000.
    pub threshold: usize,
    /// Items shown at each end of a summarised axis; default 3.
    pub edgeitems: usize,
    /// Characters per line; default 75.
    pub linewidth: usize,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            precision: 8,
            threshold: 1000,
            edgeitems: 3,
            linewidth: 75,
        }
    }
}

/// Which binary float format a value came from (its shortest digits depend on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatTy {
    F16,
    F32,
    F64,
}

impl FloatTy {
    /// The parts of `x`, which must be a value of this type widened to f64.
    fn parts(self, x: f64) -> FloatParts {
        match self {
            FloatTy::F16 => FloatParts::f16_bits(f16::from_f64(x).to_bits()),
            FloatTy::F32 => FloatParts::f32(x as f32),
            FloatTy::F64 => FloatParts::f64(x),
        }
    }

    /// `x` rounded to this type (NumPy 2 compares Python floats in the array's dtype).
    fn round(self, x: f64) -> f64 {
        match self {
            FloatTy::F16 => f16::from_f64(x).to_f64(),
            FloatTy::F32 => f64::from(x as f32),
            FloatTy::F64 => x,
        }
    }

    /// Magnitudes from which arrays print in scientific notation:
    /// `10**min(8, np.finfo(dtype).precision)`.
    fn exp_cutoff(self) -> f64 {
        match self {
            FloatTy::F16 => 1e3,
            FloatTy::F32 => 1e6,
            FloatTy::F64 => 1e8,
        }
    }

    /// Magnitude from which a scalar of this type prints in scientific notation (NumPy 2:
    /// `str(np.float32(1e6))` is `1e+06`, `str(np.float64(1e6))` is `1000000.0`).
    fn scalar_cutoff(self) -> f64 {
        match self {
            FloatTy::F16 => 1e3,
            FloatTy::F32 => 1e6,
            FloatTy::F64 => 1e16,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Python scalars
// ---------------------------------------------------------------------------------------

fn digits_str(ds: &[u8]) -> String {
    ds.iter().map(|d| char::from(b'0' + d)).collect()
}

/// Python's `repr(float)`: shortest round-trip digits, positional for exponents in
/// [-4, 16) (with `.0` when integral), else `1e-05` / `1.5e+16`.
pub fn py_float_repr(x: f64) -> String {
    py_float_format(x, true)
}

/// Python's `repr` of a float inside a complex (`'r'` format without `.0`).
fn py_float_format(x: f64, add_dot_0: bool) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    let p = FloatParts::f64(x);
    let (ds, exp) = dragon4::shortest(&p);
    if x == 0.0 || (-4..16).contains(&exp) {
        let trim = if add_dot_0 {
            Trim::LeaveOneZero
        } else {
            Trim::DptZeros
        };
        dragon4::positional(
            &p,
            &Options {
                trim,
                ..Options::default()
            },
        )
    } else {
        let sign = if x < 0.0 { "-" } else { "" };
        let mant = if ds.len() > 1 {
            format!("{}.{}", ds[0], digits_str(&ds[1..]))
        } else {
            ds[0].to_string()
        };
        format!(
            "{sign}{mant}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        )
    }
}

/// Python's `repr(complex(re, im))`: `2j`, `(1+2j)`, `(nan+infj)`.
pub fn py_complex_repr(re: f64, im: f64) -> String {
    let im_str = py_float_format(im, false);
    if re == 0.0 && re.is_sign_positive() {
        return format!("{im_str}j");
    }
    let sign = if im_str.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{im_str}j)", py_float_format(re, false))
}

/// Python's `repr(str)`.
pub fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

// ---------------------------------------------------------------------------------------
// NumPy scalars (0-d arrays print as these)
// ---------------------------------------------------------------------------------------

/// NumPy's `str()` of a float scalar: positional for 1e-4 ≤ |x| < the type's scalar cutoff
/// (1e3 for float16, 1e6 for float32, 1e16 for float64; and 0, nan), with `.0` when
/// integral; else scientific without trailing zeros. Complex scalars format each part so.
fn np_float_str(x: f64, ty: FloatTy, trim_positional: Trim, sign: bool) -> String {
    if x.is_nan() {
        return if sign { "+nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 {
            "-inf"
        } else if sign {
            "+inf"
        } else {
            "inf"
        }
        .into();
    }
    let a = x.abs();
    let p = ty.parts(x);
    let o = Options {
        sign,
        ..Options::default()
    };
    if x == 0.0 || (1e-4..ty.scalar_cutoff()).contains(&a) {
        dragon4::positional(
            &p,
            &Options {
                trim: trim_positional,
                ..o
            },
        )
    } else {
        dragon4::scientific(
            &p,
            &Options {
                trim: Trim::DptZeros,
                ..o
            },
        )
    }
}

/// NumPy's `str()` of a complex scalar: `2j`, `(1+2j)`, `(nan+infj)`.
fn np_complex_str(re: f64, im: f64, ty: FloatTy) -> String {
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", np_float_str(im, ty, Trim::DptZeros, false));
    }
    let r = np_float_str(re, ty, Trim::DptZeros, false);
    let i = np_float_str(im, ty, Trim::DptZeros, true);
    format!("({r}{i}j)")
}

/// NumPy's `str()` of element `i` as a scalar (what a 0-d array prints as).
pub fn scalar_str(data: &HostData, i: usize) -> String {
    match data {
        HostData::Bool(v) => py_bool(v[i]).into(),
        HostData::I8(v) => v[i].to_string(),
        HostData::U8(v) => v[i].to_string(),
        HostData::I16(v) => v[i].to_string(),
        HostData::U16(v) => v[i].to_string(),
        HostData::I32(v) => v[i].to_string(),
        HostData::U32(v) => v[i].to_string(),
        HostData::I64(v) => v[i].to_string(),
        HostData::U64(v) => v[i].to_string(),
        HostData::F16(v) => np_float_str(v[i].to_f64(), FloatTy::F16, Trim::LeaveOneZero, false),
        HostData::F32(v) => np_float_str(f64::from(v[i]), FloatTy::F32, Trim::LeaveOneZero, false),
        HostData::F64(v) => np_float_str(v[i], FloatTy::F64, Trim::LeaveOneZero, false),
        HostData::Complex64(v) => {
            np_complex_str(f64::from(v[i].re), f64::from(v[i].im), FloatTy::F32)
        }
        HostData::Complex128(v) => np_complex_str(v[i].re, v[i].im, FloatTy::F64),
    }
}

/// NumPy 2's `repr()` of element `i` as a scalar: `np.float32(1.5)`, `np.True_`.
pub fn scalar_repr(data: &HostData, i: usize) -> String {
    match data {
        HostData::Bool(v) => if v[i] { "np.True_" } else { "np.False_" }.into(),
        HostData::Complex64(_) | HostData::Complex128(_) => {
            let s = scalar_str(data, i);
            let inner = s
                .strip_prefix('(')
                .and_then(|s| s.strip_suffix(')'))
                .unwrap_or(&s);
            format!("np.{}({inner})", data.dtype().name())
        }
        _ => format!("np.{}({})", data.dtype().name(), scalar_str(data, i)),
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

// ---------------------------------------------------------------------------------------
// Element formatters (arrayprint's BoolFormat, IntegerFormat, FloatingFormat, ...)
// ---------------------------------------------------------------------------------------

/// arrayprint's `FloatingFormat` with `floatmode='maxprec'`, `suppress_small=False`.
#[derive(Debug, Clone)]
struct FloatFormat {
    ty: FloatTy,
    exp_format: bool,
    precision: i32,
    min_digits: i32,
    trim: Trim,
    pad_left: i32,
    pad_right: i32,
    exp_size: i32,
    sign: bool,
}

impl FloatFormat {
    fn new(values: &[f64], ty: FloatTy, precision: usize, sign: bool) -> FloatFormat {
        let precision = precision as i32;
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let mut exp_format = false;
        let mut abs_nonzero = finite.iter().filter(|x| **x != 0.0).map(|x| x.abs());
        if let Some(first) = abs_nonzero.next() {
            let (mut max, mut min) = (first, first);
            for a in abs_nonzero {
                max = max.max(a);
                min = min.min(a);
            }
            // NumPy ≥ 2.3: the cutoff is 10**min(8, finfo(dtype).precision).
            exp_format =
                max >= ty.exp_cutoff() || min < ty.round(1e-4) || ty.round(max / min) > 1000.0;
        }
        let mut f = FloatFormat {
            ty,
            exp_format,
            precision,
            min_digits: -1,
            trim: Trim::Zeros,
            pad_left: 0,
            pad_right: 0,
            exp_size: -1,
            sign,
        };
        let first_pass = Options {
            precision,
            unique: true,
            trim: Trim::Zeros,
            sign,
            ..Options::default()
        };
        if finite.is_empty() {
            // Only non-finite values: widths come from "nan"/"inf" below.
        } else if exp_format {
            let (mut pad_left, mut frac_len, mut exp_len) = (0, 0, 0);
            for &x in &finite {
                let s = dragon4::scientific(&ty.parts(x), &first_pass);
                let (mant, exp) = s.split_once('e').unwrap_or((&s, ""));
                let (int_part, frac_part) = mant.split_once('.').unwrap_or((mant, ""));
                pad_left = pad_left.max(int_part.len());
                frac_len = frac_len.max(frac_part.len());
                exp_len = exp_len.max(exp.len());
            }
            f.exp_size = exp_len as i32 - 1;
            f.trim = Trim::None;
            f.precision = frac_len as i32;
            f.min_digits = frac_len as i32;
            f.pad_left = pad_left as i32;
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let (mut pad_left, mut pad_right) = (0, 0);
            for &x in &finite {
                let s = dragon4::positional(&ty.parts(x), &first_pass);
                let (int_part, frac_part) = s.split_once('.').unwrap_or((&s, ""));
                pad_left = pad_left.max(int_part.len());
                pad_right = pad_right.max(frac_part.len());
            }
            f.pad_left = pad_left as i32;
            f.pad_right = pad_right as i32;
            f.min_digits = 0;
        }
        if finite.len() != values.len() {
            let neginf = sign || values.contains(&f64::NEG_INFINITY);
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3 - offset)
                .max(3 + i32::from(neginf) - offset);
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let ret = if x.is_nan() {
                if self.sign {
                    "+nan"
                } else {
                    "nan"
                }
            } else if x < 0.0 {
                "-inf"
            } else if self.sign {
                "+inf"
            } else {
                "inf"
            };
            let pad = (self.pad_left + self.pad_right + 1 - ret.len() as i32).max(0) as usize;
            return format!("{}{ret}", " ".repeat(pad));
        }
        let p = self.ty.parts(x);
        let o = Options {
            precision: self.precision,
            min_digits: self.min_digits,
            unique: true,
            fractional: true,
            trim: self.trim,
            sign: self.sign,
            pad_left: self.pad_left,
            pad_right: self.pad_right,
            exp_digits: self.exp_size,
        };
        if self.exp_format {
            dragon4::scientific(&p, &o)
        } else {
            dragon4::positional(&p, &o)
        }
    }
}

/// The element formatter of one array (arrayprint's `_get_format_function`).
#[derive(Debug, Clone)]
enum ElemFormat {
    Bool { true_str: &'static str },
    Int { width: usize },
    Float(FloatFormat),
    Complex { re: FloatFormat, im: FloatFormat },
}

impl ElemFormat {
    /// The formatter for the elements `shown` of `data` (those that will be printed).
    fn new(data: &HostData, shown: &[usize], zero_d: bool, precision: usize) -> ElemFormat {
        let floats = |get: &dyn Fn(usize) -> f64| shown.iter().map(|&i| get(i)).collect::<Vec<_>>();
        let ints = |get: &dyn Fn(usize) -> i128| {
            let width = shown
                .iter()
                .map(|&i| get(i))
                .fold(None, |acc: Option<(i128, i128)>, v| match acc {
                    None => Some((v, v)),
                    Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
                })
                .map_or(0, |(lo, hi)| lo.to_string().len().max(hi.to_string().len()));
            ElemFormat::Int { width }
        };
        match data {
            HostData::Bool(_) => ElemFormat::Bool {
                true_str: if zero_d { "True" } else { " True" },
            },
            HostData::I8(v) => ints(&|i| i128::from(v[i])),
            HostData::U8(v) => ints(&|i| i128::from(v[i])),
            HostData::I16(v) => ints(&|i| i128::from(v[i])),
            HostData::U16(v) => ints(&|i| i128::from(v[i])),
            HostData::I32(v) => ints(&|i| i128::from(v[i])),
            HostData::U32(v) => ints(&|i| i128::from(v[i])),
            HostData::I64(v) => ints(&|i| i128::from(v[i])),
            HostData::U64(v) => ints(&|i| i128::from(v[i])),
            HostData::F16(v) => ElemFormat::Float(FloatFormat::new(
                &floats(&|i| v[i].to_f64()),
                FloatTy::F16,
                precision,
                false,
            )),
            HostData::F32(v) => ElemFormat::Float(FloatFormat::new(
                &floats(&|i| f64::from(v[i])),
                FloatTy::F32,
                precision,
                false,
            )),
            HostData::F64(v) => ElemFormat::Float(FloatFormat::new(
                &floats(&|i| v[i]),
                FloatTy::F64,
                precision,
                false,
            )),
            HostData::Complex64(v) => ElemFormat::Complex {
                re: FloatFormat::new(
                    &floats(&|i| f64::from(v[i].re)),
                    FloatTy::F32,
                    precision,
                    false,
                ),
                im: FloatFormat::new(
                    &floats(&|i| f64::from(v[i].im)),
                    FloatTy::F32,
                    precision,
                    true,
                ),
            },
            HostData::Complex128(v) => ElemFormat::Complex {
                re: FloatFormat::new(&floats(&|i| v[i].re), FloatTy::F64, precision, false),
                im: FloatFormat::new(&floats(&|i| v[i].im), FloatTy::F64, precision, true),
            },
        }
    }

    fn format(&self, data: &HostData, i: usize) -> String {
        match (self, data) {
            (ElemFormat::Bool { true_str }, HostData::Bool(v)) => {
                if v[i] { *true_str } else { "False" }.to_string()
            }
            (ElemFormat::Int { width }, HostData::I32(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Int { width }, HostData::U32(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Int { width }, HostData::I64(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Int { width }, HostData::I8(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Int { width }, HostData::U8(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Int { width }, HostData::I16(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Int { width }, HostData::U16(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Int { width }, HostData::U64(v)) => format!("{:>width$}", v[i]),
            (ElemFormat::Float(f), HostData::F16(v)) => f.format(v[i].to_f64()),
            (ElemFormat::Float(f), HostData::F32(v)) => f.format(f64::from(v[i])),
            (ElemFormat::Float(f), HostData::F64(v)) => f.format(v[i]),
            (ElemFormat::Complex { re, im }, HostData::Complex64(v)) => {
                complex_elem(re, im, f64::from(v[i].re), f64::from(v[i].im))
            }
            (ElemFormat::Complex { re, im }, HostData::Complex128(v)) => {
                complex_elem(re, im, v[i].re, v[i].im)
            }
            _ => scalar_str(data, i),
        }
    }
}

/// One complex element: the real part, then the imaginary part with its `j`.
fn complex_elem(re: &FloatFormat, im: &FloatFormat, x: f64, y: f64) -> String {
    let r = re.format(x);
    let mut s = im.format(y);
    let end = s.trim_end().len();
    s.insert(end, 'j');
    r + &s
}

// ---------------------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------------------

/// C-order strides (in elements) of a shape.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The indices printed along an axis of length `n`.
fn shown_along(n: usize, summarize: bool, edge: usize) -> Vec<usize> {
    if summarize && n > 2 * edge {
        (0..edge).chain(n - edge..n).collect()
    } else {
        (0..n).collect()
    }
}

struct Printer<'a> {
    data: &'a HostData,
    shape: &'a [usize],
    strides: Vec<usize>,
    fmt: ElemFormat,
    summarize: bool,
    edge: usize,
    separator: &'a str,
}

fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, indent: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > indent.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = indent.to_string();
    }
    line.push_str(word);
}

impl Printer<'_> {
    fn recurse(&self, offset: usize, axis: usize, indent: &str, width: usize) -> String {
        let axes_left = self.shape.len() - axis;
        if axes_left == 0 {
            return self.fmt.format(self.data, offset);
        }
        let next_indent = format!("{indent} ");
        let next_width = width.saturating_sub(1);
        let n = self.shape[axis];
        let stride = self.strides[axis];
        let show_summary = self.summarize && 2 * self.edge < n;
        let (leading, trailing) = if show_summary {
            (self.edge, self.edge)
        } else {
            (0, n)
        };
        let item = |i: usize| self.recurse(offset + i * stride, axis + 1, &next_indent, next_width);
        let mut s = String::new();
        if axes_left == 1 {
            let elem_width = width.saturating_sub(self.separator.trim_end().len().max(1));
            let mut line = indent.to_string();
            for i in 0..leading {
                extend_line(&mut s, &mut line, &item(i), elem_width, indent);
                line.push_str(self.separator);
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, indent);
                line.push_str(self.separator);
            }
            for i in (2..=trailing).rev() {
                extend_line(&mut s, &mut line, &item(n - i), elem_width, indent);
                line.push_str(self.separator);
            }
            extend_line(&mut s, &mut line, &item(n - 1), elem_width, indent);
            s.push_str(&line);
        } else {
            let line_sep = format!(
                "{}{}",
                self.separator.trim_end(),
                "\n".repeat(axes_left - 1)
            );
            for i in 0..leading {
                s.push_str(indent);
                s.push_str(&item(i));
                s.push_str(&line_sep);
            }
            if show_summary {
                s.push_str(indent);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            for i in (2..=trailing).rev() {
                s.push_str(indent);
                s.push_str(&item(n - i));
                s.push_str(&line_sep);
            }
            s.push_str(indent);
            s.push_str(&item(n - 1));
        }
        format!("[{}]", &s[indent.len().min(s.len())..])
    }
}

/// arrayprint's `array2string` for a non-empty array.
fn array2string(
    a: &HostArray,
    opts: &PrintOptions,
    separator: &str,
    prefix: &str,
    suffix: &str,
) -> String {
    let size: usize = a.shape.iter().product();
    let summarize = size > opts.threshold;
    let strides = strides(&a.shape);
    // Flat indices of the printed elements: the formatter's widths come from those only.
    let mut shown = vec![0usize];
    for (axis, &n) in a.shape.iter().enumerate() {
        let along = shown_along(n, summarize, opts.edgeitems);
        let stride = strides[axis];
        shown = shown
            .iter()
            .flat_map(|&base| along.iter().map(move |&i| base + i * stride))
            .collect();
    }
    let fmt = ElemFormat::new(&a.data, &shown, a.shape.is_empty(), opts.precision);
    let printer = Printer {
        data: &a.data,
        shape: &a.shape,
        strides,
        fmt,
        summarize,
        edge: opts.edgeitems,
        separator,
    };
    let indent = format!(" {}", " ".repeat(prefix.len()));
    printer.recurse(0, 0, &indent, opts.linewidth.saturating_sub(suffix.len()))
}

fn size_of(a: &HostArray) -> usize {
    a.shape.iter().product()
}

/// NumPy's `str(arr)`, which `print(arr)` shows.
pub fn array_str(a: &HostArray, opts: &PrintOptions) -> String {
    if a.shape.is_empty() {
        return if a.data.is_empty() {
            "[]".into()
        } else {
            scalar_str(&a.data, 0)
        };
    }
    if size_of(a) == 0 || a.data.len() < size_of(a) {
        return "[]".into();
    }
    array2string(a, opts, " ", "", "")
}

fn dtype_is_implied(d: DType) -> bool {
    matches!(d, DType::Bool | DType::I64 | DType::F64 | DType::Complex128)
}

/// Python's `repr` of a shape tuple: `(3,)`, `(2, 3)`.
pub fn shape_repr(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// NumPy's `repr(arr)`: `array([1., 2.], dtype=float32)`.
pub fn array_repr(a: &HostArray, opts: &PrintOptions) -> String {
    let prefix = "array(";
    let size = size_of(a);
    let body = if size == 0 || a.data.len() < size {
        "[]".to_string()
    } else {
        array2string(a, opts, ", ", prefix, ")")
    };
    let mut extras = Vec::new();
    if (size == 0 && a.shape.as_slice() != [0]) || size > opts.threshold {
        extras.push(format!("shape={}", shape_repr(&a.shape)));
    }
    if !dtype_is_implied(a.dtype()) || size == 0 {
        extras.push(format!("dtype={}", a.dtype().name()));
    }
    if extras.is_empty() {
        return format!("{prefix}{body})");
    }
    let arr_str = format!("{prefix}{body},");
    let extra_str = format!("{})", extras.join(", "));
    let last_line_len = arr_str.len() - arr_str.rfind('\n').map_or(0, |i| i + 1);
    let spacer = if last_line_len + extra_str.len() + 1 > opts.linewidth {
        format!("\n{}", " ".repeat(prefix.len()))
    } else {
        " ".to_string()
    };
    format!("{arr_str}{spacer}{extra_str}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(shape: &[usize], v: Vec<f64>) -> HostArray {
        HostArray::new(shape.to_vec(), HostData::F64(v)).unwrap()
    }

    #[test]
    fn python_reprs() {
        assert_eq!(py_float_repr(1.0), "1.0");
        assert_eq!(py_float_repr(0.1), "0.1");
        assert_eq!(py_float_repr(1e16), "1e+16");
        assert_eq!(py_float_repr(1e-5), "1e-05");
        assert_eq!(py_float_repr(0.0001), "0.0001");
        assert_eq!(py_float_repr(-0.0), "-0.0");
        assert_eq!(py_float_repr(1.5e300), "1.5e+300");
        assert_eq!(py_float_repr(123456789.0), "123456789.0");
        assert_eq!(py_complex_repr(0.0, 2.0), "2j");
        assert_eq!(py_complex_repr(1.0, -2.5), "(1-2.5j)");
        assert_eq!(py_complex_repr(-0.0, 1.0), "(-0+1j)");
        assert_eq!(py_complex_repr(f64::NAN, f64::INFINITY), "(nan+infj)");
        assert_eq!(py_str_repr("a'b"), "\"a'b\"");
        assert_eq!(py_str_repr("a\n"), "'a\\n'");
    }

    #[test]
    fn basic_arrays() {
        let o = PrintOptions::default();
        assert_eq!(
            array_str(&f64s(&[3], vec![1.0, 2.5, -3.0]), &o),
            "[ 1.   2.5 -3. ]"
        );
        assert_eq!(
            array_str(&f64s(&[2], vec![1e-5, 1.0]), &o),
            "[1.e-05 1.e+00]"
        );
        assert_eq!(
            array_str(&f64s(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]), &o),
            "[[1. 2.]\n [3. 4.]]"
        );
        assert_eq!(array_str(&f64s(&[0], vec![]), &o), "[]");
        assert_eq!(array_str(&f64s(&[], vec![2.0]), &o), "2.0");
        assert_eq!(
            array_repr(&f64s(&[2], vec![1.0, 2.0]), &o),
            "array([1., 2.])"
        );
        assert_eq!(
            array_repr(&f64s(&[0, 3], vec![]), &o),
            "array([], shape=(0, 3), dtype=float64)"
        );
        let b = HostArray::new(vec![2], HostData::Bool(vec![true, false])).unwrap();
        assert_eq!(array_str(&b, &o), "[ True False]");
        let i = HostArray::new(vec![3], HostData::I32(vec![1, -20, 300])).unwrap();
        assert_eq!(array_repr(&i, &o), "array([  1, -20, 300], dtype=int32)");
    }
}
