//! Chains of matrix products: [`multi_dot`] (in the cheapest order) and [`matrix_power`]
//! (by repeated squaring).

use super::products::shape_str;
use crate::array::Array;
use kupfer_core::{Error, Result};

/// NumPy's `linalg.multi_dot`: the product `arrays[0] @ arrays[1] @ ...`, multiplied in the
/// order that needs the fewest multiply-adds (as NumPy chooses it: the textbook matrix-chain
/// order). The first array may be 1-D (a row vector) and the last 1-D (a column vector);
/// the others must be 2-D. With two arrays it is [`super::dot`].
///
/// ```no_run
/// let a = kupfer::ones(&[10, 1000], None)?;
/// let b = kupfer::ones(&[1000, 10], None)?;
/// let c = kupfer::ones(&[10, 1000], None)?;
/// // (a @ b) @ c: 2e5 multiply-adds instead of a @ (b @ c): 2e7.
/// assert_eq!(kupfer::linalg::multi_dot(&[&a, &b, &c])?.shape(), &[10, 1000]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn multi_dot(arrays: &[&Array]) -> Result<Array> {
    match arrays {
        [] | [_] => Err(Error::invalid("multi_dot: expecting at least two arrays")),
        [a, b] => super::dot(a, b),
        _ => {
            let last = arrays.len() - 1;
            let (row, col) = (arrays[0].ndim() == 1, arrays[last].ndim() == 1);
            let mut mats = Vec::with_capacity(arrays.len());
            for (i, a) in arrays.iter().enumerate() {
                let m = match (a.ndim(), i) {
                    (1, 0) => a.reshape(&[1, -1])?,
                    (1, i) if i == last => a.reshape(&[-1, 1])?,
                    (2, _) => (*a).clone(),
                    (d, _) => {
                        return Err(Error::invalid(format!(
                            "multi_dot: {d}-dimensional array given (argument {i}, shape {}); \
                             arrays must be two-dimensional (the first and last may be 1-D)",
                            shape_str(a.shape())
                        )))
                    }
                };
                mats.push(m);
            }
            for (i, w) in mats.windows(2).enumerate() {
                if w[0].shape()[1] != w[1].shape()[0] {
                    return Err(Error::invalid(format!(
                        "multi_dot: shapes {} (argument {i}) and {} (argument {}) not \
                         aligned: {} != {}",
                        shape_str(arrays[i].shape()),
                        shape_str(arrays[i + 1].shape()),
                        i + 1,
                        w[0].shape()[1],
                        w[1].shape()[0]
                    )));
                }
            }
            let mut dims: Vec<u128> = mats.iter().map(|m| m.shape()[0] as u128).collect();
            dims.push(mats[last].shape()[1] as u128);
            let split = chain_order(&dims);
            let p = chain_product(&mats, &split, 0, last)?;
            match (row, col) {
                (true, true) => p.reshape(&[]),
                (true, false) => p.reshape(&[-1]),
                (false, true) => p.reshape(&[-1]),
                (false, false) => Ok(p),
            }
        }
    }
}

/// `split[i][j]`: where the cheapest product of matrices `i..=j` splits (into `i..=k` and
/// `k+1..=j`), by dynamic programming over chain lengths; matrix `i` is
/// `dims[i] × dims[i + 1]`. Ties go to the first split.
fn chain_order(dims: &[u128]) -> Vec<Vec<usize>> {
    let n = dims.len() - 1;
    let mut cost = vec![vec![0u128; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 1..n {
        for i in 0..n - len {
            let j = i + len;
            let mut best = None;
            for k in i..j {
                let c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1];
                if best.is_none_or(|(b, _)| c < b) {
                    best = Some((c, k));
                }
            }
            if let Some((c, k)) = best {
                cost[i][j] = c;
                split[i][j] = k;
            }
        }
    }
    split
}

fn chain_product(mats: &[Array], split: &[Vec<usize>], i: usize, j: usize) -> Result<Array> {
    if i == j {
        return Ok(mats[i].clone());
    }
    let k = split[i][j];
    crate::matmul(
        &chain_product(mats, split, i, k)?,
        &chain_product(mats, split, k + 1, j)?,
    )
}

/// NumPy's `linalg.matrix_power`: the square matrix (or stack of them, in the last two axes)
/// `a` raised to the integer power `n` by repeated squaring. `n = 0` gives the identity in
/// `a`'s dtype. Negative powers need an inverse, which kupfer does not have yet: they are
/// an [`Error::Unsupported`].
///
/// ```no_run
/// let a = kupfer::eye(3, None, 1, None)?; // a shift: a³ = 0
/// assert_eq!(kupfer::linalg::matrix_power(&a, 2)?.to_vec::<f32>()?[2], 1.0);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn matrix_power(a: &Array, n: i64) -> Result<Array> {
    let d = a.ndim();
    if d < 2 {
        return Err(Error::invalid(format!(
            "matrix_power: {d}-dimensional array given; it must be at least two-dimensional"
        )));
    }
    if a.shape()[d - 1] != a.shape()[d - 2] {
        return Err(Error::invalid(format!(
            "matrix_power: the last 2 dimensions of the array must be square, got {}",
            shape_str(a.shape())
        )));
    }
    match n {
        ..0 => Err(Error::unsupported(format!(
            "matrix_power with a negative exponent ({n}): it needs a matrix inverse, which \
             kupfer does not have yet"
        ))),
        0 => {
            let eye = crate::eye(a.shape()[d - 1], None, 0, Some(a.dtype()))?;
            eye.broadcast_to(a.shape())?.copy()
        }
        1 => a.copy(),
        2 => crate::matmul(a, a),
        3 => crate::matmul(&crate::matmul(a, a)?, a),
        _ => {
            // a^n = product of a^(2^i) over the set bits i of n, lowest first.
            let mut square = a.clone();
            let mut result: Option<Array> = None;
            let mut rest = n;
            loop {
                if rest & 1 == 1 {
                    result = Some(match result {
                        None => square.clone(),
                        Some(r) => crate::matmul(&r, &square)?,
                    });
                }
                rest >>= 1;
                if rest == 0 {
                    break;
                }
                square = crate::matmul(&square, &square)?;
            }
            result.ok_or_else(|| Error::invalid("matrix_power: no bits in a positive exponent"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::chain_order;

    #[test]
    fn chain_order_is_the_cheapest() {
        // 10×100 · 100×5 · 5×50: (AB)C costs 7,500 multiply-adds, A(BC) 75,000.
        assert_eq!(chain_order(&[10, 100, 5, 50])[0][2], 1);
        // The textbook six-matrix chain: ((A1 (A2 A3)) ((A4 A5) A6)), 15,125.
        let s = chain_order(&[30, 35, 15, 5, 10, 20, 25]);
        assert_eq!(
            (s[0][5], s[0][2], s[3][5], s[1][2], s[3][4]),
            (2, 0, 4, 1, 3)
        );
        // Equal costs take the first split, A (B C), as NumPy does.
        assert_eq!(chain_order(&[2, 2, 2, 2])[0][2], 0);
    }
}
