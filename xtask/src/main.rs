//! Project tasks: `cargo xtask test` sets up what the test suite needs and runs it (test.rs,
//! setup.rs), `cargo xtask web` builds the browser demo page, `cargo xtask serve` serves it on
//! 127.0.0.1 for a person to open.
//!
//! ```text
//! cargo xtask test [--no-browser] [--no-gl] [--no-lint] [--setup-only] [-- ARGS]
//!                                          install what is missing, lint, build once, test
//! cargo xtask web [--out DIR] [--dev]     build the page into DIR (default target/web)
//! cargo xtask serve [--port N] [--dir DIR] build if needed, then serve on 127.0.0.1:N (8000)
//! ```
//!
//! `web` compiles crates/kupfer-web for wasm32-unknown-unknown, runs wasm-bindgen (`--target
//! web`) and copies the page (crates/kupfer-web/www). The wasm-bindgen CLI must match the
//! wasm-bindgen crate in Cargo.lock exactly: a missing one is installed once with
//! `cargo install wasm-bindgen-cli --version <lock's> --locked` (only the `wasm-bindgen`
//! binary, no TLS features) into `~/.cache/kupfer/tools/wasm-bindgen-<version>` (outside the
//! checkout, so a fresh clone on the same machine reuses it; `$XDG_CACHE_HOME` is honoured). The output is plain static files: any static file
//! server can serve them.

#[path = "../../crates/kupfer-web/src/serve.rs"]
#[allow(dead_code)] // spawn() is for the browser test
mod serve;
mod setup;
mod test;

use std::path::{Path, PathBuf};
use std::process::{exit, Command};

type Res<T> = Result<T, String>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::test(&args[1..]),
        Some("web") => web(&args[1..]).map(|_| ()),
        Some("serve") => serve_cmd(&args[1..]),
        _ => Err(
            "usage: cargo xtask test [--no-browser] [--no-gl] [--no-lint] [--setup-only] \
                  [-- ARGS] | cargo xtask web [--out DIR] [--dev] | cargo xtask serve \
                  [--port N] [--dir DIR]"
                .into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("xtask: {e}");
        exit(2);
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => PathBuf::from(d),
        None => root().join("target"),
    }
}

fn flag(args: &[String], name: &str) -> Res<Option<String>> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .cloned()
            .map(Some)
            .ok_or_else(|| format!("{name} needs a value")),
    }
}

fn run(cmd: &mut Command) -> Res<()> {
    let status = cmd
        .status()
        .map_err(|e| format!("could not run {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed ({status})"))
    }
}

/// The wasm-bindgen version Cargo.lock pins.
fn locked_wasm_bindgen() -> Res<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines
                .next()
                .and_then(|v| v.trim().strip_prefix("version = "))
            {
                return Ok(v.trim_matches('"').to_string());
            }
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

/// Where tools built for the project live across checkouts: `$XDG_CACHE_HOME/kupfer/tools`
/// (`~/.cache/kupfer/tools`), or the target dir when there is no home.
fn tools_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    match cache {
        Some(c) => c.join("kupfer").join("tools"),
        None => target_dir().join("tools"),
    }
}

/// The wasm-bindgen CLI of `version`, installed into the tools dir if missing.
fn wasm_bindgen_cli(version: &str) -> Res<PathBuf> {
    let root = tools_dir().join(format!("wasm-bindgen-{version}"));
    let bin = root.join("bin").join("wasm-bindgen");
    if bin.is_file() {
        return Ok(bin);
    }
    eprintln!(
        "xtask: installing wasm-bindgen-cli {version} (cargo install) into {} (once)",
        root.display()
    );
    let install = |locked: bool| {
        let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        // Only the `wasm-bindgen` binary, without TLS (it downloads nothing): much less to
        // compile than the whole CLI.
        c.args(["install", "wasm-bindgen-cli", "--version", version])
            .args(["--no-default-features", "--bin", "wasm-bindgen", "--root"])
            .arg(&root)
            // its own build dir: the workspace's would rebuild shared dependencies
            .env("CARGO_TARGET_DIR", target_dir().join("tools").join("build"))
            // `cargo xtask test` lints the workspace through clippy-driver; a tool installed
            // from crates.io is not ours to lint.
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS");
        if locked {
            c.arg("--locked");
        }
        run(&mut c)
    };
    if let Err(e) = install(true) {
        // A registry mirror may lack a version the CLI's own lock file names.
        eprintln!("xtask: {e}; retrying without --locked");
        install(false)?;
    }
    Ok(bin)
}

/// Builds the page; returns the output folder.
fn web(args: &[String]) -> Res<PathBuf> {
    let out = flag(args, "--out")?
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("web"));
    let dev = args.iter().any(|a| a == "--dev");
    let version = locked_wasm_bindgen()?;
    let bindgen = wasm_bindgen_cli(&version)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(&cargo);
    build.current_dir(root()).args([
        "build",
        "-p",
        "kupfer-web",
        "--lib",
        "--target",
        "wasm32-unknown-unknown",
    ]);
    if !dev {
        build.arg("--release");
    }
    if std::env::var_os("RUSTC_WORKSPACE_WRAPPER").is_some() {
        // Under `cargo xtask test`'s clippy-driver: lint the page's own crate for wasm32, as
        // `cargo clippy -p kupfer-web --no-deps` does (the library crates are linted natively).
        build.env(
            "CLIPPY_ARGS",
            "--no-deps__CLIPPY_HACKERY__-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__",
        );
    }
    run(&mut build)?;
    let wasm = target_dir()
        .join("wasm32-unknown-unknown")
        .join(if dev { "debug" } else { "release" })
        .join("kupfer_web.wasm");
    std::fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    run(Command::new(&bindgen)
        .args([
            "--target",
            "web",
            "--no-typescript",
            "--out-name",
            "kupfer_web",
        ])
        .arg("--out-dir")
        .arg(&out)
        .arg(&wasm))?;
    let www = root().join("crates/kupfer-web/www");
    let entries = std::fs::read_dir(&www).map_err(|e| format!("reading {}: {e}", www.display()))?;
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_file() {
            std::fs::copy(&p, out.join(entry.file_name()))
                .map_err(|e| format!("copying {}: {e}", p.display()))?;
        }
    }
    let wasm_out = out.join("kupfer_web_bg.wasm");
    let size = std::fs::metadata(&wasm_out).map(|m| m.len()).unwrap_or(0);
    let gz = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(&wasm_out)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout.len());
    let gz = gz.map_or("gzip not found".to_string(), |g| {
        format!("{:.2} MB gzipped", g as f64 / 1e6)
    });
    eprintln!(
        "xtask: the page is in {} (kupfer_web_bg.wasm: {:.2} MB, {gz}); serve it with \
         `cargo xtask serve` or any static file server",
        out.display(),
        size as f64 / 1e6
    );
    Ok(out)
}

fn serve_cmd(args: &[String]) -> Res<()> {
    let port: u16 = flag(args, "--port")?
        .map(|p| p.parse().map_err(|_| format!("'{p}' is not a port")))
        .transpose()?
        .unwrap_or(8000);
    let dir = match flag(args, "--dir")? {
        Some(d) => PathBuf::from(d),
        None => {
            let d = target_dir().join("web");
            if !d.join("index.html").is_file() {
                web(&[])?;
            }
            d
        }
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("binding 127.0.0.1:{port}: {e}"))?;
    eprintln!(
        "xtask: serving {} on http://127.0.0.1:{port}/ (Ctrl-C stops)",
        dir.display()
    );
    serve::serve(listener, dir);
    Ok(())
}
