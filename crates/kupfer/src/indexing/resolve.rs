//! From an index to what the kernels need: boolean arrays replaced by the integer arrays of
//! their `nonzero` (a device compaction: one read-back of the count), integer index arrays
//! checked against their axis, and the u32 element-offset expression of every selected
//! element.
//!
//! Bounds: NumPy raises on an out-of-bounds index, CuPy wraps; kupfer raises. Host lists and
//! integers are checked on the host. Device index arrays are checked on the device: a read
//! (`a[idx]`, `take`) checks them inside its gather kernel ([`bounds_words`]) and reports an
//! out-of-bounds index at the device's next sync (`checks.rs`: the next read-back or
//! `synchronize()` fails, naming the largest offending index, its axis and the axis length),
//! so a gather costs no wait; a write or `ufunc.at` must not touch memory before the error, so
//! it reads the index arrays' min and max back first (one sync per such operation).

use crate::array::Array;
use crate::fusion::Lazy;
use crate::indexing::index::{
    check_mask, expand, is_advanced, out_of_bounds, plan, Adv, Entry, Index, Plan,
};
use crate::indexing::launch::{coordinate, u32_op, u32_scalar};
use kupfer_core::{BinaryOp, DType, Error, Layout, Result, SliceArg};

/// A resolved index.
pub(crate) enum Resolved {
    /// Basic indexing only: a view.
    Basic(Vec<SliceArg>),
    /// Advanced indexing (masks already replaced, indices checked).
    Plan(Box<Plan>),
}

/// Resolves `index` against `a` (whose buffer has `layout`). With `defer_bounds`, device
/// index arrays are not checked here but marked in `Plan::checked` (the gather checks them).
pub(crate) async fn resolve(
    a: &Array,
    layout: &Layout,
    index: &[Index],
    defer_bounds: bool,
) -> Result<Resolved> {
    let ndim = layout.ndim();
    let entries = expand(index, ndim)?;
    if !is_advanced(&entries) {
        return Ok(Resolved::Basic(crate::indexing::index::basic_args(
            &entries,
        )));
    }
    // Masks: check shapes, then replace by integer arrays (trusted: in bounds by construction).
    let mut converted = Vec::with_capacity(entries.len());
    let mut trusted = Vec::new();
    let mut axis = 0usize;
    for e in &entries {
        match e {
            Entry::Array(m) if m.dtype() == DType::Bool => {
                m.device().same(a.device())?;
                if m.ndim() == 0 {
                    let v = m.item_async().await?;
                    converted.push(Entry::Bool(v.as_f64() != 0.0));
                    continue;
                }
                check_mask(m.shape(), &layout.shape, axis)?;
                for ix in nonzero_async(m).await? {
                    trusted.push(converted.len());
                    converted.push(Entry::Array(ix));
                }
                axis += m.ndim();
            }
            Entry::NewAxis | Entry::Bool(_) | Entry::Gap => converted.push(e.clone()),
            other => {
                if let Entry::Array(x) = other {
                    x.device().same(a.device())?;
                }
                converted.push(other.clone());
                axis += 1;
            }
        }
    }
    let mut p = plan(layout, &converted, a.device())?;
    // Which advanced indices came from masks (in plan order: the order of advanced entries).
    let mut k = 0usize;
    let mut from_mask = Vec::new();
    for (pos, e) in converted.iter().enumerate() {
        if matches!(
            e,
            Entry::Array(_) | Entry::List(_) | Entry::Bool(_) | Entry::Int(_)
        ) {
            from_mask.push(trusted.contains(&pos));
            k += 1;
        }
    }
    debug_assert_eq!(k, p.adv.len());
    if defer_bounds {
        for (k, adv) in p.adv.iter().enumerate() {
            if let Adv::Device(x) = adv {
                let signed = x.dtype().is_signed_int();
                p.wrap[k] = signed && !from_mask[k];
                p.checked[k] = !from_mask[k];
            }
        }
    } else {
        check_bounds(&mut p, &from_mask, layout).await?;
    }
    Ok(Resolved::Plan(Box::new(p)))
}

/// Checks device index arrays against their axes and marks those holding negative values
/// (to be wrapped). The mins and maxes of all of them are gathered into one small array and
/// read back once. Mask-derived indices need no check.
async fn check_bounds(p: &mut Plan, from_mask: &[bool], _layout: &Layout) -> Result<()> {
    let mut checked = Vec::new();
    let mut parts: Vec<Array> = Vec::new();
    for (k, adv) in p.adv.iter().enumerate() {
        if let Adv::Device(a) = adv {
            if from_mask[k] || a.size() == 0 {
                continue;
            }
            parts.push(crate::reduce::min(a, crate::reduce::Axis::All, false)?);
            parts.push(crate::reduce::max(a, crate::reduce::Axis::All, false)?);
            checked.push(k);
        }
    }
    if checked.is_empty() {
        return Ok(());
    }
    let device = p
        .device
        .clone()
        .ok_or_else(|| Error::invalid("index plan without a device"))?;
    let dt = device.default_int();
    // [min0, max0, min1, max1, ...] as one lazy expression: one kernel, one read-back.
    let n = parts.len();
    let pos: Vec<i32> = (0..n as i32).collect();
    let pos = Array::from_slice_on(&device, &pos, &[n])?;
    let mut bounds = parts[n - 1].astype(dt)?;
    for (j, part) in parts.iter().enumerate().take(n - 1).rev() {
        let here = crate::ufuncs::equal(&pos, j as i64)?;
        bounds = crate::ufuncs::where_(&here, &part.astype(dt)?, &bounds)?;
    }
    let host = bounds.to_host_async().await?;
    let values: Vec<i64> = match host.data {
        crate::HostData::I64(v) => v,
        crate::HostData::I32(v) => v.into_iter().map(i64::from).collect(),
        other => {
            return Err(Error::invalid(format!(
                "index bounds read back as {}",
                other.dtype()
            )))
        }
    };
    for (j, &k) in checked.iter().enumerate() {
        let (lo, hi) = (values[2 * j], values[2 * j + 1]);
        let len = p.view.shape[p.axes[k]];
        let axis = p.src_axes[k];
        if hi >= len as i64 {
            return Err(out_of_bounds(hi, axis, len));
        }
        if lo < -(len as i64) {
            return Err(out_of_bounds(lo, axis, len));
        }
        p.wrap[k] = lo < 0;
    }
    Ok(())
}

/// The two u32 bounds words of every index array marked in `p.checked`, over `p.shape`
/// (the order of [`IndexKernel::Gather`](kupfer_core::indexing::IndexKernel)'s roots), and
/// the decoder of the words the kernel keeps (their maxima) into NumPy's error message.
pub(crate) fn bounds_words(p: &Plan) -> Result<(Vec<Lazy>, BoundsReport)> {
    let mut words = Vec::new();
    let mut axes = Vec::new();
    for (k, adv) in p.adv.iter().enumerate() {
        let Adv::Device(x) = adv else { continue };
        if !p.checked[k] {
            continue;
        }
        let len = p.view.shape[p.axes[k]];
        let (buffer, layout) = x.read_buffer_and_layout()?;
        let leaf = Lazy::leaf(
            buffer,
            embed(&layout, &p.block, p.block_at, &p.shape)?,
            x.dtype(),
        );
        let (above, below) = out_of_bounds_words(leaf, x.dtype(), len)?;
        words.push(above);
        words.push(below);
        axes.push((p.src_axes[k], len));
    }
    Ok((words, BoundsReport { axes }))
}

/// Index arrays checked by a gather: (axis, length) of each, in the order of its words.
pub(crate) struct BoundsReport {
    axes: Vec<(usize, usize)>,
}

impl BoundsReport {
    /// Arrays checked.
    pub(crate) fn len(&self) -> usize {
        self.axes.len()
    }

    /// NumPy's message for the first array whose words (as the kernel left them) report an
    /// out-of-bounds index, naming its largest offending value (or most negative one).
    pub(crate) fn describe(&self, words: &[u32]) -> Option<String> {
        for (j, &(axis, len)) in self.axes.iter().enumerate() {
            let (above, below) = (words[2 * j], words[2 * j + 1]);
            let len_i = len as i64;
            let value = if above != 0 {
                len_i - 1 + i64::from(above)
            } else if below != 0 {
                -len_i - i64::from(below)
            } else {
                continue;
            };
            let message = out_of_bounds(value, axis, len).to_string();
            // Values beyond 2^31 past the axis are clamped on the device.
            let clamped = above > CLAMP || below > CLAMP;
            return Some(if clamped {
                message.replacen(&format!("index {value}"), "an index", 1)
            } else {
                message
            });
        }
        None
    }
}

/// Offending distances beyond this are clamped (the words are u32).
const CLAMP: u32 = 1 << 31;

/// `(above, below)`: u32 expressions, `i - len + 1` where `i >= len` and `-len - i` where
/// `i < -len` (0 elsewhere), computed without overflow in the index's own width.
fn out_of_bounds_words(i: Lazy, dtype: DType, len: usize) -> Result<(Lazy, Lazy)> {
    let wide = dtype.gpu_size() == 8;
    let work = if wide {
        dtype
    } else if dtype.is_signed_int() {
        DType::I32
    } else {
        DType::U32
    };
    let max = if work.is_signed_int() {
        if wide {
            i64::MAX as i128
        } else {
            i32::MAX as i128
        }
    } else if wide {
        u64::MAX as i128
    } else {
        u32::MAX as i128
    };
    let scalar = |v: i128| -> Result<Lazy> {
        let bytes = if work.is_signed_int() {
            crate::Scalar::Int(v as i64).encode(work)?
        } else if wide {
            (v as u64).to_le_bytes().to_vec()
        } else {
            (v as u32).to_le_bytes().to_vec()
        };
        Ok(Lazy::scalar(bytes, work))
    };
    let zero = u32_scalar(0);
    let i = i.cast(work);
    let len_w = len as i128;
    let above = if len_w > max {
        zero.clone()
    } else {
        // min(i, len + 2^31) - len + 1, in range for every width.
        let capped = if len_w + (CLAMP as i128) <= max {
            Lazy::binary(
                BinaryOp::Minimum,
                i.clone(),
                scalar(len_w + CLAMP as i128)?,
                work,
            )
        } else {
            i.clone()
        };
        let excess = Lazy::binary(BinaryOp::Subtract, capped, scalar(len_w)?, work);
        let word = u32_op(BinaryOp::Add, excess.cast(DType::U32), u32_scalar(1));
        let over = Lazy::binary(
            BinaryOp::GreaterEqual,
            i.clone(),
            scalar(len_w)?,
            DType::Bool,
        );
        Lazy::select(over, word, zero.clone(), DType::U32)
    };
    let min = if wide {
        i64::MIN as i128
    } else {
        i32::MIN as i128
    };
    let below = if !work.is_signed_int() || -len_w <= min {
        zero
    } else {
        // -len - max(i, -len - 2^31): in [1, 2^31] (an int32 2^31 wraps to the same bits).
        let floored = if -len_w - (CLAMP as i128) >= min {
            Lazy::binary(
                BinaryOp::Maximum,
                i.clone(),
                scalar(-len_w - CLAMP as i128)?,
                work,
            )
        } else {
            i.clone()
        };
        let short = Lazy::binary(BinaryOp::Subtract, scalar(-len_w)?, floored, work);
        let under = Lazy::binary(BinaryOp::Less, i, scalar(-len_w)?, DType::Bool);
        Lazy::select(under, short.cast(DType::U32), zero, DType::U32)
    };
    Ok((above, below))
}

/// `np.nonzero(m)` as device arrays of the default integer dtype (one compaction of the flat
/// indices, unravelled lazily). One read-back: the count.
pub(crate) async fn nonzero_async(m: &Array) -> Result<Vec<Array>> {
    let device = m.device().clone();
    let shape = if m.ndim() == 0 {
        vec![1]
    } else {
        m.shape().to_vec()
    };
    let flag = crate::ufuncs::not_equal(m, false)?.lazy()?;
    if m.ndim() == 1 && device.config().indexing.direct_compaction {
        // 1-D: the compaction writes the result's integers itself (no conversion launch).
        let index = Lazy::index().cast(device.default_int());
        let flat = crate::indexing::compact::compact(&device, &flag, &index, &shape)?
            .finish_async()
            .await?;
        return Ok(vec![flat]);
    }
    let flat = crate::indexing::compact::compact(&device, &flag, &Lazy::index(), &shape)?
        .finish_async()
        .await?;
    let dt = device.default_int();
    let nd = m.ndim().max(1);
    let mut out = Vec::with_capacity(nd);
    for j in 0..nd {
        let inner: usize = shape[j + 1..].iter().product();
        let mut c = flat.clone();
        if inner != 1 {
            c = crate::ufuncs::floor_divide(&c, inner as i64)?;
        }
        if j > 0 {
            c = crate::ufuncs::remainder(&c, shape[j] as i64)?;
        }
        let c = c.astype(dt)?;
        c.eval()?;
        out.push(c);
    }
    if m.ndim() == 0 {
        // NumPy 2 refuses nonzero of a 0-d array; the 0-d mask path reads its value instead.
        return Ok(out);
    }
    Ok(out)
}

/// The u32 element offset (into the indexed buffer) of every element of the plan's result,
/// over `p.shape`.
pub(crate) fn offsets(p: &Plan) -> Result<Lazy> {
    let mut constant = p.view.offset as i64;
    let mut terms: Vec<Lazy> = Vec::new();
    for j in p.basic_axes() {
        let s = p.view.strides[j];
        if p.view.shape[j] == 1 || s == 0 {
            continue;
        }
        terms.push(u32_op(
            BinaryOp::Multiply,
            coordinate(&p.shape, p.out_axis(j)),
            u32_scalar(s as i32 as u32),
        ));
    }
    for (k, adv) in p.adv.iter().enumerate() {
        let stride = p.view.strides[p.axes[k]];
        let len = p.view.shape[p.axes[k]];
        let value: Lazy = match adv {
            Adv::Host(v, s) if s.is_empty() => {
                constant += v[0] * stride as i64;
                continue;
            }
            Adv::Host(v, s) => {
                let vals: Vec<u32> = v.iter().map(|&x| x as u32).collect();
                let arr = Array::from_slice_on(p_device(p)?, &vals, s)?;
                arr.lazy()?
            }
            Adv::Device(a) => {
                let (buffer, layout) = a.read_buffer_and_layout()?;
                let leaf = Lazy::leaf(
                    buffer,
                    embed(&layout, &p.block, p.block_at, &p.shape)?,
                    a.dtype(),
                );
                let signed = a.dtype().is_signed_int();
                let v = if signed && p.wrap[k] {
                    let i = leaf.cast(DType::I32);
                    let neg = Lazy::binary(
                        BinaryOp::Less,
                        i.clone(),
                        Lazy::scalar(0i32.to_le_bytes().to_vec(), DType::I32),
                        DType::Bool,
                    );
                    let plus = Lazy::binary(
                        BinaryOp::Add,
                        i.clone(),
                        Lazy::scalar((len as i32).to_le_bytes().to_vec(), DType::I32),
                        DType::I32,
                    );
                    Lazy::select(neg, plus, i, DType::I32).cast(DType::U32)
                } else if signed {
                    leaf.cast(DType::I32).cast(DType::U32)
                } else {
                    leaf.cast(DType::U32)
                };
                terms.push(u32_op(
                    BinaryOp::Multiply,
                    v,
                    u32_scalar(stride as i32 as u32),
                ));
                continue;
            }
        };
        // Host arrays: uploaded, embedded like device ones.
        let Lazy { root, .. } = &value;
        let (buffer, layout) = match &**root {
            crate::fusion::Expr::Leaf { buffer, layout, .. } => (buffer.clone(), layout.clone()),
            _ => return Err(Error::invalid("host index upload is not a leaf")),
        };
        let leaf = Lazy::leaf(
            buffer,
            embed(&layout, &p.block, p.block_at, &p.shape)?,
            DType::U32,
        );
        terms.push(u32_op(
            BinaryOp::Multiply,
            leaf,
            u32_scalar(stride as i32 as u32),
        ));
    }
    let mut acc = u32_scalar(constant as i32 as u32);
    for t in terms {
        acc = u32_op(BinaryOp::Add, acc, t);
    }
    Ok(acc)
}

fn p_device(p: &Plan) -> Result<&crate::Device> {
    p.device
        .as_ref()
        .ok_or_else(|| Error::invalid("index plan without a device"))
}

/// An index array's layout placed in the result: broadcast to the block shape, its axes at
/// `block_at..`, stride 0 along every other result axis.
fn embed(layout: &Layout, block: &[usize], block_at: usize, shape: &[usize]) -> Result<Layout> {
    let b = layout.broadcast_to(block)?;
    let mut strides = vec![0isize; shape.len()];
    strides[block_at..block_at + block.len()].copy_from_slice(&b.strides);
    Ok(Layout {
        shape: shape.to_vec(),
        strides,
        offset: b.offset,
    })
}
