//! The matmul autotuner's on-disk store: a tuned choice made by one device is reused by the
//! next one on the same adapter (a later process, in practice) without tuning again, and a
//! damaged store is ignored. Tuning is forced on lavapipe with `KUPFER_MATMUL_TUNE=1`; the
//! store lives in a temporary `KUPFER_CACHE_DIR`. Results are checked against a CPU product.
//! Its own test binary, because it sets process-wide environment variables.

mod common;

use kp::{Array, DType};
use kupfer as kp;

fn cpu_matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f64> {
    let mut c = vec![0f64; n * n];
    for i in 0..n {
        for p in 0..n {
            let x = f64::from(a[i * n + p]);
            for j in 0..n {
                c[i * n + j] += x * f64::from(b[p * n + j]);
            }
        }
    }
    c
}

/// Kernel launches of one materialised product on `device`, and its values.
fn product(device: &kp::Device, a: &[f32], b: &[f32], n: usize) -> (u64, Vec<f32>) {
    let _guard = device.use_device();
    let x = Array::from_slice(a, &[n, n]).unwrap();
    let y = Array::from_slice(b, &[n, n]).unwrap();
    x.eval().unwrap();
    y.eval().unwrap();
    device.synchronize().unwrap();
    let before = device.context().dispatch_count();
    let c = kp::matmul(&x, &y).unwrap();
    c.eval().unwrap();
    let launches = device.context().dispatch_count() - before;
    (launches, c.to_vec::<f32>().unwrap())
}

fn check(got: &[f32], want: &[f64], n: usize) {
    let tol = common::eps(DType::F32) * (2.0 * n as f64 + 16.0) * n as f64;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((f64::from(*g) - w).abs() <= tol, "element {i}: {g} vs {w}");
    }
}

#[test]
fn a_tuned_choice_is_stored_and_reused_without_tuning() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("matmul-tune-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("KUPFER_CACHE_DIR", &dir);
    std::env::set_var("KUPFER_MATMUL_TUNE", "1");
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", "/tmp");
    }
    let n = 256;
    let a: Vec<f32> = common::values(1, 0x7e, n * n, DType::F32, -1.0, 1.0)
        .iter()
        .map(|&v| v as f32)
        .collect();
    let b: Vec<f32> = common::values(2, 0x7e, n * n, DType::F32, -1.0, 1.0)
        .iter()
        .map(|&v| v as f32)
        .collect();
    let want = cpu_matmul(&a, &b, n);

    let first = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let (launches, got) = product(&first, &a, &b, n);
    assert!(launches > 4, "the first device tunes ({launches} launches)");
    check(&got, &want, n);
    let stored: Vec<std::fs::DirEntry> = std::fs::read_dir(&dir)
        .expect("the cache directory was created")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("matmul-tune-"))
        .collect();
    assert_eq!(stored.len(), 1, "one store file for the adapter");
    let text = std::fs::read_to_string(stored[0].path()).unwrap();
    assert_eq!(text.lines().count(), 1, "one tuned shape class: {text}");

    // A new device (as a new process would) finds the choice: one launch, same values.
    let second = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let (launches, got2) = product(&second, &a, &b, n);
    assert_eq!(launches, 1, "the stored choice is reused without tuning");
    assert_eq!(got, got2, "the same kernel gives the same bits");

    // A damaged store: the entry's choice is no candidate; the third device tunes again.
    let damaged = text.replace("TileConfig", "NoSuchConfig");
    std::fs::write(stored[0].path(), damaged).unwrap();
    let third = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let (launches, got3) = product(&third, &a, &b, n);
    assert!(
        launches > 4,
        "a damaged entry is tuned again ({launches} launches)"
    );
    check(&got3, &want, n);
    let _ = std::fs::remove_dir_all(&dir);
}
