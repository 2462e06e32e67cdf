//! `multivariate_normal`: standard normals times the transposed Cholesky factor of the
//! covariance (a small semidefinite Cholesky on the host: the covariance is d x d with d the
//! event size), plus the mean, as one matmul.

use super::Generator;
use crate::array::Array;
use crate::device::Device;
use kupfer_core::{DType, Error, Result};

/// `a` read back as float64 values.
pub(crate) fn read_f64(a: &Array) -> Result<Vec<f64>> {
    Ok(if a.dtype() == DType::F64 {
        a.to_vec::<f64>()?
    } else {
        let v = a.astype(DType::F32)?.to_vec::<f32>()?;
        v.into_iter().map(f64::from).collect()
    })
}

/// The lower-triangular `l` (row-major, d x d) with `l l^T = cov` for a symmetric positive
/// semidefinite `cov`: a pivot at or below `tol` times the largest diagonal gives a zero column
/// (the singular directions draw nothing). `None` when `cov` is not symmetric or not
/// positive semidefinite (to within that tolerance).
pub fn semidefinite_cholesky(cov: &[f64], d: usize) -> Option<Vec<f64>> {
    let scale = (0..d).map(|i| cov[i * d + i].abs()).fold(0.0, f64::max);
    let tol = 1e-8 * scale.max(f64::MIN_POSITIVE);
    for i in 0..d {
        for j in 0..i {
            if (cov[i * d + j] - cov[j * d + i]).abs() > 1e-8 * (1.0 + cov[i * d + j].abs()) {
                return None;
            }
        }
    }
    let mut l = vec![0.0; d * d];
    for j in 0..d {
        let s = cov[j * d + j] - (0..j).map(|k| l[j * d + k] * l[j * d + k]).sum::<f64>();
        if s.is_nan() || s < -tol {
            return None;
        }
        if s <= tol {
            // A zero pivot: the rest of the column must vanish too.
            for i in j + 1..d {
                let r = cov[i * d + j] - (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum::<f64>();
                if r.abs() > tol.sqrt() * scale.sqrt().max(1.0) {
                    return None;
                }
            }
            continue;
        }
        let p = s.sqrt();
        l[j * d + j] = p;
        for i in j + 1..d {
            let r = cov[i * d + j] - (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum::<f64>();
            l[i * d + j] = r / p;
        }
    }
    Some(l)
}

impl Generator {
    /// Multivariate normal vectors of mean `mean` (1-D, length d) and covariance `cov`
    /// (d x d, symmetric positive semidefinite) (`Generator.multivariate_normal(mean, cov,
    /// size)`): shape `size + [d]`; float64 when `mean` or `cov` is (and the adapter has it),
    /// else float32. A covariance that is not symmetric positive semidefinite is an error
    /// (NumPy warns and draws from a factor of it).
    ///
    /// ```
    /// use kupfer as kp;
    /// let mean = kp::Array::from_slice(&[1.0f32, -1.0], &[2])?;
    /// let cov = kp::Array::from_slice(&[1.0f32, 0.5, 0.5, 2.0], &[2, 2])?;
    /// let x = kp::random::default_rng(Some(0)).multivariate_normal(&mean, &cov, &[1000])?;
    /// assert_eq!(x.shape(), &[1000, 2]);
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn multivariate_normal(&self, mean: &Array, cov: &Array, size: &[usize]) -> Result<Array> {
        if mean.ndim() != 1 {
            return Err(Error::invalid("mean must be 1 dimensional"));
        }
        if cov.ndim() != 2 || cov.shape()[0] != cov.shape()[1] {
            return Err(Error::invalid("cov must be 2 dimensional and square"));
        }
        let d = mean.size();
        if cov.shape()[0] != d {
            return Err(Error::invalid("mean and cov must have same length"));
        }
        let device = Device::current()?;
        let dtype = if (mean.dtype() == DType::F64 || cov.dtype() == DType::F64)
            && device.supports(DType::F64)
        {
            DType::F64
        } else {
            DType::F32
        };
        let c = read_f64(cov)?;
        let l = semidefinite_cholesky(&c, d)
            .ok_or_else(|| Error::invalid("covariance is not symmetric positive-semidefinite."))?;
        // x = z l^T + mean, z of shape (k, d).
        let mut lt = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..d {
                lt[j * d + i] = l[i * d + j];
            }
        }
        let lt = Array::from_slice(&lt, &[d, d])?.astype(dtype)?;
        let k: usize = size.iter().product();
        let z = self.standard_normal(&[k, d], Some(dtype))?;
        let x = crate::ufuncs::add(crate::matmul(&z, &lt)?, mean.astype(dtype)?)?;
        let mut shape: Vec<isize> = size.iter().map(|&s| s as isize).collect();
        shape.push(d as isize);
        x.reshape(&shape)
    }
}

#[cfg(test)]
mod tests {
    use super::semidefinite_cholesky;

    #[test]
    fn cholesky_of_definite_semidefinite_and_invalid_covariances() {
        let l = semidefinite_cholesky(&[4.0, 2.0, 2.0, 5.0], 2).unwrap();
        assert_eq!(l, vec![2.0, 0.0, 1.0, 2.0]);
        // Rank one: the second column is zero.
        let l = semidefinite_cholesky(&[1.0, 1.0, 1.0, 1.0], 2).unwrap();
        assert_eq!(l, vec![1.0, 0.0, 1.0, 0.0]);
        assert!(semidefinite_cholesky(&[1.0, 2.0, 2.0, 1.0], 2).is_none()); // indefinite
        assert!(semidefinite_cholesky(&[1.0, 0.5, 0.0, 1.0], 2).is_none()); // not symmetric
        assert!(semidefinite_cholesky(&[0.0, 1.0, 1.0, 0.0], 2).is_none());
    }
}
