//! The seeds' ReductionKernels in WGSL: a weighted sum, the sum of squares, and per-row L2
//! norms of a matrix.
//!
//! CuPy:
//! ```python
//! weighted_sum = cp.ReductionKernel('float32 x, float32 w', 'float32 y', 'x * w', 'a + b', 'y = a', '0', 'weighted_sum')
//! sum_squares = cp.ReductionKernel('float32 x', 'float32 y', 'x * x', 'a + b', 'y = a', '0', 'sum_squares')
//! l2 = cp.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')  # l2(m, axis=1)
//! ```
//! Run: `cargo run --example custom_reduction`.

use kupfer as kp;

/// `sum(x * w)` by a ReductionKernel.
pub fn weighted_sum(x: &kp::Array, w: &kp::Array) -> kp::Result<kp::Array> {
    let k = kp::ReductionKernel::new(
        "float32 x, float32 w",
        "float32 y",
        "x * w",
        "a + b",
        "y = a",
        "0",
        "weighted_sum",
    )?;
    k.call(kp::args![x, w], kp::Axis::All, false)
}

/// `sum(x * x)` by a ReductionKernel.
pub fn sum_of_squares(x: &kp::Array) -> kp::Result<kp::Array> {
    let k = kp::ReductionKernel::new(
        "float32 x",
        "float32 y",
        "x * x",
        "a + b",
        "y = a",
        "0",
        "sum_squares",
    )?;
    k.call(kp::args![x], kp::Axis::All, false)
}

/// The L2 norm of every row of a matrix (`axis=1`), any float dtype.
pub fn row_norms(m: &kp::Array) -> kp::Result<kp::Array> {
    let k = kp::ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")?;
    k.call(kp::args![m], 1, false)
}

#[allow(dead_code)]
fn main() -> kp::Result<()> {
    let x = kp::arange(0.0, 10.0, 1.0, Some(kp::DType::F32))?;
    let w = kp::linspace(0.0, 1.0, 10, true, Some(kp::DType::F32))?;
    println!("sum of squares = {:?}", sum_of_squares(&x)?.item()?);
    println!("weighted sum   = {:?}", weighted_sum(&x, &w)?.item()?);
    let m = x.reshape(&[2, 5])?;
    println!("row norms      = {:?}", row_norms(&m)?.to_vec::<f32>()?);
    Ok(())
}
