//! The one error type of kupfer (re-exported as `kupfer::Error`).

use thiserror::Error;

/// Everything that can go wrong in kupfer, from a bad axis to a lost device.
///
/// Every message is one line and names the problem, so command-line tools can print it as is.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum Error {
    /// Operand shapes that cannot be broadcast or combined.
    #[error("shape mismatch in {op}: {lhs:?} and {rhs:?} cannot be broadcast together")]
    ShapeMismatch {
        /// The operation that failed.
        op: String,
        /// Shape of the first operand.
        lhs: Vec<usize>,
        /// Shape of the second operand.
        rhs: Vec<usize>,
    },
    /// A dtype or operation this adapter (or kupfer) cannot run.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An argument outside its domain: axis out of range, bad reshape, negative size, ...
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An allocation that cannot be satisfied even after freeing cached blocks.
    #[error("out of memory: {0}")]
    OutOfMemory(String),
    /// No GPU adapter, or a device request that failed.
    #[error("no GPU adapter: {0}")]
    NoAdapter(String),
    /// The device was lost (driver reset, removal) or the runtime hit an internal GPU error.
    #[error("device error: {0}")]
    Device(String),
    /// WGSL that failed to compile, with the line and column in the user's own text.
    #[error("WGSL compile error at line {line}, column {column}: {message}")]
    Compile {
        /// naga's message.
        message: String,
        /// 1-based line in the user's source.
        line: usize,
        /// 1-based column in the user's source.
        column: usize,
    },
    /// File or format problems (.npy reading and writing).
    #[error("{0}")]
    Io(String),
    /// NumPy's `LinAlgError`: a factorization that failed on the data (singular, not
    /// positive definite, no convergence) or a shape linear algebra refuses.
    #[error("LinAlgError: {0}")]
    LinAlg(LinAlgError),
}

/// The kinds of NumPy's `numpy.linalg.LinAlgError`, each displayed with NumPy's message.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum LinAlgError {
    /// An exactly zero pivot in LU with partial pivoting (`solve`, `inv`).
    #[error("Singular matrix")]
    Singular,
    /// An exactly zero diagonal element of a triangular system (SciPy's `solve_triangular`;
    /// the 0-based index within the matrix).
    #[error("singular matrix: resolution failed at diagonal {0}")]
    SingularAt(usize),
    /// A non-positive (or NaN) diagonal in Cholesky.
    #[error("Matrix is not positive definite")]
    NotPositiveDefinite,
    /// A non-square matrix where a square one is needed.
    #[error("Last 2 dimensions of the array must be square")]
    NotSquare,
    /// An operand of fewer than two dimensions (the count given).
    #[error("{0}-dimensional array given. Array must be at least two-dimensional")]
    TooFewDimensions(usize),
    /// An operand that must be exactly two-dimensional (`lstsq`; the count given).
    #[error("{0}-dimensional array given. Array must be two-dimensional")]
    NotTwoDimensional(usize),
    /// Operands whose shapes do not fit together (`lstsq`'s rows).
    #[error("Incompatible dimensions")]
    IncompatibleDimensions,
    /// A tensor whose halves have different sizes (`tensorsolve`).
    #[error("Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")]
    TensorShape,
    /// An infinite or NaN element where a factorization needs finite ones (`eig`).
    #[error("Array must not contain infs or NaNs")]
    NotFinite,
    /// An iterative method that did not converge (the operation named).
    #[error("{0} did not converge")]
    NotConverged(String),
}

impl From<LinAlgError> for Error {
    fn from(e: LinAlgError) -> Self {
        Error::LinAlg(e)
    }
}

/// `Result` with kupfer's [`Error`](enum@Error).
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidArgument(msg.into())
    }

    /// Shorthand for [`Error::Unsupported`].
    pub fn unsupported(msg: impl Into<String>) -> Self {
        Error::Unsupported(msg.into())
    }
}
