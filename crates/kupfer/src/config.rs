//! [`Config`]: the settings a [`Device`](crate::Device) runs by — the runtime's (adapter,
//! tensor cores, shader checks, cache directory), the FFT's pass schedule and the matrix
//! product's tuning and precision. Built once per device by [`Config::from_env`] (the
//! `KUPFER_*` environment variables documented on each field override the defaults) and
//! settable in code per device ([`crate::Device::with_config`]). The only module of this
//! crate that reads the environment.

pub use kupfer_wgpu::RuntimeConfig;

/// Every setting of a device. `Default` holds the built-in values (no environment);
/// [`Config::from_env`] what a device opened without a config uses.
///
/// A device's config is fixed when the device handle is made: kernels and plans are cached
/// per handle, so a handle with another config ([`crate::Device::with_config`]) compiles its
/// own and never meets one chosen under another value.
///
/// ```
/// let mut config = kupfer::Config::default();
/// config.fft.register_mode = 2; // register passes for every power-of-two size
/// config.matmul.f16_operands = true; // float32 products on tensor cores, from float16
/// assert_eq!(config.fft.group_values, 1024);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// How the GPU context is opened: adapter, backends, tensor cores, shader checks, cache
    /// directory, WGSL dumps (`KUPFER_BACKEND`, `KUPFER_ADAPTER`, `KUPFER_COOP`,
    /// `KUPFER_SHADER_CHECKS`, `KUPFER_CACHE_DIR`, `KUPFER_DUMP_WGSL`). Fixed when the GPU
    /// is opened: [`crate::Device::with_config`] keeps the device's.
    pub runtime: RuntimeConfig,
    /// The FFT's pass schedule.
    pub fft: FftConfig,
    /// Matrix products: tuning and float32 precision.
    pub matmul: MatmulConfig,
    /// The blocked factorizations' panels.
    pub linalg: LinalgConfig,
    /// Gathers and stream compaction.
    pub indexing: IndexingConfig,
    /// The global radix sort's variant.
    pub sort: SortConfig,
}

impl Config {
    /// The defaults with every `KUPFER_*` variable of the environment applied (a value that
    /// does not parse, or is below a knob's minimum, leaves the default). In the browser,
    /// the defaults. Errors: an unknown `KUPFER_BACKEND`.
    pub fn from_env() -> kupfer_core::Result<Config> {
        Ok(Config {
            runtime: RuntimeConfig::from_env()?,
            fft: FftConfig::from_env(),
            matmul: MatmulConfig::from_env(),
            linalg: LinalgConfig::from_env(),
            indexing: IndexingConfig::from_env(),
            sort: SortConfig::from_env(),
        })
    }
}

/// The environment variable `name` (None in the browser, where there is no environment).
fn var(name: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        let _ = name;
        None
    }
    #[cfg(not(target_arch = "wasm32"))]
    std::env::var(name).ok()
}

/// `name` as a u32 of at least `min`, else `default`.
/// The largest order of a fused path from its variable's value: `fused` (every order),
/// `fused:N` (orders up to N), `old` (none); anything else keeps `default`.
fn fused_max(value: Option<&str>, default: u32) -> u32 {
    match value.map(str::trim) {
        Some("fused") => u32::MAX,
        Some("old") => 0,
        Some(v) => v
            .strip_prefix("fused:")
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(default),
        None => default,
    }
}

fn knob(name: &str, default: u32, min: u32) -> u32 {
    var(name)
        .and_then(|v| v.trim().parse().ok())
        .filter(|&v: &u32| v >= min)
        .unwrap_or(default)
}

/// The FFT's schedule knobs (for tuning and for tests that force a kind of pass; the
/// defaults are what measured fastest on the H100, see `fft/plan.rs`). Each field's
/// environment variable is named in its doc; values below a knob's minimum (1 unless
/// said) are ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct FftConfig {
    /// Workgroup-memory bytes a pass may use (within the adapter's limit, at least 4096).
    /// `KUPFER_FFT_WG_BYTES`; default 40 KiB.
    pub workgroup_bytes: u32,
    /// Values a workgroup holds in one pass. `KUPFER_FFT_GV`; 1024.
    pub group_values: u32,
    /// Values a workgroup of a single-pass transform holds. `KUPFER_FFT_SINGLE`; 1024.
    pub single_values: u32,
    /// Largest pass radix of big batches of contiguous lines. `KUPFER_FFT_RMAX`; 256.
    pub big_radix: u32,
    /// Largest pass radix of small batches of contiguous lines. `KUPFER_FFT_SRMAX`; 1024.
    pub small_radix: u32,
    /// Largest pass radix of strided lines. `KUPFER_FFT_TRMAX`; 128.
    pub strided_radix: u32,
    /// Values per thread (workgroup size = values / this). `KUPFER_FFT_VPT`; 2.
    pub values_per_thread: u32,
    /// Most threads per workgroup (also capped by the device). `KUPFER_FFT_MAXWG`; 512.
    pub max_workgroup: u32,
    /// Where register passes run: 0 nowhere, 1 where they measured faster, 2 for every
    /// power-of-two size. `KUPFER_FFT_REG` (minimum 0); 1.
    pub register_mode: u32,
    /// Largest sub-radix of a register pass (values per thread). `KUPFER_FFT_RQ`; 8.
    pub register_subradix: u32,
    /// Values a workgroup of a register pass holds. `KUPFER_FFT_RGV`; 2048.
    pub register_values: u32,
    /// The same for register passes of radix 1024 and more. `KUPFER_FFT_RGV_BIG`; 4096.
    pub register_values_big: u32,
    /// Largest register-pass radix of contiguous lines. `KUPFER_FFT_RRMAX`; 4096.
    pub register_radix: u32,
    /// Largest register-pass radix of strided lines (register mode 2 only).
    /// `KUPFER_FFT_RTRMAX`; 4096.
    pub register_strided_radix: u32,
    /// Lanes passes (registers and subgroup shuffles) for every power-of-two size.
    /// `KUPFER_FFT_LANES=1`; off.
    pub lanes: bool,
    /// Most values a thread of a lanes pass holds. `KUPFER_FFT_LQ`; 8.
    pub lane_values: u32,
    /// Largest radix of a lanes pass. `KUPFER_FFT_LRMAX`; 64.
    pub lane_radix: u32,
    /// Threads per workgroup of a lanes pass. `KUPFER_FFT_LWG` (minimum 32); 256.
    pub lane_workgroup: u32,
    /// Outer twiddles computed instead of read from tables. `KUPFER_FFT_TWPOLY` (1 on, 0
    /// off); on.
    pub computed_twiddles: bool,
    /// Inner twiddles computed: 0 never, 1 always, 2 in register passes of radix 1024+.
    /// `KUPFER_FFT_TWINNER` (minimum 0); 2.
    pub computed_inner: u32,
    /// Tiles each workgroup of a register pass runs in turn (1: no pipelining).
    /// `KUPFER_FFT_PIPE`; 2.
    pub pipeline_tiles: u32,
    /// Workgroups (at one tile each) from which register passes pipeline tiles.
    /// `KUPFER_FFT_PIPE_MIN`; 1024.
    pub pipeline_min_groups: u32,
    /// Batches of at least this many values compile their uniform block into the pass.
    /// `KUPFER_FFT_BAKE_MIN` (minimum 0); 65536.
    pub bake_min: u32,
    /// Diagnostics on stderr: 1 prints each pass's shape, 2 also times each pass (a
    /// synchronisation per pass). `KUPFER_FFT_TRACE` (minimum 0); 0.
    pub trace: u32,
    /// Pass radices (in pass order) forced on sizes they multiply to. `KUPFER_FFT_SCHEDULE`
    /// (comma-separated); None.
    pub schedule: Option<Vec<u32>>,
}

impl Default for FftConfig {
    fn default() -> Self {
        FftConfig {
            workgroup_bytes: 40 * 1024,
            group_values: 1024,
            single_values: 1024,
            big_radix: 256,
            small_radix: 1024,
            strided_radix: 128,
            values_per_thread: 2,
            max_workgroup: 512,
            register_mode: 1,
            register_subradix: 8,
            register_values: 2048,
            register_values_big: 4096,
            register_radix: 4096,
            register_strided_radix: 4096,
            lanes: false,
            lane_values: 8,
            lane_radix: 64,
            lane_workgroup: 256,
            computed_twiddles: true,
            computed_inner: 2,
            pipeline_tiles: 2,
            pipeline_min_groups: 1024,
            bake_min: 1 << 16,
            trace: 0,
            schedule: None,
        }
    }
}

impl FftConfig {
    /// The defaults with the `KUPFER_FFT_*` variables applied.
    pub fn from_env() -> FftConfig {
        let d = FftConfig::default();
        FftConfig {
            workgroup_bytes: var("KUPFER_FFT_WG_BYTES")
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(d.workgroup_bytes),
            group_values: knob("KUPFER_FFT_GV", d.group_values, 1),
            single_values: knob("KUPFER_FFT_SINGLE", d.single_values, 1),
            big_radix: knob("KUPFER_FFT_RMAX", d.big_radix, 1),
            small_radix: knob("KUPFER_FFT_SRMAX", d.small_radix, 1),
            strided_radix: knob("KUPFER_FFT_TRMAX", d.strided_radix, 1),
            values_per_thread: knob("KUPFER_FFT_VPT", d.values_per_thread, 1),
            max_workgroup: knob("KUPFER_FFT_MAXWG", d.max_workgroup, 1),
            register_mode: knob("KUPFER_FFT_REG", d.register_mode, 0),
            register_subradix: knob("KUPFER_FFT_RQ", d.register_subradix, 1),
            register_values: knob("KUPFER_FFT_RGV", d.register_values, 1),
            register_values_big: knob("KUPFER_FFT_RGV_BIG", d.register_values_big, 1),
            register_radix: knob("KUPFER_FFT_RRMAX", d.register_radix, 1),
            register_strided_radix: knob("KUPFER_FFT_RTRMAX", d.register_strided_radix, 1),
            lanes: knob("KUPFER_FFT_LANES", u32::from(d.lanes), 0) == 1,
            lane_values: knob("KUPFER_FFT_LQ", d.lane_values, 1),
            lane_radix: knob("KUPFER_FFT_LRMAX", d.lane_radix, 1),
            lane_workgroup: knob("KUPFER_FFT_LWG", d.lane_workgroup, 32),
            computed_twiddles: knob("KUPFER_FFT_TWPOLY", u32::from(d.computed_twiddles), 0) == 1,
            computed_inner: knob("KUPFER_FFT_TWINNER", d.computed_inner, 0),
            pipeline_tiles: knob("KUPFER_FFT_PIPE", d.pipeline_tiles, 1),
            pipeline_min_groups: knob("KUPFER_FFT_PIPE_MIN", d.pipeline_min_groups, 1),
            bake_min: knob("KUPFER_FFT_BAKE_MIN", d.bake_min, 0),
            trace: knob("KUPFER_FFT_TRACE", d.trace, 0),
            schedule: var("KUPFER_FFT_SCHEDULE")
                .and_then(|v| v.split(',').map(|r| r.trim().parse().ok()).collect()),
        }
    }
}

/// When matrix products tune their kernel configuration (`matmul/tune.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatmulTune {
    /// On hardware adapters, for problems big enough to be worth it (the default).
    #[default]
    Auto,
    /// Never: the default configuration (`KUPFER_MATMUL_TUNE=0`).
    Never,
    /// On software adapters (lavapipe) too (`KUPFER_MATMUL_TUNE=1`).
    Always,
}

/// Matrix-product settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatmulConfig {
    /// When kernel configurations are tuned. `KUPFER_MATMUL_TUNE` (0: never, 1: always).
    pub tune: MatmulTune,
    /// Each tuned candidate's time on stderr. `KUPFER_MATMUL_TUNE_LOG` (set: on).
    pub tune_log: bool,
    /// Cooperative-matrix configurations the tuner tries instead of its own, the first one
    /// being the default (for kernel development): six numbers each, `wm, wn, fm, fn, bk,
    /// stages`. `KUPFER_MATMUL_COOP_CONFIGS`: `;`-separated lists of six comma-separated
    /// numbers, e.g. `2,2,4,4,32,1;2,4,4,4,32,1` (entries that are not six numbers are left
    /// out).
    pub coop_configs: Option<Vec<[u32; 6]>>,
    /// float32 products by [`matmul`](fn@crate::matmul) round their operands to float16 and
    /// multiply on tensor cores with float32 accumulation, where the adapter has them (about
    /// 3 decimal digits per product instead of 7; [`crate::MatmulPrecision::ReducedF16`]).
    /// Off by default; [`crate::matmul_with`] chooses per call. `KUPFER_MATMUL_F16_OPERANDS=1`, or
    /// its deprecated alias `KUPFER_TF32=1` (a misnomer: the operands are rounded to float16,
    /// not TF32).
    pub f16_operands: bool,
}

impl MatmulConfig {
    /// The defaults with the `KUPFER_MATMUL_*` variables (and `KUPFER_TF32`) applied.
    pub fn from_env() -> MatmulConfig {
        let on = |name| var(name).is_some_and(|v| v.trim() == "1");
        MatmulConfig {
            tune: match var("KUPFER_MATMUL_TUNE").as_deref().map(str::trim) {
                Some("0") => MatmulTune::Never,
                Some("1") => MatmulTune::Always,
                _ => MatmulTune::Auto,
            },
            tune_log: var("KUPFER_MATMUL_TUNE_LOG").is_some(),
            coop_configs: var("KUPFER_MATMUL_COOP_CONFIGS").map(|v| parse_coop_configs(&v)),
            f16_operands: on("KUPFER_MATMUL_F16_OPERANDS") || on("KUPFER_TF32"),
        }
    }
}

/// Settings of the factorizations: the blocked ones (LU, Cholesky) of matrices larger than
/// 32, and which small batched solves and inverses run one matrix per thread.
#[derive(Debug, Clone, PartialEq)]
pub struct LinalgConfig {
    /// Columns per panel: 8 to 32 (a larger value is taken as 32); narrowed further where a
    /// panel kernel's thread would loop past lavapipe's budget. `KUPFER_LINALG_PANEL`
    /// (at least 8). 16 by default: on an H200, n = 4096 float32 solve took 58 ms with 16
    /// and 95 ms with 32 (a register panel of 32 columns spills), cholesky 43 and 85 ms;
    /// at n = 1024 the two are within 3%.
    pub panel_width: u32,
    /// Panels of at most 4096 rows are factored in registers (else in global memory, as
    /// taller panels always are). `KUPFER_LINALG_REGISTER_PANELS=0` turns them off.
    pub register_panels: bool,
    /// The register-resident LU panel finds float32 pivots with subgroup operations (one
    /// barrier per column instead of a tree's eight) where the adapter has subgroups; the
    /// same pivots. `KUPFER_LINALG_PANEL_PIVOT=tree` for the tree.
    pub panel_subgroups: bool,
    /// Solves and inverses of order up to this (at most 8) run one matrix per thread in
    /// registers (`shaders/linalg_tiny.wgsl`); larger ones up to 32 one per workgroup of 64
    /// threads (`shaders/linalg_small.wgsl`). `KUPFER_LINALG_THREAD_MAX` (0, or
    /// `KUPFER_LINALG_THREAD_MAX=old`, puts every small matrix on the workgroup kernel); 8.
    pub thread_max: u32,
    /// The one-matrix-per-workgroup kernel finds LU's pivots by a tree over 32 threads (5
    /// barrier steps) rather than one thread's loop over the column (the same pivots).
    /// `KUPFER_LINALG_PIVOT=tree` for the tree; the loop by default (H200, 1000 matrices of
    /// order 32: inv / solve 0.15-0.18 / 0.15-0.30 ms with the tree in two runs, 0.14 / 0.16
    /// ms with the loop: the tree was not faster).
    pub pivot_tree: bool,
    /// Solves (with at most n right-hand sides) and inverses of order from this up to 32
    /// (float64: up to 16) run one thread per matrix row, several matrices per workgroup
    /// (`shaders/linalg_rows.wgsl`); smaller orders, and all of them with
    /// `KUPFER_LINALG_ROWS=old`, take the kernels above. `KUPFER_LINALG_ROWS` (a number, or
    /// `old`); 1 by default (every order).
    pub rows_from: u32,
    /// `eigh` and `eigvalsh` of real matrices up to order 32 run in one launch (parallel
    /// two-sided Jacobi, several matrices per workgroup: `shaders/linalg_jacobi.wgsl`)
    /// rather than on the one-sided Jacobi of larger orders. `KUPFER_LINALG_EIGH=old` for
    /// the latter.
    pub small_eigh: bool,
    /// Columns per block of the blocked LU and Cholesky (and rows per block of their back
    /// substitutions) whose trailing update runs as one in-place matmul on the tiled GEMM
    /// kernel (`linalg/blocked.rs`): 0 picks by order (64 below 2048, 128 from 2048), any
    /// other value is rounded up to a multiple of the panel width. `KUPFER_LINALG_UPDATE`
    /// (a number; `old` for the previous path: every panel's update on the plain 64 x 64
    /// tile kernel); 0 by default.
    pub update_block: u32,
    /// False for the previous path (`KUPFER_LINALG_UPDATE=old`): every panel's trailing
    /// update on the plain 64 x 64 tile kernel of `shaders/linalg_steps.wgsl`.
    pub gemm_updates: bool,
    /// Blocked LU for `solve`, `inv`, `det` and `slogdet` (not `lu_factor`, whose L must
    /// carry later panels' row swaps) in two launches per panel: the panel kernel, then one
    /// launch doing the panel's row swaps, its block row's triangular solve and the rank-w
    /// update of the whole trailing matrix (`shaders/linalg_fused.wgsl`), and a back
    /// substitution of one launch per 32 rows. Panels of `panel_width` columns (at most 32
    /// in float32, 16 in float64). Orders up to this value take it: 2048 by default (on an
    /// H200 it cut solve f32 1024 from 4.95 to 4.41 ms and det from 3.91 to 3.27 ms, but
    /// lost at 4096: 54 against 42 ms, its update streaming the trailing matrix once per
    /// panel where the old path runs the tiled matmul). `KUPFER_LU=fused` (every order),
    /// `KUPFER_LU=fused:N` (orders up to N), `KUPFER_LU=old` (none).
    pub lu_fused_max: u32,
    /// Blocked Cholesky in one launch per panel (`shaders/linalg_fused.wgsl`'s
    /// `chol_step`: every workgroup factors the diagonal block, solves its rows of the
    /// panel and updates its tile of the trailing matrix), for orders up to this value: 2048
    /// by default (H200: 1.28 against 2.08 ms at 1024, 13.8 against 10.3 ms at 4096).
    /// `KUPFER_CHOL=fused` (every order), `KUPFER_CHOL=fused:N`, `KUPFER_CHOL=old` (none).
    pub chol_fused_max: u32,
    /// Threads of the register-resident panel kernels' workgroup: 256 (the default), 512 or
    /// 1024 (within the adapter's limit): more threads hold fewer rows each, so tall panels
    /// keep their rows in registers instead of spilling. `KUPFER_LINALG_PANEL_THREADS`.
    pub panel_threads: u32,
    /// Real (float32/float64) `qr` of matrices with `min(m, n)` at least this runs blocked
    /// Householder QR (`linalg/qr_blocked.rs`: one-workgroup panels of up to 32 columns,
    /// compact-WY trailing updates and `Q` on the tiled matmul); smaller ones, complex ones
    /// and all of them with `KUPFER_LINALG_QR=old` run a reflector per column
    /// (`shaders/linalg_orth.wgsl`). `KUPFER_LINALG_QR` (a number, or `old`); 32 by default.
    pub qr_from: u32,
    /// The widest panel of the blocked QR: 1 to 32 (a larger value is taken as 32), narrowed
    /// for tall matrices to stay within lavapipe's loop budget. Narrower panels stream less
    /// through the one workgroup that factors each panel (its traffic grows as the width
    /// squared, the panels' total as the width), wider ones need fewer launches and trailing
    /// updates. `KUPFER_LINALG_QR_PANEL`; 8 by default (H200, qr of 4096 x 1024 float32:
    /// 35.0 ms with 8, 48.9 with 16, 86.4 with 32).
    pub qr_panel: u32,
    /// The blocked QR keeps each panel's T for forming Q (true by default); tests turn it
    /// off to run the path that rebuilds T from the reflectors.
    #[doc(hidden)]
    pub qr_keep_t: bool,
    /// The loop iterations a thread of `eig`'s split launches (the Hessenberg reduction
    /// of large orders, the eigenvector kernels) keeps to: at most 30000 (the default,
    /// within lavapipe's 65535); tests lower it to split small orders.
    #[doc(hidden)]
    pub eig_split_budget: u32,
}

impl Default for LinalgConfig {
    fn default() -> LinalgConfig {
        LinalgConfig {
            panel_width: 16,
            register_panels: true,
            panel_subgroups: true,
            thread_max: 8,
            pivot_tree: false,
            rows_from: 1,
            small_eigh: true,
            update_block: 0,
            gemm_updates: true,
            lu_fused_max: 2048,
            chol_fused_max: 2048,
            panel_threads: 256,
            qr_from: 32,
            qr_panel: 8,
            qr_keep_t: true,
            eig_split_budget: 30_000,
        }
    }
}

impl LinalgConfig {
    /// The defaults with the `KUPFER_LINALG_*` variables applied.
    pub fn from_env() -> LinalgConfig {
        let d = LinalgConfig::default();
        LinalgConfig {
            panel_width: knob("KUPFER_LINALG_PANEL", d.panel_width, 8),
            register_panels: var("KUPFER_LINALG_REGISTER_PANELS")
                .map_or(d.register_panels, |v| v.trim() != "0"),
            panel_subgroups: var("KUPFER_LINALG_PANEL_PIVOT").is_none_or(|v| v.trim() != "tree"),
            thread_max: match var("KUPFER_LINALG_THREAD_MAX").as_deref().map(str::trim) {
                Some("old") => 0,
                _ => knob("KUPFER_LINALG_THREAD_MAX", d.thread_max, 0),
            },
            pivot_tree: match var("KUPFER_LINALG_PIVOT").as_deref().map(str::trim) {
                Some("tree") => true,
                Some("serial" | "old") => false,
                _ => d.pivot_tree,
            },
            rows_from: match var("KUPFER_LINALG_ROWS").as_deref().map(str::trim) {
                Some("old") => u32::MAX,
                _ => knob("KUPFER_LINALG_ROWS", d.rows_from, 1),
            },
            small_eigh: var("KUPFER_LINALG_EIGH").is_none_or(|v| v.trim() != "old"),
            update_block: knob("KUPFER_LINALG_UPDATE", d.update_block, 0),
            gemm_updates: var("KUPFER_LINALG_UPDATE").is_none_or(|v| v.trim() != "old"),
            lu_fused_max: fused_max(var("KUPFER_LU").as_deref(), d.lu_fused_max),
            chol_fused_max: fused_max(var("KUPFER_CHOL").as_deref(), d.chol_fused_max),
            panel_threads: match knob("KUPFER_LINALG_PANEL_THREADS", d.panel_threads, 256) {
                t if t >= 1024 => 1024,
                t if t >= 512 => 512,
                _ => 256,
            },
            qr_from: match var("KUPFER_LINALG_QR").as_deref().map(str::trim) {
                Some("old") => u32::MAX,
                _ => knob("KUPFER_LINALG_QR", d.qr_from, 1),
            },
            qr_panel: knob("KUPFER_LINALG_QR_PANEL", d.qr_panel, 1),
            qr_keep_t: d.qr_keep_t,
            eig_split_budget: d.eig_split_budget,
        }
    }
}

/// Gathers and stream compaction (the knobs keep the previous kernels selectable, to time
/// both in one run).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexingConfig {
    /// Elements each thread of a one-element row gather copies (`x[idx]`, `take`): 1 to 8.
    /// `KUPFER_GATHER_ITEMS` (1, or `old`, is the one-element-per-thread kernel); 4 by default.
    pub gather_items: u32,
    /// With several elements per thread, each thread copies consecutive elements (`g *
    /// items + j`) instead of elements strided by the thread count (the default: every load
    /// and store instruction of a subgroup contiguous). `KUPFER_TAKE=contig`.
    pub gather_contiguous: bool,
    /// Threads per workgroup of the row gathers: 256 by default; a power of two from 64 to
    /// 1024 within the adapter's limit (`KUPFER_TAKE=wg128`).
    pub gather_workgroup: u32,
    /// Compaction (masks, `nonzero`) with few blocks sizes its blocks for at least 512
    /// workgroups and sums the earlier blocks' counts inside the write pass instead of a
    /// scan launch; `nonzero` of 1-D input writes its int64 indices directly.
    /// `KUPFER_COMPACT=old` turns this off (8192-element blocks, a scan, a conversion).
    pub direct_compaction: bool,
}

impl Default for IndexingConfig {
    fn default() -> IndexingConfig {
        IndexingConfig {
            gather_items: 4,
            gather_contiguous: false,
            gather_workgroup: 256,
            direct_compaction: true,
        }
    }
}

impl IndexingConfig {
    /// The defaults with `KUPFER_GATHER_ITEMS`, `KUPFER_TAKE` and `KUPFER_COMPACT` applied.
    /// `KUPFER_TAKE` is a comma-separated list of `e1`/`e2`/`e4`/`e8` (elements per thread,
    /// over `KUPFER_GATHER_ITEMS`), `wg64` to `wg1024` (threads per workgroup) and
    /// `strided`/`contig` (which elements a thread copies): `KUPFER_TAKE=e8,wg128,contig`.
    pub fn from_env() -> IndexingConfig {
        let d = IndexingConfig::default();
        let mut c = IndexingConfig {
            gather_items: match var("KUPFER_GATHER_ITEMS").as_deref().map(str::trim) {
                Some("old") => 1,
                _ => knob("KUPFER_GATHER_ITEMS", d.gather_items, 1).min(8),
            },
            direct_compaction: var("KUPFER_COMPACT")
                .map_or(d.direct_compaction, |v| v.trim() != "old"),
            ..d
        };
        if let Some(take) = var("KUPFER_TAKE") {
            c.apply_take(&take);
        }
        c
    }

    /// Applies a `KUPFER_TAKE` setting (see [`IndexingConfig::from_env`]); unknown items are
    /// ignored.
    ///
    /// ```
    /// let mut c = kupfer::config::IndexingConfig::default();
    /// c.apply_take("e8, wg128, contig");
    /// assert_eq!((c.gather_items, c.gather_workgroup, c.gather_contiguous), (8, 128, true));
    /// ```
    pub fn apply_take(&mut self, setting: &str) {
        for item in setting.split(',').map(str::trim) {
            match item {
                "contig" => self.gather_contiguous = true,
                "strided" => self.gather_contiguous = false,
                _ => {
                    if let Some(n) = item.strip_prefix('e').and_then(|v| v.parse::<u32>().ok()) {
                        self.gather_items = n.clamp(1, 8);
                    } else if let Some(n) =
                        item.strip_prefix("wg").and_then(|v| v.parse::<u32>().ok())
                    {
                        self.gather_workgroup = n.clamp(64, 1024);
                    }
                }
            }
        }
    }
}

/// Which global radix sort runs (sorts of rows that fit in workgroup memory are unaffected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortEngine {
    /// The single-pass sort where the adapter is known to run workgroups with forward
    /// progress (NVIDIA and AMD discrete GPUs on Vulkan or DX12), the portable one elsewhere.
    #[default]
    Auto,
    /// The single-pass ("onesweep") sort: one histogram of every digit, then one launch per
    /// digit with decoupled look-back. Correct everywhere (a predecessor that does not
    /// answer is counted from its keys), fast only where workgroups progress concurrently.
    Onesweep,
    /// The portable reduce-then-scan sort: three launches per digit, no workgroup ever
    /// waits on another.
    Portable,
}

/// Settings of the global radix sort.
///
/// ```
/// let mut config = kupfer::Config::default();
/// config.sort.engine = kupfer::SortEngine::Portable;
/// let dev = kupfer::Device::default_device()?.with_config(config);
/// let a = kupfer::Array::from_slice_on(&dev, &[3.0f32, 1.0, 2.0], &[3])?;
/// assert_eq!(kupfer::sort(&a, None, None)?.to_vec::<f32>()?, vec![1.0, 2.0, 3.0]);
/// # Ok::<(), kupfer::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SortConfig {
    /// The variant. `KUPFER_SORT=onesweep`, `portable` or `auto`; auto by default.
    pub engine: SortEngine,
    /// Look-back rounds a single-pass tile waits for a predecessor's counts before counting
    /// them from the predecessor's keys itself (0: always count, never wait; for tests).
    /// `KUPFER_SORT_PATIENCE` (minimum 0); 256 (H200, argsort of 2^26 keys: 9.6 ms with 64,
    /// where tiles gave up and recounted, against 5.3 ms with 256).
    pub patience: u32,
    /// Keys per thread of a radix tile: 4 to 32 where the workgroup memory stages that many
    /// (0, or more than fits: as many as it holds, at most 16). `KUPFER_SORT_ITEMS` (minimum
    /// 0); 0.
    pub items: u32,
}

impl Default for SortConfig {
    fn default() -> SortConfig {
        SortConfig {
            engine: SortEngine::Auto,
            patience: 256,
            items: 0,
        }
    }
}

impl SortConfig {
    /// The defaults with the `KUPFER_SORT*` variables applied.
    pub fn from_env() -> SortConfig {
        let d = SortConfig::default();
        let engine = match var("KUPFER_SORT").as_deref().map(str::trim) {
            Some("onesweep") => SortEngine::Onesweep,
            Some("portable") => SortEngine::Portable,
            _ => d.engine,
        };
        SortConfig {
            engine,
            patience: knob("KUPFER_SORT_PATIENCE", d.patience, 0),
            items: knob("KUPFER_SORT_ITEMS", d.items, 0),
        }
    }
}

/// `;`-separated configurations of six comma-separated numbers; entries that do not parse
/// as six numbers are left out.
pub(crate) fn parse_coop_configs(list: &str) -> Vec<[u32; 6]> {
    list.split(';')
        .filter_map(|c| {
            let f: Vec<u32> = c
                .split(',')
                .map(|x| x.trim().parse().ok())
                .collect::<Option<_>>()?;
            f.try_into().ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_coop_configs_parse_six_numbers_each() {
        let got = parse_coop_configs(" 2,2,4,4,32,1; 4,2,2,4,64,2 ;1,2,3;x,1,1,1,1,1;");
        assert_eq!(got, vec![[2, 2, 4, 4, 32, 1], [4, 2, 2, 4, 64, 2]]);
    }

    #[test]
    fn fused_paths_parse_an_order_limit() {
        assert_eq!(fused_max(Some(" fused "), 0), u32::MAX);
        assert_eq!(fused_max(Some("fused:2048"), 0), 2048);
        assert_eq!(fused_max(Some("old"), 7), 0);
        assert_eq!(fused_max(Some("fused:x"), 7), 7);
        assert_eq!(fused_max(Some("yes"), 7), 7);
        assert_eq!(fused_max(None, 7), 7);
        let l = LinalgConfig::default();
        assert_eq!(
            (l.lu_fused_max, l.chol_fused_max, l.panel_threads),
            (2048, 2048, 256)
        );
    }

    #[test]
    fn defaults_are_the_tuned_values() {
        let c = Config::default();
        assert_eq!(c.fft.register_mode, 1);
        assert!(!c.fft.lanes && c.fft.computed_twiddles);
        assert_eq!(c.fft.bake_min, 65536);
        assert_eq!(c.matmul.tune, MatmulTune::Auto);
        assert!(!c.matmul.f16_operands);
    }
}
