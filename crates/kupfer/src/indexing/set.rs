//! Assignment through an index (`a[idx] = v`, `a[idx] += v`), in place: the write goes into
//! the array's buffer, so every view of the same memory sees it, as in NumPy.
//!
//! - The value is a scalar or an array broadcast to the selection, cast to the array's dtype
//!   as NumPy's assignment casts (unsafe casting; augmented assignment checks `same_kind`
//!   first, as NumPy's in-place operator on the selection does).
//! - A boolean mask of the array's shape with a scalar-like value is one predicated kernel
//!   over the array (`where(mask, v, a)` written in place). [`Array::update_masked`] makes
//!   the Mandelbrot update `Z[m] = Z[m] * Z[m] + C[m]` that one kernel too (the eval
//!   statement form is recognised by `kupfer eval`).
//! - Repeated integer indices: the highest position in the index wins (NumPy's sequential
//!   semantics), deterministically: a claim pass (`atomicMax` of the position per element)
//!   and a write pass (only the claiming position writes). Unique host lists skip the claim.
//!
//! Lazy expressions and in-place writes: a lazy array created before an assignment reads the
//! old values. Every still-lazy array that reads the written buffer is materialised before
//! the write is queued (`readers.rs`), except the value and mask themselves when nothing but
//! the assignment holds them (temporaries, which then fuse into the write); a value or index
//! that reads the destination anywhere but at the element being written is copied first.

use crate::array::Array;
use crate::device::Device;
use crate::fusion::{Expr, Lazy};
use crate::indexing::index::{check_mask, single_mask, Adv, Index, Plan};
use crate::indexing::launch::{launch_into, layout_offset, u32_op, u32_scalar, whole, Dst};
use crate::indexing::readers;
use crate::indexing::resolve::{offsets, resolve, Resolved};
use crate::scalar::Operand;
use kupfer_core::casting::{can_cast, Casting};
use kupfer_core::indexing::IndexKernel;
use kupfer_core::layout::{broadcast_shapes, size_of};
use kupfer_core::{BinaryOp, DType, Error, Layout, Result};
use kupfer_wgpu::GpuBuffer;
use std::collections::HashSet;
use std::sync::Arc;

/// A value ready to write: its expression (already of the destination dtype) and shape.
struct Value {
    lazy: Lazy,
    shape: Vec<usize>,
    array: Option<Array>,
}

fn value_of(dst: &Array, value: Operand) -> Result<Value> {
    let dtype = dst.dtype();
    match value {
        Operand::Scalar(s) => Ok(Value {
            lazy: Lazy::scalar(s.encode(dtype)?, dtype),
            shape: vec![],
            array: None,
        }),
        Operand::Array(v) => {
            v.device().same(dst.device())?;
            Ok(Value {
                lazy: v.lazy()?.cast(dtype),
                shape: v.shape().to_vec(),
                array: Some(v),
            })
        }
    }
}

/// Where an expression reads `buffer`: `None` never, `Some(true)` only through `same` (the
/// element being written), `Some(false)` anywhere else too.
fn reads_buffer(root: &Arc<Expr>, buffer: &Arc<GpuBuffer>, same: Option<&Layout>) -> Option<bool> {
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    let mut found = None;
    while let Some(e) = stack.pop() {
        if !seen.insert(Arc::as_ptr(e)) {
            continue;
        }
        match &**e {
            Expr::Leaf {
                buffer: b, layout, ..
            } => {
                if Arc::ptr_eq(b, buffer) {
                    if same == Some(layout) {
                        found.get_or_insert(true);
                    } else {
                        found = Some(false);
                    }
                }
            }
            Expr::Cast(x, _) | Expr::Unary(_, x, _) => stack.push(x),
            Expr::Binary(_, a, b, _) => stack.extend([a, b]),
            Expr::Select(c, a, b, _) => stack.extend([c, a, b]),
            Expr::Call(_, args, _, _) | Expr::Random(_, args, _) => stack.extend(args),
            // A packed buffer written in place (`ufunc.at`): the reader takes a copy.
            Expr::Packed { source, .. } => {
                if Arc::ptr_eq(source.buffer(), buffer) {
                    found = Some(false);
                }
            }
            Expr::Scalar { .. } | Expr::Index | Expr::Deferred(_) => {}
        }
    }
    found
}

/// True when the expression reads `buffer` at all.
pub(crate) fn reads_dst(lazy: &Lazy, buffer: &Arc<GpuBuffer>) -> bool {
    reads_buffer(&lazy.root, buffer, None).is_some()
}

/// `v` as an expression that does not read `buffer` except at `same`: copied when needed.
fn detach(
    device: &crate::Device,
    lazy: Lazy,
    shape: &[usize],
    buffer: &Arc<GpuBuffer>,
    same: Option<&Layout>,
) -> Result<Lazy> {
    match reads_buffer(&lazy.root, buffer, same) {
        Some(false) => {
            let copy = Array::from_lazy(device.clone(), shape.to_vec(), lazy);
            copy.eval()?;
            copy.lazy()
        }
        _ => Ok(lazy),
    }
}

/// NumPy's message for a value that does not broadcast to the selection.
fn value_shape_error(value: &[usize], selection: &[usize], advanced: bool) -> Error {
    let f = |s: &[usize]| {
        let parts: Vec<String> = s.iter().map(|d| d.to_string()).collect();
        if parts.len() == 1 {
            format!("({},)", parts[0])
        } else {
            format!("({})", parts.join(","))
        }
    };
    if advanced {
        Error::invalid(format!(
            "shape mismatch: value array of shape {} could not be broadcast to indexing result \
             of shape {}",
            f(value),
            f(selection)
        ))
    } else {
        Error::invalid(format!(
            "could not broadcast input array from shape {} into shape {}",
            f(value),
            f(selection)
        ))
    }
}

fn check_broadcast(value: &[usize], selection: &[usize], advanced: bool) -> Result<()> {
    match broadcast_shapes(value, selection) {
        Ok(s) if s == selection => Ok(()),
        _ => Err(value_shape_error(value, selection, advanced)),
    }
}

/// `KUPFER_PACKED_SET` (read once): `old` writes contiguous ranges of packed storage as
/// before (a C-contiguous range from a word boundary packed by a fused kernel and copied
/// with a buffer copy, the last partial word and every other range by the per-element
/// packed scatter); by default rows of consecutive elements are written word by word.
fn packed_rows_write() -> bool {
    static OLD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    !*OLD.get_or_init(|| std::env::var("KUPFER_PACKED_SET").is_ok_and(|v| v == "old"))
}

/// True when the plan may write one element twice (then the claim pass runs).
fn may_repeat(p: &Plan) -> bool {
    let arrays: Vec<&Adv> = p.adv.iter().filter(|a| size_of(a.shape()) > 1).collect();
    match arrays.as_slice() {
        [] => false,
        [Adv::Host(v, _)] => {
            let mut seen = HashSet::with_capacity(v.len());
            !v.iter().all(|x| seen.insert(*x))
        }
        _ => true,
    }
}

fn true_pred() -> Lazy {
    Lazy::scalar(1u32.to_le_bytes().to_vec(), DType::Bool)
}

/// `dst[positions[i]] = values[i]` for a trusted permutation (distinct, in-bounds u32
/// positions, as a sort's): one scatter kernel, no bounds check and no last-write claims.
/// `dst` is a fresh C-contiguous array nothing else reads yet.
pub(crate) fn scatter_permutation(dst: &Array, positions: &Array, values: &Lazy) -> Result<()> {
    let (buffer, _) = dst.buffer_and_layout()?;
    let off = positions.lazy()?.cast(DType::U32);
    let val = values.clone().cast(dst.dtype());
    launch_into(
        dst.device(),
        IndexKernel::Scatter,
        dst.dtype(),
        &[&true_pred(), &off, &val],
        positions.shape(),
        &Dst { buffer, same: None },
        vec![],
    )
}

impl Array {
    /// NumPy assignment `a[index] = value`, async (the browser's form). See [`Array::set`].
    pub async fn set_async(&self, index: &[Index], value: impl Into<Operand>) -> Result<()> {
        let value = value.into();
        let device = self.device().clone();
        let (buffer, layout) = self.write_buffer_and_layout()?;
        let v = value_of(self, value)?;
        let mask_only = single_mask(index, self.ndim());
        if let Some(mask) = mask_only {
            check_mask(mask.shape(), self.shape(), 0)?;
            mask.device().same(&device)?;
            if v.shape.len() <= 1 && size_of(&v.shape) == 1 {
                let pred = detach(&device, mask.lazy()?, mask.shape(), &buffer, Some(&layout))?;
                let val = detach(&device, v.lazy, &v.shape, &buffer, Some(&layout))?;
                return self.write(&buffer, &layout, pred, val, mask, v.array.as_ref());
            }
            if v.shape.len() > 1 {
                return Err(Error::invalid(format!(
                    "NumPy boolean array indexing assignment requires a 0 or 1-dimensional \
                     input, input has {} dimensions",
                    v.shape.len()
                )));
            }
        }
        match resolve(self, &layout, index, false).await? {
            Resolved::Basic(args) => {
                let view = layout.slice(&args)?;
                check_broadcast(&v.shape, &view.shape, false)?;
                // Reads of the element being written (`a[1:] = a[1:] * 2`) fuse in place.
                let same = view.broadcast_to(&view.shape)?;
                let val = detach(&device, v.lazy, &v.shape, &buffer, Some(&same))?;
                let off = layout_offset(&view);
                let keep: Vec<&Array> = v.array.iter().collect();
                readers::before_write(&buffer, &keep)?;
                let (fits, val) = if packed_rows_write() {
                    self.write_packed_rows(&buffer, &view, &v.shape, val)?
                } else {
                    self.copy_whole_words(&buffer, &view, &v.shape, val)?
                };
                if fits {
                    return Ok(());
                }
                self.launch_write(
                    &buffer,
                    off,
                    true_pred(),
                    val,
                    &view.shape,
                    false,
                    Some(&view),
                )
            }
            Resolved::Plan(mut p) => {
                if let (Some(_), [n]) = (&mask_only, v.shape.as_slice())
                    && *n != size_of(&p.shape)
                    && *n != 1
                {
                    return Err(Error::invalid(format!(
                        "NumPy boolean array indexing assignment cannot assign {n} input \
                             values to the {} output values where the mask is true",
                        size_of(&p.shape)
                    )));
                }
                check_broadcast(&v.shape, &p.shape, true)?;
                // Index arrays that live in the destination buffer are copied first.
                for adv in p.adv.iter_mut() {
                    if let Adv::Device(a) = adv
                        && a.shares_storage(self)?
                    {
                        *a = a.copy()?;
                    }
                }
                let val = detach(&device, v.lazy, &v.shape, &buffer, None)?;
                let off = offsets(&p)?;
                let repeat = may_repeat(&p);
                self.write_at(
                    &buffer,
                    off,
                    true_pred(),
                    val,
                    &p.shape,
                    v.array.as_ref(),
                    repeat,
                )
            }
        }
    }

    /// Predicated write over the whole array (`where(pred, val, a)` in place).
    fn write(
        &self,
        buffer: &Arc<GpuBuffer>,
        layout: &Layout,
        pred: Lazy,
        val: Lazy,
        mask: &Array,
        value: Option<&Array>,
    ) -> Result<()> {
        let keep: Vec<&Array> = std::iter::once(mask).chain(value).collect();
        readers::before_write(buffer, &keep)?;
        let off = layout_offset(layout);
        self.launch_write(buffer, off, pred, val, self.shape(), false, Some(layout))
    }

    /// Write of `val` at offsets `off` over `shape`.
    #[allow(clippy::too_many_arguments)]
    fn write_at(
        &self,
        buffer: &Arc<GpuBuffer>,
        off: Lazy,
        pred: Lazy,
        val: Lazy,
        shape: &[usize],
        value: Option<&Array>,
        repeat: bool,
    ) -> Result<()> {
        let keep: Vec<&Array> = value.into_iter().collect();
        readers::before_write(buffer, &keep)?;
        self.launch_write(buffer, off, pred, val, shape, repeat, None)
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_write(
        &self,
        buffer: &Arc<GpuBuffer>,
        off: Lazy,
        pred: Lazy,
        val: Lazy,
        shape: &[usize],
        repeat: bool,
        same: Option<&Layout>,
    ) -> Result<()> {
        let device = self.device();
        if self.is_packed_buffer(buffer)? {
            return self.launch_packed_write(buffer, off, pred, val, shape, repeat);
        }
        if !Arc::ptr_eq(&self.buffer_and_layout()?.0, buffer) {
            // The packed storage taken for this write turned into words meanwhile (nothing
            // in the assignment does that; checked rather than writing a stale buffer).
            return Err(Error::invalid(
                "internal: the storage changed during an assignment",
            ));
        }
        let dst = Dst {
            buffer: buffer.clone(),
            same: same.cloned(),
        };
        if !repeat {
            return launch_into(
                device,
                IndexKernel::Scatter,
                self.dtype(),
                &[&pred, &off, &val],
                shape,
                &dst,
                vec![],
            );
        }
        let elements = (buffer.size() as usize).div_ceil(self.dtype().gpu_size());
        let win = claim_window(device, self.dtype(), &pred, &off, shape, elements)?;
        launch_into(
            device,
            IndexKernel::ScatterClaimed,
            self.dtype(),
            &[&pred, &off, &val],
            shape,
            &dst,
            vec![whole(&win)],
        )
    }

    /// An assignment of `val` (of shape `vshape`) to a `view` of packed storage `buffer`
    /// made of rows of consecutive elements (a C-contiguous view, or rows of one: `m[2:5, 1:7]`)
    /// as a straight word-wise write (`packed::write_rows`): a scalar fills the words, a
    /// packed array of the same rows is copied from its words at any offset, and any other
    /// value is packed by its own fused kernel first. Only each row's partial end words take
    /// atomics. Gives `val` back, unused, when the write is not of that form.
    fn write_packed_rows(
        &self,
        buffer: &Arc<GpuBuffer>,
        view: &Layout,
        vshape: &[usize],
        val: Lazy,
    ) -> Result<(bool, Lazy)> {
        let dtype = self.dtype();
        let Some(rows) = crate::packed::Rows::of(view) else {
            return Ok((false, val));
        };
        let scalar_like = size_of(vshape) == 1;
        if !(scalar_like || vshape == view.shape.as_slice()) || !self.is_packed_buffer(buffer)? {
            return Ok((false, val));
        }
        let device = self.device();
        let written = match &*val.root {
            Expr::Scalar { bytes, dtype: d } if *d == dtype && bytes.len() >= 4 => {
                let word = [bytes[0], bytes[1], bytes[2], bytes[3]];
                let source = crate::packed::RowSource::Fill(u32::from_le_bytes(word));
                crate::packed::write_rows(device, dtype, buffer, rows, source)?
            }
            Expr::Packed { source, layout }
                if source.dtype() == dtype
                    && !Arc::ptr_eq(source.buffer(), buffer)
                    && layout.shape == view.shape
                    && crate::packed::Rows::of(layout).is_some_and(|r| r.rows == rows.rows) =>
            {
                let Some(from) = crate::packed::Rows::of(layout) else {
                    return Ok((false, val));
                };
                let source = crate::packed::RowSource::Packed {
                    buffer: source.buffer(),
                    rows: from,
                };
                crate::packed::write_rows(device, dtype, buffer, rows, source)?
            }
            _ => {
                let packed = Array::from_lazy(device.clone(), view.shape.clone(), val.clone());
                let Some((src, offset)) = packed.packed_contiguous()? else {
                    return Ok((false, val));
                };
                let from = crate::packed::Rows {
                    first: offset,
                    rows: rows.rows,
                    cols: rows.cols,
                    stride: rows.cols,
                };
                let source = crate::packed::RowSource::Packed {
                    buffer: &src,
                    rows: from,
                };
                crate::packed::write_rows(device, dtype, buffer, rows, source)?
            }
        };
        Ok((written, val))
    }

    /// An assignment of `val` (of shape `vshape`) to the C-contiguous `view` of packed
    /// storage `buffer` that starts at a word and covers at least one: the value is packed by
    /// its own fused kernel and its whole words are copied into place (no atomics); the last
    /// elements of a partial word follow by the packed scatter. Gives `val` back, unused,
    /// when the write is not of that form.
    fn copy_whole_words(
        &self,
        buffer: &Arc<GpuBuffer>,
        view: &Layout,
        vshape: &[usize],
        val: Lazy,
    ) -> Result<(bool, Lazy)> {
        let per = kupfer_core::packing::per_word(self.dtype());
        let n = size_of(&view.shape);
        let fits = n > 0
            && (vshape.is_empty() || vshape == view.shape.as_slice())
            && view.is_c_contiguous()
            && view.offset.is_multiple_of(per)
            && n >= per
            && self.is_packed_buffer(buffer)?;
        if !fits {
            return Ok((false, val));
        }
        let packed = Array::from_lazy(self.device().clone(), view.shape.clone(), val.clone());
        let Some((src, 0)) = packed.packed_contiguous()? else {
            return Ok((false, val));
        };
        let whole = n / per;
        let at = (view.offset / per * 4) as u64;
        self.device()
            .context()
            .copy_buffer(&src, 0, buffer, at, whole as u64 * 4);
        let rest = n - whole * per;
        if rest > 0 {
            // The last elements, in a word of their own, by the packed scatter.
            let tail = packed
                .reshape(&[n as isize])?
                .slice(&crate::s![whole * per..])?;
            let first = u32_scalar((view.offset + whole * per) as u32);
            let off = u32_op(BinaryOp::Add, first, Lazy::index());
            launch_into(
                self.device(),
                IndexKernel::ScatterPacked { claimed: false },
                self.dtype(),
                &[&true_pred(), &off, &tail.lazy()?],
                &[rest],
                &Dst {
                    buffer: buffer.clone(),
                    same: None,
                },
                vec![],
            )?;
        }
        Ok((true, val))
    }

    /// [`Array::launch_write`] into packed storage: each element's bits of its word are
    /// replaced atomically (one `atomicXor`) (`IndexKernel::ScatterPacked`), so neighbours written by other
    /// threads of the same kernel survive; repeated indices are claimed per element first.
    fn launch_packed_write(
        &self,
        buffer: &Arc<GpuBuffer>,
        off: Lazy,
        pred: Lazy,
        val: Lazy,
        shape: &[usize],
        repeat: bool,
    ) -> Result<()> {
        let device = self.device();
        let dst = Dst {
            buffer: buffer.clone(),
            same: None,
        };
        if !repeat {
            return launch_into(
                device,
                IndexKernel::ScatterPacked { claimed: false },
                self.dtype(),
                &[&pred, &off, &val],
                shape,
                &dst,
                vec![],
            );
        }
        let per = kupfer_core::packing::per_word(self.dtype());
        let elements = (buffer.size() as usize / 4) * per;
        let win = claim_window(device, self.dtype(), &pred, &off, shape, elements)?;
        launch_into(
            device,
            IndexKernel::ScatterPacked { claimed: true },
            self.dtype(),
            &[&pred, &off, &val],
            shape,
            &dst,
            vec![whole(&win)],
        )
    }

    /// NumPy assignment `a[index] = value`, in place: every index [`Array::get`] takes, a
    /// scalar or an array broadcast to the selection (cast to `a`'s dtype as NumPy casts on
    /// assignment). Views of the same memory see the write; lazy arrays created before it
    /// keep the old values. Repeated indices: the last one wins.
    ///
    /// ```
    /// use kupfer::idx;
    /// let a = kupfer::zeros(&[2, 3], Some(kupfer::DType::F32))?;
    /// a.set(&idx![.., 1..], 7.0)?;
    /// a.set(&idx![vec![0i64, 0], vec![0i64, 0]], &kupfer::Array::from_slice(&[1.0f32, 2.0], &[2])?)?;
    /// assert_eq!(a.to_vec::<f32>()?, vec![2.0, 7.0, 7.0, 0.0, 7.0, 7.0]);
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set(&self, index: &[Index], value: impl Into<Operand>) -> Result<()> {
        pollster::block_on(self.set_async(index, value))
    }

    /// `a[mask] = value` for a boolean mask.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_mask(&self, mask: &Array, value: impl Into<Operand>) -> Result<()> {
        self.set(&[Index::Array(mask.clone())], value)
    }

    /// Augmented assignment `a[index] = f(a[index])` (`a[m] += 1` is
    /// `a.update(&idx![&m], |x| kupfer::add(x, 1))`), async. The result must cast to `a`'s
    /// dtype under `same_kind`, as NumPy's in-place operators require.
    pub async fn update_async(
        &self,
        index: &[Index],
        f: impl FnOnce(&Array) -> Result<Array>,
    ) -> Result<()> {
        if let Some(mask) = single_mask(index, self.ndim()) {
            return self.update_masked(mask, |m| f(&m.get(self)?));
        }
        let old = self.get_async(index).await?;
        let new = f(&old)?;
        same_kind(new.dtype(), self.dtype())?;
        self.set_async(index, new).await
    }

    /// Augmented assignment `a[index] = f(a[index])`; see [`Array::update_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn update(&self, index: &[Index], f: impl FnOnce(&Array) -> Result<Array>) -> Result<()> {
        pollster::block_on(self.update_async(index, f))
    }

    /// The fused masked update `a[mask] = f(...)` where `f` is elementwise over masked reads
    /// of arrays of `a`'s shape: one kernel over the array, `a = where(mask, f, a)` written in
    /// place, never a gather, a temporary and a scatter. `f` receives a [`MaskedReads`]
    /// whose `get(&x)` stands for `x[mask]`; it must combine them with elementwise
    /// operations only (a reduction inside `f` would see every element, not the masked
    /// ones). Needs no read-back.
    ///
    /// ```
    /// use kupfer as kp;
    /// let z = kp::Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// let c = kp::Array::from_slice(&[1.0f32, 1.0, 1.0], &[3])?;
    /// let mask = kp::less(&z, 2.5)?;
    /// // Z[mask] = Z[mask] * Z[mask] + C[mask]
    /// z.update_masked(&mask, |m| Ok(&m.get(&z)? * &m.get(&z)? + &m.get(&c)?))?;
    /// assert_eq!(z.to_vec::<f32>()?, vec![2.0, 5.0, 3.0]);
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn update_masked(
        &self,
        mask: &Array,
        f: impl FnOnce(&MaskedReads) -> Result<Array>,
    ) -> Result<()> {
        if mask.dtype() != DType::Bool {
            return Err(Error::invalid(
                "update_masked needs a boolean mask (integer indices: use update)",
            ));
        }
        if mask.ndim() != self.ndim() {
            return Err(Error::invalid(format!(
                "boolean index did not match indexed array: mask has {} dimensions, the array {}",
                mask.ndim(),
                self.ndim()
            )));
        }
        check_mask(mask.shape(), self.shape(), 0)?;
        mask.device().same(self.device())?;
        let (buffer, layout) = self.write_buffer_and_layout()?;
        let reads = MaskedReads {
            shape: self.shape().to_vec(),
        };
        let value = f(&reads)?;
        value.device().same(self.device())?;
        same_kind(value.dtype(), self.dtype())?;
        let vshape = value.shape().to_vec();
        check_broadcast(&vshape, self.shape(), true)?;
        let device = self.device().clone();
        let pred = detach(&device, mask.lazy()?, mask.shape(), &buffer, Some(&layout))?;
        let val = detach(
            &device,
            value.lazy()?.cast(self.dtype()),
            &vshape,
            &buffer,
            Some(&layout),
        )?;
        self.write(&buffer, &layout, pred, val, mask, Some(&value))
    }
}

/// NumPy's `same_kind` rule for the result of an in-place operator.
fn same_kind(from: DType, to: DType) -> Result<()> {
    if can_cast(from, to, Casting::SameKind) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "Cannot cast ufunc output from dtype('{from}') to dtype('{to}') with casting rule \
             'same_kind'"
        )))
    }
}

/// The masked reads of [`Array::update_masked`]: `get(&x)` is `x[mask]` inside the fused
/// update (it returns `x` itself, shape-checked: the update runs over the whole array).
pub struct MaskedReads {
    shape: Vec<usize>,
}

impl MaskedReads {
    /// `x[mask]`: `x` must have the mask's shape.
    pub fn get(&self, x: &Array) -> Result<Array> {
        if x.shape() != self.shape.as_slice() {
            return Err(Error::invalid(format!(
                "boolean index did not match indexed array: mask shape {:?}, array shape {:?}",
                self.shape,
                x.shape()
            )));
        }
        Ok(x.clone())
    }
}

/// The claim window of a scatter with repeated indices: one u32 per element of the
/// destination's storage (`elements`), in which the `Claim` kernel records which of the
/// indices writing an element is the last (NumPy's assignment keeps the last write), for the
/// claimed scatters that follow.
pub(crate) fn claim_window(
    device: &Device,
    dtype: DType,
    pred: &Lazy,
    off: &Lazy,
    shape: &[usize],
    elements: usize,
) -> Result<Arc<GpuBuffer>> {
    let win = crate::creation::full_on(device, &[elements], 0i64, Some(DType::U32))?;
    let (win, _) = win.buffer_and_layout()?;
    crate::indexing::launch::launch(
        device,
        IndexKernel::Claim,
        dtype,
        &[pred, off],
        shape,
        vec![whole(&win)],
        None,
        0,
        0,
    )?;
    Ok(win)
}
