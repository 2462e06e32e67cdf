//! The non-blocking entry point for the browser: evaluate, then await the read-backs.
//!
//! Evaluation itself never waits on the GPU (an array's contents on the host are refused with
//! a clear error, see `interp.rs`); only the result's read-back does, and in the browser that
//! must be awaited instead of blocked on.

use crate::error::Result;
use crate::interp::evaluate;
use crate::value::HostValue;
use kupfer::Array;

/// Evaluates `src` over `inputs` and reads the result back without blocking (the browser's
/// way; works natively too). The returned [`HostValue`] prints as NumPy's `print()` does.
///
/// ```no_run
/// # async fn demo() -> kupfer_eval::error::Result<()> {
/// let x = kupfer::arange(0, 10, 1, Some(kupfer::DType::F32)).unwrap();
/// let v = kupfer_eval::evaluate_async("x.sum()", &[("x".to_string(), x)]).await?;
/// assert_eq!(v.to_string(), "45.0");
/// # Ok(()) }
/// ```
pub async fn evaluate_async(src: &str, inputs: &[(String, Array)]) -> Result<HostValue> {
    evaluate(src, inputs)?.to_host_async().await
}
