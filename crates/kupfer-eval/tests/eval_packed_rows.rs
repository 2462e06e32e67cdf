//! Contiguous assignment into packed small integers (int8/uint8 four to a word, int16/uint16
//! two), written word by word (`packed::write_rows`): ranges starting and ending inside words,
//! single elements, rows of 2-D views whose partial end words are shared with the next row,
//! scalar, array, broadcast, lazy and self-reading values, and sources at any phase within
//! their words; strided slices stay on the per-element path. Each program runs in kupfer eval
//! and in NumPy (tests/python/program_oracle.py). The last test reruns the others with
//! `KUPFER_PACKED_SET=old` (the path before).

mod common;

use common::assert_programs_match_numpy;

const DTYPES: [&str; 4] = ["uint8", "int8", "uint16", "int16"];

/// `x`, `y`: `n` elements of `dtype` over its whole range.
fn setup(dtype: &str, n: usize) -> String {
    let (mul, span, low) = if dtype.ends_with("16") {
        (4099, 65536, 32768)
    } else {
        (37, 256, 128)
    };
    format!(
        "x = (np.arange({n}) * {mul} % {span} - {low}).astype(np.{dtype}).copy(); \
         y = (np.arange({n}) * 11 % {span}).astype(np.{dtype})"
    )
}

const WRITES: &[&str] = &[
    "x[{a}:{b}] = y[{a}:{b}]; x",
    "x[{a}:{b}] = y[{c}:{c} + {b} - {a}]; x",
    "x[{a}:{b}] = 7; x",
    "x[{a}:{b}] = 100; x",
    "x[{a}] = 5; x",
    "x[{a}:{b}] = y[{a}:{b}] * 3 + 1; x",
    "x[{a}:{b}] = np.array(9, dtype=x.dtype); x",
    "x[{a}:{b}] = np.array([4], dtype=x.dtype); x",
    "x[{a}:{b}] = x[{a}:{b}] + 1; x",
    "x[{a}:{b}] = x[{c}:{c} + {b} - {a}]; x",
    "x[{a}:{b}] = y[{a}:{b}][::-1]; x",
    "x[{a}:{b}:2] = 6; x",
    "x[{a}:{b}] += y[{a}:{b}]; x",
    "v = x[{a}:]; v[:{b} - {a}] = 2; x",
    "m = x[:96].reshape(8, 12); m[1:7, {a} % 12:{a} % 12 + 5] = 1; x",
    "m = x[:96].reshape(8, 12); m[:, {a} % 6:{a} % 6 + 6] = y[:48].reshape(8, 6); x",
    "m = x[:96].reshape(8, 12); m[2:6, 3:10] = y[:96].reshape(8, 12)[1:5, {a} % 5:{a} % 5 + 7]; x",
    "m = x[:96].reshape(4, 2, 12); m[1:3, :, 1:11] = 3; x",
    "m = x[:100].reshape(10, 10); m[3] = 8; m[4, 1:9] = y[:8]; x",
];

fn programs(n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for dtype in DTYPES {
        for t in WRITES {
            for (a, b, c) in [
                (0, n, 0),
                (1, n - 2, 3),
                (2, 7, 5),
                (4, 100, 1),
                (3, 4, 6),
                (5, 6, 0),
                (7, n, 2),
            ] {
                out.push(format!(
                    "{}; {}",
                    setup(dtype, n),
                    t.replace("{a}", &a.to_string())
                        .replace("{b}", &b.to_string())
                        .replace("{c}", &c.to_string())
                ));
            }
        }
    }
    out
}

#[test]
fn contiguous_packed_writes_match_numpy() {
    let mut p = programs(1003);
    p.extend(programs(1004));
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("packed_rows", &cases);
}

/// The same programs through the path before (`KUPFER_PACKED_SET=old`, read once per
/// process): this test binary again, in a child process.
#[test]
fn the_old_packed_write_path_still_matches_numpy() {
    if std::env::var_os("KUPFER_PACKED_SET").is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "contiguous_packed_writes_match_numpy",
            "--test-threads=1",
        ])
        .env("KUPFER_PACKED_SET", "old")
        .output()
        .expect("rerun the test binary");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
