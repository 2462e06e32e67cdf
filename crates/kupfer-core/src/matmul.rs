//! Matrix multiplication kernels: the structural key ([`MatmulProgram`]) and WGSL generation
//! from the templates `shaders/matmul_*.wgsl`.
//!
//! Every kernel computes `C[z, i, j] = sum_k A[z, i, k] * B[z, k, j]` over a collapsed batch
//! index `z` (at most four batch axes, see `shaders/matmul_common.wgsl`), reading A and B in
//! place through element strides and writing a contiguous C. Kernel families:
//! - [`MatmulKernel::Simple`]: one thread per output, any dtype (the reference path);
//! - [`MatmulKernel::Tiled`]: the SIMT GEMM (workgroup-memory tiles, register blocking, vec4
//!   loads), f32 accumulation, for float16/float32 results; its [`TileConfig`] is chosen per
//!   adapter by a small autotune;
//! - [`MatmulKernel::Gemv`]: matrix-vector products, bandwidth-bound;
//! - [`MatmulKernel::Coop`]: tensor cores through WGSL cooperative-matrix types.
//!
//! The simple, tiled and cooperative-matrix kernels can apply an elementwise epilogue to each
//! product before it is stored (see `epilogue.rs`): `(A @ B) * 2 + C` is one kernel.

use crate::codegen::{cast_expr, zero, Target};
use crate::dtype::DType;
use crate::epilogue;
use crate::error::{Error, Result};
use crate::expr::Program;
use crate::template::Template;
use std::fmt::Write;

const COMMON: &str = include_str!("../../../shaders/matmul_common.wgsl");
const SIMPLE: &str = include_str!("../../../shaders/matmul_simple.wgsl");
const TILED: &str = include_str!("../../../shaders/matmul_tiled.wgsl");
const GEMV: &str = include_str!("../../../shaders/matmul_gemv.wgsl");
const COOP: &str = include_str!("../../../shaders/matmul_coop.wgsl");

/// Bytes of the uniform block of every matmul kernel (`Params` in `matmul_common.wgsl`).
pub const PARAMS_SIZE: usize = 96;

/// Workgroup size (x, y) of the simple kernel.
pub const SIMPLE_WORKGROUP: (u32, u32) = (16, 16);

/// How a tiled kernel reads one operand tile from global memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Load {
    /// One element at a time through both strides (any layout, any dtype).
    Scalar,
    /// vec4 along the operand's reduction axis k (A row-major, or B transposed): needs
    /// stride 1 along k, K a multiple of 4 and 4-aligned offsets and other strides.
    VecK,
    /// vec4 along the operand's outer axis (m for A transposed, n for B row-major).
    VecOuter,
    /// 8 float16 elements (16 bytes) along k, for A in the cooperative-matrix kernel: needs
    /// stride 1 along k, K a multiple of 8 and 8-aligned offsets and other strides.
    Vec8K,
    /// 8 float16 elements (16 bytes) along n, for B in the cooperative-matrix kernel (as
    /// [`Load::Vec8K`] along n).
    Vec8Outer,
}

/// Tile configuration of the SIMT GEMM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileConfig {
    /// Rows of C per workgroup.
    pub bm: u32,
    /// Columns of C per workgroup.
    pub bn: u32,
    /// Depth of one k step staged in workgroup memory.
    pub bk: u32,
    /// Rows of C per thread (a multiple of 4).
    pub tm: u32,
    /// Columns of C per thread (a multiple of 4).
    pub tn: u32,
}

impl TileConfig {
    /// Threads per workgroup.
    pub fn threads(&self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Workgroup memory in bytes (the A and B tiles, double-buffered) for accumulators of
    /// `acc` (float32, or float64: twice the bytes).
    pub fn workgroup_bytes(&self, acc: DType) -> u32 {
        2 * (self.bm + self.bn) * self.bk * acc.gpu_size() as u32
    }

    /// The configurations the autotuner tries, largest first.
    pub fn candidates() -> Vec<TileConfig> {
        let c = |bm, bn, bk, tm, tn| TileConfig { bm, bn, bk, tm, tn };
        vec![
            c(128, 128, 8, 8, 8),
            c(128, 128, 16, 8, 8),
            c(128, 256, 16, 8, 16),
            c(256, 128, 16, 16, 8),
            c(128, 128, 8, 8, 16),
            c(128, 128, 8, 16, 8),
            c(128, 64, 16, 8, 8),
            c(64, 128, 16, 8, 8),
            c(64, 64, 16, 4, 4),
            c(64, 64, 8, 8, 8),
            c(32, 32, 16, 4, 4),
        ]
    }

    /// The configuration used without tuning (software adapters, tuning disabled).
    pub fn default_for(m: usize, n: usize) -> TileConfig {
        if m * n >= 512 * 512 {
            TileConfig {
                bm: 128,
                bn: 128,
                bk: 8,
                tm: 8,
                tn: 8,
            }
        } else {
            TileConfig {
                bm: 64,
                bn: 64,
                bk: 16,
                tm: 4,
                tn: 4,
            }
        }
    }

    fn valid(&self) -> bool {
        self.tm.is_multiple_of(4)
            && self.tn.is_multiple_of(4)
            && self.bm.is_multiple_of(self.tm)
            && self.bn.is_multiple_of(self.tn)
            && self.bk.is_multiple_of(4)
    }
}

/// Shape of a gemv workgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GemvShape {
    /// `lanes` threads per row stride along a contiguous k (vec4 when `vec4`).
    Rows {
        /// Threads sharing one row (a power of two ≤ 256).
        lanes: u32,
        /// vec4 loads (float32 only).
        vec4: bool,
    },
    /// 64 neighbouring rows per workgroup (coalesced when rows are contiguous), k split four
    /// ways.
    Cols,
}

/// The 32-bit registers of one multiprocessor on NVIDIA GPUs (64K; AMD's compute units have
/// more): the most one cooperative-matrix workgroup may hold.
pub const COOP_REGISTER_FILE: u32 = 65536;

/// Cooperative-matrix (tensor core) GEMM configuration: a workgroup of `wm x wn` subgroups,
/// each computing `fm x fn` 16x16 fragments of C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoopConfig {
    /// Subgroups along m.
    pub wm: u32,
    /// Subgroups along n.
    pub wn: u32,
    /// 16x16 fragments per subgroup along m.
    pub fm: u32,
    /// 16x16 fragments per subgroup along n.
    pub fn_: u32,
    /// Depth of one k step staged in workgroup memory (a multiple of 16).
    pub bk: u32,
    /// Subgroup size the kernel is written for (32 on NVIDIA).
    pub subgroup: u32,
    /// Workgroup-memory buffers of the staged tiles: 2 (double-buffered, one barrier per k
    /// step) or 1 (two barriers per step, half the memory: room for a deeper `bk`).
    pub stages: u32,
}

impl CoopConfig {
    /// Rows of C per workgroup.
    pub fn bm(&self) -> u32 {
        self.wm * self.fm * 16
    }

    /// Columns of C per workgroup.
    pub fn bn(&self) -> u32 {
        self.wn * self.fn_ * 16
    }

    /// Threads per workgroup.
    pub fn threads(&self) -> u32 {
        self.wm * self.wn * self.subgroup
    }

    /// Workgroup memory in bytes: the padded f16 A and B tiles (`stages` of each; rows padded
    /// by 8 halves), plus an f32 16x16 staging tile per subgroup for C.
    pub fn workgroup_bytes(&self) -> u32 {
        self.stages * (self.bm() * (self.bk + 8) + self.bk * (self.bn() + 8)) * 2
            + (self.threads() / self.subgroup) * 256 * 4
    }

    /// An estimate of the 32-bit registers one workgroup holds: every thread's share of its
    /// subgroup's f32 accumulator fragments and of one step's f16 A and B fragments, plus 64
    /// for addresses and loop state. The 4x4-fragment kernels measure 255 registers a thread
    /// on the H100 against an estimate of 224.
    pub fn register_estimate(&self) -> u32 {
        let per_subgroup = self.fm * self.fn_ * 256 + (self.fm + self.fn_) * 128;
        self.wm * self.wn * (per_subgroup + 64 * self.subgroup)
    }

    /// Whether the workgroup's registers fit [`COOP_REGISTER_FILE`]. A workgroup that does
    /// not is refused before compilation: on the H100 such a kernel (12 subgroups of 255
    /// registers) compiled and then lost the device instead of failing.
    pub fn fits_register_file(&self) -> bool {
        self.register_estimate() <= COOP_REGISTER_FILE
    }

    fn valid(&self) -> bool {
        self.bk.is_multiple_of(16)
            && self.bk > 0
            && self.fm > 0
            && self.fn_ > 0
            && self.wm > 0
            && self.wn > 0
            && self.subgroup > 0
            && matches!(self.stages, 1 | 2)
    }

    /// The configuration of the six numbers `[wm, wn, fm, fn_, bk, stages]` for subgroups of
    /// `subgroup` threads.
    pub fn from_numbers([wm, wn, fm, fn_, bk, stages]: [u32; 6], subgroup: u32) -> CoopConfig {
        CoopConfig {
            wm,
            wn,
            fm,
            fn_,
            bk,
            subgroup,
            stages,
        }
    }

    /// The configurations the autotuner tries (the first is the default without tuning).
    pub fn candidates(subgroup: u32) -> Vec<CoopConfig> {
        let c = |wm, wn, fm, fn_, bk, stages| {
            CoopConfig::from_numbers([wm, wn, fm, fn_, bk, stages], subgroup)
        };
        // Measured on the H100 at 4096 (f16 operands read 8 at a time, TFLOP/s): 128x128
        // tiles of 4 subgroups with one buffer (the streamed k loop) 216-222; 8 subgroups
        // 195-200; BK 16, 48 or 64 155-180; workgroups of 1 or 2 subgroups 113-160; two
        // buffers 93; 64x32 subgroup tiles 149.
        vec![
            c(2, 2, 4, 4, 32, 1),
            c(2, 2, 4, 4, 32, 2),
            c(2, 4, 4, 4, 16, 2),
            c(2, 4, 4, 4, 32, 1),
            c(4, 2, 4, 4, 32, 1),
            c(2, 4, 4, 2, 64, 1),
            c(4, 2, 2, 4, 64, 1),
            c(2, 4, 4, 2, 32, 2),
            c(2, 2, 2, 2, 32, 1),
        ]
    }
}

/// Which kernel a matmul runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatmulKernel {
    /// One thread per output element, any dtype.
    Simple,
    /// The tiled SIMT GEMM with the loads of A and B.
    Tiled {
        /// Tile configuration.
        tile: TileConfig,
        /// Load of A.
        a: Load,
        /// Load of B.
        b: Load,
        /// vec4 stores of C (float32 C, N a multiple of 4).
        c_vec4: bool,
    },
    /// Matrix (A) times vector (B).
    Gemv(GemvShape),
    /// Tensor cores; A and B must be float16 or float32 (converted to f16 when staged).
    Coop {
        /// Configuration.
        cfg: CoopConfig,
        /// Accumulate in f16 (false: f32).
        f16_acc: bool,
        /// Load of A: `Scalar` or `VecK` (4 elements along k).
        a: Load,
        /// Load of B: `Scalar` or `VecOuter` (4 elements along n).
        b: Load,
    },
}

impl MatmulKernel {
    /// Values of k that one iteration of the kernel's serial k loop consumes: a thread's
    /// loop runs about K / this many times (one product per iteration in the simple kernel,
    /// a staged step in the tiled and cooperative-matrix kernels).
    pub fn k_per_iteration(&self) -> usize {
        match *self {
            MatmulKernel::Simple => 1,
            MatmulKernel::Gemv(GemvShape::Rows { lanes, vec4 }) => {
                // The vec4 loop takes two vectors per lane and iteration.
                lanes as usize * if vec4 { 8 } else { 1 }
            }
            MatmulKernel::Gemv(GemvShape::Cols) => 4,
            MatmulKernel::Tiled { tile, .. } => tile.bk as usize,
            MatmulKernel::Coop { cfg, .. } => cfg.bk as usize,
        }
    }
}

/// A matmul kernel's structural key: operand dtypes, result dtype, kernel and epilogue.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MatmulProgram {
    /// dtype of A as stored.
    pub a: DType,
    /// dtype of B as stored.
    pub b: DType,
    /// The result dtype (NumPy promotion of A's and B's).
    pub out: DType,
    /// The kernel.
    pub kernel: MatmulKernel,
    /// An elementwise expression applied to each product before it is stored (input 0 is
    /// the product; see `epilogue.rs`). Not with [`MatmulKernel::Gemv`] or vec4 stores of C.
    pub epilogue: Option<Program>,
    /// Subtract the product from a strided block of C in place instead of storing it (the
    /// blocked factorizations' trailing updates); tiled kernel only, without an epilogue.
    pub update: Option<InPlaceUpdate>,
}

/// `C[oc + z * scz + i * ldc + j] -= sum_k A[z, i, k] * B[z, k, j]`: LAPACK's GEMM with
/// alpha = -1 and beta = 1 on a sub-block of C (the uniform block gains `oc`, `ldc`, `scz`
/// after the matmul's own fields: [`UPDATE_PARAMS_SIZE`] bytes in all). The blocked LU,
/// Cholesky and triangular solves run their trailing updates on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InPlaceUpdate {
    /// Workgroups whose tile lies wholly above the diagonal (first column past its last row)
    /// return at once: Cholesky's `A22 -= L21 L21^T` needs only the lower triangle.
    pub lower: bool,
}

/// Bytes of the uniform block of an in-place update: the matmul's [`PARAMS_SIZE`], then
/// `oc`, `ldc`, `scz` and a padding word (the struct rounds up to 16 bytes).
pub const UPDATE_PARAMS_SIZE: usize = PARAMS_SIZE + 16;

/// Whether the tiled SIMT kernel computes `out`: float16/float32 (f32 tiles) or float64 (f64
/// tiles).
pub fn tiled_computes(out: DType) -> bool {
    matches!(out, DType::F16 | DType::F32 | DType::F64)
}

/// Whether the tiled kernel computing `out` may read an operand of `dtype` with vec4 loads
/// ([`Load::VecK`], [`Load::VecOuter`]): the operand is already in the accumulator's dtype,
/// float32 into f32 tiles or float64 into f64 ones.
pub fn tiled_vec_loadable(dtype: DType, out: DType) -> bool {
    matches!(out, DType::F32 | DType::F64) && dtype == out
}

/// The dtype products accumulate in: float16 accumulates in float32, bool in bool (or).
pub fn acc_dtype(out: DType) -> DType {
    match out {
        DType::F16 => DType::F32,
        // Small integers accumulate in 32 bits; the store wraps (NumPy's int8 matmul wraps).
        d => d.compute(),
    }
}

fn storage(d: DType) -> &'static str {
    d.wgsl_storage()
}

/// `x` (stored as `from`) as the accumulator of result dtype `out`: NumPy casts to the result
/// dtype first, then kupfer widens float16 to the f32 accumulator.
fn load_cast(x: &str, from: DType, out: DType) -> String {
    let v = if from == DType::Bool {
        format!("({x} != 0u)")
    } else {
        x.to_string()
    };
    let r = cast_expr(&v, from, out);
    cast_expr(&r, out, acc_dtype(out))
}

/// The value stored for accumulator `v` of output `(z, row, col)` (`z` is in scope): the
/// epilogue's, or the product in the result dtype.
fn stored(p: &MatmulProgram, v: &str, row: &str, col: &str) -> String {
    match p.epilogue {
        Some(_) => format!("kp_epilogue({v}, z, {row}, {col})"),
        None => store_expr(v, p.out),
    }
}

/// WGSL storage type of C's elements: the epilogue's output or the result dtype.
fn c_storage(p: &MatmulProgram) -> &'static str {
    match &p.epilogue {
        Some(e) => epilogue::out_storage(e),
        None => storage(p.out),
    }
}

fn store_expr(v: &str, out: DType) -> String {
    let r = cast_expr(v, acc_dtype(out), out);
    if out == DType::Bool {
        format!("select(0u, 1u, {r})")
    } else {
        r
    }
}

fn mad_expr(out: DType) -> String {
    match out {
        DType::Bool => "acc || (a && b)".into(),
        DType::Complex64 | DType::Complex128 => {
            format!(
                "acc + {}",
                crate::codegen::cmul_expr(out.wgsl_value(), "a", "b")
            )
        }
        _ => "acc + a * b".into(),
    }
}

fn enables(p: &MatmulProgram) -> String {
    let mut s = String::new();
    let epilogue_f16 = p
        .epilogue
        .as_ref()
        .is_some_and(|e| e.dtypes().any(|d| d == DType::F16));
    if [p.a, p.b, p.out].contains(&DType::F16)
        || epilogue_f16
        || matches!(p.kernel, MatmulKernel::Coop { .. })
    {
        s.push_str("enable f16;\n");
    }
    if matches!(p.kernel, MatmulKernel::Coop { .. }) {
        s.push_str("enable wgpu_cooperative_matrix;\n");
    }
    s
}

/// `template` filled from `subs`, later entries winning (kernel-specific values after the
/// common ones).
fn fill(template: &str, subs: &[(&str, String)]) -> String {
    Template::new(template).set_shared(subs).render()
}

/// Generates the WGSL of a matmul kernel (entry point `main`; binding 0 the uniform block of
/// [`PARAMS_SIZE`] bytes, 1 = A, 2 = B, 3 = C).
pub fn generate(p: &MatmulProgram, target: &Target) -> Result<String> {
    for d in [p.a, p.b, p.out] {
        target.check(d, "this adapter")?;
    }
    if p.out == DType::I64 || p.out == DType::F64 {
        // Covered by check above; 64-bit needs no extra enable in WGSL.
    }
    let acc = acc_dtype(p.out);
    let common_wgsl = match &p.epilogue {
        Some(e) => {
            if matches!(p.kernel, MatmulKernel::Gemv(_))
                || matches!(p.kernel, MatmulKernel::Tiled { c_vec4: true, .. })
            {
                return Err(Error::invalid(
                    "a matmul epilogue needs the simple, tiled (scalar C stores) or \
                     cooperative-matrix kernel",
                ));
            }
            for d in e.dtypes() {
                target.check(d, "this adapter")?;
            }
            let (fields, _) = epilogue::fields(e);
            format!(
                "{}\n{}",
                Template::new(COMMON)
                    .set("EPI_FIELDS", fields.trim_end())
                    .render_part(),
                epilogue::module(e, p.out, acc)?
            )
        }
        None => {
            let fields = if p.update.is_some() {
                "    oc: u32,\n    ldc: u32,\n    scz: u32,"
            } else {
                ""
            };
            Template::new(COMMON)
                .set("EPI_FIELDS", fields)
                .render_part()
        }
    };
    if p.update.is_some()
        && (p.epilogue.is_some() || !matches!(p.kernel, MatmulKernel::Tiled { c_vec4: false, .. }))
    {
        return Err(Error::invalid(
            "an in-place matmul update needs the tiled kernel with scalar C stores and no \
             epilogue",
        ));
    }
    let common = vec![
        ("ENABLES", enables(p)),
        ("COMMON", common_wgsl),
        ("ACC", acc.wgsl_value().to_string()),
        ("ZERO", zero(acc)),
        ("CAST_A", load_cast("x", p.a, p.out)),
        ("CAST_B", load_cast("x", p.b, p.out)),
        ("MAD", mad_expr(p.out)),
        ("STORE", stored(p, "v", "row", "col")),
        ("A_STORAGE", storage(p.a).to_string()),
        ("B_STORAGE", storage(p.b).to_string()),
        ("C_STORAGE", c_storage(p).to_string()),
    ];
    match p.kernel {
        MatmulKernel::Simple => Ok(fill(SIMPLE, &common)),
        MatmulKernel::Gemv(shape) => gemv(p, shape, common),
        MatmulKernel::Tiled { tile, a, b, c_vec4 } => tiled(p, tile, a, b, c_vec4, common),
        MatmulKernel::Coop { cfg, f16_acc, a, b } => coop(p, cfg, f16_acc, a, b, common),
    }
}

fn gemv(p: &MatmulProgram, shape: GemvShape, mut subs: Vec<(&str, String)>) -> Result<String> {
    if p.out == DType::Bool {
        return Err(Error::invalid(
            "gemv kernel for bool (use the simple kernel)",
        ));
    }
    let store = store_expr("v", p.out);
    let (lanes, body, vec4) = match shape {
        GemvShape::Rows { lanes, vec4 } => {
            if !lanes.is_power_of_two() || lanes > 256 {
                return Err(Error::invalid("gemv lanes must be a power of two ≤ 256"));
            }
            let dot = if vec4 {
                "        let a4 = u32(ra) / 4u;
        let b4 = u32(rb) / 4u;
        let k4 = P.k / 4u;
        var s = vec4<f32>(0.0);
        var t = vec4<f32>(0.0);
        var k = lane;
        for (; k + LANES < k4; k += 2u * LANES) {
            let x0 = A[a4 + k];
            let y0 = B[b4 + k];
            let x1 = A[a4 + k + LANES];
            let y1 = B[b4 + k + LANES];
            s = fma(x0, y0, s);
            t = fma(x1, y1, t);
        }
        if (k < k4) {
            s = fma(A[a4 + k], B[b4 + k], s);
        }
        s += t;
        acc = (s.x + s.y) + (s.z + s.w);"
                    .to_string()
            } else {
                "        for (var k = lane; k < P.k; k += LANES) {
            acc = kp_mad(acc, kp_load_a(ra + i32(k) * P.sak), kp_load_b(rb + i32(k) * P.sbk));
        }"
                .to_string()
            };
            let body = format!(
                "    let lane = lid % LANES;
    let row = (wid.y * nwg.x + wid.x) * GROUPS + lid / LANES;
    for (var z = wid.z; z < P.batch; z += nwg.z) {{
        let bo = kp_batch(z);
        var acc = {zero};
        if (row < P.m) {{
        let ra = i32(P.oa) + bo.x + i32(row) * P.sam;
        let rb = i32(P.ob) + bo.y;
{dot}
        }}
        red[lid] = acc;
        workgroupBarrier();
        for (var s = LANES / 2u; s > 0u; s >>= 1u) {{
            if (lane < s) {{
                red[lid] = red[lid] + red[lid + s];
            }}
            workgroupBarrier();
        }}
        if (lane == 0u && row < P.m) {{
            let v = red[lid];
            C[z * P.m + row] = {store};
        }}
        workgroupBarrier();
    }}",
                zero = zero(acc_dtype(p.out)),
            );
            (lanes, body, vec4)
        }
        GemvShape::Cols => {
            let body = format!(
                "    let r = lid % 64u;
    let kg = lid / 64u;
    let row = (wid.y * nwg.x + wid.x) * 64u + r;
    for (var z = wid.z; z < P.batch; z += nwg.z) {{
        let bo = kp_batch(z);
        var acc = {zero};
        if (row < P.m) {{
            let ra = i32(P.oa) + bo.x + i32(row) * P.sam;
            let rb = i32(P.ob) + bo.y;
            for (var k = kg; k < P.k; k += 4u) {{
                acc = kp_mad(acc, kp_load_a(ra + i32(k) * P.sak), kp_load_b(rb + i32(k) * P.sbk));
            }}
        }}
        red[lid] = acc;
        workgroupBarrier();
        if (lid < 128u) {{
            red[lid] = red[lid] + red[lid + 128u];
        }}
        workgroupBarrier();
        if (lid < 64u) {{
            red[lid] = red[lid] + red[lid + 64u];
            if (row < P.m) {{
                let v = red[lid];
                C[z * P.m + row] = {store};
            }}
        }}
        workgroupBarrier();
    }}",
                zero = zero(acc_dtype(p.out)),
            );
            (64, body, false)
        }
    };
    if vec4 && (p.a != DType::F32 || p.b != DType::F32 || p.out != DType::F32) {
        return Err(Error::invalid("vec4 gemv needs float32 operands"));
    }
    let (at, bt) = if vec4 {
        ("vec4<f32>".to_string(), "vec4<f32>".to_string())
    } else {
        (storage(p.a).to_string(), storage(p.b).to_string())
    };
    subs.push(("A_TYPE", at));
    subs.push(("B_TYPE", bt));
    subs.push(("LANES", lanes.to_string()));
    subs.push(("BODY", body));
    let mut s = fill(GEMV, &subs);
    if vec4 {
        // kp_load_a/b are unused and would not type-check against vec4 storage.
        s = strip_fn(&s, "kp_load_a");
        s = strip_fn(&s, "kp_load_b");
    }
    Ok(s)
}

/// Removes the function `name` (from `fn name(` to its closing line `}`).
fn strip_fn(s: &str, name: &str) -> String {
    let start = match s.find(&format!("fn {name}(")) {
        Some(i) => i,
        None => return s.to_string(),
    };
    let end = s[start..].find("\n}\n").map_or(s.len(), |e| start + e + 3);
    format!("{}{}", &s[..start], &s[end..])
}

fn tiled(
    p: &MatmulProgram,
    t: TileConfig,
    la: Load,
    lb: Load,
    c_vec4: bool,
    mut subs: Vec<(&str, String)>,
) -> Result<String> {
    if !t.valid() {
        return Err(Error::invalid(format!("bad tile configuration {t:?}")));
    }
    if !tiled_computes(p.out) {
        return Err(Error::invalid(
            "the tiled kernel computes float16/float32/float64 results",
        ));
    }
    // The element of workgroup tiles and accumulators: f32, or f64 for float64 results.
    let el = acc_dtype(p.out).wgsl_value();
    let vec4 = format!("vec4<{el}>");
    let vec_ok = |d: DType, l: Load| {
        l == Load::Scalar
            || (tiled_vec_loadable(d, p.out) && matches!(l, Load::VecK | Load::VecOuter))
    };
    if !vec_ok(p.a, la) || !vec_ok(p.b, lb) || (c_vec4 && !tiled_vec_loadable(p.out, p.out)) {
        return Err(Error::invalid(
            "vec4 loads and stores need operands and result in float32 or float64",
        ));
    }
    let (tx, ty) = (t.bn / t.tn, t.bm / t.tm);
    let wg = tx * ty;
    let (pm, qn) = (t.tm / 4, t.tn / 4);
    let a_elem = |idx: &str| load_cast(&format!("A[{idx}]"), p.a, p.out);
    let b_elem = |idx: &str| load_cast(&format!("B[{idx}]"), p.b, p.out);
    let (bm, bn, bk) = (t.bm, t.bn, t.bk);
    // Per operand: the index arithmetic of element/vector `t` of a tile, the global read
    // (guarded) and the scatter into workgroup memory at float offset `buf`.
    // (8-wide loads were rejected above: they fall in the scalar arms.)
    let a_parts: StageParts<&str> = match la {
        Load::Scalar | Load::Vec8K | Load::Vec8Outer => (
            bm * bk,
            el,
            format!("let r = t / {bk}u; let kk = t % {bk}u; let gr = row0 + r; let gk = k0 + kk;"),
            format!(
                "if (gr < P.m && gk < P.k) {{ @R = {}; }}",
                a_elem("u32(base_a + i32(gr) * P.sam + i32(gk) * P.sak)")
            ),
            format!("As[(buf + kk * {bm}u + r) / 4u][r % 4u] = @R;"),
        ),
        Load::VecK => (
            bm * bk / 4,
            vec4.as_str(),
            format!(
                "let r = t / {q}u; let kq = t % {q}u; let gr = row0 + r; let gk = k0 + kq * 4u;",
                q = bk / 4
            ),
            "if (gr < P.m && gk < P.k) { @R = A[u32(base_a + i32(gr) * P.sam + i32(gk)) / 4u]; }"
                .to_string(),
            format!(
                "let at = buf + kq * {s4}u + r; As[at / 4u][r % 4u] = @R.x; \
                 As[(at + {bm}u) / 4u][r % 4u] = @R.y; As[(at + {s2}u) / 4u][r % 4u] = @R.z; \
                 As[(at + {s3}u) / 4u][r % 4u] = @R.w;",
                s4 = 4 * bm,
                s2 = 2 * bm,
                s3 = 3 * bm
            ),
        ),
        Load::VecOuter => (
            bm * bk / 4,
            vec4.as_str(),
            format!(
                "let kk = t / {q}u; let mq = t % {q}u; let gm = row0 + mq * 4u; let gk = k0 + kk;",
                q = bm / 4
            ),
            "if (gm < P.m && gk < P.k) { @R = A[u32(base_a + i32(gk) * P.sak + i32(gm)) / 4u]; }"
                .to_string(),
            format!("As[buf / 4u + kk * {q}u + mq] = @R;", q = bm / 4),
        ),
    };
    let b_parts: StageParts<&str> = match lb {
        Load::Scalar | Load::Vec8K | Load::Vec8Outer => (
            bn * bk,
            el,
            format!("let kk = t / {bn}u; let c = t % {bn}u; let gc = col0 + c; let gk = k0 + kk;"),
            format!(
                "if (gc < P.n && gk < P.k) {{ @R = {}; }}",
                b_elem("u32(base_b + i32(gk) * P.sbk + i32(gc) * P.sbn)")
            ),
            format!("Bs[(bufb + kk * {bn}u + c) / 4u][c % 4u] = @R;"),
        ),
        Load::VecOuter => (
            bn * bk / 4,
            vec4.as_str(),
            format!(
                "let kk = t / {q}u; let nq = t % {q}u; let gn = col0 + nq * 4u; let gk = k0 + kk;",
                q = bn / 4
            ),
            "if (gn < P.n && gk < P.k) { @R = B[u32(base_b + i32(gk) * P.sbk + i32(gn)) / 4u]; }"
                .to_string(),
            format!("Bs[bufb / 4u + kk * {q}u + nq] = @R;", q = bn / 4),
        ),
        Load::VecK => (
            bn * bk / 4,
            vec4.as_str(),
            format!(
                "let c = t / {q}u; let kq = t % {q}u; let gc = col0 + c; let gk = k0 + kq * 4u;",
                q = bk / 4
            ),
            "if (gc < P.n && gk < P.k) { @R = B[u32(base_b + i32(gc) * P.sbn + i32(gk)) / 4u]; }"
                .to_string(),
            format!(
                "let at = bufb + kq * {s4}u + c; Bs[at / 4u][c % 4u] = @R.x; \
                 Bs[(at + {bn}u) / 4u][c % 4u] = @R.y; Bs[(at + {s2}u) / 4u][c % 4u] = @R.z; \
                 Bs[(at + {s3}u) / 4u][c % 4u] = @R.w;",
                s4 = 4 * bn,
                s2 = 2 * bn,
                s3 = 3 * bn
            ),
        ),
    };
    let (decl, fetch, put) = staging(wg, [("ra", &a_parts), ("rb", &b_parts)]);
    // `buf`, `k0` are set by the template around FETCH and PUT; `idx` declares gk from k0.
    let load_a = String::new();
    let load_b = String::new();
    // The k loop of one staged step, fully unrolled: constant workgroup-memory offsets and no
    // loop control in the FMA stream (H100: 30 -> 36 TFLOP/s at 4096 over a `for kk` loop).
    let mut kloop = String::new();
    for kk in 0..bk {
        let _ = writeln!(kloop, "            {{");
        for i in 0..pm {
            let _ = writeln!(
                kloop,
                "                let a{i} = As[ab + {o}u + ty + {i}u * TY];",
                o = kk * bm / 4
            );
        }
        for q in 0..qn {
            let _ = writeln!(
                kloop,
                "                let b{q} = Bs[bb + {o}u + tx + {q}u * TX];",
                o = kk * bn / 4
            );
        }
        for i in 0..pm {
            for r in 0..4 {
                let lane = ["x", "y", "z", "w"][r as usize];
                for q in 0..qn {
                    let at = (i * 4 + r) * qn + q;
                    let _ = writeln!(
                        kloop,
                        "                acc[{at}] = fma({vec4}(a{i}.{lane}), b{q}, acc[{at}]);"
                    );
                }
            }
        }
        let _ = writeln!(kloop, "            }}");
    }
    let mut store = String::new();
    for i in 0..pm {
        for r in 0..4 {
            let _ = writeln!(
                store,
                "        {{
            let row = row0 + (ty + {i}u * TY) * 4u + {r}u;"
            );
            for q in 0..qn {
                let at = (i * 4 + r) * qn + q;
                if c_vec4 {
                    let _ = writeln!(
                        store,
                        "            let cc{q} = col0 + (tx + {q}u * TX) * 4u;
            if (row < P.m && cc{q} < P.n) {{
                C[((z * P.m + row) * P.n + cc{q}) / 4u] = acc[{at}];
            }}"
                    );
                } else {
                    for c in 0..4 {
                        let lane = ["x", "y", "z", "w"][c as usize];
                        let v = stored(
                            p,
                            &format!("acc[{at}].{lane}"),
                            "row",
                            &format!("col{q}_{c}"),
                        );
                        let write = if p.update.is_some() {
                            format!(
                                "let ci = P.oc + z * P.scz + row * P.ldc + col{q}_{c};
                C[ci] = C[ci] - {};",
                                store_expr(&format!("acc[{at}].{lane}"), p.out)
                            )
                        } else {
                            format!("C[(z * P.m + row) * P.n + col{q}_{c}] = {v};")
                        };
                        let _ = writeln!(
                            store,
                            "            let col{q}_{c} = col0 + (tx + {q}u * TX) * 4u + {c}u;
            if (row < P.m && col{q}_{c} < P.n) {{
                {write}
            }}"
                        );
                    }
                }
            }
            let _ = writeln!(store, "        }}");
        }
    }
    let ty_of = |d: DType, l: Load| {
        if l == Load::Scalar {
            storage(d).to_string()
        } else {
            vec4.clone()
        }
    };
    subs.push(("A_TYPE", ty_of(p.a, la)));
    subs.push(("B_TYPE", ty_of(p.b, lb)));
    subs.push((
        "C_TYPE",
        if c_vec4 {
            vec4.clone()
        } else {
            c_storage(p).to_string()
        },
    ));
    subs.push(("EL", el.to_string()));
    subs.push(("BM", t.bm.to_string()));
    subs.push(("BN", t.bn.to_string()));
    subs.push(("BK", t.bk.to_string()));
    subs.push(("TX", tx.to_string()));
    subs.push(("TY", ty.to_string()));
    subs.push(("WG", wg.to_string()));
    subs.push(("AS_LEN", (t.bm * t.bk / 4).to_string()));
    subs.push(("BS_LEN", (t.bn * t.bk / 4).to_string()));
    subs.push(("AS_LEN2", (t.bm * t.bk / 2).to_string()));
    subs.push(("BS_LEN2", (t.bn * t.bk / 2).to_string()));
    subs.push(("ACC_LEN", (t.tm * t.tn / 4).to_string()));
    let _ = (load_a, load_b);
    subs.push(("DECL", decl));
    subs.push(("FETCH", fetch));
    subs.push(("PUT", put));
    subs.push(("KLOOP", kloop));
    subs.push(("STORE", store));
    let skip = match p.update {
        // The whole workgroup leaves together (before any barrier): its tile is above the
        // diagonal.
        Some(InPlaceUpdate { lower: true }) => {
            "    if (col0 > row0 + BM - 1u) {\n        return;\n    }"
        }
        _ => "",
    };
    subs.push(("SKIP", skip.to_string()));
    Ok(fill(TILED, &subs))
}

fn coop(
    p: &MatmulProgram,
    cfg: CoopConfig,
    f16_acc: bool,
    la: Load,
    lb: Load,
    mut subs: Vec<(&str, String)>,
) -> Result<String> {
    if !matches!(p.out, DType::F32 | DType::F16)
        || !matches!(p.a, DType::F32 | DType::F16)
        || !matches!(p.b, DType::F32 | DType::F16)
    {
        return Err(Error::invalid(
            "the cooperative-matrix kernel computes floats",
        ));
    }
    if !cfg.valid() {
        return Err(Error::invalid(format!("bad coop configuration {cfg:?}")));
    }
    if matches!(la, Load::VecOuter | Load::Vec8Outer) || matches!(lb, Load::VecK | Load::Vec8K) {
        return Err(Error::invalid(
            "coop loads: A scalar or along k, B scalar or along n",
        ));
    }
    if (la == Load::Vec8K && p.a != DType::F16) || (lb == Load::Vec8Outer && p.b != DType::F16) {
        return Err(Error::invalid("8-wide coop loads read float16"));
    }
    let acc_t = if f16_acc { "f16" } else { "f32" };
    let cs_v = if f16_acc {
        "f32(Cs[sg * 256u + e])"
    } else {
        "Cs[sg * 256u + e]"
    };
    let (bm, bn, bk) = (cfg.bm(), cfg.bn(), cfg.bk);
    // Row lengths of the staged tiles in vec4<f16> units, padded by 8 halves.
    let (bkp, bnp) = ((bk + 8) / 4, (bn + 8) / 4);
    // Each thread moves tasks of 8 consecutive elements of a staged row: two neighbouring
    // units in a mat2x4<f16> register, written at an even unit (against one unit per task,
    // 154 against 107 TFLOP/s at 4096 on the H100).
    let w = 8;
    let reg_t = "mat2x4<f16>";
    // The read of one task: `w` elements of the operand along a staged row from element
    // `inner` on, zero outside; `guard_outer` bounds the row, `inner_n` is the extent along
    // it and `idx(e)` the element index of element `e` of the row.
    let task_read = |load: Load,
                     dtype: DType,
                     arr: &str,
                     guard_outer: &str,
                     inner: &str,
                     inner_n: &str,
                     idx: &dyn Fn(&str) -> String|
     -> String {
        let cvt = if dtype == DType::F16 { "" } else { "vec4<f16>" };
        match load {
            Load::Scalar => {
                let mut s = String::new();
                for e in 0..w {
                    let at = format!("{inner} + {e}u");
                    let _ = write!(
                        s,
                        "var x{e} = f16(); if ({guard_outer} && {at} < {inner_n}) {{ x{e} = f16({arr}[u32({})]); }} ",
                        idx(&at)
                    );
                }
                s + "@R = mat2x4<f16>(vec4<f16>(x0, x1, x2, x3), vec4<f16>(x4, x5, x6, x7));"
            }
            Load::Vec8K | Load::Vec8Outer => format!(
                "if ({guard_outer} && {inner} < {inner_n}) {{ let vi = u32({}) / 4u; \
                 @R = mat2x4<f16>({arr}[vi], {arr}[vi + 1u]); }}",
                idx(inner)
            ),
            _ => format!(
                "let vi = u32({}) / 4u; var lo = vec4<f16>(); var hi = vec4<f16>(); \
                 if ({guard_outer} && {inner} < {inner_n}) {{ lo = {cvt}({arr}[vi]); }} \
                 if ({guard_outer} && {inner} + 4u < {inner_n}) {{ hi = {cvt}({arr}[vi + 1u]); }} \
                 @R = mat2x4<f16>(lo, hi);",
                idx(inner)
            ),
        }
    };
    let put = |arr: &str, at: &str| format!("{arr}[{at}] = @R[0]; {arr}[{at} + 1u] = @R[1];");
    let a_read = task_read(la, p.a, "AA", "gr < P.m", "gk", "P.k", &|at: &str| {
        format!("base_a + i32(gr) * P.sam + i32({at}) * P.sak")
    });
    let b_read = task_read(lb, p.b, "BB", "gk < P.k", "gn", "P.n", &|at: &str| {
        format!("base_b + i32(gk) * P.sbk + i32({at}) * P.sbn")
    });
    let a_parts: StageParts<&str> = (
        bm * bk / w,
        reg_t,
        format!(
            "let r = t / {q}u; let q = t % {q}u; let gr = row0 + r; let gk = k0 + q * {w}u;",
            q = bk / w
        ),
        a_read,
        put("As", &format!("abuf + r * {bkp}u + q * 2u")),
    );
    let b_parts: StageParts<&str> = (
        bk * bn / w,
        reg_t,
        format!(
            "let kk = t / {q}u; let q = t % {q}u; let gn = col0 + q * {w}u; let gk = k0 + kk;",
            q = bn / w
        ),
        b_read,
        put("Bs", &format!("bbuf + kk * {bnp}u + q * 2u")),
    );
    let wg = cfg.threads();
    let (decl, fetch, put) = staging(wg, [("ra", &a_parts), ("rb", &b_parts)]);
    // float16 operands read 8 elements at a time along k (A) and n (B) take the streamed
    // k loop: each thread's reads sit at fixed offsets that step by k0 (rows of A beyond M
    // and columns of B beyond N are clamped, their products never stored), so no read
    // needs a bounds check except in a last partial k step.
    let streamed = la == Load::Vec8K && lb == Load::Vec8Outer && cfg.stages == 1;
    let stream = streamed
        .then(|| streamed_staging(wg, (bm * bk / w, bk / w, bkp), (bk * bn / w, bn / w, bnp)));
    let storage_of = |d: DType, l: Load| -> String {
        match l {
            Load::Scalar => storage(d).to_string(),
            _ => format!("vec4<{}>", storage(d)),
        }
    };
    subs.push(("A_STORAGE", storage_of(p.a, la)));
    subs.push(("B_STORAGE", storage_of(p.b, lb)));
    // The multiply-adds of one staged step (k unrolled), from tiles at units `ab` and `bb`.
    let mut mads = String::new();
    for kk in (0..bk).step_by(16) {
        let _ = writeln!(mads, "            {{");
        for i in 0..cfg.fm {
            let _ = writeln!(
                mads,
                "            let a{i} = coopLoadT<coop_mat16x16<f16, A>>(&As[ab + {} * {bkp}u + {}u], {bkp}u);",
                format_args!("(wy * {}u + {}u)", cfg.fm * 16, i * 16),
                kk / 4,
            );
        }
        for j in 0..cfg.fn_ {
            let _ = writeln!(
                mads,
                "            let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&Bs[bb + {}u * {bnp}u + wx * {}u + {}u], {bnp}u);",
                kk,
                cfg.fn_ * 4,
                j * 4,
            );
        }
        for i in 0..cfg.fm {
            for j in 0..cfg.fn_ {
                let _ = writeln!(
                    mads,
                    "            c{i}_{j} = coopMultiplyAdd(a{i}, b{j}, c{i}_{j});"
                );
            }
        }
        let _ = writeln!(mads, "            }}");
    }
    let (a_units, b_units) = (bm * bkp, bk * bnp);
    let kloop = if cfg.stages == 2 {
        // Double-buffered: the next step's tiles are read into registers before this step's
        // products and written to the other buffer after them; one barrier per step. The loop
        // is unrolled by two so that both buffers' offsets are constants (with an offset
        // computed from the step's parity the loop ran at half the speed on the H100); an odd
        // step count gets one more step past K, whose tiles are zeros.
        let step = |sv: &str, c: u32| {
            format!(
                "            {{
            let s1 = {sv} + 1u;
            if (s1 < nsteps) {{
                let k0 = s1 * BK;
{fetch}            }}
            let ab = {ab}u;
            let bb = {bb}u;
{mads}            if (s1 < nsteps) {{
                let k0 = s1 * BK;
                let abuf = {nab}u;
                let bbuf = {nbb}u;
{put}            }}
            workgroupBarrier();
            }}
",
                ab = c * a_units,
                bb = c * b_units,
                nab = (1 - c) * a_units,
                nbb = (1 - c) * b_units,
            )
        };
        format!(
            "        {{
            let k0 = 0u;
{fetch}            let abuf = 0u;
            let bbuf = 0u;
{put}        }}
        workgroupBarrier();
        let nsteps = ntiles + (ntiles & 1u);
        for (var s = 0u; s < nsteps; s += 2u) {{
{even}{odd}        }}
",
            even = step("s", 0),
            odd = step("s + 1u", 1),
        )
    } else if let Some((setup, step)) = &stream {
        // Streamed: each full k step reads straight into workgroup memory, then multiplies;
        // the two workgroups a multiprocessor holds overlap each other's reads and products.
        // A last partial step (K not a multiple of BK) reads through the bounds-checked
        // staging.
        format!(
            "{setup}        let nfull = P.k / BK;
        for (var s = 0u; s < nfull; s++) {{
            {{
                let k0 = s * BK;
{step}            }}
            workgroupBarrier();
            let ab = 0u;
            let bb = 0u;
{mads}            workgroupBarrier();
        }}
        if (nfull < ntiles) {{
            {{
                let k0 = nfull * BK;
{fetch}            }}
            {{
                let k0 = nfull * BK;
                let abuf = 0u;
                let bbuf = 0u;
{put}            }}
            workgroupBarrier();
            let ab = 0u;
            let bb = 0u;
{mads}            workgroupBarrier();
        }}
"
        )
    } else {
        // One buffer: the next step's global reads are in flight during the products; two
        // barriers per step.
        format!(
            "        {{
            let k0 = 0u;
{fetch}        }}
        for (var s = 0u; s < ntiles; s++) {{
            {{
                let k0 = s * BK;
                let abuf = 0u;
                let bbuf = 0u;
{put}            }}
            workgroupBarrier();
            if (s + 1u < ntiles) {{
                let k0 = (s + 1u) * BK;
{fetch}            }}
            let ab = 0u;
            let bb = 0u;
{mads}            workgroupBarrier();
        }}
"
        )
    };
    let mut frags = String::new();
    let mut stores = String::new();
    for i in 0..cfg.fm {
        for j in 0..cfg.fn_ {
            let _ = writeln!(frags, "        var c{i}_{j} = coop_mat16x16<{acc_t}, C>();");
            let _ = writeln!(
                stores,
                "        {{
            coopStoreT(c{i}_{j}, &Cs[sg * 256u], 16u);
            workgroupBarrier();
            let r0 = row0 + (wy * {fm}u + {i}u) * 16u;
            let c0 = col0 + (wx * {fn_}u + {j}u) * 16u;
            for (var e = lane; e < 256u; e += SG) {{
                let row = r0 + e / 16u;
                let col = c0 + e % 16u;
                if (row < P.m && col < P.n) {{
                    let v = {store_v};
                    CC[(z * P.m + row) * P.n + col] = {store};
                }}
            }}
            workgroupBarrier();
        }}",
                fm = cfg.fm,
                fn_ = cfg.fn_,
                store_v = cs_v,
                store = stored(p, "v", "row", "col"),
            );
        }
    }
    subs.push(("ACC_T", acc_t.to_string()));
    subs.push(("BM", bm.to_string()));
    subs.push(("BN", bn.to_string()));
    subs.push(("BK", bk.to_string()));
    subs.push(("WN", cfg.wn.to_string()));
    subs.push(("SG", cfg.subgroup.to_string()));
    subs.push(("WG", wg.to_string()));
    subs.push(("AS_UNITS", (cfg.stages * a_units).to_string()));
    subs.push(("BS_UNITS", (cfg.stages * b_units).to_string()));
    subs.push(("DECL", decl));
    subs.push(("FRAGS", frags));
    subs.push(("KLOOP", kloop));
    subs.push(("STORES", stores));
    Ok(fill(COOP, &subs))
}

/// WGSL of the streamed staging of float16 operands read 8 elements at a time (A along k,
/// B along n) by `wg` threads: the per-thread setup before the k loop (each task's element
/// index at k = 0, rows of A clamped to M and columns of B to N, and its workgroup-memory
/// unit) and one full k step's reads and stores at `k0`. `a` is (tasks, tasks per row of
/// the A tile, A tile row length in units), `b` the same for B.
fn streamed_staging(wg: u32, a: (u32, u32, u32), b: (u32, u32, u32)) -> (String, String) {
    let mut setup = String::new();
    let mut loads = String::new();
    let mut stores = String::new();
    // Per operand: name, buffer, tile, (tasks, tasks per tile row, tile row length), the
    // element index at k = 0 of the task in tile row `@T` at element `@E` of it (rows of A
    // clamped to M, columns of B to N) and the index's step per unit of k.
    let operands = [
        (
            "a",
            "AA",
            "As",
            a,
            "base_a + i32(min(row0 + @T, P.m - 1u)) * P.sam + i32(@E) * P.sak",
            "P.sak",
        ),
        (
            "b",
            "BB",
            "Bs",
            b,
            "base_b + i32(@T) * P.sbk + i32(min(col0 + @E, P.n - 8u)) * P.sbn",
            "P.sbk",
        ),
    ];
    for (name, arr, tile, (tasks, per_row, row_len), at, step) in operands {
        for j in 0..tasks.div_ceil(wg) {
            let guard = if tasks.is_multiple_of(wg) {
                String::new()
            } else {
                format!("if (lid + {}u < {tasks}u) ", j * wg)
            };
            let t = format!("{name}_t{j}");
            let _ = writeln!(
                setup,
                "        let {t} = lid + {}u;\n        let {name}_at{j} = {};\n        let {name}_su{j} = {t} / {per_row}u * {row_len}u + {t} % {per_row}u * 2u;",
                j * wg,
                at.replace("@T", &format!("{t} / {per_row}u"))
                    .replace("@E", &format!("{t} % {per_row}u * 8u"))
            );
            let _ = writeln!(
                loads,
                "                var {name}_v{j} = mat2x4<f16>(); {guard}{{ let vi = u32({name}_at{j} + i32(k0) * {step}) / 4u; {name}_v{j} = mat2x4<f16>({arr}[vi], {arr}[vi + 1u]); }}"
            );
            let _ = writeln!(
                stores,
                "                {guard}{{ {tile}[{name}_su{j}] = {name}_v{j}[0]; {tile}[{name}_su{j} + 1u] = {name}_v{j}[1]; }}"
            );
        }
    }
    (setup, loads + &stores)
}

/// One operand's share of a k-step staged through registers: how many elements the
/// workgroup moves, their WGSL type, the index code for element `t`, and the global read and
/// workgroup-memory store of register `@R`.
type StageParts<T> = (u32, T, String, String, String);

/// WGSL for staging both operands of a k-step through registers with `wg` threads: the
/// register declarations, the global loads into them (zero outside the operand) and their
/// stores into workgroup memory.
fn staging<T: std::fmt::Display>(
    wg: u32,
    operands: [(&str, &StageParts<T>); 2],
) -> (String, String, String) {
    let mut decl = String::new();
    let mut fetch = String::new();
    let mut put = String::new();
    for (name, (total, ty, idx, read, store)) in operands {
        for j in 0..total.div_ceil(wg) {
            let reg = format!("{name}{j}");
            let guard = if total.is_multiple_of(wg) {
                "true".to_string()
            } else {
                format!("t < {total}u")
            };
            let _ = writeln!(decl, "        var {reg}: {ty};");
            let _ = writeln!(
                fetch,
                "            {{ let t = lid + {o}u; {reg} = {ty}(); if ({guard}) {{ {idx} {} }} }}",
                read.replace("@R", &reg),
                o = j * wg
            );
            let _ = writeln!(
                put,
                "            {{ let t = lid + {o}u; if ({guard}) {{ {idx} {} }} }}",
                store.replace("@R", &reg),
                o = j * wg
            );
        }
    }
    (decl, fetch, put)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn validate(wgsl: &str, coop: bool) {
        let extra = if coop {
            naga::valid::Capabilities::COOPERATIVE_MATRIX
        } else {
            naga::valid::Capabilities::empty()
        };
        crate::naga_check::validate(wgsl, extra);
    }

    const ALL: Target = Target {
        f16: true,
        f64: true,
        i64: true,
    };

    fn result(a: DType, b: DType) -> Option<DType> {
        crate::promote::result_type(a, b).ok()
    }

    #[test]
    fn simple_kernel_validates_for_every_dtype_pair() {
        for a in DType::ALL {
            for b in DType::ALL {
                let Some(out) = result(a, b) else { continue };
                let p = MatmulProgram {
                    a,
                    b,
                    out,
                    kernel: MatmulKernel::Simple,
                    epilogue: None,
                    update: None,
                };
                validate(&generate(&p, &ALL).unwrap(), false);
            }
        }
    }

    #[test]
    fn gemv_kernels_validate() {
        for a in DType::ALL {
            for b in DType::ALL {
                let Some(out) = result(a, b) else { continue };
                if out == DType::Bool {
                    continue;
                }
                for shape in [
                    GemvShape::Cols,
                    GemvShape::Rows {
                        lanes: 32,
                        vec4: false,
                    },
                    GemvShape::Rows {
                        lanes: 8,
                        vec4: false,
                    },
                ] {
                    let p = MatmulProgram {
                        a,
                        b,
                        out,
                        kernel: MatmulKernel::Gemv(shape),
                        epilogue: None,
                        update: None,
                    };
                    validate(&generate(&p, &ALL).unwrap(), false);
                }
            }
        }
        for lanes in [4, 8, 32, 64, 128, 256] {
            let p = MatmulProgram {
                a: DType::F32,
                b: DType::F32,
                out: DType::F32,
                kernel: MatmulKernel::Gemv(GemvShape::Rows { lanes, vec4: true }),
                epilogue: None,
                update: None,
            };
            validate(&generate(&p, &ALL).unwrap(), false);
        }
    }

    /// The in-place update variants (the blocked factorizations' trailing updates): every
    /// tile configuration the updates take, float32 and float64, every load, with and
    /// without the lower-triangle skip; other kernels and epilogues are refused.
    #[test]
    fn in_place_update_kernels_validate() {
        let loads = [Load::Scalar, Load::VecK, Load::VecOuter];
        let tiles = [
            TileConfig::default_for(1, 1),
            TileConfig::default_for(4096, 4096),
        ];
        for tile in tiles {
            for out in [DType::F32, DType::F64] {
                for la in loads {
                    for lb in loads {
                        for lower in [false, true] {
                            let p = MatmulProgram {
                                a: out,
                                b: out,
                                out,
                                kernel: MatmulKernel::Tiled {
                                    tile,
                                    a: la,
                                    b: lb,
                                    c_vec4: false,
                                },
                                epilogue: None,
                                update: Some(InPlaceUpdate { lower }),
                            };
                            let wgsl = generate(&p, &ALL).unwrap();
                            assert!(wgsl.contains("C[ci] = C[ci] -"), "{p:?}");
                            assert_eq!(wgsl.contains("col0 > row0 + BM - 1u"), lower, "{p:?}");
                            validate(&wgsl, false);
                        }
                    }
                }
            }
        }
        let refused = |kernel| MatmulProgram {
            a: DType::F32,
            b: DType::F32,
            out: DType::F32,
            kernel,
            epilogue: None,
            update: Some(InPlaceUpdate { lower: false }),
        };
        assert!(generate(&refused(MatmulKernel::Simple), &ALL).is_err());
        let vec_c = MatmulKernel::Tiled {
            tile: tiles[0],
            a: Load::Scalar,
            b: Load::Scalar,
            c_vec4: true,
        };
        assert!(generate(&refused(vec_c), &ALL).is_err());
    }

    #[test]
    fn every_tile_config_and_load_validates() {
        let loads = [Load::Scalar, Load::VecK, Load::VecOuter];
        let mut cfgs = TileConfig::candidates();
        cfgs.push(TileConfig::default_for(1, 1));
        cfgs.push(TileConfig::default_for(4096, 4096));
        for tile in cfgs {
            for (a, b, out) in [
                (DType::F32, DType::F32, DType::F32),
                (DType::F16, DType::F16, DType::F16),
                (DType::F16, DType::F32, DType::F32),
                (DType::I32, DType::F32, DType::F32),
                (DType::F64, DType::F64, DType::F64),
                (DType::F32, DType::F64, DType::F64),
                (DType::I32, DType::F64, DType::F64),
            ] {
                let acc = acc_dtype(out);
                for la in loads {
                    for lb in loads {
                        for c_vec4 in [false, true] {
                            let p = MatmulProgram {
                                a,
                                b,
                                out,
                                kernel: MatmulKernel::Tiled {
                                    tile,
                                    a: la,
                                    b: lb,
                                    c_vec4,
                                },
                                epilogue: None,
                                update: None,
                            };
                            match generate(&p, &ALL) {
                                Ok(w) => validate(&w, false),
                                Err(_) => assert!(
                                    (la != Load::Scalar && a != acc)
                                        || (lb != Load::Scalar && b != acc)
                                        || (c_vec4 && out != acc)
                                ),
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn coop_register_estimate_admits_the_candidates_and_refuses_a_device_losing_workgroup() {
        for cfg in CoopConfig::candidates(32) {
            assert!(cfg.fits_register_file(), "{cfg:?}");
        }
        // 12 subgroups of 4x4 fragments: 255 registers a thread on the H100, 98K in all.
        assert!(!CoopConfig::from_numbers([4, 3, 4, 4, 32, 1], 32).fits_register_file());
        assert!(!CoopConfig::from_numbers([4, 4, 4, 2, 32, 1], 32).fits_register_file());
        assert!(CoopConfig::from_numbers([4, 4, 2, 2, 32, 1], 32).fits_register_file());
    }

    #[test]
    fn every_coop_config_validates() {
        for cfg in CoopConfig::candidates(32) {
            for (a, b, out) in [
                (DType::F16, DType::F16, DType::F16),
                (DType::F32, DType::F32, DType::F32),
            ] {
                for f16_acc in [false, true] {
                    for (la, lb) in [
                        (Load::Scalar, Load::Scalar),
                        (Load::VecK, Load::VecOuter),
                        (Load::VecK, Load::Scalar),
                        (Load::Scalar, Load::VecOuter),
                        (Load::Vec8K, Load::Vec8Outer),
                        (Load::Vec8K, Load::Scalar),
                        (Load::Scalar, Load::Vec8Outer),
                    ] {
                        let wide = la == Load::Vec8K || lb == Load::Vec8Outer;
                        if wide && a != DType::F16 {
                            continue;
                        }
                        let p = MatmulProgram {
                            a,
                            b,
                            out,
                            kernel: MatmulKernel::Coop {
                                cfg,
                                f16_acc,
                                a: la,
                                b: lb,
                            },
                            epilogue: None,
                            update: None,
                        };
                        validate(&generate(&p, &ALL).unwrap(), true);
                    }
                }
            }
        }
    }

    /// `relu(product * s0 + in1) < in2` style epilogues over every product dtype the
    /// kernels store, with array inputs of other dtypes (f16, bool) and a user function.
    fn epilogues(product: DType) -> Vec<Program> {
        use crate::expr::{Access, InputSpec, Node};
        use crate::{BinaryOp, UnaryOp};
        let spec = |dtype| InputSpec {
            dtype,
            access: Access::Strided,
        };
        let scaled_plus = Program {
            nodes: vec![
                (Node::Load(0), product),
                (Node::Scalar(0), product),
                (Node::Binary(BinaryOp::Multiply, 0, 1), product),
                (Node::Load(1), product),
                (Node::Binary(BinaryOp::Add, 2, 3), product),
            ],
            inputs: vec![spec(product), spec(product)],
            scalars: vec![product],
            output: 4,
            rank: 0,
            vector: false,
        };
        let mut scaled_plus = scaled_plus;
        if !crate::epilogue::scalar_fits(product) {
            // 8-byte scalars do not fit the epilogue's uniforms: the factor is an array.
            scaled_plus.nodes[1] = (Node::Load(2), product);
            scaled_plus.inputs.push(spec(product));
            scaled_plus.scalars.clear();
        }
        let mut out = vec![scaled_plus];
        if product.is_float() {
            out.push(Program {
                nodes: vec![
                    (Node::Load(0), product),
                    (Node::Unary(UnaryOp::Exp, 0), product),
                    (Node::Load(1), DType::F16),
                    (Node::Cast(2), product),
                    (Node::Binary(BinaryOp::Less, 1, 3), DType::Bool),
                    (Node::Load(2), DType::Bool),
                    (Node::Binary(BinaryOp::LogicalAnd, 4, 5), DType::Bool),
                    (Node::Index, DType::U32),
                ],
                inputs: vec![spec(product), spec(DType::F16), spec(DType::Bool)],
                scalars: vec![],
                output: 6,
                rank: 0,
                vector: false,
            });
        }
        out
    }

    #[test]
    fn epilogues_validate_on_every_kernel_that_takes_one() {
        let tile = TileConfig::default_for(4096, 4096);
        for out in [
            DType::F32,
            DType::F16,
            DType::I32,
            DType::F64,
            DType::Complex64,
            DType::Complex128,
        ] {
            let mut kernels = vec![MatmulKernel::Simple];
            if matches!(out, DType::F32 | DType::F16 | DType::F64) {
                kernels.push(MatmulKernel::Tiled {
                    tile,
                    a: Load::Scalar,
                    b: Load::Scalar,
                    c_vec4: false,
                });
            }
            if matches!(out, DType::F32 | DType::F16) {
                kernels.push(MatmulKernel::Coop {
                    cfg: CoopConfig::candidates(32)[0],
                    f16_acc: false,
                    a: Load::Scalar,
                    b: Load::Scalar,
                });
            }
            for kernel in kernels {
                for epi in epilogues(out) {
                    let p = MatmulProgram {
                        a: out,
                        b: out,
                        out,
                        kernel,
                        epilogue: Some(epi),
                        update: None,
                    };
                    let coop = matches!(kernel, MatmulKernel::Coop { .. });
                    let wgsl = generate(&p, &ALL).unwrap();
                    assert!(wgsl.contains("kp_epilogue("), "{wgsl}");
                    validate(&wgsl, coop);
                }
            }
        }
    }

    /// The loads the library's tiled kernel may use for an operand of `dtype` in a product
    /// stored as `out` (`Geometry::load_a`/`load_b`: vec4 only where the operand is already
    /// in the accumulator's dtype).
    fn tiled_loads(dtype: DType, out: DType) -> Vec<Load> {
        if tiled_vec_loadable(dtype, out) {
            vec![Load::Scalar, Load::VecK, Load::VecOuter]
        } else {
            vec![Load::Scalar]
        }
    }

    /// The (A, B) loads of the cooperative-matrix kernel (`Geometry::coop_loads`: 8 float16
    /// elements at a time where the operand is float16, else 4, else one).
    fn coop_loads(a: DType, b: DType) -> Vec<(Load, Load)> {
        let mut la = vec![Load::Scalar, Load::VecK];
        if a == DType::F16 {
            la.push(Load::Vec8K);
        }
        let mut lb = vec![Load::Scalar, Load::VecOuter];
        if b == DType::F16 {
            lb.push(Load::Vec8Outer);
        }
        la.iter()
            .flat_map(|&x| lb.iter().map(move |&y| (x, y)))
            .collect()
    }

    /// The (A, B, result) dtypes the library runs on cooperative matrices: float16 or
    /// float32 operands, a float16 product of float16 operands or a float32 one.
    const COOP_DTYPES: [(DType, DType, DType); 4] = [
        (DType::F16, DType::F16, DType::F16),
        (DType::F32, DType::F32, DType::F32),
        (DType::F16, DType::F32, DType::F32),
        (DType::F32, DType::F16, DType::F32),
    ];

    /// Every kernel the library's `choose` can pick, beyond what the tests above sample:
    /// the tiled kernel (the large default tile; every candidate tile and the small default
    /// are crossed with the loads above) for every operand pair whose product it computes,
    /// with every load the layout may allow and both stores; gemv with every lane count
    /// (a constant of the kernel) for every kind of product, vec4 where the library uses it;
    /// the cooperative-matrix kernel: every pair of (candidate, dtype combination, load pair)
    /// it runs on for subgroups of 32, and every candidate for subgroups of 16 and 64 (the
    /// subgroup size changes only the workgroup shape).
    #[test]
    fn every_requested_kernel_validates() {
        let mut checked = 0;
        let tile = TileConfig::default_for(4096, 4096);
        for a in DType::ALL {
            for b in DType::ALL {
                let Some(out) = result(a, b) else { continue };
                if !tiled_computes(out) {
                    continue;
                }
                for la in tiled_loads(a, out) {
                    for lb in tiled_loads(b, out) {
                        for c_vec4 in [false, tiled_vec_loadable(out, out)] {
                            let p = MatmulProgram {
                                a,
                                b,
                                out,
                                kernel: MatmulKernel::Tiled {
                                    tile,
                                    a: la,
                                    b: lb,
                                    c_vec4,
                                },
                                epilogue: None,
                                update: None,
                            };
                            validate(&generate(&p, &ALL).unwrap(), false);
                            checked += 1;
                        }
                    }
                }
            }
        }
        for d in [
            DType::F32,
            DType::F16,
            DType::F64,
            DType::I32,
            DType::I8,
            DType::Complex64,
            DType::Complex128,
        ] {
            for lanes in [4, 8, 16, 32, 64, 128, 256] {
                for vec4 in [false, d == DType::F32] {
                    let p = MatmulProgram {
                        a: d,
                        b: d,
                        out: d,
                        kernel: MatmulKernel::Gemv(GemvShape::Rows { lanes, vec4 }),
                        epilogue: None,
                        update: None,
                    };
                    validate(&generate(&p, &ALL).unwrap(), false);
                    checked += 1;
                }
            }
        }
        // Cooperative matrices (the library never asks for float16 accumulators; the test
        // above covers them): the candidate, the dtypes and the loads change different parts
        // of the kernel, so every pair of them is generated rather than all triples.
        let mut coop = vec![];
        for cfg in CoopConfig::candidates(32) {
            for (a, b, out) in COOP_DTYPES {
                coop.push((cfg, a, b, out, Load::Scalar, Load::Scalar));
            }
            for (la, lb) in coop_loads(DType::F16, DType::F16) {
                coop.push((cfg, DType::F16, DType::F16, DType::F16, la, lb));
            }
        }
        for (a, b, out) in COOP_DTYPES {
            for (la, lb) in coop_loads(a, b) {
                coop.push((CoopConfig::candidates(32)[0], a, b, out, la, lb));
            }
        }
        for subgroup in [16, 64] {
            for cfg in CoopConfig::candidates(subgroup) {
                coop.push((
                    cfg,
                    DType::F16,
                    DType::F16,
                    DType::F16,
                    Load::VecK,
                    Load::VecOuter,
                ));
            }
        }
        for (cfg, a, b, out, la, lb) in coop {
            let p = MatmulProgram {
                a,
                b,
                out,
                kernel: MatmulKernel::Coop {
                    cfg,
                    f16_acc: false,
                    a: la,
                    b: lb,
                },
                epilogue: None,
                update: None,
            };
            validate(&generate(&p, &ALL).unwrap(), true);
            checked += 1;
        }
        assert!(checked > 300, "{checked}");
    }

    /// Epilogues on every product dtype the simple kernel stores, and on the tiled and
    /// cooperative kernels with every load they may use (the library stores one element at a
    /// time there, `c_vec4` off).
    #[test]
    fn epilogues_validate_on_every_product_dtype_and_load() {
        let tile = TileConfig::default_for(4096, 4096);
        for out in DType::ALL {
            for epi in epilogues(out) {
                if crate::epilogue::check(&epi, out).is_err() {
                    continue;
                }
                let mut kernels = vec![MatmulKernel::Simple];
                if tiled_computes(out) {
                    for a in tiled_loads(out, out) {
                        for b in tiled_loads(out, out) {
                            kernels.push(MatmulKernel::Tiled {
                                tile,
                                a,
                                b,
                                c_vec4: false,
                            });
                        }
                    }
                }
                for (a, b, coop_out) in COOP_DTYPES {
                    if coop_out != out || a != b {
                        continue;
                    }
                    for (la, lb) in coop_loads(a, b) {
                        kernels.push(MatmulKernel::Coop {
                            cfg: CoopConfig::candidates(32)[0],
                            f16_acc: false,
                            a: la,
                            b: lb,
                        });
                    }
                }
                for kernel in kernels {
                    let p = MatmulProgram {
                        a: out,
                        b: out,
                        out,
                        kernel,
                        epilogue: Some(epi.clone()),
                        update: None,
                    };
                    let coop = matches!(kernel, MatmulKernel::Coop { .. });
                    let wgsl =
                        generate(&p, &ALL).unwrap_or_else(|e| panic!("{out} {kernel:?}: {e}"));
                    validate(&wgsl, coop);
                }
            }
        }
    }

    /// A random draw in an epilogue (`a @ b + rng.random(...)`: the draw is a leaf of the
    /// expression around the product, so it fuses like any other): every op and dtype, on
    /// every kernel that takes an epilogue.
    #[test]
    fn random_draws_in_epilogues_validate() {
        use crate::expr::{Access, InputSpec, Node};
        let tile = TileConfig::default_for(4096, 4096);
        for op in crate::naga_check::random_ops() {
            for d in DType::ALL {
                if op.check(d).is_err() {
                    continue;
                }
                // The draw's program with the product as input 0 and its parameters after.
                let draw = crate::naga_check::random_program(op, d, Access::Strided);
                let mut nodes = vec![(Node::Load(0), DType::F32)];
                let shift = |n: &Node| match n {
                    Node::Load(k) => Node::Load(k + 1),
                    Node::Random(op, args) => {
                        Node::Random(*op, args.iter().map(|a| a + 1).collect())
                    }
                    other => other.clone(),
                };
                nodes.extend(draw.nodes.iter().map(|(n, t)| (shift(n), *t)));
                let r = nodes.len() - 1;
                nodes.push((Node::Cast(r), DType::F32));
                nodes.push((Node::Binary(crate::BinaryOp::Add, 0, r + 1), DType::F32));
                let mut inputs = vec![InputSpec {
                    dtype: DType::F32,
                    access: Access::Strided,
                }];
                inputs.extend(draw.inputs);
                let epi = Program {
                    output: nodes.len() - 1,
                    nodes,
                    inputs,
                    scalars: draw.scalars,
                    rank: 0,
                    vector: false,
                };
                for kernel in [
                    MatmulKernel::Simple,
                    MatmulKernel::Tiled {
                        tile,
                        a: Load::Scalar,
                        b: Load::Scalar,
                        c_vec4: false,
                    },
                ] {
                    let p = MatmulProgram {
                        a: DType::F32,
                        b: DType::F32,
                        out: DType::F32,
                        kernel,
                        epilogue: Some(epi.clone()),
                        update: None,
                    };
                    validate(
                        &generate(&p, &ALL).unwrap_or_else(|e| panic!("{op:?} {d}: {e}")),
                        false,
                    );
                }
            }
        }
    }

    #[test]
    fn epilogues_with_8_byte_scalars_are_refused() {
        let mut epi = epilogues(DType::F32).remove(0);
        epi.scalars[0] = DType::F64;
        epi.nodes[1].1 = DType::F64;
        assert!(crate::epilogue::check(&epi, DType::F32).is_err());
    }

    #[test]
    fn epilogues_are_refused_where_the_store_cannot_take_one() {
        let epi = epilogues(DType::F32).remove(0);
        for kernel in [
            MatmulKernel::Gemv(GemvShape::Cols),
            MatmulKernel::Tiled {
                tile: TileConfig::default_for(64, 64),
                a: Load::Scalar,
                b: Load::Scalar,
                c_vec4: true,
            },
        ] {
            let p = MatmulProgram {
                a: DType::F32,
                b: DType::F32,
                out: DType::F32,
                kernel,
                epilogue: Some(epi.clone()),
                update: None,
            };
            assert!(generate(&p, &ALL).is_err());
        }
    }
}
