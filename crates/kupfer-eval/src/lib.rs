//! kupfer-eval
