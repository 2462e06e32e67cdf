//! Kernel choice, uniform block and dispatch of a checked matmul [`Plan`].

use super::{split_k, tune};
use super::{MatmulPrecision, Plan};
use crate::array::Array;
use crate::device::Device;
use crate::kernels;
use kupfer_core::layout::{collapse_axes, contiguous_strides, size_of};
use kupfer_core::matmul::{
    self as km, CoopConfig, GemvShape, Load, MatmulKernel, MatmulProgram, TileConfig,
};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer};
use std::sync::Arc;

/// A kernel forced by the caller (tests and benchmarks), instead of the automatic choice.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Force {
    /// The one-thread-per-output kernel.
    Simple,
    /// The gemv kernel (only for M == 1 or N == 1).
    Gemv,
    /// The tiled SIMT kernel with this tile configuration (float16/float32 results).
    Tiled(TileConfig),
    /// The cooperative-matrix kernel (adapters with tensor cores only).
    Coop(CoopConfig),
}

/// The operands' placement for one launch: everything in the uniform block.
#[derive(Debug, Clone)]
pub(crate) struct Geometry {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub oa: isize,
    pub ob: isize,
    pub sam: isize,
    pub sak: isize,
    pub sbk: isize,
    pub sbn: isize,
    pub bd: [usize; 4],
    pub ba: [isize; 4],
    pub bb: [isize; 4],
    pub a_dtype: DType,
    pub b_dtype: DType,
    pub a_buf: Arc<GpuBuffer>,
    pub b_buf: Arc<GpuBuffer>,
}

impl Geometry {
    /// The geometry of `plan`, or None when the batch axes do not collapse to four.
    fn new(plan: &Plan) -> Option<Geometry> {
        let nb = plan.batch.len();
        let (la, lb) = (&plan.a.layout, &plan.b.layout);
        let (cshape, cstrides) = collapse_axes(
            &plan.batch,
            &[
                contiguous_strides(&plan.batch),
                la.strides[..nb].to_vec(),
                lb.strides[..nb].to_vec(),
            ],
        );
        if cshape.len() > 4 {
            return None;
        }
        let pad = 4 - cshape.len();
        let (mut bd, mut ba, mut bb) = ([1usize; 4], [0isize; 4], [0isize; 4]);
        bd[pad..].copy_from_slice(&cshape);
        ba[pad..].copy_from_slice(&cstrides[1]);
        bb[pad..].copy_from_slice(&cstrides[2]);
        Some(Geometry {
            m: plan.m,
            n: plan.n,
            k: plan.k,
            batch: plan.batch_size(),
            oa: la.offset as isize,
            ob: lb.offset as isize,
            sam: la.strides[nb],
            sak: la.strides[nb + 1],
            sbk: lb.strides[nb],
            sbn: lb.strides[nb + 1],
            bd,
            ba,
            bb,
            a_dtype: plan.a.array.dtype(),
            b_dtype: plan.b.array.dtype(),
            a_buf: plan.a.buffer.clone(),
            b_buf: plan.b.buffer.clone(),
        })
    }

    /// The same product with the operands' roles swapped for a vector on the left:
    /// `out[j] = sum_k B[k, j] * A[0, k]` as matrix (B viewed as N x K) times vector.
    fn swapped_for_gemv(&self) -> Geometry {
        Geometry {
            m: self.n,
            n: 1,
            k: self.k,
            batch: self.batch,
            oa: self.ob,
            ob: self.oa,
            sam: self.sbn,
            sak: self.sbk,
            sbk: self.sak,
            sbn: 0,
            bd: self.bd,
            ba: self.bb,
            bb: self.ba,
            a_dtype: self.b_dtype,
            b_dtype: self.a_dtype,
            a_buf: self.b_buf.clone(),
            b_buf: self.a_buf.clone(),
        }
    }

    /// The uniform block (`Params` in `shaders/matmul_common.wgsl`).
    pub(crate) fn params(&self) -> Result<Vec<u8>> {
        self.params_from(0)
    }

    /// The uniform block of a dispatch whose first batch index is `z0`.
    fn params_from(&self, z0: usize) -> Result<Vec<u8>> {
        let u = |v: usize| {
            u32::try_from(v).map_err(|_| Error::unsupported("matmul dimensions beyond 2^32"))
        };
        let i = |v: isize| {
            i32::try_from(v)
                .map(|x| x as u32)
                .map_err(|_| Error::unsupported("matmul strides or offsets beyond 2^31"))
        };
        let mut words = vec![
            u(self.m)?,
            u(self.n)?,
            u(self.k)?,
            u(self.batch)?,
            i(self.oa)?,
            i(self.ob)?,
            i(self.sam)?,
            i(self.sak)?,
            i(self.sbk)?,
            i(self.sbn)?,
            0,
            u(z0)?,
        ];
        for d in self.bd {
            words.push(u(d)?);
        }
        for s in self.ba.iter().chain(&self.bb) {
            words.push(i(*s)?);
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        debug_assert_eq!(bytes.len(), km::PARAMS_SIZE);
        Ok(bytes)
    }

    /// Largest element index each operand may touch stays within i32 (the kernels index in
    /// i32).
    fn check_extent(&self) -> Result<()> {
        for buf in [&self.a_buf, &self.b_buf] {
            if buf.size() / 2 > i32::MAX as u64 {
                return Err(Error::unsupported(
                    "matmul operands of more than 2^31 elements",
                ));
            }
        }
        Ok(())
    }

    /// True when A's offset and its strides other than the unit one (`other` and the batch
    /// strides) are multiples of 4.
    fn a_aligned(&self, other: isize) -> bool {
        self.a_aligned_to(other, 4)
    }

    fn b_aligned(&self, other: isize) -> bool {
        self.b_aligned_to(other, 4)
    }

    /// True when A's offset, `other` and the batch strides are multiples of `v`.
    fn a_aligned_to(&self, other: isize, v: isize) -> bool {
        self.oa % v == 0 && other % v == 0 && self.ba.iter().all(|s| s % v == 0)
    }

    fn b_aligned_to(&self, other: isize, v: isize) -> bool {
        self.ob % v == 0 && other % v == 0 && self.bb.iter().all(|s| s % v == 0)
    }

    /// vec4 load of A in the tiled kernel computing `out`, where the layout allows one (A
    /// already in the accumulator's dtype: float32, or float64 for a float64 result).
    pub(crate) fn load_a(&self, out: DType) -> Load {
        if !km::tiled_vec_loadable(self.a_dtype, out) {
            Load::Scalar
        } else if self.sak == 1 && self.k.is_multiple_of(4) && self.a_aligned(self.sam) {
            Load::VecK
        } else if self.sam == 1 && self.m.is_multiple_of(4) && self.a_aligned(self.sak) {
            Load::VecOuter
        } else {
            Load::Scalar
        }
    }

    /// vec4 load of B in the tiled kernel computing `out`, where the layout allows one.
    pub(crate) fn load_b(&self, out: DType) -> Load {
        if !km::tiled_vec_loadable(self.b_dtype, out) {
            Load::Scalar
        } else if self.sbn == 1 && self.n.is_multiple_of(4) && self.b_aligned(self.sbk) {
            Load::VecOuter
        } else if self.sbk == 1 && self.k.is_multiple_of(4) && self.b_aligned(self.sbn) {
            Load::VecK
        } else {
            Load::Scalar
        }
    }

    /// Loads of the cooperative-matrix kernel: along k for A, along n for B, 8 float16
    /// elements (16 bytes) at a time where the layout allows, else 4, else one.
    pub(crate) fn coop_loads(&self) -> (Load, Load) {
        let a = if self.sak != 1 {
            Load::Scalar
        } else if self.a_dtype == DType::F16
            && self.k.is_multiple_of(8)
            && self.a_aligned_to(self.sam, 8)
        {
            Load::Vec8K
        } else if self.k.is_multiple_of(4) && self.a_aligned(self.sam) {
            Load::VecK
        } else {
            Load::Scalar
        };
        let b = if self.sbn != 1 {
            Load::Scalar
        } else if self.b_dtype == DType::F16
            && self.n.is_multiple_of(8)
            && self.b_aligned_to(self.sbk, 8)
        {
            Load::Vec8Outer
        } else if self.n.is_multiple_of(4) && self.b_aligned(self.sbk) {
            Load::VecOuter
        } else {
            Load::Scalar
        };
        (a, b)
    }

    fn gemv_shape(&self, out: DType) -> GemvShape {
        if self.sam.unsigned_abs() == 1 && self.sak.unsigned_abs() != 1 {
            return GemvShape::Cols;
        }
        let vec4 = out == DType::F32
            && self.a_dtype == DType::F32
            && self.b_dtype == DType::F32
            && self.sak == 1
            && self.sbk == 1
            && self.k.is_multiple_of(4)
            && self.a_aligned(self.sam)
            && self.b_aligned(0);
        let per_lane = if vec4 { self.k / 4 } else { self.k };
        // Few rows (a dot product, a short matrix): more lanes per row keep the GPU busy.
        let max_lanes = if self.m <= 1024 { 256 } else { 32 };
        let lanes = (per_lane / 8).next_power_of_two().clamp(4, max_lanes) as u32;
        GemvShape::Rows { lanes, vec4 }
    }
}

/// Runs a non-empty plan.
pub(crate) fn run(plan: &Plan, precision: MatmulPrecision) -> Result<Array> {
    run_forced(plan, precision, None)
}

/// Runs a non-empty plan with the automatic kernel choice, or `force`'s.
pub(crate) fn run_forced(
    plan: &Plan,
    precision: MatmulPrecision,
    force: Option<Force>,
) -> Result<Array> {
    let device = plan.a.array.device().clone();
    let buffer = product(plan, precision, force, None)?
        .ok_or_else(|| Error::invalid("matmul without an epilogue"))?;
    let flat = Array::from_buffer(
        device,
        plan.out,
        buffer,
        Layout::contiguous(&[size_of(&plan.out_shape)]),
    )
    .into_packed_result()?;
    let dims: Vec<isize> = plan.out_shape.iter().map(|&d| d as isize).collect();
    flat.reshape(&dims)
}

/// Runs a non-empty plan (with `epilogue` applied to each product before it is stored) and
/// returns C, contiguous `batch x m x n`; None when the chosen kernel cannot take the
/// epilogue (gemv).
pub(crate) fn product(
    plan: &Plan,
    precision: MatmulPrecision,
    force: Option<Force>,
    epilogue: Option<&Epilogue>,
) -> Result<Option<Arc<GpuBuffer>>> {
    let device = plan.a.array.device().clone();
    let geo = match Geometry::new(plan) {
        Some(g) => g,
        None => {
            // More than four batch axes that do not merge: copy both operands contiguous
            // (their batch axes then collapse to one).
            let contiguous = |o: &super::Operand| -> Result<super::Operand> {
                let view = Array::from_buffer(
                    device.clone(),
                    o.array.dtype(),
                    o.buffer.clone(),
                    o.layout.clone(),
                );
                let c = view.ascontiguousarray()?;
                let (buffer, layout) = c.buffer_and_layout()?;
                Ok(super::Operand {
                    array: c,
                    buffer,
                    layout,
                })
            };
            let p2 = Plan {
                a: contiguous(&plan.a)?,
                b: contiguous(&plan.b)?,
                batch: plan.batch.clone(),
                m: plan.m,
                n: plan.n,
                k: plan.k,
                out: plan.out,
                out_shape: plan.out_shape.clone(),
            };
            Geometry::new(&p2).ok_or_else(|| Error::invalid("matmul batch axes"))?
        }
    };
    geo.check_extent()?;
    let out = plan.out;
    let (geo, mut kernel) = choose(&device, &geo, out, precision, force)?;
    let batch_rounds = match kernel {
        // Batches beyond the grid's z limit take several dispatches of the tiled kernel.
        MatmulKernel::Tiled { .. } => 1,
        _ => geo
            .batch
            .div_ceil(device.context().max_workgroups_per_dim() as usize),
    };
    if let Some(len) = split_k::slice_len(geo.k, batch_rounds, kernel) {
        if epilogue.is_some() {
            return Ok(None);
        }
        let sum = split_k::product(plan, precision, force, len)?;
        let (buffer, layout) = sum.buffer_and_layout()?;
        if layout.offset == 0 && layout.is_c_contiguous() {
            return Ok(Some(buffer));
        }
        // C is read as contiguous from element 0: a fresh copy.
        return Ok(Some(sum.copy()?.buffer_and_layout()?.0));
    }
    if epilogue.is_some() {
        match &mut kernel {
            MatmulKernel::Gemv(_) => return Ok(None),
            // The epilogue computes one element at a time.
            MatmulKernel::Tiled { c_vec4, .. } => *c_vec4 = false,
            _ => {}
        }
    }
    launch(&device, &geo, out, kernel, None, epilogue).map(Some)
}

/// A matmul epilogue ready to launch: its program (input 0 the product), the bindings of its
/// array inputs and its uniform fields (appended to the matmul's).
pub(crate) struct Epilogue {
    pub(crate) program: kupfer_core::expr::Program,
    pub(crate) bindings: Vec<Binding>,
    pub(crate) params: Vec<u8>,
}

fn float_operands(g: &Geometry) -> bool {
    matches!(g.a_dtype, DType::F16 | DType::F32) && matches!(g.b_dtype, DType::F16 | DType::F32)
}

/// The kernel for `geo` (and the geometry it runs on: gemv may swap the operands).
fn choose(
    device: &Device,
    geo: &Geometry,
    out: DType,
    precision: MatmulPrecision,
    force: Option<Force>,
) -> Result<(Geometry, MatmulKernel)> {
    let gemv = |g: &Geometry| -> Result<(Geometry, MatmulKernel)> {
        let g = if g.n == 1 {
            g.clone()
        } else if g.m == 1 {
            g.swapped_for_gemv()
        } else {
            return Err(Error::invalid("the gemv kernel needs M == 1 or N == 1"));
        };
        let shape = g.gemv_shape(out);
        Ok((g, MatmulKernel::Gemv(shape)))
    };
    let tiled = |tile: TileConfig| MatmulKernel::Tiled {
        tile,
        a: geo.load_a(out),
        b: geo.load_b(out),
        c_vec4: km::tiled_vec_loadable(out, out) && geo.n.is_multiple_of(4),
    };
    let coop_ok = device.context().cooperative_matrix().is_some()
        && float_operands(geo)
        && (out == DType::F16 && geo.a_dtype == DType::F16 && geo.b_dtype == DType::F16
            || out == DType::F32 && precision == MatmulPrecision::ReducedF16);
    match force {
        Some(Force::Simple) => return Ok((geo.clone(), MatmulKernel::Simple)),
        Some(Force::Gemv) => return gemv(geo),
        Some(Force::Tiled(t)) => {
            if !km::tiled_computes(out) {
                return Err(Error::invalid(
                    "the tiled kernel computes float16/float32/float64",
                ));
            }
            return Ok((geo.clone(), tiled(t)));
        }
        Some(Force::Coop(cfg)) => {
            if device.context().cooperative_matrix().is_none() || !float_operands(geo) {
                return Err(Error::unsupported(
                    "cooperative matrices on this adapter or for these dtypes",
                ));
            }
            let (a, b) = geo.coop_loads();
            return Ok((
                geo.clone(),
                MatmulKernel::Coop {
                    cfg,
                    f16_acc: false,
                    a,
                    b,
                },
            ));
        }
        None => {}
    }
    if (geo.m == 1 || geo.n == 1) && out != DType::Bool {
        return gemv(geo);
    }
    if coop_ok && geo.m >= 16 && geo.n >= 16 && geo.k >= 16 {
        let cfg = tune::coop_config(device, geo, out)?;
        let (a, b) = geo.coop_loads();
        return Ok((
            geo.clone(),
            MatmulKernel::Coop {
                cfg,
                f16_acc: false,
                a,
                b,
            },
        ));
    }
    if km::tiled_computes(out) && geo.m * geo.n * geo.k >= 32 * 32 * 32 {
        let tile = tune::tile_config(device, geo, out, tiled)?;
        return Ok((geo.clone(), tiled(tile)));
    }
    Ok((geo.clone(), MatmulKernel::Simple))
}

fn pipeline(device: &Device, prog: &MatmulProgram) -> Result<Arc<Pipeline>> {
    Ok(kernels::compiled(device, prog, |target| Ok((km::generate(prog, target)?, ())))?.0)
}

/// A whole-buffer binding; `vec_bytes` > 0 rounds its size down to whole vectors of that many
/// bytes (vector loads never reach past the data, which ends on a vector boundary).
fn whole(device: &Device, buffer: &Arc<GpuBuffer>, vec_bytes: u64) -> Result<Binding> {
    let max_binding = device.context().max_binding_size();
    if buffer.size() > max_binding {
        return Err(Error::unsupported(format!(
            "matmul of an array of {} bytes, more than this adapter's largest binding \
             ({max_binding} bytes)",
            buffer.size()
        )));
    }
    let size = buffer
        .size()
        .checked_div(vec_bytes)
        .map_or(buffer.size(), |v| v * vec_bytes);
    Ok(Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: size.max(4),
    })
}

fn c_vec4_of(kernel: MatmulKernel) -> bool {
    matches!(kernel, MatmulKernel::Tiled { c_vec4: true, .. })
}

/// Records one launch of `kernel` over `geo` (with `epilogue` applied before the stores);
/// returns the output buffer (`into` if given).
pub(crate) fn launch(
    device: &Device,
    geo: &Geometry,
    out: DType,
    kernel: MatmulKernel,
    into: Option<Arc<GpuBuffer>>,
    epilogue: Option<&Epilogue>,
) -> Result<Arc<GpuBuffer>> {
    let ctx = device.context();
    let prog = MatmulProgram {
        a: geo.a_dtype,
        b: geo.b_dtype,
        out,
        kernel,
        epilogue: epilogue.map(|e| e.program.clone()),
        update: None,
    };
    let pipe = pipeline(device, &prog)?;
    let n_out = geo.batch * geo.m * geo.n;
    let c_dtype = epilogue.map_or(out, |e| e.program.out_dtype());
    let out_bytes = (n_out * c_dtype.gpu_size()) as u64;
    let out_buf = match into {
        Some(b) => b,
        // A one-value product (a vector dot) is usually read back: see `alloc_for_host`.
        None if n_out == 1 => Arc::new(ctx.alloc_for_host(out_bytes)?),
        None => Arc::new(ctx.alloc(out_bytes)?),
    };
    // Elements per vector load of A and B (their bindings are whole vectors).
    let width = |l: Load| match l {
        Load::Scalar => 0,
        Load::VecK | Load::VecOuter => 4,
        Load::Vec8K | Load::Vec8Outer => 8,
    };
    let (va, vb, vc) = match kernel {
        MatmulKernel::Tiled { a, b, .. } | MatmulKernel::Coop { a, b, .. } => {
            (width(a), width(b), c_vec4_of(kernel))
        }
        MatmulKernel::Gemv(GemvShape::Rows { vec4, .. }) => {
            let w = if vec4 { 4 } else { 0 };
            (w, w, false)
        }
        _ => (0, 0, false),
    };
    let vbytes = |w: u64, d: DType| w * d.gpu_size() as u64;
    let mut bindings = vec![
        whole(device, &geo.a_buf, vbytes(va, geo.a_dtype))?,
        whole(device, &geo.b_buf, vbytes(vb, geo.b_dtype))?,
        Binding {
            buffer: out_buf.clone(),
            offset: 0,
            size: if vc {
                let v = vbytes(4, out);
                out_bytes.div_ceil(v) * v
            } else {
                out_bytes.div_ceil(4) * 4
            },
        },
    ];
    let mut params = geo.params()?;
    if let Some(e) = epilogue {
        bindings.extend(e.bindings.iter().cloned());
        params.extend_from_slice(&e.params);
    }
    let max_dim = ctx.max_workgroups_per_dim() as usize;
    let z = geo.batch.min(max_dim);
    let grid = |x: usize, y: usize| -> Result<[u32; 3]> {
        if x > max_dim || y > max_dim {
            return Err(Error::unsupported("matmul grid too large"));
        }
        Ok([x as u32, y as u32, z as u32])
    };
    let groups = match kernel {
        MatmulKernel::Simple => grid(
            geo.n.div_ceil(km::SIMPLE_WORKGROUP.0 as usize),
            geo.m.div_ceil(km::SIMPLE_WORKGROUP.1 as usize),
        )?,
        MatmulKernel::Tiled { tile, .. } => grid(
            geo.n.div_ceil(tile.bn as usize),
            geo.m.div_ceil(tile.bm as usize),
        )?,
        MatmulKernel::Coop { cfg, .. } => grid(
            geo.n.div_ceil(cfg.bn() as usize),
            geo.m.div_ceil(cfg.bm() as usize),
        )?,
        MatmulKernel::Gemv(shape) => {
            let per_group = match shape {
                GemvShape::Rows { lanes, .. } => 256 / lanes as usize,
                GemvShape::Cols => 64,
            };
            let blocks = geo.m.div_ceil(per_group);
            let x = blocks.min(max_dim);
            grid(x, blocks.div_ceil(x))?
        }
    };
    if matches!(kernel, MatmulKernel::Tiled { .. }) && geo.batch > max_dim {
        // One batch index per workgroup: batches beyond the z limit take several dispatches,
        // each told its first batch index (the uniform block's z0).
        let mut z0 = 0;
        while z0 < geo.batch {
            let nz = (geo.batch - z0).min(max_dim);
            let mut p = geo.params_from(z0)?;
            p.extend_from_slice(&params[p.len()..]);
            ctx.dispatch(
                &pipe,
                &p,
                bindings.clone(),
                [groups[0], groups[1], nz as u32],
            )?;
            z0 += nz;
        }
    } else {
        ctx.dispatch(&pipe, &params, bindings, groups)?;
    }
    Ok(out_buf)
}

/// Where an in-place update writes: C's element offset, row stride (leading dimension) and
/// batch stride, in elements of the result dtype.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UpdatePlace {
    pub offset: usize,
    pub row_stride: usize,
    pub batch_stride: usize,
}

/// Records `C[place.offset + z * place.batch_stride + i * place.row_stride + j] -= (A @ B)[z,
/// i, j]` on the tiled SIMT kernel (the tile configuration tuned for this shape class as the
/// plain product's, see `tune.rs`; vec4 loads where the operands allow), in place: A and B must not be
/// `c`'s buffer. `lower` skips tiles wholly above the diagonal. The blocked factorizations'
/// trailing updates (`linalg/blocked.rs`).
pub(crate) fn subtract_product_in_place(
    device: &Device,
    geo: &Geometry,
    out: DType,
    c: &Arc<GpuBuffer>,
    place: UpdatePlace,
    lower: bool,
) -> Result<()> {
    if geo.m == 0 || geo.n == 0 || geo.k == 0 || geo.batch == 0 {
        return Ok(());
    }
    if !km::tiled_computes(out) || geo.a_dtype != out || geo.b_dtype != out {
        return Err(Error::invalid(
            "in-place matmul updates compute float32 or float64 operands of the result dtype",
        ));
    }
    geo.check_extent()?;
    let ctx = device.context();
    let tiled = |tile: TileConfig| MatmulKernel::Tiled {
        tile,
        a: geo.load_a(out),
        b: geo.load_b(out),
        c_vec4: false,
    };
    let tile = tune::tile_config(device, geo, out, tiled)?;
    let kernel = tiled(tile);
    let prog = MatmulProgram {
        a: geo.a_dtype,
        b: geo.b_dtype,
        out,
        kernel,
        epilogue: None,
        update: Some(km::InPlaceUpdate { lower }),
    };
    let pipe = pipeline(device, &prog)?;
    let width = |l: Load| match l {
        Load::VecK | Load::VecOuter => 4,
        _ => 0,
    };
    let vbytes = |w: u64| w * out.gpu_size() as u64;
    let last = place.offset
        + (geo.batch - 1) * place.batch_stride
        + (geo.m - 1) * place.row_stride
        + geo.n;
    if (last * out.gpu_size()) as u64 > c.size() {
        return Err(Error::invalid("in-place matmul update beyond its buffer"));
    }
    let bindings = vec![
        whole(device, &geo.a_buf, vbytes(width(geo.load_a(out))))?,
        whole(device, &geo.b_buf, vbytes(width(geo.load_b(out))))?,
        whole(device, c, 0)?,
    ];
    let u = |v: usize| {
        u32::try_from(v).map_err(|_| Error::unsupported("matmul update offsets beyond 2^32"))
    };
    let tail: Vec<u8> = [
        u(place.offset)?,
        u(place.row_stride)?,
        u(place.batch_stride)?,
        0,
    ]
    .iter()
    .flat_map(|w| w.to_le_bytes())
    .collect();
    let max_dim = ctx.max_workgroups_per_dim() as usize;
    let (gx, gy) = (
        geo.n.div_ceil(tile.bn as usize),
        geo.m.div_ceil(tile.bm as usize),
    );
    if gx > max_dim || gy > max_dim {
        return Err(Error::unsupported("matmul grid too large"));
    }
    let mut z0 = 0;
    while z0 < geo.batch {
        let nz = (geo.batch - z0).min(max_dim);
        let mut p = geo.params_from(z0)?;
        p.extend_from_slice(&tail);
        debug_assert_eq!(p.len(), km::UPDATE_PARAMS_SIZE);
        ctx.dispatch(
            &pipe,
            &p,
            bindings.clone(),
            [gx as u32, gy as u32, nz as u32],
        )?;
        z0 += nz;
    }
    Ok(())
}
