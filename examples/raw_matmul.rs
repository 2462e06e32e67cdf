//! The seeds' exercise: a 16x16 tiled matrix multiply as a RawKernel (workgroup memory and
//! barriers), compared with a reference.
//! Run: `cargo run --example raw_matmul`.

use kupfer as kp;

/// The WGSL module: each 16x16 workgroup computes a 16x16 tile of C, staging 16x16 tiles of
/// A and B through workgroup memory.
pub const TILED_MATMUL: &str = "
struct Dims {
    m: u32,
    n: u32,
    k: u32,
}
@group(0) @binding(0) var<uniform> d: Dims;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const TILE: u32 = 16u;
var<workgroup> ta: array<array<f32, 16>, 16>;
var<workgroup> tb: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn matmul(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
    let row = wg.y * TILE + l.y;
    let col = wg.x * TILE + l.x;
    var acc = 0.0;
    let tiles = (d.k + TILE - 1u) / TILE;
    for (var t = 0u; t < tiles; t = t + 1u) {
        let ka = t * TILE + l.x;
        let kb = t * TILE + l.y;
        ta[l.y][l.x] = select(0.0, a[row * d.k + ka], row < d.m && ka < d.k);
        tb[l.y][l.x] = select(0.0, b[kb * d.n + col], kb < d.k && col < d.n);
        workgroupBarrier();
        for (var q = 0u; q < TILE; q = q + 1u) {
            acc = acc + ta[l.y][q] * tb[q][l.x];
        }
        workgroupBarrier();
    }
    if (row < d.m && col < d.n) {
        c[row * d.n + col] = acc;
    }
}
";

/// `a @ b` (float32, [m, k] x [k, n]) by the tiled raw kernel.
pub fn tiled_matmul(a: &kp::Array, b: &kp::Array) -> kp::Result<kp::Array> {
    let (m, k) = (a.shape()[0], a.shape()[1]);
    let n = b.shape()[1];
    if b.shape()[0] != k {
        return Err(kp::Error::ShapeMismatch {
            op: "tiled_matmul".into(),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let kernel = kp::RawKernel::new(TILED_MATMUL, "matmul")?;
    let c = kp::empty(&[m, n], Some(kp::DType::F32))?;
    let groups = [(n as u32).div_ceil(16), (m as u32).div_ceil(16), 1];
    kernel.launch(groups, kp::args![m, n, k, a, b, &c])?;
    Ok(c)
}

#[allow(dead_code)]
fn main() -> kp::Result<()> {
    let a = kp::arange(0.0, 12.0, 1.0, Some(kp::DType::F32))?.reshape(&[3, 4])?;
    let b = kp::ones(&[4, 2], Some(kp::DType::F32))?;
    println!("{:?}", tiled_matmul(&a, &b)?.to_vec::<f32>()?);
    Ok(())
}
