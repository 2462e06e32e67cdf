//! [`RawModule`] and [`RawKernel`]: whole WGSL modules launched with an explicit workgroup
//! count, CuPy's `RawModule` / `RawKernel` with WGSL for CUDA C.
//!
//! # Argument binding convention
//!
//! Everything is in bind group 0.
//! - Arrays: the module's `var<storage, read>` / `var<storage, read_write>` globals that the
//!   entry point uses, in increasing binding number (bindings 1, 2, ... by convention), take
//!   the array arguments in the order given. Read-only or read-write is read from the module
//!   (naga's reflection of the access mode). Element types must match the array's dtype:
//!   `f32` float32, `i32` int32 (also `atomic<i32>`), `u32` uint32 and bool (also
//!   `atomic<u32>`), `f16` float16, `f64` float64, `i64` int64, `vec2<f32>` complex64.
//! - Scalars: one `var<uniform>` struct at `@binding(0)` takes the scalar arguments, in the
//!   order given, one per member in declaration order, each converted to the member's type
//!   (`f32`, `f16`, `i32`, `u32`, `f64`, `i64`).
//!
//! Arrays and scalars may be interleaved in the argument list; each kind fills its own slots.
//! An array may be passed both as a read-only and a read-write argument (in-place
//! `y = a * x + y`): the read-only binding then gets a copy, as wgpu cannot bind one buffer
//! both ways in one dispatch.
//! Read-write arrays must be C-contiguous with an offset the adapter can bind (any array
//! that owns its buffer, and most views); read-only arguments that are not are copied first.
//! Launches write at once (in queue order): a lazy expression built earlier over a read-write
//! argument and not materialised yet sees the new values (`eval()` it first).
//! Workgroup memory, barriers, atomics and (where the adapter has SUBGROUP) subgroup
//! built-ins are all WGSL's own.

use super::features;
use crate::array::Array;
use crate::device::Device;
use crate::scalar::{Operand, Scalar};
use kupfer_core::custom::validate_module;
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::Binding;
use naga::{AddressSpace, ScalarKind, StorageAccess, TypeInner};
use std::sync::Arc;

struct ModuleInner {
    source: String,
    module: naga::Module,
    info: naga::valid::ModuleInfo,
    device: Device,
}

/// A WGSL module with one or more compute entry points (CuPy's `RawModule`).
///
/// ```no_run
/// use kupfer as kp;
/// let m = kp::RawModule::new("
/// @group(0) @binding(1) var<storage, read_write> x: array<f32>;
/// @compute @workgroup_size(64) fn double(@builtin(global_invocation_id) g: vec3<u32>) {
///     if (g.x < arrayLength(&x)) { x[g.x] = 2.0 * x[g.x]; }
/// }
/// @compute @workgroup_size(64) fn negate(@builtin(global_invocation_id) g: vec3<u32>) {
///     if (g.x < arrayLength(&x)) { x[g.x] = -x[g.x]; }
/// }")?;
/// let x = kp::ones(&[100], Some(kp::DType::F32))?.copy()?;
/// m.get_function("double")?.launch([2, 1, 1], kp::args![&x])?;
/// # Ok::<(), kp::Error>(())
/// ```
#[derive(Clone)]
pub struct RawModule {
    inner: Arc<ModuleInner>,
}

impl std::fmt::Debug for RawModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawModule({:?})", self.entry_points())
    }
}

impl RawModule {
    /// Parses and validates `source` for the current device. A WGSL error is an
    /// [`Error::Compile`] at its line and column in `source`.
    pub fn new(source: &str) -> Result<RawModule> {
        Self::new_on(&Device::current()?, source)
    }

    /// Parses and validates `source` for `device`.
    pub fn new_on(device: &Device, source: &str) -> Result<RawModule> {
        let (module, info) = validate_module(source, features(device))?;
        Ok(RawModule {
            inner: Arc::new(ModuleInner {
                source: source.to_string(),
                module,
                info,
                device: device.clone(),
            }),
        })
    }

    /// The names of the module's compute entry points.
    pub fn entry_points(&self) -> Vec<String> {
        self.inner
            .module
            .entry_points
            .iter()
            .filter(|e| e.stage == naga::ShaderStage::Compute)
            .map(|e| e.name.clone())
            .collect()
    }

    /// The kernel of entry point `name` (CuPy's `get_function`).
    pub fn get_function(&self, name: &str) -> Result<RawKernel> {
        RawKernel::from_module(self.clone(), name)
    }
}

/// One storage buffer an entry point uses.
#[derive(Debug, Clone)]
struct Slot {
    binding: u32,
    name: String,
    writable: bool,
    /// The dtypes the element type accepts (empty: not checked).
    dtypes: Vec<DType>,
    /// Smallest byte size the binding may have (the type's size; one element of a
    /// runtime-sized array).
    min_size: u64,
}

/// The uniform block of scalars.
#[derive(Debug, Clone)]
struct Uniform {
    size: usize,
    members: Vec<(String, DType, usize)>,
}

/// One compute entry point of a WGSL module, launched with an explicit workgroup count (CuPy's
/// `RawKernel`). See the [module documentation](crate::custom) for how arguments bind.
///
/// ```no_run
/// use kupfer as kp;
/// let saxpy = kp::RawKernel::new("
/// struct Params { a: f32, n: u32 }
/// @group(0) @binding(0) var<uniform> p: Params;
/// @group(0) @binding(1) var<storage, read> x: array<f32>;
/// @group(0) @binding(2) var<storage, read> y: array<f32>;
/// @group(0) @binding(3) var<storage, read_write> out: array<f32>;
/// @compute @workgroup_size(256)
/// fn saxpy(@builtin(global_invocation_id) g: vec3<u32>) {
///     if (g.x < p.n) { out[g.x] = p.a * x[g.x] + y[g.x]; }
/// }", "saxpy")?;
/// let n = 1000;
/// let x = kp::ones(&[n], Some(kp::DType::F32))?.copy()?;
/// let y = kp::ones(&[n], Some(kp::DType::F32))?.copy()?;
/// let out = kp::empty(&[n], Some(kp::DType::F32))?;
/// saxpy.launch([(n as u32).div_ceil(256), 1, 1], kp::args![2.0, &x, &y, &out, n])?;
/// # Ok::<(), kp::Error>(())
/// ```
#[derive(Clone)]
pub struct RawKernel {
    module: RawModule,
    entry: String,
    slots: Vec<Slot>,
    uniform: Option<Uniform>,
    workgroup_size: [u32; 3],
}

impl std::fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawKernel({})", self.entry)
    }
}

fn element_dtypes(module: &naga::Module, ty: naga::Handle<naga::Type>) -> Vec<DType> {
    let base = match &module.types[ty].inner {
        TypeInner::Array { base, .. } | TypeInner::BindingArray { base, .. } => *base,
        _ => return Vec::new(),
    };
    let scalar = match &module.types[base].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => *s,
        TypeInner::Vector {
            size: naga::VectorSize::Bi,
            scalar,
        } if scalar.kind == ScalarKind::Float && scalar.width == 4 => {
            return vec![DType::Complex64]
        }
        TypeInner::Vector {
            size: naga::VectorSize::Bi,
            scalar,
        } if scalar.kind == ScalarKind::Float && scalar.width == 8 => {
            return vec![DType::Complex128]
        }
        _ => return Vec::new(),
    };
    match (scalar.kind, scalar.width) {
        (ScalarKind::Float, 4) => vec![DType::F32],
        (ScalarKind::Float, 2) => vec![DType::F16],
        (ScalarKind::Float, 8) => vec![DType::F64],
        (ScalarKind::Sint, 4) => vec![DType::I32],
        (ScalarKind::Sint, 8) => vec![DType::I64],
        (ScalarKind::Uint, 4) => vec![DType::U32, DType::Bool],
        (ScalarKind::Uint, 8) => vec![DType::U64],
        _ => Vec::new(),
    }
}

fn scalar_dtype(inner: &TypeInner) -> Option<DType> {
    let TypeInner::Scalar(s) = inner else {
        return None;
    };
    Some(match (s.kind, s.width) {
        (ScalarKind::Float, 4) => DType::F32,
        (ScalarKind::Float, 2) => DType::F16,
        (ScalarKind::Float, 8) => DType::F64,
        (ScalarKind::Sint, 4) => DType::I32,
        (ScalarKind::Sint, 8) => DType::I64,
        (ScalarKind::Uint, 4) => DType::U32,
        (ScalarKind::Uint, 8) => DType::U64,
        _ => return None,
    })
}

impl RawKernel {
    /// Entry point `entry` of the WGSL module `source`, for the current device.
    pub fn new(source: &str, entry: &str) -> Result<RawKernel> {
        RawModule::new(source)?.get_function(entry)
    }

    fn from_module(module: RawModule, entry: &str) -> Result<RawKernel> {
        let m = &module.inner.module;
        let Some(idx) = m
            .entry_points
            .iter()
            .position(|e| e.name == entry && e.stage == naga::ShaderStage::Compute)
        else {
            return Err(Error::invalid(format!(
                "the module has no compute entry point '{entry}' (it has: {})",
                module.entry_points().join(", ")
            )));
        };
        let ep_info = module.inner.info.get_entry_point(idx);
        let mut slots = Vec::new();
        let mut uniform = None;
        for (h, var) in m.global_variables.iter() {
            let Some(rb) = &var.binding else { continue };
            if ep_info[h].is_empty() {
                continue;
            }
            let name = var
                .name
                .clone()
                .unwrap_or_else(|| format!("binding {}", rb.binding));
            if rb.group != 0 {
                return Err(Error::unsupported(format!(
                    "'{name}' is in bind group {}; raw kernels bind group 0 only",
                    rb.group
                )));
            }
            match var.space {
                AddressSpace::Storage { access } => slots.push(Slot {
                    binding: rb.binding,
                    name,
                    writable: access.contains(StorageAccess::STORE),
                    dtypes: element_dtypes(m, var.ty),
                    min_size: u64::from(m.types[var.ty].inner.try_size(m.to_ctx()).unwrap_or(4)),
                }),
                AddressSpace::Uniform if rb.binding == 0 => {
                    let inner = &m.types[var.ty].inner;
                    let u = match inner {
                        TypeInner::Struct { members, span } => {
                            let mut v = Vec::new();
                            for mem in members {
                                let d = scalar_dtype(&m.types[mem.ty].inner).ok_or_else(|| {
                                    Error::unsupported(format!(
                                        "uniform member '{}' must be a scalar (f32, f16, i32, \
                                         u32, f64, i64)",
                                        mem.name.as_deref().unwrap_or("?")
                                    ))
                                })?;
                                v.push((
                                    mem.name.clone().unwrap_or_default(),
                                    d,
                                    mem.offset as usize,
                                ));
                            }
                            Uniform {
                                size: *span as usize,
                                members: v,
                            }
                        }
                        other => match scalar_dtype(other) {
                            Some(d) => Uniform {
                                size: d.gpu_size(),
                                members: vec![(name.clone(), d, 0)],
                            },
                            None => {
                                return Err(Error::unsupported(format!(
                                    "the uniform '{name}' must be a struct of scalars or a scalar"
                                )))
                            }
                        },
                    };
                    uniform = Some(u);
                }
                AddressSpace::Uniform => {
                    return Err(Error::unsupported(format!(
                        "uniform '{name}' is at binding {}; the scalars' uniform block must be \
                         at binding 0",
                        rb.binding
                    )))
                }
                _ => {
                    return Err(Error::unsupported(format!(
                        "'{name}' is a texture or sampler; raw kernels bind storage buffers and \
                         one uniform block"
                    )))
                }
            }
        }
        slots.sort_by_key(|s| s.binding);
        if let Some(s) = slots.iter().find(|s| s.binding == 0) {
            return Err(Error::invalid(format!(
                "storage buffer '{}' is at binding 0, which is reserved for the scalars' \
                 uniform block; use bindings 1, 2, ...",
                s.name
            )));
        }
        let workgroup_size = m.entry_points[idx].workgroup_size;
        Ok(RawKernel {
            module,
            entry: entry.to_string(),
            slots,
            uniform,
            workgroup_size,
        })
    }

    /// The entry point's `@workgroup_size`.
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.workgroup_size
    }

    /// Number of (array, scalar) arguments a launch takes.
    pub fn nargs(&self) -> (usize, usize) {
        (
            self.slots.len(),
            self.uniform.as_ref().map_or(0, |u| u.members.len()),
        )
    }

    /// Records one launch of `groups` workgroups (x, y, z) with `args` (see the module
    /// documentation). Every argument is checked before anything is dispatched. Results
    /// appear in the read-write arrays, in queue order with all other work.
    pub fn launch(&self, groups: [u32; 3], args: &[Operand]) -> Result<()> {
        let device = &self.module.inner.device;
        let ctx = device.context();
        let arrays: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Operand::Array(x) => Some(x),
                Operand::Scalar(_) => None,
            })
            .collect();
        let scalars: Vec<&Scalar> = args
            .iter()
            .filter_map(|a| match a {
                Operand::Scalar(s) => Some(s),
                Operand::Array(_) => None,
            })
            .collect();
        let (na, ns) = self.nargs();
        if arrays.len() != na || scalars.len() != ns {
            let slots: Vec<String> = self
                .slots
                .iter()
                .map(|s| {
                    format!(
                        "{} ({})",
                        s.name,
                        if s.writable { "read_write" } else { "read" }
                    )
                })
                .collect();
            let members: Vec<&str> = self
                .uniform
                .iter()
                .flat_map(|u| u.members.iter().map(|m| m.0.as_str()))
                .collect();
            return Err(Error::invalid(format!(
                "kernel '{}' takes {na} arrays [{}] and {ns} scalars [{}]; got {} arrays and {} \
                 scalars",
                self.entry,
                slots.join(", "),
                members.join(", "),
                arrays.len(),
                scalars.len()
            )));
        }
        let max = ctx.max_workgroups_per_dim();
        if groups.iter().any(|&g| g > max) {
            return Err(Error::invalid(format!(
                "workgroup count {groups:?} exceeds the adapter's limit of {max} per dimension"
            )));
        }
        for a in &arrays {
            device.same(a.device())?;
        }
        // wgpu cannot bind one buffer both read-only and read-write in a dispatch (an in-place
        // `y = a * x + y` passes y twice): such read-only arguments are bound as copies, which
        // hold the values they would have read.
        let written: Vec<*const kupfer_wgpu::GpuBuffer> = self
            .slots
            .iter()
            .zip(&arrays)
            .filter(|(s, _)| s.writable)
            .map(|(_, a)| a.buffer_and_layout().map(|(b, _)| Arc::as_ptr(&b)))
            .collect::<Result<_>>()?;
        let mut bindings = Vec::with_capacity(na);
        for (slot, a) in self.slots.iter().zip(&arrays) {
            let shared =
                !slot.writable && written.contains(&Arc::as_ptr(&a.buffer_and_layout()?.0));
            let b = if shared {
                self.bind(slot, &a.copy()?)?
            } else {
                self.bind(slot, a)?
            };
            if b.size < slot.min_size {
                return Err(Error::invalid(format!(
                    "argument '{}' (binding {}) of kernel '{}' is {} bytes; its WGSL type needs \
                     at least {}",
                    slot.name, slot.binding, self.entry, b.size, slot.min_size
                )));
            }
            bindings.push((slot.binding, b));
        }
        let params = match &self.uniform {
            None => None,
            Some(u) => {
                let mut bytes = vec![0u8; u.size.div_ceil(16).max(1) * 16];
                for ((name, d, off), s) in u.members.iter().zip(&scalars) {
                    let v = encode(s, *d).map_err(|e| {
                        Error::invalid(format!("scalar argument '{name}' ({d}): {e}"))
                    })?;
                    bytes[*off..*off + v.len()].copy_from_slice(&v);
                }
                Some(bytes)
            }
        };
        if groups.contains(&0) {
            return Ok(());
        }
        let pipeline = ctx.pipeline_entry(&self.module.inner.source, &self.entry)?;
        ctx.dispatch_with(&pipeline, params.as_deref(), bindings, groups)
    }

    fn bind(&self, slot: &Slot, a: &Array) -> Result<Binding> {
        let what = || format!("argument '{}' (binding {})", slot.name, slot.binding);
        if !slot.dtypes.is_empty() && !slot.dtypes.contains(&a.dtype()) {
            return Err(Error::invalid(format!(
                "{} of kernel '{}' holds {}, but the array passed is {}",
                what(),
                self.entry,
                slot.dtypes
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(" or "),
                a.dtype()
            )));
        }
        let ctx = a.device().context();
        let isz = a.dtype().gpu_size() as u64;
        let bindable = |a: &Array| -> Result<Option<Binding>> {
            let (buffer, layout) = a.buffer_and_layout()?;
            let off = layout.offset as u64 * isz;
            if !layout.is_c_contiguous() || !off.is_multiple_of(ctx.binding_alignment()) {
                return Ok(None);
            }
            let size = (a.size() as u64 * isz).div_ceil(4).max(1) * 4;
            if off + size > buffer.size() {
                return Ok(None);
            }
            if size > ctx.max_binding_size() {
                return Err(Error::unsupported(format!(
                    "{} is {size} bytes, more than the adapter's largest binding",
                    what()
                )));
            }
            Ok(Some(Binding {
                buffer,
                offset: off,
                size,
            }))
        };
        if let Some(b) = bindable(a)? {
            return Ok(b);
        }
        if slot.writable {
            return Err(Error::invalid(format!(
                "{} is read_write, so the array must be C-contiguous with a bindable offset \
                 (pass a contiguous array, e.g. `copy()` of the view, and copy back)",
                what()
            )));
        }
        bindable(&a.copy()?)?.ok_or_else(|| Error::invalid(format!("{} cannot be bound", what())))
    }
}

/// A scalar as the bytes of a uniform member of `d` (f16 as real f16 here, unlike kupfer's
/// own uniforms).
fn encode(s: &Scalar, d: DType) -> Result<Vec<u8>> {
    if d == DType::F16 {
        return Ok(half::f16::from_f64(s.as_f64()).to_le_bytes().to_vec());
    }
    s.encode(d)
}
