//! kupfer in the browser: the demo page's code, compiled to wasm32 with wasm-bindgen and run on
//! the browser's WebGPU through wgpu — the same `kupfer` library, unchanged.
//!
//! The demos ([`mandelbrot`], [`imagelab`] with its [`filters`], [`playground`], [`bench`](mod@bench)) are plain kupfer code
//! that compiles natively too (the browser test compares the page's numbers with the same
//! functions run natively). Only `web.rs` (wasm32 only) knows about JavaScript: it exports the
//! demos to the page, times them (GPU timestamps where the browser grants them, wall time
//! otherwise) and never blocks — every read-back is awaited.
//!
//! Build the page with `cargo xtask web` (into `target/web/`), serve it with
//! `cargo xtask serve`.

pub mod bench;
pub mod filters;
pub mod imagelab;
pub mod mandelbrot;
pub mod playground;
#[cfg(not(target_arch = "wasm32"))]
pub mod serve;
pub mod source;
#[cfg(target_arch = "wasm32")]
mod web;
