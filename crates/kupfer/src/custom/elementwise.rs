//! [`ElementwiseKernel`]: a user's WGSL snippet applied to every element, with typed
//! parameters, type placeholders, broadcasting, in-place outputs, and fusion with the
//! elementwise ops around it.

use super::{arg_exprs, features, resolve_call};
use crate::array::Array;
use crate::fusion::{materialise, Lazy};
use crate::scalar::Operand;
use kupfer_core::custom::{self, Bindings, Param, UserFn};
use kupfer_core::{DType, Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Cache key of a resolved kernel: the placeholder bindings and which outputs are in place.
type Key = (Vec<(String, DType)>, Vec<DType>, bool);

/// A custom elementwise kernel, CuPy's `ElementwiseKernel` with a WGSL snippet.
///
/// Parameters are `"<type> <name>"` lists. Types are dtype names (`float32`, `int32`, ...,
/// also `f32`, `float`, `double`, `int`) or placeholders (`T`) bound per call by the arrays
/// passed, so one kernel serves every dtype combination (one pipeline each). The snippet sees
/// each input as a WGSL value of its type, assigns the outputs, and may use the element index
/// `i` (`u32`, C order over the output) and the placeholder names as types (`T(1)`).
///
/// A call takes the inputs (arrays broadcast together as in NumPy, any strides; scalars), and
/// optionally the output arrays after them (written in place; the snippet then starts from
/// their current values). Without outputs, the result is lazy and fuses with the elementwise
/// ops around it into one kernel. In-place outputs are written at the call: a lazy expression
/// built earlier that reads an output array and is not materialised yet sees the new values
/// (`eval()` it first to keep the old ones).
///
/// ```no_run
/// use kupfer as kp;
/// let sigmoid = kp::ElementwiseKernel::new("T x", "T y", "y = T(1) / (T(1) + exp(-x));", "sigmoid")?;
/// let x = kp::linspace(-4.0, 4.0, 9, true, Some(kp::DType::F32))?;
/// let y = sigmoid.call(kp::args![&x])?;          // lazy
/// let z = (&y * 2.0).to_vec::<f32>()?;           // one fused kernel
/// # Ok::<(), kp::Error>(())
/// ```
pub struct ElementwiseKernel {
    name: String,
    inputs: Vec<Param>,
    outputs: Vec<Param>,
    operation: String,
    preamble: String,
    resolved: Mutex<HashMap<Key, Arc<UserFn>>>,
}

impl std::fmt::Debug for ElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ElementwiseKernel({})", self.name)
    }
}

impl ElementwiseKernel {
    /// A kernel from its input and output parameter lists, the WGSL `operation` and a `name`.
    /// The lists are checked here; the snippet is checked (with naga, errors at their line and
    /// column in `operation`) once per dtype combination, at its first call.
    pub fn new(in_params: &str, out_params: &str, operation: &str, name: &str) -> Result<Self> {
        let inputs = custom::parse_params(in_params, "in_params")?;
        let outputs = custom::parse_params(out_params, "out_params")?;
        if outputs.is_empty() {
            return Err(Error::invalid(format!(
                "kernel '{name}': out_params must declare at least one output"
            )));
        }
        if let Some(p) = outputs
            .iter()
            .find(|o| inputs.iter().any(|p| p.name == o.name))
        {
            return Err(Error::invalid(format!(
                "kernel '{name}': '{}' is both an input and an output",
                p.name
            )));
        }
        Ok(ElementwiseKernel {
            name: name.to_string(),
            inputs,
            outputs,
            operation: operation.to_string(),
            preamble: String::new(),
            resolved: Mutex::new(HashMap::new()),
        })
    }

    /// Adds module-scope WGSL the operation may use (CuPy's `preamble`): helper functions
    /// and constants, with concrete types (placeholders are not substituted there). Included
    /// once per generated kernel; errors in it are located in the preamble's text.
    pub fn with_preamble(mut self, preamble: &str) -> Self {
        self.preamble = preamble.to_string();
        self.resolved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        self
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of inputs and outputs.
    pub fn nargs(&self) -> (usize, usize) {
        (self.inputs.len(), self.outputs.len())
    }

    /// Applies the kernel and returns its (first) output. `args` are the inputs, optionally
    /// followed by the output arrays (see [`kupfer::args!`](crate::args)).
    pub fn call(&self, args: &[Operand]) -> Result<Array> {
        let mut v = self.call_multi(args)?;
        Ok(v.swap_remove(0))
    }

    /// Applies the kernel and returns every output. Several outputs computed lazily are each
    /// their own expression (each materialisation evaluates the snippet); passed-in outputs
    /// are all computed before any is written.
    pub fn call_multi(&self, args: &[Operand]) -> Result<Vec<Array>> {
        let (n_in, n_out) = self.nargs();
        if args.len() != n_in && args.len() != n_in + n_out {
            return Err(Error::invalid(format!(
                "kernel '{}' takes {n_in} inputs ({}) and optionally {n_out} outputs ({}); got \
                 {} arguments",
                self.name,
                names(&self.inputs),
                names(&self.outputs),
                args.len()
            )));
        }
        let (ins, outs) = args.split_at(n_in);
        let outs = outs
            .iter()
            .zip(&self.outputs)
            .map(|(o, p)| match o {
                Operand::Array(a) => Ok(a.clone()),
                Operand::Scalar(_) => Err(Error::invalid(format!(
                    "kernel '{}': output '{}' must be an array, not a scalar",
                    self.name, p.name
                ))),
            })
            .collect::<Result<Vec<_>>>()?;
        let r = resolve_call(&self.name, &self.inputs, &self.outputs, ins, &outs)?;
        let in_place = !outs.is_empty();
        let f = self.user_fn(
            &r.bindings,
            &r.in_dtypes,
            &r.out_dtypes,
            in_place,
            &r.device,
        )?;
        let mut dtypes = r.in_dtypes.clone();
        dtypes.extend(&r.out_dtypes);
        let exprs = arg_exprs(&self.name, ins, &outs, &dtypes, &r.device, Some(&r.shape))?;
        let lazies: Vec<Lazy> = (0..n_out)
            .map(|k| Lazy::call(f.clone(), exprs.clone(), k))
            .collect();
        if !in_place {
            return Ok(lazies
                .into_iter()
                .map(|l| Array::from_lazy(r.device.clone(), r.shape.clone(), l))
                .collect());
        }
        // Every output is computed before any is written: each may read all initial values.
        let mut computed = Vec::with_capacity(n_out);
        for l in &lazies {
            computed.push(materialise(&r.device, l, &r.shape)?);
        }
        for (buf, out) in computed.into_iter().zip(&outs) {
            super::assign::write_into(out, buf)?;
        }
        Ok(outs)
    }

    /// The snippet as a WGSL function for these dtypes, validated once.
    fn user_fn(
        &self,
        bindings: &Bindings,
        in_dtypes: &[DType],
        out_dtypes: &[DType],
        in_place: bool,
        device: &crate::Device,
    ) -> Result<Arc<UserFn>> {
        let key: Key = (
            bindings.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            in_dtypes.iter().chain(out_dtypes).copied().collect(),
            in_place,
        );
        if let Some(f) = self
            .resolved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(f.clone());
        }
        let f = UserFn {
            name: self.name.clone(),
            params: self
                .inputs
                .iter()
                .zip(in_dtypes)
                .map(|(p, d)| (p.name.clone(), *d))
                .collect(),
            outputs: self
                .outputs
                .iter()
                .zip(out_dtypes)
                .map(|(p, d)| (p.name.clone(), *d, in_place))
                .collect(),
            body: custom::substitute(&self.operation, bindings),
            expression: false,
            preamble: self.preamble.clone(),
        };
        custom::validate_user_fn(
            &f,
            &self.operation,
            bindings,
            &format!("kernel '{}' (operation)", self.name),
            features(device),
        )?;
        let f = Arc::new(f);
        self.resolved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, f.clone());
        Ok(f)
    }
}

fn names(p: &[Param]) -> String {
    p.iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
