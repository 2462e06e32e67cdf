//! Test and benchmark suite of the kupfer workspace (not published).
