//! The elementwise epilogue of a matmul kernel: an expression applied to each product before
//! it is stored, so that `(A @ B) * 2 + C` runs as one kernel.
//!
//! The epilogue is an elementwise [`Program`] whose input 0 is the product (its dtype is the
//! matmul's result dtype) and whose inputs 1.. are arrays read at the output coordinates
//! `(z, row, col)` through an element offset and three strides (the batch index `z` is the
//! linear index over the batch axes, so an input's batch axes must collapse to one stride).
//! Scalars travel in the matmul's uniform block after its own fields, as do the inputs'
//! offsets and strides. Inputs 1.. bind at 4, 5, ... after the matmul's A, B and C.

use crate::codegen::{cast_expr, node_expr, scalar_uniform_type, uniform_scalar, Needs};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::expr::{Node, Program};
use std::fmt::Write;

/// Binding of the epilogue's first array input (the matmul kernels use 0 to 3).
pub const FIRST_BINDING: u32 = 4;

/// True when a scalar of `dtype` fits the epilogue's uniform fields (4-byte values).
pub fn scalar_fits(dtype: DType) -> bool {
    !matches!(
        dtype,
        DType::F64 | DType::I64 | DType::U64 | DType::Complex64 | DType::Complex128
    )
}

/// Byte offsets, after the matmul's own uniform block, of the epilogue's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpilogueLayout {
    /// Per array input (1..): offset of its `(offset, z stride, row stride, col stride)`.
    pub inputs: Vec<usize>,
    /// Per scalar: offset of its value.
    pub scalars: Vec<usize>,
    /// Bytes the fields take (a multiple of 16).
    pub size: usize,
}

/// The uniform fields (WGSL struct members) of `epi` and their layout.
pub fn fields(epi: &Program) -> (String, EpilogueLayout) {
    let mut s = String::new();
    let mut at = 0usize;
    let mut layout = EpilogueLayout {
        inputs: Vec::new(),
        scalars: Vec::new(),
        size: 0,
    };
    for k in 1..epi.inputs.len() {
        let _ = writeln!(
            s,
            "    eo{k}: u32,\n    ez{k}: i32,\n    er{k}: i32,\n    ec{k}: i32,"
        );
        layout.inputs.push(at);
        at += 16;
    }
    for (k, &d) in epi.scalars.iter().enumerate() {
        let _ = writeln!(s, "    es{k}: {},", scalar_uniform_type(d));
        layout.scalars.push(at);
        at += 4;
    }
    layout.size = at.div_ceil(16) * 16;
    (s, layout)
}

/// Checks that `epi` can be an epilogue of a matmul with result dtype `product`.
pub fn check(epi: &Program, product: DType) -> Result<()> {
    if epi.inputs.first().map(|i| i.dtype) != Some(product) {
        return Err(Error::invalid(
            "an epilogue's input 0 must be the product (of the matmul's result dtype)",
        ));
    }
    if epi.rank != 0 || epi.vector {
        return Err(Error::invalid("an epilogue is a scalar, rank-0 program"));
    }
    if let Some(d) = epi.scalars.iter().find(|d| !scalar_fits(**d)) {
        return Err(Error::invalid(format!(
            "an epilogue cannot take a {d} scalar (8-byte uniform)"
        )));
    }
    Ok(())
}

/// WGSL storage type of the epilogue's output (the C binding's element type).
pub fn out_storage(epi: &Program) -> &'static str {
    epi.out_dtype().wgsl_storage()
}

/// The module-scope WGSL of `epi`: the bindings of its array inputs, the helpers its nodes
/// need and `fn kp_epilogue(v: ACC, z: u32, row: u32, col: u32) -> C`, which turns the
/// accumulator `v` of output element `(z, row, col)` into the stored value.
pub fn module(epi: &Program, product: DType, acc: DType) -> Result<String> {
    check(epi, product)?;
    let mut s = String::new();
    for (k, input) in epi.inputs.iter().enumerate().skip(1) {
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, read> E{k}: array<{}>;",
            FIRST_BINDING as usize + k - 1,
            input.dtype.wgsl_storage()
        );
    }
    let mut needs = Needs::default();
    let mut body = String::new();
    let _ = writeln!(body, "    let g0 = (z * P.m + row) * P.n + col;");
    for (id, (node, dtype)) in epi.nodes.iter().enumerate() {
        let expr = match node {
            Node::Load(0) => cast_expr("v", acc, product),
            Node::Load(k) => {
                let at = format!(
                    "E{k}[u32(i32(P.eo{k}) + i32(z) * P.ez{k} + i32(row) * P.er{k} + \
                     i32(col) * P.ec{k})]"
                );
                if epi.inputs[*k].dtype == DType::Bool {
                    format!("({at} != 0u)")
                } else {
                    at
                }
            }
            Node::Scalar(k) => uniform_scalar(&format!("P.es{k}"), epi.scalars[*k]),
            other => node_expr(epi, other, *dtype, 0, &mut needs)?,
        };
        let _ = writeln!(body, "    let n{id}_0: {} = {expr};", dtype.wgsl_value());
    }
    let out = epi.output;
    let ret = if epi.out_dtype() == DType::Bool {
        format!("select(0u, 1u, n{out}_0)")
    } else {
        format!("n{out}_0")
    };
    s.push_str(&needs.render()?);
    let _ = write!(
        s,
        "fn kp_epilogue(v: {}, z: u32, row: u32, col: u32) -> {} {{\n{body}    return {ret};\n}}\n",
        acc.wgsl_value(),
        out_storage(epi)
    );
    Ok(s)
}
