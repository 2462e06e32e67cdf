//! `.npy` files (NumPy's format), as `np.load` / `np.save` for one array.
//!
//! dtypes: bool, int32, uint32, int64, float16, float32, float64, complex64, in either byte
//! order and in C or Fortran order.

use crate::array::Array;
use crate::host::{HostArray, HostData};
use kupfer_core::{Error, Result};
use npyz::WriterBuilder;

fn io_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{what}: {e}"))
}

/// Parses `.npy` bytes.
pub fn read_npy_bytes(bytes: &[u8]) -> Result<HostArray> {
    let npy = npyz::NpyFile::new(bytes).map_err(|e| io_err("not a valid .npy file", e))?;
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let fortran = npy.order() == npyz::Order::Fortran;
    let descr = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => return Err(Error::unsupported(format!(".npy dtype {}", other.descr()))),
    };
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    let bad = |e: std::io::Error| io_err("reading .npy data", e);
    let data = match code {
        "b1" => HostData::Bool(npy.into_vec::<bool>().map_err(bad)?),
        "i4" => HostData::I32(npy.into_vec::<i32>().map_err(bad)?),
        "u4" => HostData::U32(npy.into_vec::<u32>().map_err(bad)?),
        "i8" => HostData::I64(npy.into_vec::<i64>().map_err(bad)?),
        "f2" => HostData::F16(npy.into_vec::<half::f16>().map_err(bad)?),
        "f4" => HostData::F32(npy.into_vec::<f32>().map_err(bad)?),
        "f8" => HostData::F64(npy.into_vec::<f64>().map_err(bad)?),
        "c8" => HostData::Complex64(npy.into_vec::<num_complex::Complex32>().map_err(bad)?),
        "c16" => HostData::Complex128(npy.into_vec::<num_complex::Complex64>().map_err(bad)?),
        _ => {
            return Err(Error::unsupported(format!(
                ".npy dtype '{descr}' (kupfer reads bool, int32, uint32, int64, float16, float32, \
                 float64, complex64, complex128)"
            )))
        }
    };
    let host = HostArray::new(shape.clone(), data)?;
    Ok(if fortran && shape.len() > 1 {
        fortran_to_c(host)
    } else {
        host
    })
}

/// Reorders Fortran-order data (C order of the reversed shape) into C order.
fn fortran_to_c(h: HostArray) -> HostArray {
    let shape = h.shape.clone();
    let n: usize = shape.iter().product();
    let nd = shape.len();
    // Element at C index (i0..ik) sits at Fortran offset sum(i_j * prod(shape[..j])).
    let mut fstrides = vec![1usize; nd];
    for j in 1..nd {
        fstrides[j] = fstrides[j - 1] * shape[j - 1];
    }
    let order: Vec<usize> = (0..n)
        .map(|lin| {
            let (mut rem, mut off) = (lin, 0);
            for j in (0..nd).rev() {
                off += (rem % shape[j]) * fstrides[j];
                rem /= shape[j];
            }
            off
        })
        .collect();
    macro_rules! perm {
        ($v:expr, $variant:ident) => {
            HostData::$variant(order.iter().map(|&i| $v[i]).collect())
        };
    }
    let data = match &h.data {
        HostData::Bool(v) => perm!(v, Bool),
        HostData::I32(v) => perm!(v, I32),
        HostData::U32(v) => perm!(v, U32),
        HostData::I64(v) => perm!(v, I64),
        HostData::F16(v) => perm!(v, F16),
        HostData::F32(v) => perm!(v, F32),
        HostData::F64(v) => perm!(v, F64),
        HostData::Complex64(v) => perm!(v, Complex64),
        HostData::Complex128(v) => perm!(v, Complex128),
    };
    HostArray { shape, data }
}

/// Serialises a host array as `.npy` bytes (C order, little-endian).
pub fn write_npy_bytes(host: &HostArray) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let shape: Vec<u64> = host.shape.iter().map(|&d| d as u64).collect();
    macro_rules! write {
        ($t:ty, $v:expr) => {{
            let mut w = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(&shape)
                .writer(&mut out)
                .begin_nd()
                .map_err(|e| io_err("writing .npy", e))?;
            w.extend($v.iter().copied())
                .map_err(|e| io_err("writing .npy", e))?;
            w.finish().map_err(|e| io_err("writing .npy", e))?;
        }};
    }
    match &host.data {
        HostData::Bool(v) => write!(bool, v),
        HostData::I32(v) => write!(i32, v),
        HostData::U32(v) => write!(u32, v),
        HostData::I64(v) => write!(i64, v),
        HostData::F16(v) => write!(half::f16, v),
        HostData::F32(v) => write!(f32, v),
        HostData::F64(v) => write!(f64, v),
        HostData::Complex64(v) => write!(num_complex::Complex32, v),
        HostData::Complex128(v) => write!(num_complex::Complex64, v),
    }
    Ok(out)
}

/// Reads a `.npy` file into host memory.
pub fn read_npy(path: impl AsRef<std::path::Path>) -> Result<HostArray> {
    let path = path.as_ref();
    let bytes =
        std::fs::read(path).map_err(|e| io_err(&format!("cannot read '{}'", path.display()), e))?;
    read_npy_bytes(&bytes).map_err(|e| match e {
        Error::Io(m) => Error::Io(format!("'{}': {m}", path.display())),
        Error::Unsupported(m) => Error::Unsupported(format!("'{}': {m}", path.display())),
        e => e,
    })
}

/// Writes a host array as a `.npy` file.
pub fn write_npy(path: impl AsRef<std::path::Path>, host: &HostArray) -> Result<()> {
    let path = path.as_ref();
    std::fs::write(path, write_npy_bytes(host)?)
        .map_err(|e| io_err(&format!("cannot write '{}'", path.display()), e))
}

/// Loads a `.npy` file onto the current device (`cp.load`).
pub fn load(path: impl AsRef<std::path::Path>) -> Result<Array> {
    Array::from_host(&read_npy(path)?)
}

/// Saves an array as a `.npy` file (`cp.save`).
#[cfg(not(target_arch = "wasm32"))]
pub fn save(path: impl AsRef<std::path::Path>, a: &Array) -> Result<()> {
    write_npy(path, &a.to_host()?)
}
