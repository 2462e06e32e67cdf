//! The CLI's error: a one-line message and an exit status.

/// Exit status of every user error (bad arguments, bad files, no adapter, ...).
pub const EXIT_USAGE: i32 = 2;
/// Exit status when the demo's correctness check fails.
pub const EXIT_CHECK_FAILED: i32 = 1;
/// Exit status of an internal error (a panic: a bug in kupfer).
pub const EXIT_INTERNAL: i32 = 101;

/// An error that ends the command: printed as `kupfer: error: MESSAGE` on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// The message; its first line is the error, further lines (a caret under a syntax
    /// error) are context.
    pub message: String,
    /// The process exit status.
    pub code: i32,
}

/// `Result` with [`CliError`].
pub type CliResult<T = ()> = Result<T, CliError>;

impl CliError {
    /// A user error (exit status 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: EXIT_USAGE,
        }
    }

    /// The first line of a clap parse error, without clap's own `error: ` prefix.
    pub fn from_clap(e: &clap::Error) -> CliError {
        let text = e.to_string();
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("invalid arguments");
        let first = first.strip_prefix("error: ").unwrap_or(first);
        CliError::usage(format!("{first} (see `kupfer --help`)"))
    }

    /// Prints the message on stderr.
    pub fn report(&self) {
        eprintln!("kupfer: error: {}", self.message);
    }

    /// Prints the message and exits with its status.
    pub fn report_and_exit(&self) -> ! {
        self.report();
        std::process::exit(self.code)
    }
}

impl From<kupfer::Error> for CliError {
    fn from(e: kupfer::Error) -> Self {
        // One line: multi-line driver or compiler messages are joined.
        let text = e.to_string();
        let parts: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        CliError::usage(parts.join("; "))
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
