//! Array manipulation: joining (`concatenate`, `stack`, `block`, ...), splitting (views),
//! reordering (`flip`, `rot90`, `moveaxis`: views; `roll`), padding (`pad`), repetition
//! (`tile`, `repeat`, `resize`), triangles (`tril`, `triu`, `tri`, `diagflat`) and editing
//! (`insert`, `delete`, `trim_zeros`).
//!
//! Two kernels do the data movement (templates in `shaders/`, generated per storage unit by
//! kupfer-core's `manip`): a join that writes each output element of a concatenation once
//! from the input holding it, and a gather whose source index is a separate map of each
//! output coordinate (shift with a constant outside, edge, reflect, symmetric, wrap, divide,
//! table). Triangles are one elementwise kernel over the output index, fused with a lazy
//! input. Synchronisations: `repeat` with per-element counts and `trim_zeros` read back
//! their counts or bounds once (`_async` forms for wasm32).

mod edit;
mod joining;
pub(crate) mod launch;
mod reorder;
mod splitting;
mod tiling;
mod triangles;

#[cfg(not(target_arch = "wasm32"))]
pub use edit::trim_zeros;
pub use edit::{delete, insert, trim_zeros_async, InsertAt};
pub use joining::{append, block, column_stack, concatenate, dstack, hstack, stack, vstack, Block};
pub use reorder::{
    atleast_1d, atleast_2d, atleast_3d, flip, fliplr, flipud, moveaxis, roll, rollaxis, rot90,
};
pub use splitting::{array_split, dsplit, hsplit, split, unstack, vsplit, Sections};
pub use tiling::{repeat, repeat_async, resize, tile, Repeats};
pub use triangles::{diagflat, tri, tril, triu};
