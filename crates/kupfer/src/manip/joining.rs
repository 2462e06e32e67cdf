//! Joining arrays: `concatenate`, `stack`, `hstack`, `vstack`, `dstack`, `column_stack`,
//! `append` and `block`. A join of materialised arrays is one kernel (`shaders/concat.wgsl`)
//! that writes each output element once; inputs are read in place through their strides
//! where their rows are evenly spaced. When an input is lazy (an unevaluated expression, or
//! an input of another dtype, whose cast is lazy), every input is written into its place by
//! a kernel of its own (the index module's scatter, reading the input's leaves through their
//! strides): a lazy input is evaluated once, straight into the result.

use super::launch::{join, JoinPart};
use super::reorder::{atleast_1d, atleast_2d, atleast_3d};
use crate::array::Array;
use kupfer_core::casting::{can_cast, Casting};
use kupfer_core::layout::normalize_axis;
use kupfer_core::promote::result_type;
use kupfer_core::{DType, Error, Layout, Result};

/// Element offset and row stride of `layout` seen as rows of its axes from `axis` on, when
/// those rows are contiguous and evenly spaced (no copy needed).
fn rows_in_place(layout: &Layout, axis: usize) -> Option<(usize, usize)> {
    let width: usize = layout.shape[axis..].iter().product();
    let mut expect = 1isize;
    for d in (axis..layout.shape.len()).rev() {
        if layout.shape[d] > 1 && layout.strides[d] != expect {
            return None;
        }
        expect *= layout.shape[d] as isize;
    }
    let outer: Vec<usize> = (0..axis).filter(|&d| layout.shape[d] > 1).collect();
    let row_stride = match outer.last() {
        None => width,
        Some(&last) => {
            for w in outer.windows(2) {
                let (a, b) = (w[0], w[1]);
                if layout.strides[a] != layout.strides[b] * layout.shape[b] as isize {
                    return None;
                }
            }
            usize::try_from(layout.strides[last]).ok()?
        }
    };
    Some((layout.offset, row_stride))
}

/// The dtype a join produces: `dtype` when given (each input must cast to it under
/// `same_kind`, NumPy's default), else the inputs' promoted type.
fn join_dtype(arrays: &[Array], dtype: Option<DType>) -> Result<DType> {
    match dtype {
        Some(d) => {
            for a in arrays {
                if !can_cast(a.dtype(), d, Casting::SameKind) {
                    return Err(Error::invalid(format!(
                        "Cannot cast array data from dtype('{}') to dtype('{d}') according to \
                         the rule 'same_kind'",
                        a.dtype()
                    )));
                }
            }
            Ok(d)
        }
        None => arrays[1..]
            .iter()
            .try_fold(arrays[0].dtype(), |acc, a| result_type(acc, a.dtype())),
    }
}

/// Joins arrays along an existing axis (`numpy.concatenate`); `axis = None` flattens them
/// first. Mixed dtypes promote as NumPy's do (with kupfer's no-widening rule for 32-bit
/// operands); `dtype` picks the result's (inputs cast under `same_kind`).
///
/// One kernel writes the result: each output element is copied from the input holding it.
///
/// ```
/// let a = kupfer::Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let b = kupfer::Array::from_slice(&[5.0f32, 6.0], &[1, 2])?;
/// let c = kupfer::concatenate(&[a, b], Some(0), None)?;
/// assert_eq!(c.shape(), &[3, 2]);
/// assert_eq!(c.to_vec::<f32>()?, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn concatenate(arrays: &[Array], axis: Option<isize>, dtype: Option<DType>) -> Result<Array> {
    if arrays.is_empty() {
        return Err(Error::invalid("need at least one array to concatenate"));
    }
    let arrays: Vec<Array> = match axis {
        None => arrays.iter().map(Array::ravel).collect::<Result<_>>()?,
        Some(_) => arrays.to_vec(),
    };
    let nd = arrays[0].ndim();
    if nd == 0 {
        return Err(Error::invalid(
            "zero-dimensional arrays cannot be concatenated",
        ));
    }
    for (i, a) in arrays.iter().enumerate().skip(1) {
        if a.ndim() != nd {
            return Err(Error::invalid(format!(
                "all the input arrays must have same number of dimensions, but the array at \
                 index 0 has {nd} dimension(s) and the array at index {i} has {} dimension(s)",
                a.ndim()
            )));
        }
    }
    let ax = normalize_axis(axis.unwrap_or(0), nd)?;
    let first = arrays[0].shape().to_vec();
    for (i, a) in arrays.iter().enumerate().skip(1) {
        for d in (0..nd).filter(|&d| d != ax) {
            if a.shape()[d] != first[d] {
                return Err(Error::invalid(format!(
                    "all the input array dimensions except for the concatenation axis must \
                     match exactly, but along dimension {d}, the array at index 0 has size {} \
                     and the array at index {i} has size {}",
                    first[d],
                    a.shape()[d]
                )));
            }
        }
    }
    let dt = join_dtype(&arrays, dtype)?;
    let device = arrays[0].device().clone();
    device.check(dt)?;
    let mut shape = first.clone();
    shape[ax] = arrays.iter().map(|a| a.shape()[ax]).sum();
    let rows: usize = shape[..ax].iter().product();
    if arrays.iter().any(|a| a.is_lazy() || a.dtype() != dt) {
        let widths: Vec<usize> = arrays
            .iter()
            .map(|a| a.shape()[ax..].iter().product())
            .collect();
        return join_into_place(&device, dt, &shape, &arrays, &widths);
    }
    let mut parts = Vec::with_capacity(arrays.len());
    for a in &arrays {
        let width: usize = a.shape()[ax..].iter().product();
        if width == 0 || rows == 0 {
            continue;
        }
        let a = if a.dtype() == dt {
            a.clone()
        } else {
            a.astype(dt)?
        };
        let in_place = if rows_in_place(&a.layout()?, ax).is_some() {
            let (buffer, layout) = a.read_buffer_and_layout()?;
            rows_in_place(&layout, ax).map(|(offset, stride)| (buffer, offset, stride))
        } else {
            None
        };
        let (buffer, offset, row_stride) = match in_place {
            Some(part) => part,
            None => {
                let (b, l) = a.ascontiguousarray()?.read_buffer_and_layout()?;
                (b, l.offset, width)
            }
        };
        parts.push(JoinPart {
            buffer,
            offset,
            row_stride,
            width,
        });
    }
    let out = join(&device, dt, rows, &parts)?;
    let shape: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    out.reshape(&shape)
}

/// Writes each of `arrays` into its place in a new C-contiguous array of `shape`: seen as
/// rows of `sum(widths)` elements (over the axes before the joining one), input `k` fills `widths[k]`
/// columns of every row after those of the inputs before it (its own elements read in C
/// order, `widths[k]` per row). One fused kernel per input: lazy inputs are evaluated into
/// place, cast to `dtype` on the way.
fn join_into_place(
    device: &crate::Device,
    dtype: DType,
    shape: &[usize],
    arrays: &[Array],
    widths: &[usize],
) -> Result<Array> {
    use crate::fusion::Lazy;
    use crate::indexing::launch::{launch_into, u32_op, u32_scalar, Dst};
    use kupfer_core::indexing::IndexKernel;
    use kupfer_core::BinaryOp;
    let n = kupfer_core::layout::checked_size(shape, dtype.host_size())?;
    crate::indexing::launch::check_size(n, "joining")?;
    let total: usize = widths.iter().sum();
    let bytes = (n.max(1) * dtype.gpu_size()) as u64;
    let buffer = std::sync::Arc::new(device.context().alloc(bytes.div_ceil(16) * 16)?);
    let out = Array::from_buffer(
        device.clone(),
        dtype,
        buffer.clone(),
        Layout::contiguous(shape),
    );
    let dst = Dst { buffer, same: None };
    let pred = Lazy::scalar(1u32.to_le_bytes().to_vec(), DType::Bool);
    let mut col0 = 0usize;
    for (a, &width) in arrays.iter().zip(widths) {
        a.device().same(device)?;
        let here = col0;
        col0 += width;
        if a.size() == 0 {
            continue;
        }
        // Element g of input k: row g / width, column col0 + g % width of the result.
        let g = Lazy::index();
        let row = u32_op(BinaryOp::FloorDivide, g.clone(), u32_scalar(width as u32));
        let col = u32_op(BinaryOp::Remainder, g, u32_scalar(width as u32));
        let off = u32_op(
            BinaryOp::Add,
            u32_op(BinaryOp::Multiply, row, u32_scalar(total as u32)),
            u32_op(BinaryOp::Add, col, u32_scalar(here as u32)),
        );
        let val = a
            .operand_within(
                Array::max_nodes() - 8,
                Array::max_leaves(device) - 1,
                a.shape(),
            )?
            .cast(dtype);
        launch_into(
            device,
            IndexKernel::Scatter,
            dtype,
            &[&pred, &off, &val],
            a.shape(),
            &dst,
            vec![],
        )?;
    }
    out.into_packed_result()
}

/// Joins arrays of one shape along a new axis (`numpy.stack`).
///
/// ```
/// let a = kupfer::Array::from_slice(&[1i32, 2], &[2])?;
/// let b = kupfer::Array::from_slice(&[3i32, 4], &[2])?;
/// let s = kupfer::stack(&[a, b], 1, None)?;
/// assert_eq!(s.shape(), &[2, 2]);
/// assert_eq!(s.to_vec::<i32>()?, [1, 3, 2, 4]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn stack(arrays: &[Array], axis: isize, dtype: Option<DType>) -> Result<Array> {
    if arrays.is_empty() {
        return Err(Error::invalid("need at least one array to stack"));
    }
    let shape = arrays[0].shape();
    if arrays.iter().any(|a| a.shape() != shape) {
        return Err(Error::invalid("all input arrays must have the same shape"));
    }
    let ax = normalize_axis(axis, shape.len() + 1)?;
    if arrays.iter().any(Array::is_lazy) {
        // Lazy inputs are written into place as they are (a new axis would materialise them).
        let dt = join_dtype(arrays, dtype)?;
        let device = arrays[0].device().clone();
        device.check(dt)?;
        for a in &arrays[1..] {
            a.device().same(&device)?;
        }
        let mut out = shape.to_vec();
        out.insert(ax, arrays.len());
        let width: usize = shape[ax..].iter().product();
        return join_into_place(&device, dt, &out, arrays, &vec![width; arrays.len()]);
    }
    let expanded = arrays
        .iter()
        .map(|a| a.expand_dims(ax as isize))
        .collect::<Result<Vec<_>>>()?;
    concatenate(&expanded, Some(ax as isize), dtype)
}

/// Joins arrays column-wise (`numpy.hstack`): along axis 1, or axis 0 for 1-D inputs.
pub fn hstack(arrays: &[Array], dtype: Option<DType>) -> Result<Array> {
    let arrs = arrays.iter().map(atleast_1d).collect::<Result<Vec<_>>>()?;
    let axis = if arrs.first().is_some_and(|a| a.ndim() == 1) {
        0
    } else {
        1
    };
    concatenate(&arrs, Some(axis), dtype)
}

/// Joins arrays row-wise (`numpy.vstack`): along axis 0 after making them at least 2-D.
pub fn vstack(arrays: &[Array], dtype: Option<DType>) -> Result<Array> {
    let arrs = arrays.iter().map(atleast_2d).collect::<Result<Vec<_>>>()?;
    concatenate(&arrs, Some(0), dtype)
}

/// Joins arrays depth-wise (`numpy.dstack`): along axis 2 after making them at least 3-D.
pub fn dstack(arrays: &[Array]) -> Result<Array> {
    let arrs = arrays.iter().map(atleast_3d).collect::<Result<Vec<_>>>()?;
    concatenate(&arrs, Some(2), None)
}

/// Joins 1-D arrays as the columns of a 2-D array (`numpy.column_stack`); 2-D inputs are
/// joined along axis 1 as they are.
pub fn column_stack(arrays: &[Array]) -> Result<Array> {
    let arrs = arrays
        .iter()
        .map(|a| match a.ndim() {
            0 => a.reshape(&[1, 1]),
            1 => a.reshape(&[-1, 1]),
            _ => Ok(a.clone()),
        })
        .collect::<Result<Vec<_>>>()?;
    concatenate(&arrs, Some(1), None)
}

/// `values` appended to `arr` (`numpy.append`): both flattened when `axis` is `None`.
pub fn append(arr: &Array, values: &Array, axis: Option<isize>) -> Result<Array> {
    match axis {
        None => concatenate(&[arr.ravel()?, values.ravel()?], Some(0), None),
        Some(ax) => concatenate(&[arr.clone(), values.clone()], Some(ax), None),
    }
}

/// A nested list of arrays for [`block`].
#[derive(Debug, Clone)]
pub enum Block {
    /// An array.
    Array(Array),
    /// A list of blocks (all of one depth).
    List(Vec<Block>),
}

impl From<Array> for Block {
    fn from(a: Array) -> Block {
        Block::Array(a)
    }
}

impl From<Vec<Block>> for Block {
    fn from(v: Vec<Block>) -> Block {
        Block::List(v)
    }
}

/// The depth of every array in `b` (they must agree) and the largest array rank.
fn block_depth(b: &Block, path: &mut Vec<usize>, first: &mut Option<usize>) -> Result<usize> {
    let index = |path: &[usize]| {
        let mut s = String::from("arrays");
        for i in path {
            s += &format!("[{i}]");
        }
        s
    };
    match b {
        Block::Array(a) => {
            let depth = path.len();
            match first {
                None => *first = Some(depth),
                Some(f) if *f != depth => {
                    return Err(Error::invalid(format!(
                        "List depths are mismatched. First element was at depth {f}, but \
                         there is an element at depth {depth} ({})",
                        index(path)
                    )))
                }
                _ => {}
            }
            Ok(a.ndim())
        }
        Block::List(items) => {
            if items.is_empty() {
                return Err(Error::invalid(format!(
                    "List at {} cannot be empty",
                    index(path)
                )));
            }
            let mut max = 0;
            for (i, item) in items.iter().enumerate() {
                path.push(i);
                max = max.max(block_depth(item, path, first)?);
                path.pop();
            }
            Ok(max)
        }
    }
}

fn assemble(b: &Block, depth: usize, list_ndim: usize, ndim: usize) -> Result<Array> {
    match b {
        Block::Array(a) => {
            let mut shape = vec![1isize; ndim - a.ndim()];
            shape.extend(a.shape().iter().map(|&s| s as isize));
            a.reshape(&shape)
        }
        Block::List(items) => {
            let parts = items
                .iter()
                .map(|i| assemble(i, depth + 1, list_ndim, ndim))
                .collect::<Result<Vec<_>>>()?;
            let axis = ndim as isize - (list_ndim - depth) as isize;
            concatenate(&parts, Some(axis), None)
        }
    }
}

/// Assembles an array from nested lists of blocks (`numpy.block`): the innermost lists join
/// along the last axis, the next ones along the second last, and so on.
pub fn block(arrays: &Block) -> Result<Array> {
    let mut first = None;
    let max_ndim = block_depth(arrays, &mut Vec::new(), &mut first)?;
    let list_ndim = first.unwrap_or(0);
    let ndim = max_ndim.max(list_ndim);
    let out = assemble(arrays, 0, list_ndim, ndim)?;
    if list_ndim == 0 {
        return out.copy();
    }
    Ok(out)
}
