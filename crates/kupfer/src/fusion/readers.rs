//! The lazy-reader rule of in-place writes: a lazy array created before an assignment reads
//! the values from before it. Every lazy array is registered here (a weak reference); before
//! an assignment writes into a buffer, the still-lazy arrays whose expression reads that
//! buffer (or holds a deferred matrix product, conservatively) are materialised, so their
//! kernels are queued ahead of the write and see the old values. Materialised arrays and
//! views always see the write (they share the buffer, as NumPy's views do).

use super::Expr;
use crate::array::{Array, WeakArray};
use kupfer_wgpu::GpuBuffer;
use std::collections::HashSet;
use std::sync::Arc;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::Mutex;

struct Registry {
    arrays: Vec<WeakArray>,
    /// Prune dead entries when the list reaches this length.
    prune_at: usize,
}

#[cfg(not(target_arch = "wasm32"))]
static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    arrays: Vec::new(),
    prune_at: 1024,
});

/// Runs `f` on the registry (one per process natively; per thread in the browser, where
/// arrays never leave their thread).
#[cfg(not(target_arch = "wasm32"))]
fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    f(&mut REGISTRY.lock().unwrap_or_else(|p| p.into_inner()))
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    static REGISTRY: std::cell::RefCell<Registry> = const {
        std::cell::RefCell::new(Registry {
            arrays: Vec::new(),
            prune_at: 1024,
        })
    };
}

#[cfg(target_arch = "wasm32")]
fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    REGISTRY.with(|r| f(&mut r.borrow_mut()))
}

/// Registers a new lazy array.
pub(crate) fn register(a: &Array) {
    with_registry(|r| register_in(r, a));
}

fn register_in(r: &mut Registry, a: &Array) {
    r.arrays.push(a.downgrade());
    if r.arrays.len() >= r.prune_at {
        r.arrays
            .retain(|w| w.upgrade().is_some_and(|a| a.is_lazy()));
        r.prune_at = (r.arrays.len() * 2).max(1024);
    }
}

/// True when the expression reads `buffer` (or runs a deferred product, whose operands are
/// not inspected).
fn reads(root: &Arc<Expr>, buffer: *const GpuBuffer) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if !seen.insert(Arc::as_ptr(e)) {
            continue;
        }
        match &**e {
            Expr::Leaf { buffer: b, .. } => {
                if Arc::as_ptr(b) == buffer {
                    return true;
                }
            }
            Expr::Deferred(_) => return true,
            Expr::Cast(x, _) | Expr::Unary(_, x, _) => stack.push(x),
            Expr::Binary(_, a, b, _) => stack.extend([a, b]),
            Expr::Select(c, a, b, _) => stack.extend([c, a, b]),
            Expr::Call(_, args, _, _) | Expr::Random(_, args, _) => stack.extend(args),
            Expr::Packed { source, .. } => {
                if Arc::as_ptr(source.buffer()) == buffer {
                    return true;
                }
            }
            Expr::Scalar { .. } | Expr::Index => {}
        }
    }
    false
}

/// Materialises every live lazy array that reads `buffer`, except those of `keep` that
/// nothing but the caller holds (one handle: temporaries, whose reads the caller has checked
/// and fused into the write).
pub(crate) fn before_write(buffer: &Arc<GpuBuffer>, keep: &[&Array]) -> kupfer_core::Result<()> {
    let target = Arc::as_ptr(buffer);
    let skip: Vec<&Array> = keep
        .iter()
        .copied()
        .filter(|a| a.handle_count() == 1)
        .collect();
    let live: Vec<Array> = with_registry(|r| {
        r.arrays
            .retain(|w| w.upgrade().is_some_and(|a| a.is_lazy()));
        r.arrays.iter().filter_map(WeakArray::upgrade).collect()
    });
    for a in live {
        if skip.iter().any(|k| k.same_handle(&a)) {
            continue;
        }
        if a.is_lazy() && reads(&a.lazy()?.root, target) {
            a.eval()?;
        }
    }
    Ok(())
}
