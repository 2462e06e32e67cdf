//! [`ReductionKernel`]: a user's map / reduce / post-map / identity snippets on the reduction
//! machinery of `sum` (same kernels, strategies and split passes; the map fuses with lazy
//! inputs).

use super::{arg_exprs, features, resolve_call};
use crate::array::Array;
use crate::fusion::Lazy;
use crate::reduce::{out_shape, reduce_with, reduced_axes, Axis, Spec};
use crate::scalar::Operand;
use kupfer_core::custom::{self, Bindings, Param, ParamType, UserFn, UserReduce};
use kupfer_core::reduce::Combine;
use kupfer_core::{DType, Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

type Key = (Vec<(String, DType)>, Vec<DType>);
type Resolved = (Arc<UserFn>, Arc<UserReduce>);

/// A custom reduction, CuPy's `ReductionKernel` with WGSL snippets.
///
/// Each value is `map_expr` of the inputs (broadcast together; `i` is the value's position in
/// the reduction's order, `o * R + k` for value `k` of output `o`), converted to the accumulator type (`reduce_type`, by default the output's
/// type); values combine with `reduce_expr` over `a` and `b` (it must be associative and
/// commutative: the order is the GPU's), starting from `identity`; `post_map_expr` assigns
/// the output from the result `a`. Types may be placeholders as in [`super::ElementwiseKernel`].
///
/// ```no_run
/// use kupfer as kp;
/// let l2 = kp::ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")?;
/// let m = kp::ones(&[4, 3], Some(kp::DType::F32))?;
/// let norms = l2.call(kp::args![&m], 1, false)?; // per-row L2 norms: [sqrt(3); 4]
/// # Ok::<(), kp::Error>(())
/// ```
pub struct ReductionKernel {
    name: String,
    inputs: Vec<Param>,
    output: Param,
    reduce_type: Option<ParamType>,
    snippets: [String; 4],
    preamble: String,
    resolved: Mutex<HashMap<Key, Resolved>>,
}

impl std::fmt::Debug for ReductionKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReductionKernel({})", self.name)
    }
}

impl ReductionKernel {
    /// A reduction from CuPy's seven arguments (snippets in WGSL).
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: &str,
        name: &str,
    ) -> Result<Self> {
        let inputs = custom::parse_params(in_params, "in_params")?;
        let mut outputs = custom::parse_params(out_params, "out_params")?;
        if outputs.len() != 1 {
            return Err(Error::invalid(format!(
                "kernel '{name}': a ReductionKernel has exactly one output, not {}",
                outputs.len()
            )));
        }
        if inputs.is_empty() {
            return Err(Error::invalid(format!(
                "kernel '{name}': a ReductionKernel needs at least one input"
            )));
        }
        for p in &inputs {
            if p.name == "a" || p.name == "b" {
                return Err(Error::invalid(format!(
                    "kernel '{name}': 'a' and 'b' are the accumulators of reduce_expr and cannot \
                     name an input"
                )));
            }
        }
        Ok(ReductionKernel {
            name: name.to_string(),
            inputs,
            output: outputs.remove(0),
            reduce_type: None,
            snippets: [
                map_expr.to_string(),
                reduce_expr.to_string(),
                post_map_expr.to_string(),
                identity.to_string(),
            ],
            preamble: String::new(),
            resolved: Mutex::new(HashMap::new()),
        })
    }

    /// Sets the accumulator type (CuPy's `reduce_type`): a dtype name or a placeholder.
    pub fn with_reduce_type(mut self, ty: &str) -> Result<Self> {
        let t = ty.trim();
        self.reduce_type = Some(match custom::kernel_type(t) {
            Some(d) => ParamType::Concrete(d),
            None => ParamType::Placeholder(t.to_string()),
        });
        self.resolved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        Ok(self)
    }

    /// Adds module-scope WGSL the snippets may use (CuPy's `preamble`), with concrete types.
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

    /// Reduces over `axis` (all axes, one, or several; negative from the end) with NumPy's
    /// `keepdims`. `args` are the inputs (arrays and scalars).
    pub fn call(&self, args: &[Operand], axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
        if args.len() != self.inputs.len() {
            return Err(Error::invalid(format!(
                "kernel '{}' takes {} inputs ({}); got {} arguments",
                self.name,
                self.inputs.len(),
                self.inputs
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                args.len()
            )));
        }
        if !args.iter().any(|a| matches!(a, Operand::Array(_))) {
            return Err(Error::invalid(format!(
                "kernel '{}' needs at least one array argument",
                self.name
            )));
        }
        let out_param = std::slice::from_ref(&self.output);
        let r = resolve_call(&self.name, &self.inputs, out_param, args, &[])?;
        let out = r.out_dtypes[0];
        let acc = match &self.reduce_type {
            None => out,
            Some(t) => custom::resolve(t, &r.bindings).ok_or_else(|| {
                Error::invalid(format!(
                    "kernel '{}': reduce_type is a placeholder no argument binds",
                    self.name
                ))
            })?,
        };
        r.device.check(acc)?;
        let (map_fn, user) = self.resolve(&r.bindings, &r.in_dtypes, acc, out, &r.device)?;
        let spec = Spec {
            combine: Combine::Sum,
            acc,
            out,
            ddof: 0,
            name: "ReductionKernel",
        };
        let axis = axis.into();
        let axes = reduced_axes(&axis, r.shape.len())?;
        if axes.iter().any(|&a| r.shape[a] == 0) {
            // Nothing to reduce: each output is post_map(identity). The one value reduced per
            // output is the identity, which the kernel starts from anyway (kp_user_identity),
            // so its single-value path gives combine(identity, identity) = identity.
            let mut shape = out_shape(&r.shape, &axes, keepdims);
            shape.push(1);
            let id_fn = Arc::new(UserFn {
                name: self.name.clone(),
                params: Vec::new(),
                outputs: vec![("kp_value".into(), acc, false)],
                body: user.identity.clone(),
                expression: true,
                preamble: self.preamble.clone(),
            });
            let ids = Array::from_lazy(r.device.clone(), shape, Lazy::call(id_fn, Vec::new(), 0));
            return reduce_with(&ids, &Axis::from(-1isize), false, spec, Some(&user));
        }
        let exprs = arg_exprs(&self.name, args, &[], &r.in_dtypes, &r.device, None)?;
        let map = Array::from_lazy(
            r.device.clone(),
            r.shape.clone(),
            Lazy::call(map_fn, exprs, 0),
        );
        reduce_with(&map, &axis, keepdims, spec, Some(&user))
    }

    fn resolve(
        &self,
        bindings: &Bindings,
        in_dtypes: &[DType],
        acc: DType,
        out: DType,
        device: &crate::Device,
    ) -> Result<Resolved> {
        let key: Key = (
            bindings.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            in_dtypes.iter().copied().chain([acc, out]).collect(),
        );
        if let Some(r) = self
            .resolved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(r.clone());
        }
        let [map_expr, reduce_expr, post_map, identity] = &self.snippets;
        let map_fn = UserFn {
            name: self.name.clone(),
            params: self
                .inputs
                .iter()
                .zip(in_dtypes)
                .map(|(p, d)| (p.name.clone(), *d))
                .collect(),
            outputs: vec![("kp_value".into(), acc, false)],
            body: custom::substitute(map_expr, bindings),
            expression: true,
            preamble: self.preamble.clone(),
        };
        let feats = features(device);
        custom::validate_user_fn(
            &map_fn,
            map_expr,
            bindings,
            &format!("kernel '{}' (map_expr)", self.name),
            feats,
        )?;
        let user = UserReduce {
            name: self.name.clone(),
            reduce: custom::substitute(reduce_expr, bindings),
            post: custom::substitute(post_map, bindings),
            identity: custom::substitute(identity, bindings),
            out_name: self.output.name.clone(),
            acc,
            out,
            preamble: self.preamble.clone(),
        };
        custom::validate_user_reduce(&user, [reduce_expr, post_map, identity], bindings, feats)?;
        let r = (Arc::new(map_fn), Arc::new(user));
        self.resolved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, r.clone());
        Ok(r)
    }
}
