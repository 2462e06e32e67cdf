//! `kupfer`: the command line of kupfer (CuPy for Rust on every GPU).
//!
//! - `kupfer info`: adapters, the default device, its features, limits and memory pool.
//! - `kupfer bench [CASE...]`: the CuPy anchor's benchmark cases, as a table or JSON lines.
//! - `kupfer demo`: the CuPy tutorial's first walkthrough, done the kupfer way.
//! - `kupfer eval EXPR [NAME=FILE.npy ...] [-o OUT.npy]`: a NumPy expression on the GPU.
//!
//! Exit status: 0 on success, 1 when the demo's correctness check fails, 2 for every error
//! (one line `kupfer: error: ...` on stderr), 101 for an internal error (a bug).

mod bench;
mod common;
mod demo;
mod error;
mod eval;
mod info;
mod output;

use clap::{Parser, Subcommand};
use error::CliError;

/// kupfer: NumPy-compatible arrays on every GPU (wgpu: Vulkan, Metal, DX12, GL).
#[derive(Debug, Parser)]
#[command(name = "kupfer", version, about, long_about = None)]
#[command(
    after_help = "Environment: KUPFER_BACKEND (vulkan, metal, dx12, gl) and \
    KUPFER_ADAPTER (an index or part of a name from `kupfer info`) choose the default device."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Adapters, the default device, its features, limits and memory pool.
    Info(info::InfoArgs),
    /// Benchmarks with the CuPy anchor's cases, parameters and metrics.
    Bench(bench::BenchArgs),
    /// The CuPy tutorial's first walkthrough, done the kupfer way.
    Demo(demo::DemoArgs),
    /// Evaluates a NumPy expression on the GPU.
    Eval(eval::EvalArgs),
}

fn main() {
    install_panic_hook();
    ignore_file_size_signal();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => exit_on_clap_error(e),
    };
    let result = match cli.command {
        Command::Info(args) => info::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Eval(args) => eval::run(&args),
    };
    if let Err(e) = result {
        e.report();
        std::process::exit(e.code);
    }
}

/// Help and version go to stdout with status 0; every other parse error becomes the one-line
/// `kupfer: error: ...` with status 2.
fn exit_on_clap_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            let code = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                2
            } else {
                0
            };
            std::process::exit(code)
        }
        _ => CliError::from_clap(&e).report_and_exit(),
    }
}

/// A panic is a bug, never the user's fault: report it on one line and exit with 101 instead
/// of printing a backtrace prompt.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let msg = msg.lines().next().unwrap_or("").to_string();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("kupfer: error: internal error: {msg}{at} (this is a bug in kupfer)");
        std::process::exit(error::EXIT_INTERNAL);
    }));
}

/// A file-size limit (`ulimit -f`) reached while writing `-o` kills a process with SIGXFSZ by
/// default; ignored, the write fails with EFBIG instead, so the output stays atomic (the
/// temporary file is removed) and the error is one line with status 2.
fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN at start-up, before any thread is
    // spawned, installs no handler code and touches no Rust state.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
