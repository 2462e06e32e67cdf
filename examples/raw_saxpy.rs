//! The seeds' saxpy RawKernel in WGSL: `out = a * x + y` with an explicit grid.
//!
//! Binding convention (see `kupfer::custom::RawKernel`): scalars in one uniform struct at
//! binding 0, arrays at bindings 1, 2, ... in argument order.
//! Run: `cargo run --example raw_saxpy`.

use kupfer as kp;

/// The WGSL module.
pub const SAXPY: &str = "
struct Params {
    a: f32,
    n: u32,
}
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn saxpy(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.n) {
        out[i] = p.a * x[i] + y[i];
    }
}
";

/// `a * x + y` by the raw kernel (arguments in CuPy's order: a, x, y, out, n).
pub fn saxpy(a: f32, x: &kp::Array, y: &kp::Array) -> kp::Result<kp::Array> {
    let k = kp::RawKernel::new(SAXPY, "saxpy")?;
    let n = x.size();
    let out = kp::empty(&[n], Some(kp::DType::F32))?;
    let blocks = (n as u32).div_ceil(256);
    k.launch([blocks, 1, 1], kp::args![a, x, y, &out, n])?;
    Ok(out)
}

#[allow(dead_code)]
fn main() -> kp::Result<()> {
    let n = 1_000_000;
    let x = kp::linspace(0.0, 1.0, n, true, Some(kp::DType::F32))?;
    let y = kp::ones(&[n], Some(kp::DType::F32))?;
    let out = saxpy(2.0, &x, &y)?;
    let v = out.to_vec::<f32>()?;
    println!("RawKernel ok; out[0:5] = {:?}", &v[..5]);
    Ok(())
}
