//! Products whose inner dimension is too long for one thread's loop run as sums of products
//! of K slices (split-K).
//!
//! Software Vulkan (Mesa's lavapipe) ends a shader invocation's loops after 65535 iterations
//! counted over all its loops together, silently, keeping what they had computed: a
//! one-thread-per-output product with K = 70000 summed 65535 of its terms. No kernel's loop
//! may run that long, so a product whose k loop would run more than [`MAX_ITERATIONS`] times
//! is cut into slices of K. GPUs gain too: a long serial loop over few outputs leaves most
//! of the GPU idle, while the slices run side by side.
//!
//! The whole slices run as one batched product, the slice index a new leading batch axis
//! read in place (a stride of one slice along K), and are summed over that axis in the
//! accumulator's dtype; a shorter last slice is one more product added to the sum. float16
//! results accumulate in float32 and are rounded once; bool products combine with `any`.

use super::launch::{self, Force};
use super::{MatmulPrecision, Operand, Plan};
use crate::array::Array;
use crate::{reduce, ufuncs};
use kupfer_core::matmul::MatmulKernel;
use kupfer_core::{DType, Layout, Result};

/// Most iterations of a kernel's k loop in one thread. Well below lavapipe's 65535, which
/// the kernel's other loops (over batches, staging) share.
pub(super) const MAX_ITERATIONS: usize = 8192;

/// The K slice length for a product of inner dimension `k` on `kernel`, whose threads each
/// also loop over `batch_rounds` batch indices; None when the k loop stays short enough.
pub(super) fn slice_len(k: usize, batch_rounds: usize, kernel: MatmulKernel) -> Option<usize> {
    let per_iteration = kernel.k_per_iteration().max(1);
    let budget = (MAX_ITERATIONS / batch_rounds.max(1)).max(1);
    (k.div_ceil(per_iteration) > budget).then_some(budget * per_iteration)
}

/// `plan`'s product (shape `batch + [M, N]`, before 1-D axes are dropped) as the sum of
/// products of K slices of `len` values.
pub(super) fn product(
    plan: &Plan,
    precision: MatmulPrecision,
    force: Option<Force>,
    len: usize,
) -> Result<Array> {
    let acc = match plan.out {
        DType::F16 => DType::F32,
        d => d,
    };
    let nb = plan.batch.len();
    let whole = plan.k / len;
    let shape_of = |batch: &[usize]| {
        let mut s = batch.to_vec();
        s.extend([plan.m, plan.n]);
        s
    };
    let mut stacked_batch = vec![whole];
    stacked_batch.extend(&plan.batch);
    let stacked = Plan {
        a: slice_k(&plan.a, nb + 1, 0, len, Some(whole)),
        b: slice_k(&plan.b, nb, 0, len, Some(whole)),
        out_shape: shape_of(&stacked_batch),
        batch: stacked_batch,
        m: plan.m,
        n: plan.n,
        k: len,
        out: acc,
    };
    let slices = launch::run_forced(&stacked, precision, force)?;
    let mut total = if acc == DType::Bool {
        reduce::any(&slices, 0, false)?
    } else {
        reduce::sum(&slices, 0, false)?
    };
    let done = whole * len;
    if done < plan.k {
        let rest = plan.k - done;
        let last = Plan {
            a: slice_k(&plan.a, nb + 1, done, rest, None),
            b: slice_k(&plan.b, nb, done, rest, None),
            batch: plan.batch.clone(),
            m: plan.m,
            n: plan.n,
            k: rest,
            out: acc,
            out_shape: shape_of(&plan.batch),
        };
        let tail = launch::run_forced(&last, precision, force)?;
        total = if acc == DType::Bool {
            ufuncs::logical_or(&total, &tail)?
        } else {
            ufuncs::add(&total, &tail)?
        };
    }
    total.astype(plan.out)
}

/// `o` read from K index `from` for `len` values along its K axis `k_axis`; with
/// `Some(count)`, `count` such slices one after another, stacked on a new leading axis.
fn slice_k(o: &Operand, k_axis: usize, from: usize, len: usize, stack: Option<usize>) -> Operand {
    let l = &o.layout;
    let step = l.strides[k_axis];
    let mut shape = l.shape.clone();
    let mut strides = l.strides.clone();
    shape[k_axis] = len;
    if let Some(count) = stack {
        shape.insert(0, count);
        strides.insert(0, step * len as isize);
    }
    // Every index this view reads lies inside `o`'s own view, so the offset stays in range.
    let offset = (l.offset as isize + step * from as isize) as usize;
    Operand {
        array: o.array.clone(),
        buffer: o.buffer.clone(),
        layout: Layout {
            shape,
            strides,
            offset,
        },
    }
}
