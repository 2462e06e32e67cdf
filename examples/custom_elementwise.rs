//! The seeds' ElementwiseKernels in WGSL: a sigmoid activation and `leaky_relu(x, alpha)`.
//!
//! CuPy:
//! ```python
//! sigmoid = cp.ElementwiseKernel('float32 x', 'float32 y', 'y = 1.0f / (1.0f + expf(-x))', 'sigmoid')
//! leaky = cp.ElementwiseKernel('T x, T alpha', 'T y', 'y = x > 0 ? x : alpha * x', 'leaky_relu')
//! ```
//! Run: `cargo run --example custom_elementwise`.

use kupfer as kp;

/// `sigmoid(x)` and `leaky_relu(x, 0.1)` of `x` as computed by the two kernels.
pub fn sigmoid_and_leaky_relu(x: &kp::Array) -> kp::Result<(kp::Array, kp::Array)> {
    let sigmoid = kp::ElementwiseKernel::new(
        "float32 x",
        "float32 y",
        "y = 1.0 / (1.0 + exp(-x));",
        "sigmoid",
    )?;
    // A type placeholder: one kernel for every float dtype; `alpha` is a scalar of type T.
    let leaky_relu = kp::ElementwiseKernel::new(
        "T x, T alpha",
        "T y",
        "y = select(alpha * x, x, x > T(0));",
        "leaky_relu",
    )?;
    Ok((
        sigmoid.call(kp::args![x])?,
        leaky_relu.call(kp::args![x, 0.1])?,
    ))
}

#[allow(dead_code)]
fn main() -> kp::Result<()> {
    let x = kp::linspace(-4.0, 4.0, 9, true, Some(kp::DType::F32))?;
    let (s, l) = sigmoid_and_leaky_relu(&x)?;
    println!("x          = {:?}", x.to_vec::<f32>()?);
    println!("sigmoid    = {:?}", s.to_vec::<f32>()?);
    println!("leaky_relu = {:?}", l.to_vec::<f32>()?);
    Ok(())
}
