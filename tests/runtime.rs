//! GPU runtime behaviour: chunking of large arrays, large dispatch grids, the memory pool,
//! events, lazy fusion, sharing a wgpu device, ndarray interop and .npy files.
//!
//! Every test runs on `Device::default_device()` and fails (never skips) when there is no
//! adapter. The tests take a global lock: they share the default device's memory pool, whose
//! counters some of them check.

use kp::{Array, DType, Error, HostArray, HostData};
use kupfer as kp;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

/// The default device, with the test lock held.
fn device() -> (MutexGuard<'static, ()>, kp::Device) {
    let guard = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dev = kp::Device::default_device().unwrap_or_else(|e| {
        panic!("no GPU adapter (install Mesa's lavapipe, Debian package mesa-vulkan-drivers): {e}")
    });
    (guard, dev)
}

const MIB: u64 = 1 << 20;

/// A value that depends on the index with no short period (a chunk bound at the wrong
/// offset shows up as a mismatch).
fn pattern(i: usize) -> f32 {
    ((i as u64).wrapping_mul(2_654_435_761) % 16_777_213) as f32 - 8_388_608.0
}

// ------------------------------------------------------------------------------------------
// (a) arrays larger than the largest storage binding

#[test]
fn large_array_is_chunked_correctly() {
    let (_g, dev) = device();
    let n = 40_000_000usize; // 160 MB of float32: more than lavapipe's 128 MiB binding
    let binding = dev.info().limits.max_storage_buffer_binding_size as usize;
    eprintln!(
        "max_storage_buffer_binding_size = {binding} bytes; array = {} bytes",
        n * 4
    );
    let host: Vec<f32> = (0..n).map(pattern).collect();
    let h = Array::from_slice(&host, &[n]).unwrap();
    let y = (&h * 0.5 + 1.0).to_vec::<f32>().unwrap();
    assert_eq!(y.len(), n);
    let mut bad = Vec::new();
    let mut count = 0usize;
    for (i, (&g, &x)) in y.iter().zip(&host).enumerate() {
        let want = x * 0.5 + 1.0;
        if g.to_bits() != want.to_bits() {
            count += 1;
            if bad.len() < 5 {
                bad.push(format!("[{i}] got {g}, expected {want}"));
            }
        }
    }
    assert!(
        count == 0,
        "{count} of {n} elements wrong, e.g. {}",
        bad.join("; ")
    );
    // a second operand broadcast along the rows of the large array
    let row: Vec<f32> = (0..1000).map(|j| j as f32 * 0.125).collect();
    let r2 = Array::from_slice(&row, &[1000]).unwrap();
    let m = h.reshape(&[(n / 1000) as isize, 1000]).unwrap();
    let s = (&m - &r2).to_vec::<f32>().unwrap();
    let first_bad = (0..n).find(|&i| s[i].to_bits() != (host[i] - row[i % 1000]).to_bits());
    assert!(
        first_bad.is_none(),
        "large array minus a broadcast row wrong at {first_bad:?}"
    );
    drop(s);
    // a strided view across the chunk boundary, reversed
    let r = h.slice(&kp::s![..;-3]).unwrap();
    let rv = (&r + 0.0).to_vec::<f32>().unwrap();
    let want: Vec<f32> = (0..n).rev().step_by(3).map(|i| host[i] + 0.0).collect();
    assert_eq!(rv.len(), want.len());
    let first_bad = rv
        .iter()
        .zip(&want)
        .position(|(a, b)| a.to_bits() != b.to_bits());
    assert!(
        first_bad.is_none(),
        "reversed strided view of the large array wrong at {first_bad:?}"
    );
}

// ------------------------------------------------------------------------------------------
// (b) more than 65535 workgroups in x

#[test]
fn dispatch_grid_beyond_65535_workgroups() {
    let (_g, _dev) = device();
    let n = 65_535 * 256 + 4_099; // one workgroup of 256 per 256 elements: > 65535 groups
    let a = kp::arange(0, n as i64, 1, Some(DType::I32)).unwrap();
    let v = a.to_vec::<i32>().unwrap();
    assert_eq!(v.len(), n);
    if let Some(i) = v.iter().enumerate().position(|(i, &x)| x != i as i32) {
        panic!("arange({n}) wrong at {i}: {}", v[i]);
    }
    let host: Vec<f32> = (0..n).map(pattern).collect();
    let x = Array::from_slice(&host, &[n]).unwrap();
    let y = kp::negative(&x).unwrap().to_vec::<f32>().unwrap();
    if let Some(i) = (0..n).find(|&i| y[i] != -host[i]) {
        panic!(
            "negative() over {n} elements wrong at {i}: got {}, expected {}",
            y[i], -host[i]
        );
    }
    // and a 2-D strided (transposed) input of the same size
    let rows = 4099;
    let cols = n / rows;
    let t = x
        .slice(&kp::s![..rows * cols])
        .unwrap()
        .reshape(&[rows as isize, cols as isize])
        .unwrap();
    let tt = (&t.t().unwrap() * 1.0).to_vec::<f32>().unwrap();
    for (k, &g) in tt.iter().enumerate().step_by(9973) {
        let (j, i) = (k / rows, k % rows);
        assert_eq!(g, host[i * cols + j], "transposed copy wrong at ({j}, {i})");
    }
}

// ------------------------------------------------------------------------------------------
// (c) many small ops do not grow the pool

#[test]
fn many_small_ops_do_not_leak() {
    let (_g, dev) = device();
    let x = Array::from_slice(&[1.5f32; 16], &[16]).unwrap();
    for _ in 0..100 {
        (&x + 1.0).eval().unwrap();
    }
    dev.synchronize().unwrap();
    let before = dev.memory_pool().total_bytes();
    let t = std::time::Instant::now();
    for _ in 0..100_000 {
        let y = &x + 1.0;
        y.eval().unwrap();
    }
    dev.synchronize().unwrap();
    let after = dev.memory_pool().total_bytes();
    eprintln!(
        "100000 small ops in {:.1} s; pool total {before} -> {after} bytes",
        t.elapsed().as_secs_f64()
    );
    assert!(
        after <= before + MIB,
        "the pool grew from {before} to {after} bytes over 100000 dropped 16-element results"
    );
    assert_eq!((&x + 1.0).to_vec::<f32>().unwrap(), vec![2.5f32; 16]);
}

/// Read-backs of 1 MiB and more arrive in two pieces (the host copies the first while the GPU
/// copies the rest): every element must land in order, at sizes around the split and from
/// views at offsets that are and are not 16-byte aligned.
#[test]
fn read_back_in_pieces_keeps_order() {
    let (_g, _dev) = device();
    for n in [(1 << 18) - 1, 1 << 18, 3 * (1 << 18) + 1, 1 << 21] {
        let host: Vec<f32> = (0..n + 8).map(pattern).collect();
        let a = Array::from_slice(&host, &[n + 8]).unwrap();
        for start in [0usize, 3, 4] {
            let view = a
                .slice(&kp::s![start as isize..(start + n) as isize])
                .unwrap();
            let got = view.to_vec::<f32>().unwrap();
            assert_eq!(got.len(), n);
            if let Some(i) = (0..n).find(|&i| got[i] != host[start + i]) {
                panic!(
                    "n {n}, view at {start}: element {i} is {} not {}",
                    got[i],
                    host[start + i]
                );
            }
        }
        let z: Vec<num_complex::Complex32> = (0..n)
            .map(|i| num_complex::Complex32::new(pattern(i), -pattern(i + 1)))
            .collect();
        let c = Array::from_slice(&z, &[n]).unwrap();
        assert_eq!(
            c.to_vec::<num_complex::Complex32>().unwrap(),
            z,
            "complex64, n {n}"
        );
        let b: Vec<bool> = (0..n).map(|i| pattern(i) > 0.0).collect();
        let m = Array::from_slice(&b, &[n]).unwrap();
        assert_eq!(m.to_vec::<bool>().unwrap(), b, "bool, n {n}");
    }
}

/// Bind groups are reused across batches; after the pool destroys its free buffers, kernels
/// must bind the buffers that exist now (a stale cached group would fail or read garbage).
#[test]
fn kernels_bind_live_buffers_after_the_pool_is_emptied() {
    let (_g, dev) = device();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    for round in 0..3 {
        for _ in 0..5 {
            assert_eq!(
                (&x * 2.0).to_vec::<f32>().unwrap(),
                vec![2.0, 4.0, 6.0, 8.0]
            );
        }
        dev.synchronize().unwrap();
        dev.memory_pool().free_all_blocks();
        let y = Array::from_slice(&[10.0f32 * (round as f32 + 1.0); 4], &[4]).unwrap();
        let want = 10.0 * (round as f32 + 1.0) + 1.0;
        assert_eq!((&y + 1.0).to_vec::<f32>().unwrap(), vec![want; 4]);
    }
}

// ------------------------------------------------------------------------------------------
// (d) memory pool accounting, reuse, free_all_blocks, limits and out-of-memory

#[test]
fn memory_pool_accounting_reuse_and_limit() {
    let (_g, dev) = device();
    let pool = dev.memory_pool();
    dev.synchronize().unwrap();
    pool.free_all_blocks();
    let used0 = pool.used_bytes();
    assert_eq!(
        pool.total_bytes(),
        used0,
        "after free_all_blocks, total == used"
    );

    let n = 1usize << 20; // 4 MiB of f32
    let a = kp::ones(&[n], Some(DType::F32)).unwrap();
    a.eval().unwrap();
    let used1 = pool.used_bytes();
    assert!(
        used1 >= used0 + 4 * MIB,
        "a live 4 MiB array must count in used_bytes ({used0} -> {used1})"
    );
    assert!(pool.total_bytes() >= used1);
    drop(a);
    dev.synchronize().unwrap();
    assert_eq!(
        pool.used_bytes(),
        used0,
        "used_bytes returns to its value after drop"
    );
    let total_cached = pool.total_bytes();
    assert!(
        total_cached >= used0 + 4 * MIB,
        "the freed block stays cached in total_bytes"
    );

    // the cached block is reused: total does not grow
    let b = kp::zeros(&[n], Some(DType::F32)).unwrap();
    b.eval().unwrap();
    assert_eq!(
        pool.total_bytes(),
        total_cached,
        "a same-size allocation reuses the cached block"
    );
    assert_eq!(b.to_vec::<f32>().unwrap()[n - 1], 0.0);
    drop(b);
    dev.synchronize().unwrap();

    pool.free_all_blocks();
    assert_eq!(
        pool.total_bytes(),
        pool.used_bytes(),
        "free_all_blocks releases every cached block"
    );

    // a limit: an allocation beyond it is Error::OutOfMemory and the process goes on
    let limit = pool.total_bytes() + 8 * MIB;
    pool.set_limit(Some(limit));
    assert_eq!(pool.limit(), Some(limit));
    let small = kp::ones(&[1 << 20], Some(DType::F32)).unwrap();
    small.eval().expect("4 MiB fit under an 8 MiB margin");
    let big = kp::ones(&[16 << 20], Some(DType::F32)).unwrap(); // 64 MiB
    let r = big.eval().map(|_| ());
    let r2 = kp::empty(&[16 << 20], Some(DType::F32)).map(|_| ());
    pool.set_limit(None);
    match r {
        Err(Error::OutOfMemory(m)) => eprintln!("over the limit: {m}"),
        other => panic!("64 MiB over a limit must be Error::OutOfMemory, got {other:?}"),
    }
    assert!(
        matches!(r2, Err(Error::OutOfMemory(_))),
        "empty() over the limit: {r2:?}"
    );
    assert!(
        pool.total_bytes() <= limit,
        "the pool stayed within its limit"
    );
    drop(small);
    // without the limit the same allocation works
    let big = kp::ones(&[16 << 20], Some(DType::F32)).unwrap();
    let v = big.slice(&kp::s![-2..]).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(v, vec![1.0, 1.0]);
    drop(big);

    // larger than the adapter's largest buffer: OutOfMemory too, not a panic or a device loss
    let max = dev.info().limits.max_buffer_size;
    let elems = (max / 4 + 1024) as usize;
    match kp::empty(&[elems], Some(DType::F32)) {
        Err(Error::OutOfMemory(m)) => eprintln!("beyond max_buffer_size: {m}"),
        Err(e) => {
            panic!("an allocation beyond max_buffer_size ({max}) should be OutOfMemory, got {e:?}")
        }
        Ok(_) => panic!("an allocation beyond max_buffer_size ({max}) succeeded"),
    }
    assert_eq!(
        (&kp::ones(&[3], Some(DType::F32)).unwrap() * 2.0)
            .to_vec::<f32>()
            .unwrap(),
        vec![2.0; 3]
    );
    dev.synchronize().unwrap();
    pool.free_all_blocks();
}

// ------------------------------------------------------------------------------------------
// (e) events and synchronize

#[test]
fn events_time_real_work() {
    let (_g, dev) = device();
    let x = kp::arange(0.0, 4_000_000.0, 1.0, Some(DType::F32)).unwrap();
    let start = dev.record_event().unwrap();
    let mut y = x.clone();
    for _ in 0..4 {
        y = kp::sin(&y).unwrap();
        y.eval().unwrap();
    }
    let end = dev.record_event().unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    eprintln!("4 x sin over 4M elements: {ms:.3} ms");
    assert!(
        ms.is_finite() && ms > 0.0,
        "elapsed_ms must be positive and finite, got {ms}"
    );
    dev.synchronize().unwrap();
    kp::synchronize().unwrap();
    // events in the other order give a non-positive time rather than an error or panic
    let back = end.elapsed_ms(&start).unwrap();
    assert!(
        back.is_finite() && back <= 0.0,
        "elapsed_ms backwards = {back}"
    );
}

// ------------------------------------------------------------------------------------------
// (f) lazy fusion

#[test]
fn fused_chain_materialises_once() {
    let (_g, dev) = device();
    let n = 1usize << 18;
    let host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.01 - 5.0).collect();
    let x = Array::from_slice(&host, &[n]).unwrap();
    dev.synchronize().unwrap();
    let t1 = &x * 2.0;
    let t2 = &t1 + 1.0;
    let t3 = kp::maximum(&t2, -3.0).unwrap();
    let t4 = kp::square(&t3).unwrap();
    let y = &t4 - &x;
    for (k, t) in [&t1, &t2, &t3, &t4, &y].iter().enumerate() {
        assert!(
            t.is_lazy(),
            "step {k} of an elementwise chain should stay lazy"
        );
    }
    let used = dev.memory_pool().used_bytes();
    y.eval().unwrap();
    let grown = dev.memory_pool().used_bytes() - used;
    assert!(!y.is_lazy());
    for (k, t) in [&t1, &t2, &t3, &t4].iter().enumerate() {
        assert!(
            t.is_lazy(),
            "evaluating the chain's end materialised step {k}"
        );
    }
    assert!(
        grown <= 2 * (n as u64) * 4,
        "one fused kernel should allocate one output ({} bytes), the pool grew by {grown}",
        n * 4
    );
    let got = y.to_vec::<f32>().unwrap();
    for i in 0..n {
        let v = host[i];
        let s = (v * 2.0 + 1.0).max(-3.0);
        let want = s * s - v;
        // Vulkan lets a driver contract s * s - v into one fma (NVIDIA does): one rounding.
        let want_fused = (f64::from(s) * f64::from(s) - f64::from(v)) as f32;
        assert!(
            got[i] == want || got[i] == want_fused,
            "fused chain wrong at {i} (x = {v}): got {}, want {want} (or {want_fused} fused)",
            got[i]
        );
    }
    // the same structure with other constants (one cached pipeline): still right
    for c in [2.0f64, 3.0, -0.5, 1e3] {
        let r = (&x * c).to_vec::<f32>().unwrap();
        assert!(
            r.iter().zip(&host).all(|(g, h)| *g == h * c as f32),
            "x * {c} wrong"
        );
    }
}

// ------------------------------------------------------------------------------------------
// (f2) kernel parameters as immediates or as uniform blocks

#[test]
fn parameters_as_immediates_and_as_uniform_blocks_agree() {
    let (_g, with) = device();
    let mut config = kp::Config::from_env().unwrap();
    config.runtime.immediates = false;
    let without = kp::Device::open(kp::AdapterChoice::Default, config).unwrap();
    assert_eq!(without.context().immediate_bytes(), 0);
    if with.info().backend == "vulkan" {
        // Vulkan guarantees 128 bytes of push constants.
        assert!(with.context().immediate_bytes() >= 128);
    }
    let (rows, cols) = (12usize, 37usize);
    let host: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 37) % 101) as f32 - 50.0)
        .collect();
    // A spread of kernel families, each with its own parameter block.
    let run = |dev: &kp::Device| -> Vec<Vec<f32>> {
        let a = Array::from_slice_on(dev, &host, &[rows, cols]).unwrap();
        let b = a.t().unwrap();
        let flat = a.reshape(&[-1]).unwrap();
        vec![
            (&b * 2.5 + 1.0).to_vec::<f32>().unwrap(),
            kp::sum(&a, kp::Axis::Many(vec![1]), false)
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            kp::cumsum(&b, Some(0), None)
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            kp::sort(&flat, Some(0), None)
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            kp::matmul(&a, &b).unwrap().to_vec::<f32>().unwrap(),
        ]
    };
    let (pushed, bound) = (run(&with), run(&without));
    assert_eq!(pushed, bound);
    assert_eq!(without.context().pipelines_with_immediates(), 0);
    if with.context().immediate_bytes() > 0 {
        assert!(with.context().pipelines_with_immediates() >= 5);
    }
    // and both are right: the CPU's answers
    let at = |r: usize, c: usize| host[r * cols + c];
    let scaled: Vec<f32> = (0..cols)
        .flat_map(|c| (0..rows).map(move |r| (c, r)))
        .map(|(c, r)| at(r, c) * 2.5 + 1.0)
        .collect();
    assert_eq!(pushed[0], scaled);
    let sums: Vec<f32> = (0..rows)
        .map(|r| (0..cols).map(|c| at(r, c)).sum())
        .collect();
    assert_eq!(pushed[1], sums);
    let running: Vec<f32> = (0..cols)
        .flat_map(|c| (0..rows).map(move |r| (c, r)))
        .map(|(c, r)| (0..=c).map(|k| at(r, k)).sum())
        .collect();
    assert_eq!(pushed[2], running);
    let mut sorted = host.clone();
    sorted.sort_by(f32::total_cmp);
    assert_eq!(pushed[3], sorted);
    let gram: Vec<f32> = (0..rows)
        .flat_map(|i| (0..rows).map(move |j| (i, j)))
        .map(|(i, j)| (0..cols).map(|k| at(i, k) * at(j, k)).sum())
        .collect();
    assert_eq!(pushed[4], gram);
}

#[test]
fn synchronize_after_a_read_back_waits_only_for_newer_work() {
    let (_g, dev) = device();
    let _scope = dev.use_device();
    let ctx = dev.context();
    let a = kp::ones(&[1 << 16], Some(DType::F32)).unwrap();
    let total = kp::sum(&a, kp::Axis::All, false)
        .unwrap()
        .item()
        .unwrap()
        .as_f64();
    assert_eq!(total, 65536.0);
    // The read-back's submission is known to be done: nothing to ask the driver.
    ctx.reset_spans();
    dev.synchronize().unwrap();
    assert_eq!(ctx.spans().waits, 0);
    // Work recorded after it is submitted and waited for.
    let b = &a * 3.0;
    b.eval().unwrap();
    dev.synchronize().unwrap();
    let spans = ctx.spans();
    assert_eq!((spans.submits, spans.waits), (1, 1));
    dev.synchronize().unwrap();
    assert_eq!(
        ctx.spans().waits,
        1,
        "a second synchronize finds nothing in flight"
    );
    assert!(b.to_vec::<f32>().unwrap().iter().all(|&x| x == 3.0));
}

// ------------------------------------------------------------------------------------------
// (f3) scalar read-backs: mapped directly, or copied into a staging buffer

/// A device opened with direct (copy-free) scalar read-backs on or off.
fn device_with_direct_reads(on: bool) -> kp::Device {
    let mut config = kp::Config::from_env().unwrap();
    config.runtime.direct_reads = on;
    kp::Device::open(kp::AdapterChoice::Default, config).unwrap()
}

/// Scalars read back from reductions and dot products on `dev`, interleaved with other work
/// (elementwise ops recorded between a reduction and its read-back, the scalar used as a
/// kernel input afterwards, a loop whose pooled result buffers recur), checked against the
/// CPU's answers. Returns how many read-backs mapped their result directly.
fn scalar_read_backs_are_right(dev: &kp::Device) -> u64 {
    let ctx = dev.context();
    ctx.reset_spans();
    let scalar = |a: &Array| a.item().unwrap().as_f64();
    for n in [1usize, 16, 1000, 1 << 16] {
        // Small integers: every float32 sum below is exact.
        let host: Vec<f32> = (0..n).map(|i| ((i * 7919) % 23) as f32 - 11.0).collect();
        let x = Array::from_slice_on(dev, &host, &[n]).unwrap();
        let total: f32 = host.iter().sum();
        let s = kp::sum(&x, kp::Axis::All, false).unwrap();
        // Work recorded after the reduction, before its read-back.
        let doubled = &x * 2.0;
        doubled.eval().unwrap();
        assert_eq!(scalar(&s), f64::from(total), "sum of {n}");
        // Read twice, then used by a kernel: the mapped buffer is unmapped and bindable.
        assert_eq!(
            scalar(&s),
            f64::from(total),
            "second read of the sum of {n}"
        );
        let shifted = (&x - &s).to_vec::<f32>().unwrap();
        let want: Vec<f32> = host.iter().map(|v| v - total).collect();
        assert_eq!(shifted, want, "x - x.sum() for {n}");
        let max = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(
            scalar(&kp::max(&doubled, kp::Axis::All, false).unwrap()),
            f64::from(2.0 * max)
        );
        let dot: f32 = host.iter().map(|v| v * v).sum();
        assert_eq!(
            scalar(&kp::dot(&x, &x).unwrap()),
            f64::from(dot),
            "x.x for {n}"
        );
        let positive = kp::greater(&x, 10.5).unwrap();
        let any = kp::any(&positive, kp::Axis::All, false)
            .unwrap()
            .item()
            .unwrap();
        assert_eq!(
            any,
            kp::Scalar::Bool(host.iter().any(|&v| v > 10.5)),
            "any for {n}"
        );
        let all = kp::all(&positive, kp::Axis::All, false)
            .unwrap()
            .item()
            .unwrap();
        assert_eq!(
            all,
            kp::Scalar::Bool(host.iter().all(|&v| v > 10.5)),
            "all for {n}"
        );
        let ints: Vec<i32> = host.iter().map(|&v| v as i32).collect();
        let xi = Array::from_slice_on(dev, &ints, &[n]).unwrap();
        let isum = kp::sum(&xi, kp::Axis::All, false).unwrap().item().unwrap();
        assert_eq!(
            isum,
            kp::Scalar::Int(ints.iter().map(|&v| i64::from(v)).sum())
        );
    }
    // A loop reading a scalar each iteration, as a convergence test does: the result
    // buffers recur from the pool, with new values each time.
    let mut x = Array::from_slice_on(dev, &[0.5f32; 64], &[64]).unwrap();
    for k in 1..=40 {
        x = &x + 1.0;
        let want = 64.0 * (0.5 + k as f64);
        assert_eq!(
            scalar(&kp::sum(&x, kp::Axis::All, false).unwrap()),
            want,
            "iteration {k}"
        );
    }
    // A reduction whose work finished before its read-back.
    let late = kp::sum(&x, kp::Axis::All, false).unwrap();
    dev.synchronize().unwrap();
    assert_eq!(scalar(&late), 64.0 * 40.5);
    ctx.spans().mapped_reads
}

#[test]
fn scalar_read_backs_agree_mapped_directly_and_copied() {
    let (_g, _default) = device();
    let copied = device_with_direct_reads(false);
    assert!(!copied.context().direct_reads());
    // Opened without MAPPABLE_PRIMARY_BUFFERS: a mappable storage buffer is an error.
    let ctx = copied.context();
    let refused = ctx.pool().alloc_mappable(ctx.device(), 16).unwrap_err();
    assert!(
        refused.to_string().contains("MAPPABLE_PRIMARY_BUFFERS"),
        "{refused}"
    );
    assert!(!ctx.alloc_for_host(16).unwrap().is_mappable());
    assert_eq!(scalar_read_backs_are_right(&copied), 0);
    let direct = device_with_direct_reads(true);
    if direct.info().backend == "vulkan" {
        // Every Vulkan adapter (lavapipe too) has MAPPABLE_PRIMARY_BUFFERS.
        assert!(direct.context().direct_reads());
    }
    let mapped = scalar_read_backs_are_right(&direct);
    if direct.context().direct_reads() {
        // 4 sizes x (sum twice, max, dot, any, all, int sum) + 40 + 1
        assert_eq!(mapped, 4 * 7 + 41);
    }
}

#[test]
fn a_direct_read_back_of_older_work_leaves_newer_work_in_flight() {
    let (_g, _default) = device();
    let dev = device_with_direct_reads(true);
    let ctx = dev.context();
    let x = Array::from_slice_on(&dev, &[2.0f32; 256], &[256]).unwrap();
    let s = kp::sum(&x, kp::Axis::All, false).unwrap();
    ctx.flush().unwrap();
    // Newer work, submitted by the read-back's flush: mapping `s` waits only for the older
    // submission, so the newer one must still be waited for by `synchronize`.
    let y = kp::sqrt(&x * 3.0).unwrap();
    y.eval().unwrap();
    assert_eq!(s.item().unwrap().as_f64(), 512.0);
    ctx.reset_spans();
    dev.synchronize().unwrap();
    if ctx.direct_reads() {
        assert_eq!(
            ctx.spans().waits,
            1,
            "synchronize must wait for the newer work"
        );
    }
    // A read-back whose own submission wrote the scalar retires everything before it.
    let t = kp::sum(&y, kp::Axis::All, false).unwrap();
    let want = 256.0 * 6f32.sqrt();
    assert!((t.item().unwrap().as_f64() - f64::from(want)).abs() < 1e-3);
    ctx.reset_spans();
    dev.synchronize().unwrap();
    if ctx.direct_reads() {
        assert_eq!(ctx.spans().waits, 0, "nothing newer than the read-back");
    }
}

#[test]
fn direct_scalar_read_backs_beside_another_thread() {
    let (_g, _default) = device();
    let dev = device_with_direct_reads(true);
    let worker = {
        let dev = dev.clone();
        std::thread::spawn(move || {
            let host: Vec<f32> = (0..4096).map(|i| (i % 17) as f32).collect();
            let a = Array::from_slice_on(&dev, &host, &[4096]).unwrap();
            for k in 0..60 {
                let b = (&a * 2.0 + k as f64).to_vec::<f32>().unwrap();
                assert!(b.iter().zip(&host).all(|(&g, &h)| g == h * 2.0 + k as f32));
                let s = kp::sum(&a, kp::Axis::All, false).unwrap().item().unwrap();
                assert_eq!(s.as_f64(), host.iter().sum::<f32>() as f64);
            }
        })
    };
    let ones = Array::from_slice_on(&dev, &[1.0f32; 300], &[300]).unwrap();
    for k in 0..60 {
        let shifted = &ones + k as f64;
        let s = kp::sum(&shifted, kp::Axis::All, false).unwrap();
        // The scalar is read while the other thread records and submits work, and then
        // feeds a kernel of this thread.
        assert_eq!(s.item().unwrap().as_f64(), 300.0 * (1.0 + k as f64));
        let back = (&shifted * &s).to_vec::<f32>().unwrap();
        assert!(back
            .iter()
            .all(|&v| v == (1.0 + k as f32) * 300.0 * (1.0 + k as f32)));
    }
    worker.join().unwrap();
}

// ------------------------------------------------------------------------------------------
// (g) a wgpu device created by the application

#[test]
fn device_from_wgpu() {
    let (_g, default) = device();
    let instance = kp::wgpu::Instance::new(
        kp::wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    );
    let adapter =
        pollster::block_on(instance.request_adapter(&kp::wgpu::RequestAdapterOptions::default()))
            .expect("an adapter for the application's own wgpu device");
    let (device, queue) = pollster::block_on(adapter.request_device(&kp::wgpu::DeviceDescriptor {
        label: Some("application device"),
        required_features: kp::wgpu::Features::empty(),
        required_limits: kp::wgpu::Limits::default(),
        ..Default::default()
    }))
    .expect("request_device");
    let dev = kp::Device::from_wgpu(device, queue);
    assert!(dev.supports(DType::F32));
    assert!(!dev.supports(DType::F64), "no SHADER_F64 was requested");
    assert_eq!(dev.default_float(), DType::F32);
    let a = Array::from_slice_on(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    assert_eq!(a.device(), &dev);
    let y = (&a.t().unwrap() * 10.0 + &a).to_vec::<f32>().unwrap();
    assert_eq!(y, vec![11.0, 32.0, 23.0, 44.0]);
    {
        let _scope = dev.use_device();
        let z = kp::arange(0, 5, 1, None).unwrap();
        assert_eq!(z.device(), &dev);
        assert_eq!(
            z.dtype(),
            DType::I32,
            "default int without SHADER_INT64 is int32"
        );
        assert_eq!(z.to_vec::<i32>().unwrap(), vec![0, 1, 2, 3, 4]);
    }
    // a dtype this device cannot run is a clear Unsupported, not a downgrade
    match Array::from_slice_on(&dev, &[1.0f64], &[1]) {
        Err(Error::Unsupported(m)) => eprintln!("f64 on a device without SHADER_F64: {m}"),
        other => panic!("float64 without SHADER_F64 should be Unsupported, got {other:?}"),
    }
    // arrays of two devices do not mix silently
    let b = Array::from_slice_on(&default, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    match kp::add(&a, &b) {
        Err(Error::InvalidArgument(m)) => eprintln!("mixing devices: {m}"),
        other => panic!("adding arrays of two devices should be InvalidArgument, got {other:?}"),
    }
    let moved = b.to_device(&dev).unwrap();
    assert_eq!(
        kp::add(&a, &moved).unwrap().to_vec::<f32>().unwrap(),
        vec![2.0, 4.0, 6.0, 8.0]
    );
}

// ------------------------------------------------------------------------------------------
// (h) ndarray interop

#[test]
fn ndarray_round_trip_non_contiguous() {
    let (_g, _dev) = device();
    let base = ndarray::Array3::from_shape_fn((4, 5, 6), |(i, j, k)| {
        (i * 100 + j * 10 + k) as f32 - 250.0
    });
    let view = base
        .slice(ndarray::s![..;-1, 1..5;2, ..])
        .permuted_axes([2, 0, 1]);
    assert!(!view.is_standard_layout());
    let a = Array::from_ndarray(&view).unwrap();
    assert_eq!(a.shape(), view.shape());
    let back = a.to_ndarray::<f32>().unwrap();
    assert_eq!(back, view.to_owned().into_dyn());
    let doubled = (&a * 2.0).to_ndarray::<f32>().unwrap();
    assert_eq!(doubled, (&view * 2.0).into_dyn());
    // other element types, and a kupfer view read back through ndarray
    let ints = ndarray::Array2::from_shape_fn((3, 7), |(i, j)| (i * 7 + j) as i64 - 10);
    let ai = Array::from_ndarray(&ints.t()).unwrap();
    assert_eq!(
        ai.to_ndarray::<i64>().unwrap(),
        ints.t().to_owned().into_dyn()
    );
    let sl = ai.slice(&kp::s![1..6;2, ..;-1]).unwrap();
    assert_eq!(
        sl.to_ndarray::<i64>().unwrap(),
        ints.t()
            .slice(ndarray::s![1..6;2, ..;-1])
            .to_owned()
            .into_dyn()
    );
    let bools = ndarray::arr2(&[[true, false], [false, true]]);
    assert_eq!(
        Array::from_ndarray(&bools.t())
            .unwrap()
            .to_ndarray::<bool>()
            .unwrap(),
        bools.t().to_owned().into_dyn()
    );
    // asking for the wrong element type is an error, not garbage
    assert!(matches!(
        a.to_ndarray::<i32>(),
        Err(Error::InvalidArgument(_))
    ));
}

// ------------------------------------------------------------------------------------------
// (i) .npy files

fn run_python(script: &str, dir: &Path) {
    let out = Command::new("python3").arg("-c").arg(script).arg(dir).output().unwrap_or_else(|e| {
        panic!("cannot run python3 ({e}): the .npy tests use NumPy to write files: install Python 3, then `pip install numpy`")
    });
    assert!(
        out.status.success(),
        "python3 failed:\n{}\n(the .npy tests need NumPy: `pip install numpy`)",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn npy_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("npy_files");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The values NumPy writes below: element (i, j, k) of shape (2, 3, 4) is v = i*12 + j*4 + k.
fn expected_host(dtype: DType) -> HostArray {
    let v: Vec<i64> = (0..24).collect();
    let data = match dtype {
        DType::Bool => HostData::Bool(v.iter().map(|x| x % 3 == 0).collect()),
        DType::I8 => HostData::I8(v.iter().map(|&x| (x * 11 - 128) as i8).collect()),
        DType::U8 => HostData::U8(v.iter().map(|&x| (x * 11) as u8).collect()),
        DType::I16 => HostData::I16(v.iter().map(|&x| (x * 1400 - 32768) as i16).collect()),
        DType::U16 => HostData::U16(v.iter().map(|&x| (x * 2800 + 1) as u16).collect()),
        DType::I32 => HostData::I32(v.iter().map(|&x| x as i32 - 7).collect()),
        DType::U32 => HostData::U32(v.iter().map(|&x| x as u32 * 1000 + 4_000_000_000).collect()),
        DType::I64 => HostData::I64(v.iter().map(|&x| (x - 7) * 1_000_000_000_000).collect()),
        DType::U64 => HostData::U64(
            v.iter()
                .map(|&x| x as u64 * 100_000_000_000_000_000 + (1 << 63) + 5)
                .collect(),
        ),
        DType::F16 => HostData::F16(
            v.iter()
                .map(|&x| kp::f16::from_f64(x as f64 * 0.5 - 3.0))
                .collect(),
        ),
        DType::F32 => HostData::F32(v.iter().map(|&x| x as f32 * 0.25 - 1.0).collect()),
        DType::F64 => HostData::F64(v.iter().map(|&x| x as f64 / 3.0).collect()),
        DType::Complex64 => HostData::Complex64(
            v.iter()
                .map(|&x| kp::Complex32::new(x as f32, -(x as f32) * 0.5))
                .collect(),
        ),
        DType::Complex128 => HostData::Complex128(
            v.iter()
                .map(|&x| kp::Complex64::new(x as f64 / 3.0, -(x as f64) * 0.1))
                .collect(),
        ),
    };
    HostArray::new(vec![2, 3, 4], data).unwrap()
}

const NPY_WRITER: &str = r#"
import sys, os
import numpy as np
d = sys.argv[1]
v = np.arange(24).reshape(2, 3, 4)
vals = {
    "bool": v % 3 == 0,
    "int8": (v * 11 - 128).astype(np.int8),
    "uint8": (v * 11).astype(np.uint8),
    "int16": (v * 1400 - 32768).astype(np.int16),
    "uint16": (v * 2800 + 1).astype(np.uint16),
    "int32": (v - 7).astype(np.int32),
    "uint32": (v * 1000 + 4000000000).astype(np.uint32),
    "int64": ((v - 7) * 10**12).astype(np.int64),
    "uint64": v.astype(np.uint64) * np.uint64(10**17) + np.uint64(2**63 + 5),
    "float16": (v * 0.5 - 3.0).astype(np.float16),
    "float32": (v * 0.25 - 1.0).astype(np.float32),
    "float64": v / 3.0,
    "complex64": (v - 0.5j * v).astype(np.complex64),
    "complex128": v / 3.0 - 0.1j * v,
}
for name, a in vals.items():
    np.save(os.path.join(d, f"{name}_c.npy"), a)
    np.save(os.path.join(d, f"{name}_f.npy"), np.asfortranarray(a))
    np.save(os.path.join(d, f"{name}_be.npy"), a.astype(a.dtype.newbyteorder(">")))
    np.save(os.path.join(d, f"{name}_fbe.npy"), np.asfortranarray(a.astype(a.dtype.newbyteorder(">"))))
np.save(os.path.join(d, "scalar0d.npy"), np.array(2.5, np.float32))
np.save(os.path.join(d, "empty.npy"), np.zeros((3, 0), np.int32))
np.save(os.path.join(d, "int8.npy"), np.arange(5, dtype=np.int8))
np.save(os.path.join(d, "longdouble.npy"), np.arange(5, dtype=np.longdouble))
np.save(os.path.join(d, "structured.npy"), np.zeros(3, dtype=[("a", "<i4"), ("b", "<f4")]))
raw = open(os.path.join(d, "float32_c.npy"), "rb").read()
open(os.path.join(d, "truncated.npy"), "wb").write(raw[:-7])
open(os.path.join(d, "garbage.npy"), "wb").write(b"this is not a .npy file at all")
"#;

#[test]
fn npy_files() {
    let (_g, _dev) = device();
    let dir = npy_dir();
    run_python(NPY_WRITER, &dir);
    let mut failures = Vec::new();
    for dtype in [
        DType::Bool,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::Complex64,
        DType::Complex128,
    ] {
        let want = expected_host(dtype);
        for variant in ["c", "f", "be", "fbe"] {
            let path = dir.join(format!("{}_{variant}.npy", dtype.name()));
            match kp::io::read_npy(&path) {
                Ok(h) if h == want => {}
                Ok(h) => failures.push(format!(
                    "{}: read {:?}, expected {:?}",
                    path.display(),
                    h,
                    want
                )),
                Err(e) => failures.push(format!("{}: {e:?}", path.display())),
            }
        }
        // write with kupfer, read back with kupfer; through the GPU with save/load
        let path = dir.join(format!("{}_kupfer.npy", dtype.name()));
        kp::io::write_npy(&path, &want).unwrap();
        let back = kp::io::read_npy(&path).unwrap();
        if back != want {
            failures.push(format!(
                "{}: write/read round trip changed the data",
                dtype.name()
            ));
        }
        let a = Array::from_host(&want).unwrap().transpose(None).unwrap();
        let gpu_path = dir.join(format!("{}_gpu.npy", dtype.name()));
        kp::io::save(&gpu_path, &a).unwrap();
        let loaded = kp::io::load(&gpu_path).unwrap();
        assert_eq!(loaded.shape(), &[4, 3, 2]);
        if loaded.to_host().unwrap() != a.to_host().unwrap() {
            failures.push(format!(
                "{}: save/load of a transposed array changed the data",
                dtype.name()
            ));
        }
    }
    // NumPy reads what kupfer writes
    let check = Command::new("python3")
        .arg("-c")
        .arg(
            r#"
import sys, os, numpy as np
d = sys.argv[1]
for n in ["bool", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]:
    a = np.load(os.path.join(d, n + "_kupfer.npy")); b = np.load(os.path.join(d, n + "_c.npy"))
    assert a.dtype == b.dtype and a.shape == b.shape and (a == b).all(), n
    g = np.load(os.path.join(d, n + "_gpu.npy"))
    assert g.dtype == b.dtype and (g == b.transpose()).all(), n
"#,
        )
        .arg(&dir)
        .output()
        .unwrap();
    if !check.status.success() {
        failures.push(format!(
            "NumPy cannot read kupfer's files: {}",
            String::from_utf8_lossy(&check.stderr)
        ));
    }
    // 0-d and empty
    match kp::io::read_npy(dir.join("scalar0d.npy")) {
        Ok(h) if h.shape.is_empty() && h.data == HostData::F32(vec![2.5]) => {}
        other => failures.push(format!("0-d .npy: {other:?}")),
    }
    match kp::io::read_npy(dir.join("empty.npy")) {
        Ok(h) if h.shape == vec![3, 0] && h.data == HostData::I32(vec![]) => {}
        other => failures.push(format!("empty .npy: {other:?}")),
    }
    let zero_d = Array::from_slice(&[7i32], &[]).unwrap();
    kp::io::save(dir.join("zero_d_kupfer.npy"), &zero_d).unwrap();
    match kp::io::read_npy(dir.join("zero_d_kupfer.npy")) {
        Ok(h) if h.shape.is_empty() => {}
        other => failures.push(format!("0-d save/read: {other:?}")),
    }
    // errors: clear messages, right kinds, no panics
    let missing = dir.join("does_not_exist.npy");
    match kp::io::read_npy(&missing) {
        Err(Error::Io(m)) if m.contains("does_not_exist.npy") => eprintln!("missing: {m}"),
        other => failures.push(format!(
            "missing file: expected Error::Io naming the path, got {other:?}"
        )),
    }
    for name in ["truncated.npy", "garbage.npy"] {
        match kp::io::read_npy(dir.join(name)) {
            Err(Error::Io(m)) if m.contains(name) => eprintln!("{name}: {m}"),
            other => failures.push(format!(
                "{name}: expected Error::Io naming the file, got {other:?}"
            )),
        }
    }
    match kp::io::read_npy(dir.join("int8.npy")) {
        Ok(h) if h.data == kp::HostData::I8(vec![0, 1, 2, 3, 4]) => {}
        other => failures.push(format!("int8.npy: expected 0..5 as int8, got {other:?}")),
    }
    for (name, what) in [("longdouble.npy", "f16"), ("structured.npy", "")] {
        match kp::io::read_npy(dir.join(name)) {
            Err(Error::Unsupported(m)) if m.contains(what) => eprintln!("{name}: {m}"),
            other => failures.push(format!(
                "{name}: expected Error::Unsupported naming the dtype, got {other:?}"
            )),
        }
    }
    match kp::io::load(dir.join("longdouble.npy")) {
        Err(Error::Unsupported(_)) => {}
        other => failures.push(format!(
            "load(longdouble.npy): expected Unsupported, got {other:?}"
        )),
    }
    match kp::io::write_npy(
        dir.join("no_such_dir").join("x.npy"),
        &expected_host(DType::F32),
    ) {
        Err(Error::Io(m)) => eprintln!("unwritable: {m}"),
        other => failures.push(format!(
            "writing into a missing directory: expected Error::Io, got {other:?}"
        )),
    }
    assert!(
        failures.is_empty(),
        "{} .npy failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------------------------------------------------
// The per-dispatch GPU profile (kupfer-wgpu's profile.rs, `KUPFER_PROFILE`)

/// Sorts 2^16 keys and multiplies two 64x64 matrices with the profile on; returns the profile
/// and the launches the runtime counted meanwhile. Inputs are uploaded (and that work
/// submitted) before profiling starts.
fn profile_sort_and_matmul(dev: &kp::Device) -> (kp::Profile, u64, Vec<f32>) {
    let ctx = dev.context();
    let keys: Vec<u32> = (0..1u32 << 16)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let x = Array::from_slice(&keys, &[keys.len()]).unwrap();
    let a = Array::from_slice(&vec![1.0f32; 64 * 64], &[64, 64]).unwrap();
    dev.synchronize().unwrap();
    ctx.take_profile().unwrap();
    assert_ne!(
        ctx.set_profiling(true),
        kp::ProfileSupport::Unsupported,
        "the adapter has no timestamp queries"
    );
    let before = ctx.dispatch_count();
    let sorted = kp::sort(&x, None, None).unwrap();
    sorted.eval().unwrap();
    let m = kp::matmul(&a, &a).unwrap();
    m.eval().unwrap();
    dev.synchronize().unwrap();
    let launches = ctx.dispatch_count() - before;
    ctx.set_profiling(false);
    let profile = ctx.take_profile().unwrap();
    let got = sorted.to_vec::<u32>().unwrap();
    let mut want = keys;
    want.sort_unstable();
    assert_eq!(got, want, "sort under the profile");
    (profile, launches, m.to_vec::<f32>().unwrap())
}

/// The dispatches of a profile: one per launch counted, each labelled by its template (a
/// file of shaders/), with non-negative times, the busy time within the span.
fn check_profile(profile: &kp::Profile, launches: u64) {
    assert_eq!(profile.dispatches.len() as u64, launches, "{profile:?}");
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for d in &profile.dispatches {
        let template = d.label.split('/').next().unwrap();
        assert!(
            shaders.join(format!("{template}.wgsl")).exists(),
            "label {} names no template",
            d.label
        );
        assert!(d.start_ns >= 0.0 && d.end_ns >= d.start_ns, "{d:?}");
        assert!(d.groups.iter().all(|&g| g > 0), "{d:?}");
    }
    let labels: Vec<&str> = profile.dispatches.iter().map(|d| &*d.label).collect();
    assert!(labels.iter().any(|l| l.starts_with("sort_")), "{labels:?}");
    assert!(
        labels.iter().any(|l| l.starts_with("matmul_")),
        "{labels:?}"
    );
    assert!(profile.busy_ms() <= profile.span_ms() + 1e-9);
    assert!(profile.gpu_ms() > 0.0 && profile.gap_ms() >= 0.0);
    let totals = profile.by_label();
    let counted: usize = totals.iter().map(|t| t.count).sum();
    assert_eq!(counted, profile.dispatches.len());
    assert!(totals.windows(2).all(|w| w[0].total_ms >= w[1].total_ms));
}

#[test]
fn a_profile_times_every_dispatch_by_kernel() {
    let (_g, dev) = device();
    let (profile, launches, product) = profile_sort_and_matmul(&dev);
    check_profile(&profile, launches);
    assert!(product.iter().all(|&v| v == 64.0));
    // Off again: nothing more is timed.
    (&Array::from_slice(&[1.0f32; 8], &[8]).unwrap() * 2.0)
        .eval()
        .unwrap();
    dev.synchronize().unwrap();
    assert!(dev.context().take_profile().unwrap().dispatches.is_empty());
    // A pass per dispatch (the WebGPU way, `KUPFER_PROFILE=pass`) times the same launches.
    let mut config = kp::Config::from_env().unwrap();
    config.runtime.profile = kp::ProfileMode::PerPass;
    let per_pass = kp::Device::open(kp::AdapterChoice::Default, config).unwrap();
    assert!(per_pass.context().profiling());
    let _scope = per_pass.use_device();
    let (profile, launches, _) = profile_sort_and_matmul(&per_pass);
    check_profile(&profile, launches);
}
