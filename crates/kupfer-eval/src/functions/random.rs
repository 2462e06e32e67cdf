//! `np.random`: `default_rng(seed)` (a [`Value::Generator`] whose methods are
//! [`call_generator_method`]) and the module functions on kupfer's global generator (`seed`,
//! `rand`, `randn`, `randint`, `random_integers`, `random`, `random_sample`, `uniform`, `normal`,
//! `standard_normal`, `exponential`, ..., `zipf`, `hypergeometric`).
//!
//! Draws come from kupfer's Philox4x32-10 generator, not NumPy's PCG64: the same seed gives
//! other numbers than NumPy (the distributions are the same). Floats are float32 unless
//! `dtype=np.float64` (or a float64 parameter array) asks for float64.

use super::{to_int, to_operand, to_shape, Args, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::random::{self, Generator};
use kupfer::{Array, Operand, Scalar};

pub(super) fn register(r: &mut Registry) {
    r.native(&["random.default_rng"], default_rng);
    r.native(&["random.Generator"], generator);
    r.native(
        &[
            "random.PCG64",
            "random.PCG64DXSM",
            "random.MT19937",
            "random.SFC64",
            "random.SeedSequence",
        ],
        bit_generator,
    );
    r.native(&["random.Philox"], philox);
    r.native(&["random.seed"], seed);
    r.native(&["random.rand"], |c| dims(c, random::rand));
    r.native(&["random.randn"], |c| dims(c, random::randn));
    r.native(
        &[
            "random.random",
            "random.random_sample",
            "random.ranf",
            "random.sample",
        ],
        |c| method(&random::global_generator(), "random", c),
    );
    r.native(&["random.randint"], randint);
    r.native(&["random.random_integers"], random_integers);
    r.native(&["random.hypergeometric"], legacy_hypergeometric);
    for name in [
        "random.uniform",
        "random.normal",
        "random.standard_normal",
        "random.exponential",
        "random.standard_exponential",
        "random.poisson",
        "random.gamma",
        "random.standard_gamma",
        "random.beta",
        "random.chisquare",
        "random.lognormal",
        "random.laplace",
        "random.logistic",
        "random.gumbel",
        "random.weibull",
        "random.pareto",
        "random.power",
        "random.rayleigh",
        "random.standard_cauchy",
        "random.standard_t",
        "random.triangular",
        "random.wald",
        "random.geometric",
        "random.negative_binomial",
        "random.permutation",
        "random.choice",
        "random.shuffle",
        "random.f",
        "random.noncentral_chisquare",
        "random.noncentral_f",
        "random.dirichlet",
        "random.logseries",
        "random.binomial",
        "random.multinomial",
        "random.vonmises",
        "random.multivariate_normal",
        "random.zipf",
    ] {
        r.native(&[name], |c| {
            let m = c.name.trim_start_matches("random.");
            let m = GENERATOR_METHODS
                .iter()
                .find(|&&n| n == m)
                .copied()
                .unwrap_or("random");
            method(&random::global_generator(), m, c)
        });
    }
}

/// The methods of a Generator value that `kupfer eval` implements.
pub const GENERATOR_METHODS: &[&str] = &[
    "random",
    "uniform",
    "integers",
    "standard_normal",
    "normal",
    "standard_exponential",
    "exponential",
    "lognormal",
    "laplace",
    "logistic",
    "gumbel",
    "weibull",
    "pareto",
    "power",
    "rayleigh",
    "standard_cauchy",
    "triangular",
    "wald",
    "geometric",
    "standard_gamma",
    "gamma",
    "beta",
    "chisquare",
    "noncentral_chisquare",
    "f",
    "standard_t",
    "poisson",
    "negative_binomial",
    "dirichlet",
    "permutation",
    "choice",
    "shuffle",
    "permuted",
    "logseries",
    "multivariate_normal",
    "binomial",
    "multinomial",
    "vonmises",
    "zipf",
    "hypergeometric",
    "multivariate_hypergeometric",
    "noncentral_f",
    "spawn",
    "bytes",
];

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// A seed argument: a non-negative Python int (NumPy: "expected non-negative integer").
/// kupfer's seeds are 64-bit: a larger int (NumPy takes 128-bit entropy) is folded, its
/// high 64 bits multiplied by an odd constant and added into the low ones bitwise (a seed
/// below 2^64 is itself).
fn seed_of(v: Option<Value>, span: Span) -> Result<Option<u64>> {
    match v {
        None => Ok(None),
        Some(Value::Scalar(Scalar::BigInt(i))) => {
            let u = u128::try_from(i)
                .map_err(|_| EvalError::value_error(span, "expected non-negative integer"))?;
            let (lo, hi) = (u as u64, (u >> 64) as u64);
            Ok(Some(lo ^ hi.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        }
        Some(v) => {
            let s = to_int(&v, "seed", span)?;
            u64::try_from(s)
                .map(Some)
                .map_err(|_| EvalError::value_error(span, "expected non-negative integer"))
        }
    }
}

fn default_rng(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["seed="])?;
    match a.get("seed") {
        // A Generator (or what kupfer eval makes of a bit generator): NumPy returns the
        // generator itself / wraps the bit generator, sharing its state.
        Some(Value::Generator(g)) => Ok(Value::Generator(g)),
        seed => Ok(Value::Generator(random::default_rng(seed_of(seed, span)?))),
    }
}

/// A generator from a seed argument of a bit generator: an int or None as `default_rng`
/// takes it; a Generator value (kupfer eval's form of a `SeedSequence` or bit generator)
/// gives a new generator with its key, starting at its next draw (so two bit generators
/// made from one seed sequence draw the same numbers, as in NumPy).
fn seeded(v: Option<Value>, span: Span) -> Result<Generator> {
    match v {
        Some(Value::Generator(g)) => Ok(Generator::from_key(g.key(), g.next_draw())),
        other => Ok(random::default_rng(seed_of(other, span)?)),
    }
}

/// `np.random.PCG64(seed)`, `PCG64DXSM`, `MT19937`, `SFC64` and `SeedSequence(entropy)`:
/// kupfer has one bit generator, Philox4x32-10, so each of them is a kupfer Generator
/// seeded with `seed` (as `default_rng(seed)`), which `np.random.Generator(...)` then takes
/// as it is. NumPy's streams are not reproduced: the numbers differ from NumPy's for the same
/// seed (the distributions are the same). A seed sequence's `spawn(n)` is the generator's.
fn bit_generator(call: Call) -> Result<Value> {
    let span = call.span;
    let seq = call.name == "random.SeedSequence";
    let params: &[&'static str] = if seq {
        &["entropy=", "*spawn_key=", "*pool_size="]
    } else {
        &["seed="]
    };
    let mut a = call.bind(params)?;
    if seq {
        let spawned = match a.get("spawn_key") {
            None => false,
            Some(Value::Tuple(v)) | Some(Value::List(v)) => !v.is_empty(),
            Some(_) => true,
        };
        if spawned || a.get("pool_size").is_some() {
            return Err(EvalError::not_supported(
                span,
                "SeedSequence(spawn_key=, pool_size=) (kupfer's seed is one integer: use \
                 spawn())",
            ));
        }
    }
    let seed = a.get(if seq { "entropy" } else { "seed" });
    Ok(Value::Generator(seeded(seed, span)?))
}

/// `np.random.Philox(seed=None, counter=None, key=None)`: a kupfer Generator (kupfer's bit
/// generator is Philox4x32-10, NumPy's Philox is Philox4x64, so the streams differ). `seed`
/// as [`bit_generator`]; `key` (below 2^64 here) is kupfer's Philox key directly.
fn philox(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["seed=", "counter=", "key="])?;
    let seed = a.get("seed");
    let key = a.get("key");
    if a.get("counter").is_some() {
        return Err(EvalError::not_supported(
            span,
            "Philox(counter=) (kupfer's counters are the draw numbers: use jumped())",
        ));
    }
    match (seed, key) {
        (Some(_), Some(_)) => Err(EvalError::value_error(
            span,
            "seed and key cannot be both used",
        )),
        (seed, None) => Ok(Value::Generator(seeded(seed, span)?)),
        (None, Some(k)) => {
            let k = to_int(&k, "key", span)?;
            let k = u64::try_from(k).map_err(|_| {
                EvalError::value_error(span, "key must be positive and less than 2**128.")
            })?;
            Ok(Value::Generator(Generator::from_key(
                [k as u32, (k >> 32) as u32],
                0,
            )))
        }
    }
}

/// `np.random.Generator(bit_generator)`: the generator kupfer eval made of the bit
/// generator, sharing its state (as NumPy's Generator shares its bit generator's).
fn generator(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["bit_generator"])?;
    match a.req("bit_generator")? {
        Value::Generator(g) => Ok(Value::Generator(g)),
        other => Err(EvalError::type_error(
            span,
            format!(
                "Generator() needs a bit generator (np.random.PCG64(seed), Philox, ...), got \
                 '{}'",
                other.type_name()
            ),
        )),
    }
}

fn seed(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["seed="])?;
    random::seed(seed_of(a.get("seed"), span)?);
    Ok(Value::None)
}

/// `rand(d0, d1, ...)` / `randn(d0, d1, ...)`.
fn dims(call: Call, f: fn(&[usize]) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let (args, _) = call.split_varargs(&[])?;
    let shape = args
        .iter()
        .map(|v| {
            let d = to_int(v, "dimension", span)?;
            usize::try_from(d)
                .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))
        })
        .collect::<Result<Vec<_>>>()?;
    f(&shape).map(Value::Array).map_err(kerr(span))
}

/// `randint(low, high=None, size=None, dtype=int)`.
fn randint(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["low", "high=", "size=", "dtype="])?;
    let (low, high) = bounds(&mut a)?;
    let size = opt_size(&mut a)?;
    let dtype = a.dtype("dtype")?;
    random::randint_broadcast(low, high, size.as_deref(), dtype)
        .map(Value::Array)
        .map_err(kerr(span))
}

/// `random_integers(low, high=None, size=None)` (NumPy's deprecated legacy function):
/// integers in `[low, high]`, `[1, low]` without `high`; `randint(low, high + 1, size)`.
fn random_integers(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["low", "high=", "size="])?;
    let (low, high) = bounds(&mut a)?;
    let size = opt_size(&mut a)?;
    let (low, high) = match high {
        None => (Operand::Scalar(Scalar::Int(1)), low),
        Some(h) => (low, h),
    };
    let high = match high {
        Operand::Scalar(Scalar::Int(i)) => Operand::Scalar(Scalar::int(i128::from(i) + 1)),
        Operand::Scalar(s) => Operand::Scalar(Scalar::Float(s.as_f64() + 1.0)),
        Operand::Array(h) => Operand::Array(kupfer::add(&h, 1).map_err(kerr(span))?),
    };
    random::randint_broadcast(low, Some(high), size.as_deref(), None)
        .map(Value::Array)
        .map_err(kerr(span))
}

/// The `low` and `high` of `integers`/`randint`: numbers or arrays (`high=None`: absent).
fn bounds(a: &mut Args) -> Result<(Operand, Option<Operand>)> {
    let low = a.operand("low")?;
    let high = match a.get("high") {
        None | Some(Value::None) => None,
        Some(v) => Some(to_operand(&v, "high", a.span())?),
    };
    Ok((low, high))
}

/// `np.random.hypergeometric(ngood, nbad, nsample, size=None)` (NumPy's legacy function:
/// `nsample` at least 1).
fn legacy_hypergeometric(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ngood", "nbad", "nsample", "size="])?;
    let good = a.operand("ngood")?;
    let bad = a.operand("nbad")?;
    let sample = a.operand("nsample")?;
    let size = opt_size(&mut a)?;
    random::hypergeometric(good, bad, sample, size.as_deref())
        .map(Value::Array)
        .map_err(kerr(span))
}

fn size(a: &mut Args) -> Result<Vec<usize>> {
    let span = a.span();
    match a.get("size") {
        None => Ok(Vec::new()),
        Some(v) => to_shape(&v, "size", span),
    }
}

fn opt_size(a: &mut Args) -> Result<Option<Vec<usize>>> {
    let span = a.span();
    a.get("size")
        .map(|v| to_shape(&v, "size", span))
        .transpose()
}

/// A distribution parameter with its NumPy default.
fn param(a: &mut Args, p: &str, default: f64) -> Result<Operand> {
    let span = a.span();
    match a.get(p) {
        None => Ok(Operand::Scalar(Scalar::Float(default))),
        Some(v) => to_operand(&v, p, span),
    }
}

/// Calls method `name` of generator `g`.
pub(crate) fn call_generator_method(g: &Generator, name: &str, call: Call) -> Result<Value> {
    method(g, name, call)
}

fn method(g: &Generator, name: &str, call: Call) -> Result<Value> {
    let span = call.span;
    let e = kerr(span);
    let r = match name {
        "random" | "standard_normal" | "standard_exponential" | "standard_cauchy" => {
            let mut a = call.bind(&["size=", "dtype=", "out="])?;
            if a.get("out").is_some() {
                return Err(EvalError::not_supported(span, "out= for random draws"));
            }
            let size = size(&mut a)?;
            let dtype = a.dtype("dtype")?;
            match name {
                "random" => g.random(&size, dtype),
                "standard_normal" => g.standard_normal(&size, dtype),
                "standard_exponential" => g.standard_exponential(&size, dtype),
                _ => g.standard_cauchy(&size, dtype),
            }
        }
        "integers" => {
            let mut a = call.bind(&["low", "high=", "size=", "dtype=", "endpoint="])?;
            let (low, high) = bounds(&mut a)?;
            let size = opt_size(&mut a)?;
            let dtype = a.dtype("dtype")?;
            let endpoint = a.bool_or("endpoint", false)?;
            g.integers_broadcast(low, high, size.as_deref(), dtype, endpoint)
        }
        "spawn" => {
            let mut a = call.bind(&["n_children"])?;
            let n = a.req_int("n_children")?;
            let n = usize::try_from(n)
                .map_err(|_| EvalError::value_error(span, "n_children must be non-negative"))?;
            return Ok(Value::List(
                g.spawn(n).into_iter().map(Value::Generator).collect(),
            ));
        }
        "uniform" | "normal" | "lognormal" | "laplace" | "logistic" | "gumbel" | "wald" => {
            let (p0, d0, p1, d1) = match name {
                "uniform" => ("low", 0.0, "high", 1.0),
                "lognormal" => ("mean", 0.0, "sigma", 1.0),
                "wald" => ("mean", f64::NAN, "scale", f64::NAN),
                _ => ("loc", 0.0, "scale", 1.0),
            };
            let params: [&'static str; 3] = match name {
                "uniform" => ["low=", "high=", "size="],
                "lognormal" => ["mean=", "sigma=", "size="],
                "wald" => ["mean", "scale", "size="],
                _ => ["loc=", "scale=", "size="],
            };
            let mut a = call.bind(&params)?;
            let x = param(&mut a, p0, d0)?;
            let y = param(&mut a, p1, d1)?;
            let size = opt_size(&mut a)?;
            let size = size.as_deref();
            match name {
                "uniform" => g.uniform(x, y, size),
                "normal" => g.normal(x, y, size),
                "lognormal" => g.lognormal(x, y, size),
                "laplace" => g.laplace(x, y, size),
                "logistic" => g.logistic(x, y, size),
                "gumbel" => g.gumbel(x, y, size),
                _ => g.wald(x, y, size),
            }
        }
        "exponential" | "rayleigh" => {
            let mut a = call.bind(&["scale=", "size="])?;
            let s = param(&mut a, "scale", 1.0)?;
            let size = opt_size(&mut a)?;
            if name == "exponential" {
                g.exponential(s, size.as_deref())
            } else {
                g.rayleigh(s, size.as_deref())
            }
        }
        "standard_gamma" => {
            let mut a = call.bind(&["shape", "size=", "dtype=", "out="])?;
            let k = a.operand("shape")?;
            let size = opt_size(&mut a)?;
            let dtype = a.dtype("dtype")?;
            g.standard_gamma(k, size.as_deref(), dtype)
        }
        "gamma" => {
            let mut a = call.bind(&["shape", "scale=", "size="])?;
            let k = a.operand("shape")?;
            let s = param(&mut a, "scale", 1.0)?;
            let size = opt_size(&mut a)?;
            g.gamma(k, s, size.as_deref())
        }
        "beta" | "f" | "noncentral_chisquare" | "negative_binomial" | "binomial" | "vonmises" => {
            let (p0, p1) = match name {
                "beta" => ("a", "b"),
                "f" => ("dfnum", "dfden"),
                "noncentral_chisquare" => ("df", "nonc"),
                "vonmises" => ("mu", "kappa"),
                _ => ("n", "p"),
            };
            let mut a = call.bind(&[p0, p1, "size="])?;
            let x = a.operand(p0)?;
            let y = a.operand(p1)?;
            let size = opt_size(&mut a)?;
            let size = size.as_deref();
            match name {
                "beta" => g.beta(x, y, size),
                "f" => g.f(x, y, size),
                "noncentral_chisquare" => g.noncentral_chisquare(x, y, size),
                "binomial" => g.binomial(x, y, size),
                "vonmises" => g.vonmises(x, y, size),
                _ => g.negative_binomial(x, y, size),
            }
        }
        "chisquare" | "standard_t" => {
            let mut a = call.bind(&["df", "size="])?;
            let df = a.operand("df")?;
            let size = opt_size(&mut a)?;
            if name == "chisquare" {
                g.chisquare(df, size.as_deref())
            } else {
                g.standard_t(df, size.as_deref())
            }
        }
        "poisson" => {
            let mut a = call.bind(&["lam=", "size="])?;
            let lam = param(&mut a, "lam", 1.0)?;
            let size = opt_size(&mut a)?;
            g.poisson(lam, size.as_deref())
        }
        "multinomial" => {
            let mut a = call.bind(&["n", "pvals", "size="])?;
            let n = a.operand("n")?;
            let pvals = a.req("pvals")?;
            let size = opt_size(&mut a)?;
            // n a number and pvals a flat list: the host path (checks and conditional
            // probabilities on the host); otherwise the broadcasting one.
            let flat = match &pvals {
                Value::List(items) | Value::Tuple(items) => items
                    .iter()
                    .map(|v| match v {
                        Value::Scalar(_) => super::to_f64(v, "pvals", span).ok(),
                        _ => None,
                    })
                    .collect::<Option<Vec<f64>>>(),
                _ => None,
            };
            match (&n, flat) {
                (Operand::Scalar(s), Some(p)) if !p.is_empty() => {
                    let v = s.as_f64();
                    if v < 0.0 {
                        return Err(EvalError::value_error(span, "n < 0"));
                    }
                    g.multinomial(v as u64, &p, size.as_deref().unwrap_or(&[]))
                }
                _ => {
                    let p = super::to_array(&pvals, None, span)?;
                    g.multinomial_broadcast(n, &p, size.as_deref())
                }
            }
        }
        "dirichlet" => {
            let mut a = call.bind(&["alpha", "size="])?;
            let alpha = a.req("alpha")?;
            let alpha = match &alpha {
                Value::List(items) | Value::Tuple(items) => items
                    .iter()
                    .map(|v| super::to_f64(v, "alpha", span))
                    .collect::<Result<Vec<f64>>>()?,
                other => {
                    // An array (NumPy's array_like): one dimension, read to the host (the
                    // category count sets the result's shape).
                    let arr = super::to_array(other, None, span)?;
                    if arr.ndim() != 1 {
                        return Err(EvalError::value_error(
                            span,
                            if arr.ndim() == 0 {
                                "len() of unsized object"
                            } else {
                                "object too deep for desired array"
                            },
                        ));
                    }
                    let host = crate::program::wait(arr.to_host_async(), "dirichlet(alpha)")
                        .map_err(EvalError::kupfer(span))?;
                    (0..arr.size()).map(|i| host.data.get_f64(i)).collect()
                }
            };
            let size = size(&mut a)?;
            g.dirichlet(&alpha, &size)
        }
        "permutation" | "shuffle" | "permuted" | "choice" | "multivariate_normal" => {
            return permutations(g, name, call)
        }
        "weibull" | "pareto" | "power" | "geometric" | "logseries" | "zipf" => {
            let p = if matches!(name, "geometric" | "logseries") {
                "p"
            } else {
                "a"
            };
            let mut a = call.bind(&[p, "size="])?;
            let x = a.operand(p)?;
            let size = opt_size(&mut a)?;
            let size = size.as_deref();
            match name {
                "weibull" => g.weibull(x, size),
                "pareto" => g.pareto(x, size),
                "power" => g.power(x, size),
                "logseries" => g.logseries(x, size),
                "zipf" => g.zipf(x, size),
                _ => g.geometric(x, size),
            }
        }
        "multivariate_hypergeometric" => {
            let mut a = call.bind(&["colors", "nsample", "size=", "method="])?;
            let method = a.string("method")?;
            if let Some(m) = &method {
                if m != "marginals" && m != "count" {
                    return Err(EvalError::value_error(
                        span,
                        "method must be \"count\" or \"marginals\".",
                    ));
                }
            }
            let colors = colors_of(a.req("colors")?, span)?;
            let nsample = match a.get_raw("nsample") {
                Some(Value::Scalar(Scalar::Int(n))) => n,
                Some(Value::Scalar(Scalar::Bool(b))) => i64::from(b),
                Some(Value::Array(n)) if n.ndim() == 0 && n.dtype().is_int() => {
                    let s = crate::program::wait(n.item_async(), "nsample").map_err(kerr(span))?;
                    to_int(&Value::Scalar(s), "nsample", span)?
                }
                _ => return Err(EvalError::value_error(span, "nsample must be an integer")),
            };
            let size = opt_size(&mut a)?;
            g.multivariate_hypergeometric(&colors, nsample, size.as_deref(), method.as_deref())
        }
        "noncentral_f" => {
            let mut a = call.bind(&["dfnum", "dfden", "nonc", "size="])?;
            let x = a.operand("dfnum")?;
            let y = a.operand("dfden")?;
            let z = a.operand("nonc")?;
            let size = opt_size(&mut a)?;
            g.noncentral_f(x, y, z, size.as_deref())
        }
        "hypergeometric" => {
            let mut a = call.bind(&["ngood", "nbad", "nsample", "size="])?;
            let good = a.operand("ngood")?;
            let bad = a.operand("nbad")?;
            let sample = a.operand("nsample")?;
            let size = opt_size(&mut a)?;
            g.hypergeometric(good, bad, sample, size.as_deref())
        }
        "triangular" => {
            let mut a = call.bind(&["left", "mode", "right", "size="])?;
            let l = a.operand("left")?;
            let m = a.operand("mode")?;
            let r = a.operand("right")?;
            let size = opt_size(&mut a)?;
            g.triangular(l, m, r, size.as_deref())
        }
        "bytes" => {
            return Err(EvalError::not_supported(
                span,
                "Generator.bytes in kupfer eval, which has no Python bytes values (the Rust \
                 API has Generator::bytes and bytes_array)",
            ))
        }
        other => {
            return Err(EvalError::not_supported(
                span,
                format!("'Generator.{other}'"),
            ))
        }
    };
    r.map(Value::Array).map_err(e)
}

/// `colors` of `multivariate_hypergeometric`: a sequence of Python ints or a 1-D integer
/// array (read to the host: the color count sets the result's shape); anything else is
/// NumPy's error (negative colors are checked by kupfer, after the method).
fn colors_of(v: Value, span: Span) -> Result<Vec<i64>> {
    let bad = || {
        EvalError::value_error(
            span,
            "colors must be a one-dimensional sequence of nonnegative integers not exceeding \
             9223372036854775807.",
        )
    };
    match v {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|c| match c {
                Value::Scalar(Scalar::Int(i)) => Ok(*i),
                Value::Scalar(Scalar::Bool(b)) => Ok(i64::from(*b)),
                Value::Array(n) if n.ndim() == 0 && n.dtype().is_int() => {
                    let s = crate::program::wait(n.item_async(), "colors").map_err(kerr(span))?;
                    to_int(&Value::Scalar(s), "colors", span)
                }
                _ => Err(bad()),
            })
            .collect(),
        Value::Array(arr)
            if arr.ndim() == 1 && (arr.dtype().is_int() || arr.dtype() == kupfer::DType::Bool) =>
        {
            let host = crate::program::wait(arr.to_host_async(), "colors").map_err(kerr(span))?;
            (0..arr.size())
                .map(|i| {
                    let x = host.data.get_f64(i);
                    if x >= i64::MAX as f64 {
                        Err(bad())
                    } else {
                        Ok(x as i64)
                    }
                })
                .collect()
        }
        _ => Err(bad()),
    }
}

/// `permutation`, `shuffle`, `permuted`, `choice` and `multivariate_normal` (they gather or
/// read back: native only).
#[cfg(not(target_arch = "wasm32"))]
fn permutations(g: &Generator, name: &str, call: Call) -> Result<Value> {
    let span = call.span;
    let e = kerr(span);
    let r = match name {
        "permutation" => {
            let mut a = call.bind(&["x", "axis="])?;
            let x = a.req("x")?;
            let axis = a.int("axis")?.unwrap_or(0) as isize;
            match x {
                Value::Scalar(_) => {
                    let n = to_int(&x, "x", span)?;
                    let n = usize::try_from(n).map_err(|_| {
                        EvalError::value_error(span, "negative dimensions are not allowed")
                    })?;
                    g.permutation(n)
                }
                _ => g.permutation_of(&super::to_array(&x, None, span)?, axis),
            }
        }
        "shuffle" => {
            let mut a = call.bind(&["x", "axis="])?;
            let x = a.req("x")?;
            let axis = a.int("axis")?.unwrap_or(0) as isize;
            let Value::Array(x) = x else {
                return Err(EvalError::type_error(
                    span,
                    "shuffle needs an array to shuffle in place",
                ));
            };
            g.shuffle(&x, axis).map_err(kerr(span))?;
            return Ok(Value::None);
        }
        "permuted" => {
            let mut a = call.bind(&["x", "axis=", "out="])?;
            let x = super::to_array(&a.req("x")?, None, span)?;
            let axis = match a.get("axis") {
                None | Some(Value::None) => None,
                Some(v) => Some(to_int(&v, "axis", span)? as isize),
            };
            match a.get("out") {
                None | Some(Value::None) => g.permuted(&x, axis),
                Some(Value::Array(out)) => g.permuted_into(&x, axis, &out),
                Some(_) => return Err(EvalError::type_error(span, "out must be a numpy array")),
            }
        }
        "choice" => return choice(g, call),
        "multivariate_normal" => {
            let mut a = call.bind(&["mean", "cov", "size=", "check_valid=", "tol=", "method="])?;
            let mean = super::to_array(&a.req("mean")?, None, span)?;
            let cov = super::to_array(&a.req("cov")?, None, span)?;
            let size = size(&mut a)?;
            let text = |a: &mut Args, p: &str| -> Result<Option<String>> {
                match a.get(p) {
                    None => Ok(None),
                    Some(Value::Str(s)) => Ok(Some(s)),
                    Some(v) => Err(EvalError::type_error(
                        span,
                        format!("{p} must be a string, got '{}'", v.type_name()),
                    )),
                }
            };
            let check_valid = text(&mut a, "check_valid")?;
            let method = text(&mut a, "method")?;
            let tol = match a.get("tol") {
                None => 1e-8,
                Some(v) => super::to_f64(&v, "tol", span)?,
            };
            if method.is_none() && check_valid.is_none() {
                g.multivariate_normal(&mean, &cov, &size)
            } else {
                let method = random::MvnMethod::parse(method.as_deref().unwrap_or("svd"))
                    .map_err(kerr(span))?;
                // NumPy reads check_valid only for the methods that test the covariance.
                let check = match method {
                    random::MvnMethod::Cholesky => random::CheckValid::Raise,
                    _ => random::CheckValid::parse(check_valid.as_deref().unwrap_or("warn"))
                        .map_err(kerr(span))?,
                };
                g.multivariate_normal_by(&mean, &cov, &size, method, check, tol)
            }
        }
        _ => unreachable!("{name} is not a permutation method"),
    };
    r.map(Value::Array).map_err(e)
}

/// In the browser: `permutation(n)` of an integer and `choice` (see [`choice`]); the array
/// forms of `permutation`/`shuffle`/`permuted` and `multivariate_normal` need blocking
/// read-backs, which wasm32 does not have.
#[cfg(target_arch = "wasm32")]
fn permutations(g: &Generator, name: &str, call: Call) -> Result<Value> {
    let span = call.span;
    let e = kerr(span);
    let unsupported = || {
        Err(EvalError::not_supported(
            span,
            format!("Generator.{name} of an array, with p= or of a distribution in the browser"),
        ))
    };
    let r = match name {
        "permutation" => {
            let mut a = call.bind(&["x", "axis="])?;
            let x = a.req("x")?;
            if !matches!(x, Value::Scalar(_)) {
                return unsupported();
            }
            let n = to_int(&x, "x", span)?;
            let n = usize::try_from(n)
                .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))?;
            g.permutation(n)
        }
        "choice" => return choice(g, call),
        _ => return unsupported(),
    };
    r.map(Value::Array).map_err(e)
}

/// `Generator.choice(a, size=None, replace=True, p=None, axis=0, shuffle=True)`. A `p` written
/// as a list of numbers is checked and used on the host, so nothing is read back before the
/// gather and it runs in the browser too; a `p` array is read back and checked natively, and
/// used on the device unchecked in the browser (which cannot wait for a read-back).
fn choice(g: &Generator, call: Call) -> Result<Value> {
    use crate::program::wait;
    let span = call.span;
    let mut a = call.bind(&["a", "size=", "replace=", "p=", "axis=", "shuffle="])?;
    let x = a.req("a")?;
    let size = size(&mut a)?;
    let replace = a.bool_or("replace", true)?;
    let p = a.get("p");
    let host_p = match &p {
        Some(Value::List(items)) | Some(Value::Tuple(items)) => items
            .iter()
            .map(|v| match v {
                Value::Scalar(_) => super::to_f64(v, "p", span).ok(),
                _ => None,
            })
            .collect::<Option<Vec<f64>>>(),
        _ => None,
    };
    let p = match p {
        None | Some(Value::None) => None,
        Some(_) if host_p.is_some() => None,
        Some(v) => Some(super::to_array(&v, None, span)?),
    };
    let probs = host_p.as_ref().map(|v| (v.as_slice(), kupfer::DType::F64));
    let axis = a.int("axis")?.unwrap_or(0) as isize;
    let shuffle = a.bool_or("shuffle", true)?;
    let n = match &x {
        Value::Scalar(_) => Some(to_int(&x, "a", span)?),
        Value::Array(arr) if arr.ndim() == 0 => {
            let s = wait(arr.item_async(), "a 0-d array as choice's a").map_err(kerr(span))?;
            Some(to_int(&Value::Scalar(s), "a", span)?)
        }
        _ => None,
    };
    let r = if let Some(n) = n {
        let n = usize::try_from(n).map_err(|_| {
            EvalError::value_error(
                span,
                "a must be a positive integer unless no samples are taken",
            )
        })?;
        match &p {
            // The browser cannot wait for p's values: the device path, shapes checked only.
            #[cfg(target_arch = "wasm32")]
            Some(p) => g.choice_indices_unchecked(n, &size, replace, p),
            #[cfg(not(target_arch = "wasm32"))]
            Some(p) => wait(
                g.choice_indices_async(n, &size, replace, Some(p)),
                "choice with a p array",
            ),
            None => g.choice_indices_probabilities(n, &size, replace, probs),
        }
    } else {
        let arr = super::to_array(&x, None, span)?;
        match &p {
            #[cfg(target_arch = "wasm32")]
            Some(p) => wait(
                g.choice_from_unchecked(&arr, &size, replace, p, axis),
                "choice from an array",
            ),
            #[cfg(not(target_arch = "wasm32"))]
            Some(p) => wait(
                g.choice_from_async(&arr, &size, replace, Some(p), axis, shuffle),
                "choice with a p array",
            ),
            None => wait(
                g.choice_from_probabilities(&arr, &size, replace, probs, axis, shuffle),
                "choice from an array",
            ),
        }
    };
    r.map(Value::Array).map_err(kerr(span))
}

/// The static name of a Generator method, if kupfer eval has it.
/// The name a Generator method's messages use (`np.random.Generator.normal()`), one per
/// method of `GENERATOR_METHODS`, made once.
pub(crate) fn generator_method_call_name(method: &str) -> &'static str {
    static NAMES: std::sync::OnceLock<Vec<(&'static str, &'static str)>> =
        std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        GENERATOR_METHODS
            .iter()
            .map(|&m| {
                let full: &'static str =
                    Box::leak(format!("random.Generator.{m}").into_boxed_str());
                (m, full)
            })
            .collect()
    });
    names
        .iter()
        .find(|(m, _)| *m == method)
        .map_or("random.Generator", |(_, full)| full)
}

pub(crate) fn generator_method(name: &str) -> Option<&'static str> {
    GENERATOR_METHODS.iter().find(|&&n| n == name).copied()
}
