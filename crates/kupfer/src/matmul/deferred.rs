//! Deferred matrix products and their fused epilogues.
//!
//! `matmul` of two stacks of matrices (both operands at least 2-D, M and N above 1) returns a
//! lazy array holding a [`Pending`] product. Used as it is, it runs on first use like any
//! matmul; used inside an elementwise expression that nothing else shares, the expression
//! becomes the kernel's epilogue (`(a @ b) * 2 + c`, `relu(a @ w + bias)`: one kernel, and the
//! product never goes through memory). See `kupfer-core/src/epilogue.rs` for the kernel side.

use super::launch::{self, Epilogue};
use super::{MatmulPrecision, Plan};
use crate::device::Device;
use crate::fusion::{Deferred, Expr, Flattener, PRODUCT};
use kupfer_core::epilogue;
use kupfer_core::expr::{Access, InputSpec, Node, Program};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::sync::{Arc, Mutex};

/// A matrix product not run yet.
pub(crate) struct Pending {
    dtype: DType,
    shape: Vec<usize>,
    precision: MatmulPrecision,
    state: Mutex<State>,
}

enum State {
    /// The checked product, holding its operands.
    Waiting(Box<Plan>),
    /// The product (C-contiguous); the operands are released.
    Done(Arc<GpuBuffer>),
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pending(matmul {:?} {})", self.shape, self.dtype)
    }
}

impl Pending {
    /// Plans that take an epilogue run deferred: both operands stacks of matrices with more
    /// than one row and column (gemv shapes run at once, on their own kernel).
    pub(crate) fn defers(plan: &Plan) -> bool {
        plan.a.array.ndim() >= 2 && plan.b.array.ndim() >= 2 && plan.m > 1 && plan.n > 1
    }

    pub(crate) fn new(plan: Plan, precision: MatmulPrecision) -> Pending {
        Pending {
            dtype: plan.out,
            shape: plan.out_shape.clone(),
            precision,
            state: Mutex::new(State::Waiting(Box::new(plan))),
        }
    }
}

impl Deferred for Pending {
    fn dtype(&self) -> DType {
        self.dtype
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn takes_epilogue(&self) -> bool {
        matches!(
            *self.state.lock().unwrap_or_else(|p| p.into_inner()),
            State::Waiting(_)
        )
    }

    fn buffer(&self) -> Result<Arc<GpuBuffer>> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let buffer = match &*state {
            State::Done(b) => return Ok(b.clone()),
            State::Waiting(plan) => launch::product(plan, self.precision, None, None)?
                .ok_or_else(|| Error::invalid("matmul without an epilogue"))?,
        };
        *state = State::Done(buffer.clone());
        Ok(buffer)
    }

    /// Runs `expr` (of `shape`) as the epilogue of this product (`product` in the tree); None
    /// when the expression's inputs do not suit an epilogue.
    fn with_epilogue(
        &self,
        device: &Device,
        expr: &Arc<Expr>,
        product: &Arc<Expr>,
        shape: &[usize],
    ) -> Result<Option<Arc<GpuBuffer>>> {
        let pending = self;
        let (fl, output) = Flattener::flatten_around(expr, Some(product))?;
        let limits = &device.info().limits;
        // A, B and C take three storage bindings.
        let max_inputs = (limits.max_storage_buffers_per_shader_stage as usize).saturating_sub(3);
        if fl.inputs.len() > max_inputs
            || fl.scalars.iter().any(|(d, _)| !epilogue::scalar_fits(*d))
        {
            return Ok(None);
        }
        let max_binding = device.context().max_binding_size();
        let mut strides = Vec::with_capacity(fl.inputs.len());
        for (buffer, layout, _) in &fl.inputs {
            match input_strides(layout, shape)? {
                Some(s) if buffer.size() <= max_binding => strides.push(s),
                _ => return Ok(None),
            }
        }
        let nodes = fl
            .nodes
            .iter()
            .map(|(node, d)| {
                let node = match node {
                    Node::Load(PRODUCT) => Node::Load(0),
                    Node::Load(k) => Node::Load(k + 1),
                    other => other.clone(),
                };
                (node, *d)
            })
            .collect();
        let spec = |dtype| InputSpec {
            dtype,
            access: Access::Strided,
            packed: false,
        };
        let program = Program {
            nodes,
            inputs: std::iter::once(spec(pending.dtype()))
                .chain(fl.inputs.iter().map(|(_, _, d)| spec(*d)))
                .collect(),
            scalars: fl.scalars.iter().map(|(d, _)| *d).collect(),
            output,
            rank: 0,
            vector: false,
        };
        let (_, layout) = epilogue::fields(&program);
        let mut params = vec![0u8; layout.size];
        for (k, s) in strides.iter().enumerate() {
            let at = layout.inputs[k];
            for (j, word) in s.iter().enumerate() {
                params[at + 4 * j..at + 4 * j + 4].copy_from_slice(&word.to_le_bytes());
            }
        }
        for (k, (_, bytes)) in fl.scalars.iter().enumerate() {
            let at = layout.scalars[k];
            let n = bytes.len().min(4);
            params[at..at + n].copy_from_slice(&bytes[..n]);
        }
        let bindings = fl
            .inputs
            .iter()
            .map(|(buffer, _, _)| Binding {
                buffer: buffer.clone(),
                offset: 0,
                size: buffer.size(),
            })
            .collect();
        let epi = Epilogue {
            program,
            bindings,
            params,
        };
        let state = pending.state.lock().unwrap_or_else(|p| p.into_inner());
        match &*state {
            State::Waiting(plan) => launch::product(plan, pending.precision, None, Some(&epi)),
            State::Done(_) => Ok(None),
        }
    }
}

/// An input's element offset and its strides along the output's (linear batch, row, column)
/// as u32 words, or None when its batch axes do not collapse to one stride or a value
/// exceeds i32.
fn input_strides(layout: &Layout, shape: &[usize]) -> Result<Option<[u32; 4]>> {
    let l = layout.broadcast_to(shape)?;
    let nb = shape.len() - 2;
    // The batch axes must read at z * sz for the linear batch index z.
    let mut sz: Option<isize> = None;
    let mut inner = 1isize;
    for j in (0..nb).rev() {
        if shape[j] > 1 {
            let s = l.strides[j];
            match sz {
                None => sz = Some(s / inner),
                Some(z) if z * inner == s => {}
                Some(_) => return Ok(None),
            }
            if s % inner != 0 {
                return Ok(None);
            }
        }
        inner *= shape[j] as isize;
    }
    let words = [
        l.offset as isize,
        sz.unwrap_or(0),
        l.strides[nb],
        l.strides[nb + 1],
    ];
    let mut out = [0u32; 4];
    for (o, w) in out.iter_mut().zip(words) {
        match i32::try_from(w) {
            Ok(v) => *o = v as u32,
            Err(_) => return Ok(None),
        }
    }
    Ok(Some(out))
}
