//! kupfer-wgpu: kupfer's runtime on wgpu.
//!
//! - [`context`]: adapter choice, device and queue, limits and features ([`Context`]).
//! - [`pool`]: the size-class memory pool ([`GpuBuffer`], [`MemoryPool`]).
//! - [`batch`]: deferred command recording, one submit per sync point.
//! - [`pipeline`]: compute pipelines cached by structural key, persisted where possible.
//! - [`transfer`]: host↔device copies.
//! - `tables`: read-only tables that kernels share (the ziggurat tables), one per device.
//! - [`profile`]: the per-dispatch GPU profile (`KUPFER_PROFILE=1`).
//! - [`timer`]: GPU timestamp events with a wall-clock fallback.
//! - [`wait`]: waiting for the GPU (spin, then block) and the round trip's span timings.

#![warn(missing_docs)]

pub mod batch;
pub mod config;
pub mod context;
pub mod pipeline;
pub mod pool;
pub mod profile;
mod tables;
pub mod timer;
pub mod transfer;
pub mod wait;

pub use batch::Binding;
pub use config::{ProfileMode, RuntimeConfig};
pub use context::{AdapterChoice, Context, CoopMatrix, DeviceInfo};
pub use kupfer_core::{Error, Result};
pub use pipeline::ShaderChecks;
pub use pool::{GpuBuffer, MemoryPool};
pub use profile::{DispatchTime, LabelTotal, Profile, ProfileSupport};
pub use timer::Event;
pub use wait::SpanTimes;
pub use wgpu;
