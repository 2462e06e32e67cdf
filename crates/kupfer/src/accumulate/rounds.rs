//! `ufunc.at` for any elementwise operation (`np.negative.at`, `np.power.at`,
//! `np.arctan2.at`, ...), where no atomic or segmented kernel exists: repeated indices are
//! applied in *rounds*. The selection's positions are numbered in C order and each is mapped
//! to the element of `a` it reaches (`arange(a.size).reshape(a.shape)[index]`, so NumPy's
//! index rules, negative indices and bounds errors are the indexing module's); that map is
//! read back once (one sync). Round `r` takes every element's `r`-th occurrence, in the
//! selection's order: its elements are distinct, so one gather, the operation and one
//! plain scatter apply it without collisions, and round `r + 1` reads what round `r` wrote.
//! The number of rounds is the largest multiplicity of an element (one when no index
//! repeats), and every step is the operation's own result cast back into `a`'s dtype
//! unsafely, as NumPy's unbuffered loop does.

use crate::array::Array;
use crate::indexing::index::Index;
use crate::scalar::Operand;
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::{Error, Result};
use std::collections::HashMap;

/// `np.<ufunc>.at(a, index, b)` for any elementwise `op`, async: `a[index] = op(a[index], b)`
/// with each repeated index applied once per occurrence, in the selection's C order. `op`
/// receives the current values of one round's elements and, for a binary ufunc, the matching
/// values of `b` (broadcast to the selection); its result is cast into `a`'s dtype unsafely
/// (as NumPy's `ufunc.at` casts). `b` is `None` for a unary ufunc (`np.negative.at(a, idx)`).
/// Reads the element map back once (one sync) and runs one gather, `op` and one scatter per
/// round; the number of rounds is the largest number of times an element is selected. The
/// atomic [`ufunc_at`](crate::ufunc_at) is faster for the ops it has.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[2.0f64, 3.0, 4.0], &[3])?;
/// // Element 0 squared twice, element 2 once.
/// kp::ufunc_at_with(&a, &kp::idx![vec![0i64, 2, 0]], None, |x, _| kp::square(x))?;
/// assert_eq!(a.to_vec::<f64>()?, vec![16.0, 3.0, 16.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub async fn ufunc_at_with_async(
    a: &Array,
    index: &[Index],
    b: Option<Operand>,
    mut op: impl FnMut(&Array, Option<Operand>) -> Result<Array>,
) -> Result<()> {
    if let Some(Operand::Array(v)) = &b {
        v.device().same(a.device())?;
    }
    let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
    let size = a.size() as i64;
    let lin = crate::creation::arange(0i64, size.max(0), 1i64, Some(kupfer_core::DType::I64))?
        .reshape(&shape)?
        .get_async(index)
        .await?;
    let sel_shape = lin.shape().to_vec();
    // NumPy's check: the values broadcast to the selection (not the other way round).
    let b = match b {
        Some(Operand::Array(v)) => {
            match broadcast_shapes(v.shape(), &sel_shape) {
                Ok(s) if s == sel_shape => {}
                _ => {
                    return Err(Error::invalid(
                        "array is not broadcastable to correct shape",
                    ))
                }
            }
            let n = lin.size() as isize;
            Some(Operand::Array(v.broadcast_to(&sel_shape)?.reshape(&[n])?))
        }
        other => other,
    };
    if lin.size() == 0 {
        return Ok(());
    }
    if a.ndim() == 0 {
        let cur = a.get_async(&[]).await?;
        let b = match b {
            Some(Operand::Array(v)) => Some(Operand::Array(v.reshape(&[])?)),
            other => other,
        };
        let new = op(&cur, b)?.astype(a.dtype())?;
        return a.set_async(&[], new).await;
    }
    let elems: Vec<i64> = lin.to_vec_async().await?;
    // Round of each position: how often its element occurred before it.
    let mut seen: HashMap<i64, usize> = HashMap::new();
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    for (p, &e) in elems.iter().enumerate() {
        let r = seen.entry(e).or_insert(0);
        if rounds.len() <= *r {
            rounds.push(Vec::new());
        }
        rounds[*r].push(p);
        *r += 1;
    }
    let dims = a.shape().to_vec();
    for positions in rounds {
        // The round's elements as one integer list per axis of `a`.
        let mut axes: Vec<Vec<i64>> = vec![Vec::with_capacity(positions.len()); dims.len()];
        for &p in &positions {
            let mut e = elems[p];
            for (k, &d) in dims.iter().enumerate().rev() {
                axes[k].push(e % d as i64);
                e /= d as i64;
            }
        }
        let idx: Vec<Index> = axes.into_iter().map(Index::List).collect();
        let cur = a.get_async(&idx).await?;
        let bv = match &b {
            Some(Operand::Array(v)) => {
                let pos: Vec<i64> = positions.iter().map(|&p| p as i64).collect();
                Some(Operand::Array(v.get_async(&[Index::List(pos)]).await?))
            }
            Some(Operand::Scalar(s)) => Some(Operand::Scalar(*s)),
            None => None,
        };
        let new = op(&cur, bv)?.astype(a.dtype())?;
        a.set_async(&idx, new).await?;
    }
    Ok(())
}

/// `np.<ufunc>.at` for any elementwise `op`; see [`ufunc_at_with_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn ufunc_at_with(
    a: &Array,
    index: &[Index],
    b: Option<Operand>,
    op: impl FnMut(&Array, Option<Operand>) -> Result<Array>,
) -> Result<()> {
    pollster::block_on(ufunc_at_with_async(a, index, b, op))
}
