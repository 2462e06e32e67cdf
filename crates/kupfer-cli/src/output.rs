//! Writing to stdout without panicking when the reader goes away (`kupfer bench | head`).

use std::io::Write;

/// Writes one line to stdout. A closed pipe ends the process quietly (status 0, as the
/// reader asked for no more); any other write error is a one-line error with status 2.
pub fn line(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let r = out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if let Err(e) = r {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        crate::error::CliError::usage(format!("cannot write to stdout: {e}")).report_and_exit();
    }
}

/// `println!` that never panics: see [`line`](fn@line).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}
