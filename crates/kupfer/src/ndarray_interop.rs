//! Conversions from and to `ndarray` (feature `ndarray`).

use crate::array::Array;
use crate::host::Element;
use kupfer_core::{Error, Result};

impl Array {
    /// Uploads an `ndarray` array (any layout) to the current device.
    pub fn from_ndarray<T: Element, S: ndarray::Data<Elem = T>, D: ndarray::Dimension>(
        a: &ndarray::ArrayBase<S, D>,
    ) -> Result<Array> {
        let data: Vec<T> = a.iter().copied().collect();
        Array::from_slice(&data, a.shape())
    }

    /// Copies to the host as an `ndarray::ArrayD`; `T` must match the dtype.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_ndarray<T: Element>(&self) -> Result<ndarray::ArrayD<T>> {
        let v = self.to_vec::<T>()?;
        ndarray::ArrayD::from_shape_vec(self.shape().to_vec(), v)
            .map_err(|e| Error::invalid(e.to_string()))
    }
}
