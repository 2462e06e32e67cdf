//! `cargo xtask test`: sets up what the suite needs (setup.rs), then runs it in one build.
//!
//! ```text
//! cargo xtask test [--no-browser] [--no-gl] [--no-lint] [--setup-only] [-- ARGS...]
//! ```
//!
//! In order: `cargo fmt --check`; one build of every target of the workspace (tests, examples,
//! benches) with clippy's lints (`-D warnings`) applied while compiling, through
//! `RUSTC_WORKSPACE_WRAPPER=clippy-driver`, so lints and tests share a single build instead of
//! a `cargo clippy` check build beside the test build; the browser page for wasm32 (linted the
//! same way); `cargo test --workspace` on the default adapter (Vulkan: lavapipe on a machine
//! without a GPU); beside it, in a second thread, the GL backend's subset
//! (`KUPFER_BACKEND=gl`: elementwise goldens, reductions, FFT, matmul; see `GL_TESTS`), the
//! backend a user without a Vulkan driver gets.
//!
//! `--no-browser` leaves out the wasm32 page and the browser test, `--no-gl` the GL subset,
//! `--no-lint` fmt and clippy. Arguments after `--` go to every `cargo test` run (a test name
//! filter, `--test NAME`, ...).

use std::path::Path;
use std::process::Command;

use crate::setup::{self, cargo, Wants};
use crate::{run, target_dir, Res};

/// A test binary of the GL subset, the tests of it that run there (all when none are named)
/// and the environment they run with.
type GlTest = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// The GL backend's subset: test binaries of the root package and the tests of each that
/// run there (all when none are named). Left out: the large-size and every-tile-config tests,
/// which add time on a second software adapter but no coverage of the backend.
const GL_TESTS: &[GlTest] = &[
    ("goldens", &[], &[]),
    ("reductions", &[], &[]),
    (
        "fft",
        &[
            "one_d_sizes_and_norms",
            "axes_views_and_nd",
            "double_precision",
            "bad_inputs_are_errors",
            "real_input_spectra",
        ],
        &[],
    ),
    (
        "matmul",
        &[
            "dtypes_and_mixed_dtypes",
            "shapes_views_and_batches",
            "error_messages_name_both_shapes",
        ],
        &[],
    ),
];

pub fn test(args: &[String]) -> Res<()> {
    let (ours, passthrough) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut wants = Wants {
        browser: true,
        gl: true,
        lint: true,
    };
    let mut setup_only = false;
    for a in ours {
        match a.as_str() {
            "--no-browser" => wants.browser = false,
            "--no-gl" => wants.gl = false,
            "--no-lint" => wants.lint = false,
            "--setup-only" => setup_only = true,
            other => {
                return Err(format!(
                    "unknown option {other} (cargo xtask test [--no-browser] [--no-gl] \
                     [--no-lint] [--setup-only] [-- ARGS])"
                ))
            }
        }
    }
    let started = std::time::Instant::now();
    let target = target_dir();
    let venv_bin = setup::ensure(&target, wants)?;
    if setup_only {
        eprintln!("xtask: everything the tests need is installed");
        return Ok(());
    }
    prepend_path(&venv_bin);
    // Line tables are enough for a test's backtrace; full debug info makes each of the ~40
    // test binaries ~170 MB, and linking them a good part of the build.
    if std::env::var_os("CARGO_PROFILE_DEV_DEBUG").is_none() {
        std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "line-tables-only");
    }
    // lavapipe's WSI layer complains without it; harmless, but it clutters the log.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    let step = |name: &str| {
        eprintln!(
            "== {name} ({:.0} s so far)",
            started.elapsed().as_secs_f64()
        )
    };

    if wants.lint {
        step("fmt");
        run(Command::new(cargo()).args(["fmt", "--all", "--", "--check"]))?;
        lint_while_compiling()?;
    }
    step("build: every target of the workspace (linted by clippy while compiling)");
    run(Command::new(cargo()).args(["test", "--workspace", "--all-targets", "--no-run"]))?;
    if wants.browser {
        step("the browser page (the library built for wasm32)");
        crate::web(&[])?;
    }
    // The GL subset is bound by one thread (wgpu's GL backend serialises on one context)
    // and the default adapter's tests leave part of the machine idle, so the two run side by
    // side; the GL subset's output is printed when both are done.
    let gl = wants.gl.then(|| {
        step("the GL backend's subset (KUPFER_BACKEND=gl), beside the default adapter's tests");
        std::thread::spawn(gl_subset)
    });
    step("tests on the default adapter");
    let mut tests = Command::new(cargo());
    // Every test binary runs even after one fails, so one run shows every failure.
    tests.args(["test", "--workspace", "--no-fail-fast"]);
    if !wants.browser {
        tests.args(["--exclude", "kupfer-web"]);
    }
    let mut result = run(tests.args(passthrough));
    if !wants.browser && result.is_ok() {
        // The page's demo code natively, without the browser.
        result = run(Command::new(cargo())
            .args(["test", "-p", "kupfer-web", "--lib", "--test", "demos"])
            .args(passthrough));
    }
    if let Some(gl) = gl {
        let gl_result = gl
            .join()
            .unwrap_or_else(|_| Err("the GL subset's thread panicked".into()));
        step("the GL backend's subset: its output");
        result = result.and(gl_result);
    }
    result?;
    step("done");
    Ok(())
}

/// Runs the GL subset (`GL_TESTS`) one binary after another, each with one test thread,
/// writing their output to `gl-subset.log` in the target directory and printing it at the
/// end. `--workspace` keeps the features (and so the build) those of the main test run.
fn gl_subset() -> Res<()> {
    let log_path = target_dir().join("gl-subset.log");
    let log = std::fs::File::create(&log_path)
        .map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
    let mut result = Ok(());
    for (test, filters, envs) in GL_TESTS {
        let mut gl = Command::new(cargo());
        gl.args(["test", "--workspace", "--test", test, "--"])
            .args(*filters)
            // wgpu's GL backend serialises every call through one EGL context lock and
            // panics when a thread waits more than 6 s for it ("Could not lock adapter
            // context"): one test thread, so no test waits on another's long kernel.
            .arg("--test-threads=1")
            .env("KUPFER_BACKEND", "gl")
            .envs(envs.iter().copied());
        let out = log.try_clone().map_err(|e| e.to_string())?;
        let err = log.try_clone().map_err(|e| e.to_string())?;
        gl.stdout(out).stderr(err);
        if let Err(e) = run(&mut gl) {
            result = Err(e);
        }
    }
    let text = std::fs::read_to_string(&log_path).unwrap_or_default();
    eprintln!("{text}");
    result
}

/// Every later cargo build of the workspace's own crates goes through clippy-driver with
/// `-D warnings`: what `cargo clippy` does, but producing the real build.
fn lint_while_compiling() -> Res<()> {
    let out = Command::new("rustup")
        .args(["which", "clippy-driver"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let driver = match out {
        Some(o) => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        None => "clippy-driver".to_string(),
    };
    std::env::set_var("RUSTC_WORKSPACE_WRAPPER", driver);
    std::env::set_var(
        "CLIPPY_ARGS",
        "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__",
    );
    Ok(())
}

fn prepend_path(dir: &Path) {
    let mut paths = vec![dir.to_path_buf()];
    if let Some(p) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&p));
    }
    if let Ok(joined) = std::env::join_paths(paths) {
        std::env::set_var("PATH", joined);
    }
}
