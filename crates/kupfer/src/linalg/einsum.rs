//! `einsum`: Einstein summation over any number of operands, planned as views and matrix
//! products.
//!
//! The plan, per call: repeated labels within an operand become a diagonal view; labels no
//! other operand and not the output use are summed out of their operand; then operands are
//! contracted left to right, each pair as ONE (batched) matrix product — shared labels that
//! are still needed are the batch axes, shared labels that are not are the contracted axes —
//! or, when nothing is contracted, as a lazy broadcast multiply, and when only dot products
//! remain (no free axes), as a broadcast multiply fused into one sum. The last step is a transpose
//! (a view) to the output order.

use super::mm;
use super::products::shape_str;
use crate::array::Array;
use kupfer_core::{DType, Error, Result};

/// Label of the `j`-th broadcast (ellipsis) axis; letters are their ASCII codes.
const ELLIPSIS: u32 = 1000;

fn label_name(l: u32) -> String {
    if l >= ELLIPSIS {
        "...".into()
    } else {
        char::from_u32(l).map_or_else(|| "?".into(), |c| c.to_string())
    }
}

/// One term of the subscripts: its letters, and where `...` stands (index into the letters).
struct Term {
    letters: Vec<u32>,
    ellipsis: Option<usize>,
}

fn parse_term(s: &str) -> Result<Term> {
    let mut letters = Vec::new();
    let mut ellipsis = None;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("...") {
            if ellipsis.replace(letters.len()).is_some() {
                return Err(Error::invalid(format!(
                    "einsum: more than one ellipsis in '{s}'"
                )));
            }
            rest = r;
            continue;
        }
        match c {
            ' ' => {}
            c if c.is_ascii_alphabetic() => letters.push(c as u32),
            c => {
                return Err(Error::invalid(format!(
                    "einsum: invalid subscript '{c}' in '{s}' (letters and '...' only)"
                )))
            }
        }
        rest = &rest[c.len_utf8()..];
    }
    Ok(Term { letters, ellipsis })
}

/// An operand on its way through the plan: the array and one label per axis.
#[derive(Clone)]
struct Op {
    a: Array,
    labels: Vec<u32>,
}

/// Einstein summation, as NumPy's `einsum(subscripts, *operands)`.
///
/// Subscripts are letters per operand, comma separated, with an optional `->output`; without
/// it the output is every letter used exactly once, in alphabetical (ASCII) order. `...`
/// stands for broadcast axes (first in an implicit output). Repeated letters in one operand
/// take its diagonal; letters missing from the output are summed. Any number of operands;
/// each pairwise contraction is one matrix product.
///
/// ```no_run
/// let a = kupfer::ones(&[2, 3], None)?;
/// let b = kupfer::ones(&[3, 4], None)?;
/// let c = kupfer::einsum("ij,jk->ik", &[&a, &b])?; // a @ b
/// let t = kupfer::einsum("ii", &[&kupfer::eye(3, None, 0, None)?])?; // trace: 3
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn einsum(subscripts: &str, operands: &[&Array]) -> Result<Array> {
    if operands.is_empty() {
        return Err(Error::invalid("einsum: at least one operand is needed"));
    }
    let (inputs, output) = match subscripts.split_once("->") {
        Some((i, o)) => (i, Some(o)),
        None => (subscripts, None),
    };
    let terms: Vec<Term> = inputs.split(',').map(parse_term).collect::<Result<_>>()?;
    if terms.len() != operands.len() {
        return Err(Error::invalid(format!(
            "einsum: subscripts '{subscripts}' name {} operands, {} given",
            terms.len(),
            operands.len()
        )));
    }
    // Broadcast axes per operand, right-aligned across operands as NumPy broadcasts them.
    let mut n_ell = Vec::with_capacity(terms.len());
    for (t, a) in terms.iter().zip(operands) {
        let n = t.letters.len();
        let ok = if t.ellipsis.is_some() {
            a.ndim() >= n
        } else {
            a.ndim() == n
        };
        if !ok {
            return Err(Error::invalid(format!(
                "einsum: operand of shape {} has {} axes but its subscripts name {n}",
                shape_str(a.shape()),
                a.ndim()
            )));
        }
        n_ell.push(a.ndim() - n);
    }
    let e_max = n_ell.iter().copied().max().unwrap_or(0) as u32;
    let mut ops: Vec<Op> = Vec::with_capacity(terms.len());
    for ((t, a), &e) in terms.iter().zip(operands).zip(&n_ell) {
        let mut labels = t.letters.clone();
        if let Some(at) = t.ellipsis {
            let first = ELLIPSIS + e_max - e as u32;
            labels.splice(at..at, first..first + e as u32);
        }
        ops.push(Op {
            a: (*a).clone(),
            labels,
        });
    }
    let out = output_labels(output, &ops, e_max)?;
    let sizes = label_sizes(&ops)?;
    let dtype = ops.iter().skip(1).try_fold(ops[0].a.dtype(), |d, o| {
        kupfer_core::promote::result_type(d, o.a.dtype())
    })?;

    let ops = ops
        .into_iter()
        .map(take_diagonals)
        .collect::<Result<Vec<_>>>()?;
    // Sum out labels nothing else needs (each is unique to its operand).
    let drops: Vec<Vec<u32>> = (0..ops.len())
        .map(|i| {
            let needed = |l: &u32| {
                out.contains(l)
                    || ops
                        .iter()
                        .enumerate()
                        .any(|(j, o)| j != i && o.labels.contains(l))
            };
            ops[i]
                .labels
                .iter()
                .copied()
                .filter(|l| !needed(l))
                .collect()
        })
        .collect();
    // Operands summed before a product, and those of a chain of contractions, must already be
    // in the result dtype, as NumPy computes the whole product in it: bool or int32 operands
    // summed or contracted in their own dtype would OR or wrap before a float operand, float16
    // ones round. (All-bool products stay bool: OR of ANDs is associative.)
    let chain = ops.len() > 2;
    let ops = ops
        .into_iter()
        .zip(&drops)
        .map(|(o, d)| {
            if dtype != DType::Bool && (chain || !d.is_empty()) {
                Ok(Op {
                    a: cast(o.a, dtype)?,
                    labels: o.labels,
                })
            } else {
                Ok(o)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let ops = ops
        .into_iter()
        .zip(&drops)
        .map(|(o, d)| sum_out(o, d))
        .collect::<Result<Vec<_>>>()?;
    let mut rest = ops.into_iter();
    let mut acc = rest.next().expect("at least one operand");
    let later: Vec<Op> = rest.collect();
    for (k, b) in later.iter().enumerate() {
        let keep: Vec<u32> = out
            .iter()
            .chain(later[k + 1..].iter().flat_map(|o| &o.labels))
            .copied()
            .collect();
        acc = contract(acc, b, &keep, &sizes)?;
    }
    let perm: Vec<isize> = out
        .iter()
        .map(|l| {
            acc.labels
                .iter()
                .position(|m| m == l)
                .expect("output labels survive") as isize
        })
        .collect();
    let r = acc.a.permute_dims(&perm)?;
    // Broadcast where a size-1 axis met a longer one only in a contracted-away operand.
    let shape: Vec<usize> = out.iter().map(|l| sizes[l]).collect();
    let r = if r.shape() != shape.as_slice() {
        r.broadcast_to(&shape)?
    } else {
        r
    };
    cast(r, dtype)
}

/// The result dtype: sums of bool count in int32, so cast back (count > 0 is NumPy's OR).
fn cast(a: Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        Ok(a)
    } else {
        a.astype(dtype)
    }
}

/// The explicit output (validated) or the implicit one.
fn output_labels(output: Option<&str>, ops: &[Op], e_max: u32) -> Result<Vec<u32>> {
    let all: Vec<u32> = ops.iter().flat_map(|o| o.labels.iter().copied()).collect();
    let ell = ELLIPSIS..ELLIPSIS + e_max;
    let Some(o) = output else {
        let mut once: Vec<u32> = all
            .iter()
            .copied()
            .filter(|l| *l < ELLIPSIS && all.iter().filter(|m| *m == l).count() == 1)
            .collect();
        once.sort_unstable();
        return Ok(ell.chain(once).collect());
    };
    let t = parse_term(o)?;
    let mut labels = t.letters.clone();
    match t.ellipsis {
        Some(at) => {
            labels.splice(at..at, ell);
        }
        // NumPy never sums broadcast axes away: an explicit output must keep them.
        None if e_max > 0 => {
            return Err(Error::invalid(format!(
                "einsum: the operands' '...' stands for {e_max} broadcast axis(es), but the \
                 output '{o}' has no '...' to keep them"
            )));
        }
        None => {}
    }
    for (i, l) in labels.iter().enumerate() {
        if labels[..i].contains(l) {
            return Err(Error::invalid(format!(
                "einsum: output subscript '{}' appears more than once",
                label_name(*l)
            )));
        }
        if !all.contains(l) {
            return Err(Error::invalid(format!(
                "einsum: output subscript '{}' does not appear in the inputs",
                label_name(*l)
            )));
        }
    }
    Ok(labels)
}

/// The length of every label (size-1 axes broadcast against longer ones).
fn label_sizes(ops: &[Op]) -> Result<std::collections::HashMap<u32, usize>> {
    // label -> (length, shape of the operand that set it)
    let mut sizes: std::collections::HashMap<u32, (usize, &[usize])> = Default::default();
    for o in ops {
        for (l, &n) in o.labels.iter().zip(o.a.shape()) {
            let (s, from) = sizes.entry(*l).or_insert((n, o.a.shape()));
            if *s != n && *s != 1 && n != 1 {
                return Err(Error::invalid(format!(
                    "einsum: subscript '{}' has mismatched lengths {} and {n} (operand shapes {} \
                     and {})",
                    label_name(*l),
                    *s,
                    shape_str(from),
                    shape_str(o.a.shape())
                )));
            }
            if n > *s {
                *s = n;
                *from = o.a.shape();
            }
        }
    }
    Ok(sizes.into_iter().map(|(l, (n, _))| (l, n)).collect())
}

/// Repeated labels of one operand become its diagonal (a view).
fn take_diagonals(mut o: Op) -> Result<Op> {
    while let Some((p, q)) = (0..o.labels.len()).find_map(|q| {
        o.labels[..q]
            .iter()
            .position(|l| *l == o.labels[q])
            .map(|p| (p, q))
    }) {
        let (np, nq) = (o.a.shape()[p], o.a.shape()[q]);
        if np != nq {
            return Err(Error::invalid(format!(
                "einsum: repeated subscript '{}' needs equal lengths, got {np} and {nq} in {}",
                label_name(o.labels[p]),
                shape_str(o.a.shape())
            )));
        }
        o.a = super::diagonal(&o.a, 0, p as isize, q as isize)?;
        let l = o.labels[p];
        o.labels.remove(q);
        o.labels.remove(p);
        o.labels.push(l);
    }
    Ok(o)
}

/// Sums the axes of `drop` out of `o`.
fn sum_out(o: Op, drop: &[u32]) -> Result<Op> {
    if drop.is_empty() {
        return Ok(o);
    }
    let axes: Vec<isize> = (0..o.labels.len())
        .filter(|&i| drop.contains(&o.labels[i]))
        .map(|i| i as isize)
        .collect();
    let dtype = o.a.dtype();
    let a = cast(super::sum(&o.a, axes, false)?, dtype)?;
    let labels = o.labels.into_iter().filter(|l| !drop.contains(l)).collect();
    Ok(Op { a, labels })
}

/// `o`'s axes permuted to `order` (a subset of its labels, all of them) and reshaped to
/// `groups` (lengths of consecutive runs of `order` merged into one axis each).
fn arrange(o: &Op, order: &[u32], groups: &[usize]) -> Result<Array> {
    let perm: Vec<isize> = order
        .iter()
        .map(|l| o.labels.iter().position(|m| m == l).expect("label of o") as isize)
        .collect();
    let p = o.a.permute_dims(&perm)?;
    let mut shape = Vec::with_capacity(groups.len());
    let mut at = 0;
    for &g in groups {
        shape.push(p.shape()[at..at + g].iter().product::<usize>() as isize);
        at += g;
    }
    p.reshape(&shape)
}

/// Contracts `a` with `b`, keeping the labels in `keep` (output and later operands).
fn contract(
    a: Op,
    b: &Op,
    keep: &[u32],
    sizes: &std::collections::HashMap<u32, usize>,
) -> Result<Op> {
    let in_b = |l: &u32| b.labels.contains(l);
    let in_a = |l: &u32| a.labels.contains(l);
    let batch: Vec<u32> = a
        .labels
        .iter()
        .copied()
        .filter(|l| in_b(l) && keep.contains(l))
        .collect();
    let summed: Vec<u32> = a
        .labels
        .iter()
        .copied()
        .filter(|l| in_b(l) && !keep.contains(l))
        .collect();
    let free_a: Vec<u32> = a.labels.iter().copied().filter(|l| !in_b(l)).collect();
    let free_b: Vec<u32> = b.labels.iter().copied().filter(|l| !in_a(l)).collect();
    let ones = |n: usize| vec![1usize; n];
    if free_a.is_empty() && free_b.is_empty() {
        // Dot products (batched or not): no matrix to multiply, so a broadcast multiply
        // summed over the contracted axes, fused into one reduction.
        let order = [batch.clone(), summed.clone()].concat();
        let x = arrange(&a, &order, &ones(order.len()))?;
        let y = arrange(b, &order, &ones(order.len()))?;
        let axes: Vec<isize> = (batch.len()..order.len()).map(|i| i as isize).collect();
        let dtype = kupfer_core::promote::result_type(x.dtype(), y.dtype())?;
        let r = cast(super::sum(&crate::multiply(&x, &y)?, axes, false)?, dtype)?;
        return Ok(Op {
            a: r,
            labels: batch,
        });
    }
    if summed.is_empty() {
        // No contraction: broadcast multiply (lazy), axes batch + free_a + free_b.
        let x = arrange(
            &a,
            &[batch.clone(), free_a.clone()].concat(),
            &ones(batch.len() + free_a.len()),
        )?;
        let x = x.reshape(&unit_axes(x.shape(), free_b.len()))?;
        let y = arrange(
            b,
            &[batch.clone(), free_b.clone()].concat(),
            &ones(batch.len() + free_b.len()),
        )?;
        let mut ys: Vec<isize> = y.shape()[..batch.len()]
            .iter()
            .map(|&d| d as isize)
            .collect();
        ys.extend(std::iter::repeat_n(1, free_a.len()));
        ys.extend(y.shape()[batch.len()..].iter().map(|&d| d as isize));
        let r = crate::multiply(&x, &y.reshape(&ys)?)?;
        return Ok(Op {
            a: r,
            labels: [batch, free_a, free_b].concat(),
        });
    }
    // Contracted labels of length 1 on one side only: broadcast that side (a view).
    let a = broadcast_labels(a, &summed, sizes)?;
    let b = broadcast_labels(b.clone(), &summed, sizes)?;
    let mut ga = ones(batch.len());
    ga.extend([free_a.len(), summed.len()]);
    let mut gb = ones(batch.len());
    gb.extend([summed.len(), free_b.len()]);
    let x = arrange(
        &a,
        &[batch.clone(), free_a.clone(), summed.clone()].concat(),
        &ga,
    )?;
    let y = arrange(&b, &[batch.clone(), summed, free_b.clone()].concat(), &gb)?;
    let r = mm(&x, &y)?;
    // (batch..., M, N) back to one axis per label.
    let mut shape: Vec<isize> = r.shape()[..batch.len()]
        .iter()
        .map(|&d| d as isize)
        .collect();
    shape.extend(
        free_a
            .iter()
            .map(|l| a.a.shape()[a.labels.iter().position(|m| m == l).expect("label")] as isize),
    );
    shape.extend(
        free_b
            .iter()
            .map(|l| b.a.shape()[b.labels.iter().position(|m| m == l).expect("label")] as isize),
    );
    Ok(Op {
        a: r.reshape(&shape)?,
        labels: [batch, free_a, free_b].concat(),
    })
}

/// `shape` with `n` unit axes appended.
fn unit_axes(shape: &[usize], n: usize) -> Vec<isize> {
    shape
        .iter()
        .map(|&d| d as isize)
        .chain(std::iter::repeat_n(1, n))
        .collect()
}

/// Broadcasts `o`'s axes of the given labels to their full lengths.
fn broadcast_labels(
    o: Op,
    labels: &[u32],
    sizes: &std::collections::HashMap<u32, usize>,
) -> Result<Op> {
    let target: Vec<usize> = o
        .labels
        .iter()
        .zip(o.a.shape())
        .map(|(l, &n)| if labels.contains(l) { sizes[l] } else { n })
        .collect();
    if target == o.a.shape() {
        return Ok(o);
    }
    Ok(Op {
        a: o.a.broadcast_to(&target)?,
        labels: o.labels,
    })
}
