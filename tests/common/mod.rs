//! Test data shared by the NumPy-oracle tests (scans, reductions): a seeded generator, random
//! values per dtype, uploads and the raw bytes NumPy reads back.
#![allow(dead_code)]

pub mod fft_forced;

use kp::{Array, DType};
use kupfer as kp;
use serde_json::Value;
use std::path::Path;

/// A seeded linear congruential generator (no rand dependency).
pub struct Rng(pub u64);

impl Rng {
    /// The next 31 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    /// A uniform value in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 31) as f64
    }
}

/// Random values for `dtype`: floats in [lo, hi), ints in [lo, hi] (rounded), bools 50/50.
/// `salt` separates the streams of different test files.
pub fn values(seed: u64, salt: u64, n: usize, dtype: DType, lo: f64, hi: f64) -> Vec<f64> {
    let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) ^ salt);
    (0..n)
        .map(|_| {
            let u = rng.unit();
            match dtype {
                DType::Bool => (u < 0.5) as u8 as f64,
                d if d.is_float() => {
                    let v = lo + (hi - lo) * u;
                    match d {
                        DType::F16 => f64::from(half::f16::from_f64(v)),
                        DType::F32 => v as f32 as f64,
                        _ => v,
                    }
                }
                _ => (lo + ((hi - lo + 1.0) * u).floor()).min(hi),
            }
        })
        .collect()
}

/// `data` as an array of `dtype` and `shape`.
pub fn upload(data: &[f64], dtype: DType, shape: &[usize]) -> Array {
    let r = match dtype {
        DType::Bool => {
            Array::from_slice(&data.iter().map(|&v| v != 0.0).collect::<Vec<_>>(), shape)
        }
        DType::I8 => Array::from_slice(&data.iter().map(|&v| v as i8).collect::<Vec<_>>(), shape),
        DType::U8 => Array::from_slice(&data.iter().map(|&v| v as u8).collect::<Vec<_>>(), shape),
        DType::I16 => Array::from_slice(&data.iter().map(|&v| v as i16).collect::<Vec<_>>(), shape),
        DType::U16 => Array::from_slice(&data.iter().map(|&v| v as u16).collect::<Vec<_>>(), shape),
        DType::I32 => Array::from_slice(&data.iter().map(|&v| v as i32).collect::<Vec<_>>(), shape),
        DType::U32 => Array::from_slice(&data.iter().map(|&v| v as u32).collect::<Vec<_>>(), shape),
        DType::I64 => Array::from_slice(&data.iter().map(|&v| v as i64).collect::<Vec<_>>(), shape),
        DType::U64 => Array::from_slice(&data.iter().map(|&v| v as u64).collect::<Vec<_>>(), shape),
        DType::F16 => Array::from_slice(
            &data
                .iter()
                .map(|&v| half::f16::from_f64(v))
                .collect::<Vec<_>>(),
            shape,
        ),
        DType::F32 => Array::from_slice(&data.iter().map(|&v| v as f32).collect::<Vec<_>>(), shape),
        DType::F64 => Array::from_slice(data, shape),
        DType::Complex64 => Array::from_slice(
            &data
                .iter()
                .map(|&v| kp::Complex32::new(v as f32, 0.0))
                .collect::<Vec<_>>(),
            shape,
        ),
        DType::Complex128 => Array::from_slice(
            &data
                .iter()
                .map(|&v| kp::Complex64::new(v, 0.0))
                .collect::<Vec<_>>(),
            shape,
        ),
    };
    r.expect("upload")
}

/// `data` as NumPy's little-endian bytes of `dtype`.
pub fn raw_bytes(data: &[f64], dtype: DType) -> Vec<u8> {
    let mut out = Vec::new();
    for &v in data {
        match dtype {
            DType::Bool => out.push((v != 0.0) as u8),
            DType::I8 => out.extend((v as i8).to_le_bytes()),
            DType::U8 => out.extend((v as u8).to_le_bytes()),
            DType::I16 => out.extend((v as i16).to_le_bytes()),
            DType::U16 => out.extend((v as u16).to_le_bytes()),
            DType::I32 => out.extend((v as i32).to_le_bytes()),
            DType::U32 => out.extend((v as u32).to_le_bytes()),
            DType::I64 => out.extend((v as i64).to_le_bytes()),
            DType::U64 => out.extend((v as u64).to_le_bytes()),
            DType::F16 => out.extend(half::f16::from_f64(v).to_le_bytes()),
            DType::F32 => out.extend((v as f32).to_le_bytes()),
            DType::F64 | DType::Complex64 | DType::Complex128 => out.extend(v.to_le_bytes()),
        }
    }
    out
}

/// The little-endian f64 values of a file NumPy wrote.
pub fn read_f64(path: &Path) -> Vec<f64> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Every dtype, those the adapter supports.
pub fn dtypes(dev: &kp::Device) -> Vec<DType> {
    [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::Bool,
    ]
    .into_iter()
    .filter(|&d| dev.supports(d))
    .collect()
}

/// The array itself (a view function that takes no view).
pub fn ident(a: &Array) -> kp::Result<Array> {
    Ok(a.clone())
}

/// NumPy's verdict `res` (`{"error": ...}` or `{"shape": [...]}`) against kupfer's result:
/// NumPy must not have raised, and shape and dtype must match.
pub fn check_shape_and_dtype(got: &Array, want: DType, res: &Value) -> Result<(), String> {
    if let Some(e) = res.get("error") {
        return Err(format!("numpy raised {e} but kupfer returned a result"));
    }
    let want_shape: Vec<usize> = res["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    if got.shape() != want_shape.as_slice() {
        return Err(format!("shape {:?}, numpy {:?}", got.shape(), want_shape));
    }
    if got.dtype() != want {
        return Err(format!("dtype {}, expected {want}", got.dtype()));
    }
    Ok(())
}

/// Runs the NumPy oracle `script` on `manifest` in `dir`: writes `manifest.json` and
/// `oracle.py` there, runs `python3 oracle.py DIR` and returns the `results.json` it writes.
/// Panics with Python's output when python3 or NumPy is missing or the script fails: these
/// tests use NumPy as their oracle and never skip.
pub fn run_oracle(dir: &Path, manifest: &Value, script: &str) -> Value {
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_string(manifest).unwrap(),
    )
    .unwrap();
    let path = dir.join("oracle.py");
    std::fs::write(&path, script).unwrap();
    let o = std::process::Command::new("python3")
        .arg(&path)
        .arg(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run python3 ({e}); these tests use NumPy as their oracle")
        });
    assert!(
        o.status.success(),
        "oracle failed (python3 with numpy needed):\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

/// Runs kupfer's side of one case, a panic included, and judges it against NumPy's result
/// `res`: a returned array goes to `compare`; a kupfer error passes only where NumPy raised
/// too (`Ok(None)`). `Err` is the failure message.
pub fn judge<T>(
    res: &Value,
    run: impl FnOnce() -> kp::Result<Array>,
    compare: impl FnOnce(&Array) -> Result<T, String>,
) -> Result<Option<T>, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(got)) => compare(&got).map(Some),
        Ok(Err(e)) if res.get("error").is_none() => Err(format!("kupfer error {e}")),
        Ok(Err(_)) => Ok(None),
        Err(_) => Err("kupfer panicked".into()),
    }
}

/// Fails the test with every failure listed, out of `total` cases.
pub fn assert_no_failures(failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        total,
        failures.join("\n")
    );
}

/// Machine epsilon of a float dtype (of a complex dtype's parts); 0 for integers and bool.
pub fn eps(d: DType) -> f64 {
    match d {
        DType::F16 => 9.77e-4,
        DType::F32 | DType::Complex64 => 1.19e-7,
        DType::F64 | DType::Complex128 => 2.22e-16,
        _ => 0.0,
    }
}

/// The default device (lavapipe will do), made the process default; sets XDG_RUNTIME_DIR
/// where it is missing (lavapipe's WSI layer warns without it). Fails, never skips, without
/// an adapter.
pub fn default_device() -> kp::Device {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", "/tmp");
    }
    let d = kp::Device::default_device().expect("a GPU adapter (lavapipe will do)");
    kp::Device::set_default(&d);
    d
}

/// An array's values as (re, im) pairs in f64 (real dtypes get im = 0).
pub fn host_pairs(a: &Array) -> Vec<(f64, f64)> {
    match a.to_host().unwrap().data {
        kp::HostData::Complex64(v) => v
            .iter()
            .map(|z| (f64::from(z.re), f64::from(z.im)))
            .collect(),
        kp::HostData::F32(v) => v.iter().map(|&x| (f64::from(x), 0.0)).collect(),
        kp::HostData::F64(v) => v.iter().map(|&x| (x, 0.0)).collect(),
        kp::HostData::Complex128(v) => v.iter().map(|z| (z.re, z.im)).collect(),
        other => panic!("unexpected result dtype {:?}", other.dtype()),
    }
}
