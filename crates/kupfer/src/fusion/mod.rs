//! Lazy elementwise expressions and their materialisation as ONE generated kernel.
//!
//! Elementwise functions build an [`Expr`] tree over materialised arrays and uniform scalars.
//! When values are needed (read-back, a non-elementwise consumer, `eval()`, or a tree grown
//! past [`MAX_NODES`] nodes / the adapter's storage-buffer count), the tree is flattened into a
//! [`Program`] — the structural pipeline-cache key — and run by one dispatch per chunk.

use crate::device::Device;
use crate::kernels::{self, CompiledKernel};
use crate::packed::PackedBuffer;
use kupfer_core::codegen;
use kupfer_core::custom::UserFn;
use kupfer_core::expr::{Access, InputSpec, Node, NodeId, Program};
use kupfer_core::layout::{collapse_axes, contiguous_strides, size_of};
use kupfer_core::random::RandomOp;
use kupfer_core::{BinaryOp, DType, Error, Layout, Result, UnaryOp};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::collections::HashMap;
use std::sync::Arc;

mod deferred;
mod map_source;
pub(crate) mod readers;
pub(crate) use deferred::Deferred;
pub(crate) use map_source::MapSource;

/// Largest expression kept lazy, in nodes weighted by the code they call
/// (`kupfer_core::codegen::unary_weight`: a libm call weighs its code size, so a kernel holds
/// at most a few `sin`s and compiles in bounded time); bigger trees materialise their
/// operands first.
pub const MAX_NODES: usize = 64;

/// A lazy elementwise expression.
#[derive(Debug)]
pub(crate) enum Expr {
    /// A materialised array viewed through a layout (shape ≤ the expression's shape).
    Leaf {
        buffer: Arc<GpuBuffer>,
        layout: Layout,
        dtype: DType,
    },
    /// A packed small-integer array (never written; see `crate::packed`) viewed through a
    /// layout: the elementwise kernel reads its words directly, other kernels an unpacked copy.
    Packed {
        source: Arc<PackedBuffer>,
        layout: Layout,
    },
    /// A uniform scalar, already encoded in its dtype's uniform representation.
    Scalar {
        bytes: Vec<u8>,
        dtype: DType,
    },
    /// The linear output index (u32). Only in expressions materialised at their own shape.
    Index,
    Cast(Arc<Expr>, DType),
    Unary(UnaryOp, Arc<Expr>, DType),
    Binary(BinaryOp, Arc<Expr>, Arc<Expr>, DType),
    Select(Arc<Expr>, Arc<Expr>, Arc<Expr>, DType),
    /// Output `.2` of a user function (a custom elementwise kernel) of these arguments.
    Call(Arc<UserFn>, Vec<Arc<Expr>>, usize, DType),
    /// A family's result not computed yet (a matrix product): computed on its own when first
    /// needed as an input, or with the expression around it as its epilogue (`(a @ b) * 2 + c`
    /// is one kernel).
    Deferred(Arc<dyn Deferred>),
    /// A random draw (`crate::random`): key and draw-number words, then parameters. Its
    /// element index is the output index, so it is only kept lazy where the expression has
    /// the draw's shape and C order (see [`Lazy::random`]).
    Random(RandomOp, Vec<Arc<Expr>>, DType),
}

impl Expr {
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Expr::Leaf { dtype, .. } | Expr::Scalar { dtype, .. } => *dtype,
            Expr::Packed { source, .. } => source.dtype(),
            Expr::Index => DType::U32,
            Expr::Cast(_, d)
            | Expr::Unary(_, _, d)
            | Expr::Binary(_, _, _, d)
            | Expr::Select(_, _, _, d)
            | Expr::Call(_, _, _, d)
            | Expr::Random(_, _, d) => *d,
            Expr::Deferred(p) => p.dtype(),
        }
    }

    /// The deferred result in `root` that can take the rest of `root` as its epilogue: one not
    /// computed yet, of the expression's `shape` (not broadcast), that appears once in the
    /// tree and nowhere else (no other array or expression holds it, so nobody will need the
    /// result itself). The first such result found, if any.
    pub(crate) fn epilogue_product(
        root: &Arc<Expr>,
        shape: &[usize],
    ) -> Option<(Arc<Expr>, Arc<dyn Deferred>)> {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![root];
        while let Some(e) = stack.pop() {
            if !seen.insert(Arc::as_ptr(e)) {
                continue;
            }
            match &**e {
                Expr::Deferred(p) => {
                    if Arc::strong_count(e) == 1 && p.takes_epilogue() && p.shape() == shape {
                        return Some((e.clone(), p.clone()));
                    }
                }
                Expr::Cast(x, _) | Expr::Unary(_, x, _) => stack.push(x),
                Expr::Binary(_, a, b, _) => stack.extend([a, b]),
                Expr::Select(c, a, b, _) => stack.extend([c, a, b]),
                Expr::Call(_, args, _, _) | Expr::Random(_, args, _) => stack.extend(args),
                Expr::Leaf { .. } | Expr::Packed { .. } | Expr::Scalar { .. } | Expr::Index => {}
            }
        }
        None
    }
}

/// An expression with its size, for the fusion bounds.
#[derive(Debug, Clone)]
pub(crate) struct Lazy {
    pub root: Arc<Expr>,
    /// Size of the tree (shared subtrees counted each time), in weighted nodes.
    pub nodes: usize,
    pub leaves: usize,
    /// True when the tree holds a deferred result (only then does materialising look for an
    /// epilogue).
    pub products: bool,
    /// True when the tree holds a random draw: its values follow the output index, so an
    /// array holding it is materialised before it is broadcast or permuted.
    pub random: bool,
}

impl Lazy {
    pub(crate) fn leaf(buffer: Arc<GpuBuffer>, layout: Layout, dtype: DType) -> Lazy {
        Lazy {
            root: Arc::new(Expr::Leaf {
                buffer,
                layout,
                dtype,
            }),
            nodes: 1,
            leaves: 1,
            products: false,
            random: false,
        }
    }

    /// A packed array viewed through `layout`.
    pub(crate) fn packed_leaf(source: Arc<PackedBuffer>, layout: Layout) -> Lazy {
        Lazy {
            root: Arc::new(Expr::Packed { source, layout }),
            nodes: 1,
            leaves: 1,
            products: false,
            random: false,
        }
    }

    /// A family's deferred result.
    pub(crate) fn deferred(result: Arc<dyn Deferred>) -> Lazy {
        Lazy {
            root: Arc::new(Expr::Deferred(result)),
            nodes: 1,
            leaves: 1,
            products: true,
            random: false,
        }
    }

    pub(crate) fn scalar(bytes: Vec<u8>, dtype: DType) -> Lazy {
        Lazy {
            root: Arc::new(Expr::Scalar { bytes, dtype }),
            nodes: 1,
            leaves: 0,
            products: false,
            random: false,
        }
    }

    pub(crate) fn index() -> Lazy {
        Lazy {
            root: Arc::new(Expr::Index),
            nodes: 1,
            leaves: 0,
            products: false,
            random: false,
        }
    }

    pub(crate) fn dtype(&self) -> DType {
        self.root.dtype()
    }

    pub(crate) fn cast(self, to: DType) -> Lazy {
        if self.dtype() == to {
            return self;
        }
        Lazy {
            root: Arc::new(Expr::Cast(self.root, to)),
            nodes: self.nodes + 1,
            leaves: self.leaves,
            products: self.products,
            random: self.random,
        }
    }

    pub(crate) fn unary(op: UnaryOp, x: Lazy, out: DType) -> Lazy {
        Lazy {
            nodes: x.nodes + codegen::unary_weight(op, x.dtype()),
            root: Arc::new(Expr::Unary(op, x.root, out)),
            leaves: x.leaves,
            products: x.products,
            random: x.random,
        }
    }

    pub(crate) fn binary(op: BinaryOp, a: Lazy, b: Lazy, out: DType) -> Lazy {
        Lazy {
            nodes: a.nodes + b.nodes + codegen::binary_weight(op, a.dtype()),
            root: Arc::new(Expr::Binary(op, a.root, b.root, out)),
            leaves: a.leaves + b.leaves,
            products: a.products || b.products,
            random: a.random || b.random,
        }
    }

    /// Output `k` of the user function `f` applied to `args` (each of its parameter's dtype).
    pub(crate) fn call(f: Arc<UserFn>, args: Vec<Lazy>, k: usize) -> Lazy {
        let out = f.outputs[k].1;
        Lazy {
            nodes: args.iter().map(|a| a.nodes).sum::<usize>() + 1,
            leaves: args.iter().map(|a| a.leaves).sum(),
            products: args.iter().any(|a| a.products),
            random: args.iter().any(|a| a.random),
            root: Arc::new(Expr::Call(
                f,
                args.into_iter().map(|a| a.root).collect(),
                k,
                out,
            )),
        }
    }

    /// A random draw of `op` producing `dtype`: `args` are the four u32 stream words (key
    /// low/high, draw number low/high) and the op's parameters, each of the dtype the op
    /// takes. The ziggurat tables it reads (a storage binding of the kernel) count as a leaf.
    pub(crate) fn random(op: RandomOp, args: Vec<Lazy>, dtype: DType) -> Lazy {
        Lazy {
            nodes: args.iter().map(|a| a.nodes).sum::<usize>() + 1,
            leaves: args.iter().map(|a| a.leaves).sum::<usize>() + op.table_bindings(dtype),
            products: args.iter().any(|a| a.products),
            random: true,
            root: Arc::new(Expr::Random(
                op,
                args.into_iter().map(|a| a.root).collect(),
                dtype,
            )),
        }
    }

    pub(crate) fn select(c: Lazy, a: Lazy, b: Lazy, out: DType) -> Lazy {
        Lazy {
            root: Arc::new(Expr::Select(c.root, a.root, b.root, out)),
            nodes: c.nodes + a.nodes + b.nodes + 1,
            leaves: c.leaves + a.leaves + b.leaves,
            products: c.products || a.products || b.products,
            random: c.random || a.random || b.random,
        }
    }
}

pub(crate) struct Flattener {
    pub nodes: Vec<(Node, DType)>,
    memo: HashMap<*const Expr, NodeId>,
    pub inputs: Vec<(Arc<GpuBuffer>, Layout, DType)>,
    /// Whether each input is packed (only when flattened for the elementwise kernel).
    pub packed: Vec<bool>,
    input_memo: HashMap<(*const GpuBuffer, Layout), usize>,
    pub scalars: Vec<(DType, Vec<u8>)>,
    /// The deferred result flattened as `Node::Load(PRODUCT)` (an epilogue's input 0).
    product: Option<*const Expr>,
    /// Packed leaves become packed inputs (the elementwise kernel reads them); otherwise
    /// their unpacked copies.
    native_packed: bool,
}

/// The input index that stands for the deferred result in an epilogue's flattened nodes.
pub(crate) const PRODUCT: usize = usize::MAX;

impl Flattener {
    /// Flattens `e` into nodes over deduplicated inputs; returns the flattener and the root.
    /// Deferred results in `e` are computed first (they become inputs).
    pub(crate) fn flatten(e: &Arc<Expr>) -> Result<(Flattener, NodeId)> {
        Flattener::flatten_around(e, None)
    }

    /// Flattens several expressions over one iteration shape into one node list (shared
    /// subexpressions and inputs once); returns the flattener and each expression's root.
    pub(crate) fn flatten_many(es: &[&Arc<Expr>]) -> Result<(Flattener, Vec<NodeId>)> {
        Flattener::flatten_many_around(es, None)
    }

    /// A flattener with no nodes yet; `product` (a deferred result) becomes
    /// `Node::Load(PRODUCT)`, and `native_packed` lets leaves stay packed.
    fn empty(product: Option<&Arc<Expr>>, native_packed: bool) -> Flattener {
        Flattener {
            nodes: Vec::new(),
            memo: HashMap::new(),
            inputs: Vec::new(),
            packed: Vec::new(),
            input_memo: HashMap::new(),
            scalars: Vec::new(),
            product: product.map(Arc::as_ptr),
            native_packed,
        }
    }

    /// [`Flattener::flatten_many`], except that `product` (a deferred result in `es`)
    /// becomes `Node::Load(PRODUCT)` instead of running.
    pub(crate) fn flatten_many_around(
        es: &[&Arc<Expr>],
        product: Option<&Arc<Expr>>,
    ) -> Result<(Flattener, Vec<NodeId>)> {
        let mut fl = Flattener::empty(product, false);
        let roots = es.iter().map(|e| fl.visit(e)).collect::<Result<Vec<_>>>()?;
        Ok((fl, roots))
    }

    /// [`Flattener::flatten`], except that `product` (a deferred result in `e`) becomes
    /// `Node::Load(PRODUCT)` instead of running.
    pub(crate) fn flatten_around(
        e: &Arc<Expr>,
        product: Option<&Arc<Expr>>,
    ) -> Result<(Flattener, NodeId)> {
        let mut fl = Flattener::empty(product, false);
        let root = fl.visit(e)?;
        Ok((fl, root))
    }

    /// Flattens `e` for the elementwise kernel, which reads packed leaves directly.
    pub(crate) fn flatten_packed(e: &Arc<Expr>) -> Result<(Flattener, NodeId)> {
        let mut fl = Flattener::empty(None, true);
        let root = fl.visit(e)?;
        Ok((fl, root))
    }

    fn input(&mut self, buffer: &Arc<GpuBuffer>, layout: &Layout, dtype: DType) -> usize {
        self.input_of(buffer, layout, dtype, false)
    }

    fn input_of(
        &mut self,
        buffer: &Arc<GpuBuffer>,
        layout: &Layout,
        dtype: DType,
        packed: bool,
    ) -> usize {
        let k = (Arc::as_ptr(buffer), layout.clone());
        match self.input_memo.get(&k) {
            Some(&i) => i,
            None => {
                self.packed.push(packed);
                self.inputs.push((buffer.clone(), layout.clone(), dtype));
                self.input_memo.insert(k, self.inputs.len() - 1);
                self.inputs.len() - 1
            }
        }
    }

    fn visit(&mut self, e: &Arc<Expr>) -> Result<NodeId> {
        let key = Arc::as_ptr(e);
        if let Some(&id) = self.memo.get(&key) {
            return Ok(id);
        }
        let node = match &**e {
            Expr::Leaf {
                buffer,
                layout,
                dtype,
            } => Node::Load(self.input(buffer, layout, *dtype)),
            Expr::Packed { source, layout } if self.native_packed => {
                Node::Load(self.input_of(source.buffer(), layout, source.dtype(), true))
            }
            Expr::Packed { source, layout } => {
                Node::Load(self.input(&source.words()?, layout, source.dtype()))
            }
            Expr::Deferred(_) if self.product == Some(key) => Node::Load(PRODUCT),
            Expr::Deferred(p) => {
                let buffer = p.buffer()?;
                Node::Load(self.input(&buffer, &Layout::contiguous(p.shape()), p.dtype()))
            }
            Expr::Scalar { bytes, dtype } => {
                self.scalars.push((*dtype, bytes.clone()));
                Node::Scalar(self.scalars.len() - 1)
            }
            Expr::Index => Node::Index,
            Expr::Cast(x, _) => Node::Cast(self.visit(x)?),
            Expr::Unary(op, x, _) => Node::Unary(*op, self.visit(x)?),
            Expr::Binary(op, a, b, _) => {
                let (a, b) = (self.visit(a)?, self.visit(b)?);
                Node::Binary(*op, a, b)
            }
            Expr::Select(c, a, b, _) => {
                let (c, a, b) = (self.visit(c)?, self.visit(a)?, self.visit(b)?);
                Node::Select(c, a, b)
            }
            Expr::Call(f, args, k, _) => {
                let ids = args
                    .iter()
                    .map(|a| self.visit(a))
                    .collect::<Result<Vec<_>>>()?;
                Node::Call(f.clone(), ids, *k)
            }
            Expr::Random(op, args, _) => {
                let ids = args
                    .iter()
                    .map(|a| self.visit(a))
                    .collect::<Result<Vec<_>>>()?;
                Node::Random(*op, ids)
            }
        };
        // One load per input: two leaves of the same buffer and layout (an index array
        // read for its offset and for its bounds check) read it once.
        let loaded = match node {
            Node::Load(_) => self.nodes.iter().position(|(n, _)| *n == node),
            _ => None,
        };
        let id = match loaded {
            Some(id) => id,
            None => {
                self.nodes.push((node, e.dtype()));
                self.nodes.len() - 1
            }
        };
        self.memo.insert(key, id);
        Ok(id)
    }
}

/// Per-input placement for one dispatch.
struct Placed {
    binding: Binding,
    offset: u32,
}

/// Runs `lazy` over `shape` and returns a new C-contiguous buffer with the result (a deferred
/// result with the expression around it as its epilogue where that applies).
pub(crate) fn materialise(device: &Device, lazy: &Lazy, shape: &[usize]) -> Result<Arc<GpuBuffer>> {
    Ok(materialise_to(device, lazy, shape, false)?.0)
}

/// [`materialise`], except that an int8/uint8/int16/uint16 result of a vector kernel is
/// written packed (`crate::packed`); the flag says whether it was.
pub(crate) fn materialise_packed(
    device: &Device,
    lazy: &Lazy,
    shape: &[usize],
) -> Result<(Arc<GpuBuffer>, bool)> {
    materialise_to(device, lazy, shape, true)
}

/// Kernels of at least this many elements read no input from host-mappable memory.
const HOST_INPUT_LIMIT: usize = 1 << 16;

/// Replaces each host-mappable input (a scalar kept for a direct read-back, see
/// `Context::alloc_for_host`) of a kernel of `n` elements, from [`HOST_INPUT_LIMIT`] on, by a
/// device-local copy: then no thread of a big kernel reads host-visible memory, which a GPU
/// reaches over the bus.
fn device_local_inputs(
    ctx: &kupfer_wgpu::Context,
    inputs: &mut [(Arc<GpuBuffer>, Layout, DType)],
    n: usize,
) -> Result<()> {
    if n < HOST_INPUT_LIMIT {
        return Ok(());
    }
    for (buffer, _, _) in inputs.iter_mut() {
        if buffer.is_mappable() {
            let local = Arc::new(ctx.alloc(buffer.size())?);
            ctx.copy_buffer(buffer, 0, &local, 0, buffer.size());
            *buffer = local;
        }
    }
    Ok(())
}

fn materialise_to(
    device: &Device,
    lazy: &Lazy,
    shape: &[usize],
    want_packed: bool,
) -> Result<(Arc<GpuBuffer>, bool)> {
    let expr = &lazy.root;
    if let Expr::Deferred(p) = &**expr {
        return Ok((p.buffer()?, false));
    }
    // A draw's element index is the output index: no epilogue (whose index is the product's).
    if lazy.products
        && !lazy.random
        && let Some((product, producer)) = Expr::epilogue_product(expr, shape)
        && let Some(out) = producer.with_epilogue(device, expr, &product, shape)?
    {
        return Ok((out, false));
    }
    let ctx = device.context();
    let out_dtype = expr.dtype();
    let n = size_of(shape);
    let osize = out_dtype.gpu_size() as u64;
    (n as u64).checked_mul(osize).ok_or_else(|| {
        Error::OutOfMemory(format!(
            "an array of shape {shape:?} does not fit in memory"
        ))
    })?;
    if n == 0 {
        return Ok((Arc::new(ctx.alloc(0)?), false));
    }
    if n > u32::MAX as usize {
        return Err(Error::unsupported(format!(
            "arrays of more than 2^32 elements ({n} requested)"
        )));
    }

    let (mut fl, output) = Flattener::flatten_packed(expr)?;
    device_local_inputs(ctx, &mut fl.inputs, n)?;
    let layouts: Vec<Layout> = fl
        .inputs
        .iter()
        .map(|(_, l, _)| l.broadcast_to(shape))
        .collect::<Result<_>>()?;
    let mut all_strides = vec![contiguous_strides(shape)];
    all_strides.extend(layouts.iter().map(|l| l.strides.clone()));
    let (cshape, cstrides) = collapse_axes(shape, &all_strides);
    let out_strides = &cstrides[0];
    let access: Vec<Access> = cstrides[1..]
        .iter()
        .map(|s| {
            if s == out_strides {
                Access::Contiguous
            } else if s.iter().all(|&x| x == 0) {
                Access::Broadcast
            } else {
                Access::Strided
            }
        })
        .collect();
    let rank = if access.contains(&Access::Strided) {
        cshape.len()
    } else {
        0
    };
    let mut program = Program {
        nodes: fl.nodes,
        inputs: fl
            .inputs
            .iter()
            .zip(&access)
            .zip(&fl.packed)
            .map(|(((_, _, d), &a), &packed)| InputSpec {
                dtype: *d,
                access: a,
                packed,
            })
            .collect(),
        scalars: fl.scalars.iter().map(|(d, _)| *d).collect(),
        output,
        rank,
        vector: false,
    };
    program.vector = codegen::vectorisable(&program)
        && n.is_multiple_of(4)
        && layouts
            .iter()
            .zip(&access)
            .all(|(l, a)| *a != Access::Contiguous || l.offset.is_multiple_of(4));
    // Each vector thread writes the whole words of its four elements.
    let packed_out = want_packed
        && program.vector
        && crate::packed::packs(out_dtype)
        && crate::packed::native_loads();
    let (pipeline, params) = if packed_out {
        packed_output_kernel(device, &program)?
    } else {
        kernel(device, &program)?
    };
    let out_elem = if packed_out {
        out_dtype.host_size() as u64
    } else {
        osize
    };
    let out = Arc::new(ctx.alloc(n as u64 * out_elem)?);

    let max_binding = ctx.max_binding_size();
    let align = ctx.binding_alignment();
    let max_size = program
        .inputs
        .iter()
        .map(|i| i.dtype.gpu_size() as u64)
        .chain([osize])
        .max()
        .unwrap_or(4);
    let row: u64 = cshape.iter().skip(1).product::<usize>() as u64;
    let unit = lcm(row.max(1), 256);
    let max_chunk = max_binding / max_size;
    let mut chunk = if n as u64 * max_size <= max_binding {
        n as u64
    } else {
        (max_chunk / unit) * unit
    };
    if chunk == 0 {
        return Err(Error::unsupported(format!(
            "one row of this array ({row} elements) exceeds the adapter's largest binding \
             ({max_binding} bytes); make the array contiguous or reshape it"
        )));
    }
    // Shrink the chunk until every strided input's window fits one binding.
    let plan = loop {
        match plan_chunks(
            n as u64,
            chunk,
            &fl.inputs,
            &fl.packed,
            &layouts,
            &access,
            &cshape,
            &cstrides[1..],
            max_binding,
            align,
        ) {
            Ok(p) => break p,
            Err(e) if chunk > unit => {
                let _ = e;
                chunk = ((chunk / 2) / unit).max(1) * unit;
            }
            Err(e) => return Err(e),
        }
    };

    let max_dim = u64::from(ctx.max_workgroups_per_dim());
    for (start, len, placed) in plan {
        let offsets: Vec<u32> = placed.iter().map(|p| p.offset).collect();
        let bytes = kernels::param_bytes(
            &params,
            len as u32,
            start as u32,
            &[],
            &cshape,
            &cstrides[1..],
            &offsets,
            &fl.scalars,
        );
        let mut bindings: Vec<Binding> = placed.into_iter().map(|p| p.binding).collect();
        bindings.push(Binding {
            buffer: out.clone(),
            offset: start * out_elem,
            size: (len * out_elem).div_ceil(4) * 4,
        });
        let groups = len.div_ceil(u64::from(codegen::elements_per_workgroup(&program)));
        let gx = groups.min(max_dim);
        let gy = groups.div_ceil(gx);
        if gy > max_dim {
            return Err(Error::unsupported("dispatch grid too large"));
        }
        ctx.dispatch(&pipeline, &bytes, bindings, [gx as u32, gy as u32, 1])?;
    }
    Ok((out, packed_out))
}

type Plan = Vec<(u64, u64, Vec<Placed>)>;

#[allow(clippy::too_many_arguments)]
fn plan_chunks(
    n: u64,
    chunk: u64,
    inputs: &[(Arc<GpuBuffer>, Layout, DType)],
    packed: &[bool],
    layouts: &[Layout],
    access: &[Access],
    cshape: &[usize],
    cstrides: &[Vec<isize>],
    max_binding: u64,
    align: u64,
) -> Result<Plan> {
    let single = chunk >= n;
    let row: u64 = cshape.iter().skip(1).product::<usize>() as u64;
    let mut plan = Vec::new();
    let mut start = 0u64;
    while start < n {
        let len = chunk.min(n - start);
        let mut placed = Vec::with_capacity(inputs.len());
        for (k, (buffer, _, dtype)) in inputs.iter().enumerate() {
            // A packed input's elements are its host bytes (1 or 2 each).
            let isize_ = if packed[k] {
                dtype.host_size()
            } else {
                dtype.gpu_size()
            } as u64;
            let off = layouts[k].offset as i64;
            // Element range [lo, hi] this dispatch reads, and the base the kernel adds `i` or
            // the coordinates to.
            let (lo, hi) = match access[k] {
                Access::Contiguous => (off + start as i64, off + (start + len) as i64 - 1),
                Access::Broadcast => (off, off),
                Access::Strided if single => {
                    let (lo, hi) = layouts[k].span().unwrap_or((0, 0));
                    (lo as i64, hi as i64)
                }
                Access::Strided => {
                    let st = &cstrides[k];
                    let (r0, r1) = ((start / row) as i64, ((start + len) / row) as i64);
                    let (a, b) = (r0 * st[0] as i64, (r1 - 1) * st[0] as i64);
                    let (mut lo, mut hi) = (off + a.min(b), off + a.max(b));
                    for (j, &d) in cshape.iter().enumerate().skip(1) {
                        let ext = (d as i64 - 1) * st[j] as i64;
                        lo += ext.min(0);
                        hi += ext.max(0);
                    }
                    (lo, hi)
                }
            };
            let buf_size = buffer.size();
            let win_start = ((lo as u64 * isize_) / align) * align;
            let win_end = ((hi as u64 + 1) * isize_).div_ceil(4) * 4;
            let (win_start, win_size) = if single && buf_size <= max_binding {
                (0, buf_size)
            } else {
                (win_start, (win_end - win_start).min(buf_size - win_start))
            };
            if win_size > max_binding {
                return Err(Error::unsupported(format!(
                    "a strided view reads {win_size} bytes in one dispatch, more than the \
                     adapter's largest binding ({max_binding} bytes)"
                )));
            }
            let base = (win_start / isize_) as i64;
            let offset = match access[k] {
                Access::Contiguous => off + start as i64 - base,
                _ => off - base,
            };
            placed.push(Placed {
                binding: Binding {
                    buffer: buffer.clone(),
                    offset: win_start,
                    size: win_size,
                },
                offset: u32::try_from(offset)
                    .map_err(|_| Error::unsupported("element offset beyond 2^32"))?,
            });
        }
        plan.push((start, len, placed));
        start += len;
    }
    Ok(plan)
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b) * b
}

/// The kernel of a vector program with a packed small-integer output (its own cache: the key
/// is the program and the packing).
fn packed_output_kernel(device: &Device, program: &Program) -> Result<CompiledKernel> {
    kernels::compiled(device, &(program.clone(), true), |target| {
        let k = codegen::elementwise_packed_output(program, target)?;
        Ok((k.wgsl, k.params))
    })
}

fn kernel(device: &Device, program: &Program) -> Result<CompiledKernel> {
    kernels::compiled(device, program, |target| {
        let k = codegen::elementwise(program, target)?;
        Ok((k.wgsl, k.params))
    })
}
