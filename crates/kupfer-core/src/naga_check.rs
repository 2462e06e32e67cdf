//! Test support: validates generated WGSL with naga under the capabilities kupfer's kernels
//! may use (f16, f64, i64; subgroups and cooperative matrices on request), panicking with
//! naga's report and the source on failure; shared pieces of the tests that generate every
//! variant of a kernel family (the list of random ops, a random draw's program, a pairwise
//! cover for parameter spaces too large to enumerate); and the check that every
//! `shaders/*.wgsl` template is loaded by a module with naga tests.

use crate::dtype::DType;
use crate::expr::{Access, InputSpec, Node, Program};
use crate::random::RandomOp;
use naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};

/// Validates `wgsl` with the base capabilities plus `extra`.
pub(crate) fn validate(wgsl: &str, extra: Capabilities) {
    let module = naga::front::wgsl::parse_str(wgsl)
        .unwrap_or_else(|e| panic!("{}\n---\n{wgsl}", e.emit_to_string(wgsl)));
    let caps = Capabilities::SHADER_FLOAT16
        | Capabilities::SHADER_FLOAT16_IN_FLOAT32
        | Capabilities::FLOAT64
        | Capabilities::SHADER_INT64
        | extra;
    let mut validator = Validator::new(ValidationFlags::all(), caps);
    if caps.contains(Capabilities::SUBGROUP) {
        validator.subgroup_stages(ShaderStages::COMPUTE);
        validator.subgroup_operations(SubgroupOperationSet::all());
    }
    validator
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}\n---\n{wgsl}", e.emit_to_string(wgsl)));
}

/// Every [`RandomOp`](crate::random::RandomOp), for the tests that generate each one. The
/// `match` stops compiling when a variant is added: add it to the list as well.
pub(crate) fn random_ops() -> Vec<RandomOp> {
    use RandomOp::*;
    let mut all = vec![
        Bits,
        Uniform,
        OpenUniform,
        Normal,
        Exponential,
        NormalAffine,
        LogNormal,
        Bounded,
        Gamma,
        Poisson,
        Permute,
        PermuteRows,
        Binomial,
        VonMises,
        Zipf,
        Hypergeometric,
    ];
    all.extend(crate::random::transforms::Transform::ALL.map(Det));
    for op in &all {
        match op {
            Bits | Uniform | OpenUniform | Normal | Exponential | NormalAffine | LogNormal
            | Bounded | Gamma | Poisson | Permute | PermuteRows | Binomial | VonMises | Zipf
            | Hypergeometric | Det(_) => {}
        }
    }
    all
}

/// An elementwise program whose output is a draw of `op` producing `d`, built as the random
/// module builds one: four uniform u32 stream words (key, draw number), then the op's
/// parameters, here arrays of `access` (u32 for the integer ops; for the others the draw's
/// float dtype, as the random module passes them).
pub(crate) fn random_program(op: RandomOp, d: DType, access: Access) -> Program {
    let param = match op {
        RandomOp::Bounded | RandomOp::Permute | RandomOp::PermuteRows => DType::U32,
        _ if d == DType::F64 => DType::F64,
        _ => DType::F32,
    };
    let mut nodes: Vec<(Node, DType)> = (0..4).map(|k| (Node::Scalar(k), DType::U32)).collect();
    let mut inputs = vec![];
    for j in 0..op.params() {
        nodes.push((Node::Load(j), param));
        inputs.push(InputSpec {
            dtype: param,
            access,
            packed: false,
        });
    }
    nodes.push((Node::Random(op, (0..4 + op.params()).collect()), d));
    Program {
        output: nodes.len() - 1,
        nodes,
        inputs,
        scalars: vec![DType::U32; 4],
        rank: if access == Access::Strided { 2 } else { 0 },
        vector: false,
    }
}

/// A few rows of `candidates` (each a choice of value per parameter) that together hold
/// every pair of values of two parameters that some candidate holds: for generators whose
/// full product is too large to validate, every value of every parameter and every pair of
/// them is still generated. Greedy: each step takes the candidate covering most pairs still
/// missing.
pub(crate) fn pairwise_cover(candidates: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let dims = candidates.first().map_or(0, Vec::len);
    let values = 1 + candidates.iter().flatten().copied().max().unwrap_or(0);
    // Pairs as indices into one table: (parameter i, value a, parameter j > i, value b).
    let pairs: Vec<Vec<usize>> = candidates
        .iter()
        .map(|row| {
            let mut out = vec![];
            for i in 0..dims {
                for j in i + 1..dims {
                    out.push(((i * values + row[i]) * dims + j) * values + row[j]);
                }
            }
            out
        })
        .collect();
    let mut missing = vec![false; dims * values * dims * values];
    for p in pairs.iter().flatten() {
        missing[*p] = true;
    }
    let mut rows = vec![];
    loop {
        let (best, gain) = pairs
            .iter()
            .enumerate()
            .map(|(k, ps)| (k, ps.iter().filter(|&&p| missing[p]).count()))
            .max_by_key(|&(k, gain)| (gain, std::cmp::Reverse(k)))
            .unwrap_or((0, 0));
        if gain == 0 {
            return rows;
        }
        for &p in &pairs[best] {
            missing[p] = false;
        }
        rows.push(candidates[best].clone());
    }
}

#[cfg(test)]
mod tests {
    use super::pairwise_cover;
    use std::path::Path;

    #[test]
    fn the_pairwise_cover_holds_every_possible_pair_and_only_candidates() {
        // Four parameters of three values, without the rows pairing value 2 of the first two.
        let candidates: Vec<Vec<usize>> = (0..81usize)
            .map(|k| (0..4).map(|i| k / 3usize.pow(i) % 3).collect::<Vec<_>>())
            .filter(|r| !(r[0] == 2 && r[1] == 2))
            .collect();
        let rows = pairwise_cover(&candidates);
        assert!(rows.len() < 20, "{} rows", rows.len());
        assert!(rows.iter().all(|r| candidates.contains(r)));
        for i in 0..4 {
            for j in i + 1..4 {
                for a in 0..3 {
                    for b in 0..3 {
                        let pair = |r: &Vec<usize>| r[i] == a && r[j] == b;
                        assert_eq!(
                            candidates.iter().any(pair),
                            rows.iter().any(pair),
                            "{i}={a} {j}={b}"
                        );
                    }
                }
            }
        }
    }

    /// Every `shaders/*.wgsl` template is loaded (`include_str!`) by a kupfer-core module whose
    /// tests validate what it generates with naga, so a new template cannot go untested.
    #[test]
    fn every_shader_template_is_loaded_by_a_naga_tested_module() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut modules = vec![];
        let mut dirs = vec![root.join("src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    modules.push((path, text));
                }
            }
        }
        let mut templates = 0;
        for entry in std::fs::read_dir(root.join("../../shaders")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "wgsl") {
                continue;
            }
            let name = path.file_name().unwrap().to_str().unwrap();
            let include = format!("include_str!(\"../../../shaders/{name}\")");
            let loaders: Vec<_> = modules
                .iter()
                .filter(|(_, text)| text.contains(&include))
                .collect();
            assert!(
                !loaders.is_empty(),
                "shaders/{name} is loaded by no kupfer-core module"
            );
            for (module, text) in loaders {
                assert!(
                    text.contains("naga_check::validate"),
                    "{} loads shaders/{name} but has no naga test",
                    module.display()
                );
            }
            templates += 1;
        }
        assert!(templates >= 35, "{templates} templates");
    }
}
