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
        let d = check_shapes(mean, cov)?;
        let dtype = draw_dtype(mean, cov)?;
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

/// How [`Generator::multivariate_normal_by`] factors the covariance (NumPy's `method=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MvnMethod {
    /// `cov = (u sqrt(s)) (u sqrt(s))^T` from the SVD `cov = u s vh` (NumPy's default).
    Svd,
    /// `cov = (u sqrt(|w|)) (u sqrt(|w|))^T` from the eigendecomposition `cov = u w u^T`.
    Eigh,
    /// `cov = l l^T`, the Cholesky factor (positive definite covariances only).
    Cholesky,
}

impl MvnMethod {
    /// Parses NumPy's method name ("method must be one of {'eigh', 'svd', 'cholesky'}").
    pub fn parse(name: &str) -> Result<MvnMethod> {
        match name {
            "svd" => Ok(MvnMethod::Svd),
            "eigh" => Ok(MvnMethod::Eigh),
            "cholesky" => Ok(MvnMethod::Cholesky),
            _ => Err(Error::invalid(
                "method must be one of {'eigh', 'svd', 'cholesky'}",
            )),
        }
    }
}

/// What [`Generator::multivariate_normal_by`] does with a covariance that is not positive
/// semidefinite (NumPy's `check_valid=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckValid {
    /// Draw from the factor anyway (NumPy warns; kupfer has no warnings and draws).
    Warn,
    /// NumPy's `ValueError: covariance is not symmetric positive-semidefinite.`
    Raise,
    /// Draw from the factor anyway.
    Ignore,
}

impl CheckValid {
    /// Parses NumPy's `check_valid` name.
    pub fn parse(name: &str) -> Result<CheckValid> {
        match name {
            "warn" => Ok(CheckValid::Warn),
            "raise" => Ok(CheckValid::Raise),
            "ignore" => Ok(CheckValid::Ignore),
            _ => Err(Error::invalid(
                "check_valid must equal 'warn', 'raise', or 'ignore'",
            )),
        }
    }
}

impl Generator {
    /// [`Generator::multivariate_normal`] with NumPy's `method=` and `check_valid=`/`tol=`:
    /// the covariance is factored on the device by kupfer's `linalg::svd`, `linalg::eigh` or
    /// `linalg::cholesky` (`cov = f f^T`), and the draw is `z f^T + mean` as one matmul. The
    /// positive-semidefinite test is NumPy's (eigh: no eigenvalue below `-tol`; svd:
    /// `vh^T diag(s) vh` allclose to `cov` with `rtol = atol = tol`); cholesky fails as
    /// `linalg.cholesky` does ("Matrix is not positive definite").
    ///
    /// ```
    /// use kupfer as kp;
    /// use kp::random::{CheckValid, MvnMethod};
    /// let mean = kp::Array::from_slice(&[0.0f32, 0.0], &[2])?;
    /// let cov = kp::Array::from_slice(&[2.0f32, 1.0, 1.0, 2.0], &[2, 2])?;
    /// let rng = kp::random::default_rng(Some(3));
    /// let x = rng.multivariate_normal_by(&mean, &cov, &[500], MvnMethod::Eigh, CheckValid::Raise, 1e-8)?;
    /// assert_eq!(x.shape(), &[500, 2]);
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn multivariate_normal_by(
        &self,
        mean: &Array,
        cov: &Array,
        size: &[usize],
        method: MvnMethod,
        check_valid: CheckValid,
        tol: f64,
    ) -> Result<Array> {
        use crate::ufuncs as uf;
        let d = check_shapes(mean, cov)?;
        let dtype = draw_dtype(mean, cov)?;
        // The factorization and NumPy's test run in float64 where the adapter has it (NumPy
        // casts the covariance to float64); in float32 the tolerance allows for its rounding.
        let device = Device::current()?;
        let (fdt, tol) = if device.supports(DType::F64) {
            (DType::F64, tol)
        } else {
            (DType::F32, tol.max(1e-6))
        };
        let c = cov.astype(fdt)?;
        let factor = match method {
            MvnMethod::Cholesky => crate::linalg::cholesky(&c, false)?,
            MvnMethod::Eigh | MvnMethod::Svd => {
                let (u, s, psd) = if method == MvnMethod::Eigh {
                    let (w, u) = crate::linalg::eigh(&c, crate::linalg::Uplo::Lower)?;
                    let low =
                        crate::reduce::any(&uf::less(&w, -tol)?, crate::reduce::Axis::All, false)?;
                    let psd = !matches!(low.item()?, crate::Scalar::Bool(true));
                    (u, w, psd)
                } else {
                    let (u, s, vh) = crate::linalg::svd(&c, true, false)?;
                    let back = crate::matmul(&uf::multiply(&vh.transpose(None)?, &s)?, &vh)?;
                    let close = crate::numeric::allclose(&back, &c, tol, tol, false)?;
                    (u, s, matches!(close.item()?, crate::Scalar::Bool(true)))
                };
                if !psd && check_valid == CheckValid::Raise {
                    return Err(Error::invalid(
                        "covariance is not symmetric positive-semidefinite.",
                    ));
                }
                uf::multiply(&u, uf::sqrt(uf::absolute(&s)?)?)?
            }
        }
        .astype(dtype)?;
        let k: usize = size.iter().product();
        let z = self.standard_normal(&[k, d], Some(dtype))?;
        let x = uf::add(
            crate::matmul(&z, &factor.transpose(None)?)?,
            mean.astype(dtype)?,
        )?;
        let mut shape: Vec<isize> = size.iter().map(|&s| s as isize).collect();
        shape.push(d as isize);
        x.reshape(&shape)
    }
}

/// The event size `d` after NumPy's shape checks of `mean` and `cov`.
fn check_shapes(mean: &Array, cov: &Array) -> Result<usize> {
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
    Ok(d)
}

/// float64 when `mean` or `cov` is (and the adapter has it), else float32.
fn draw_dtype(mean: &Array, cov: &Array) -> Result<DType> {
    let device = Device::current()?;
    Ok(
        if (mean.dtype() == DType::F64 || cov.dtype() == DType::F64) && device.supports(DType::F64)
        {
            DType::F64
        } else {
            DType::F32
        },
    )
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
