//! Test support: validates generated WGSL with naga under the capabilities kupfer's kernels
//! may use (f16, f64, i64; subgroups and cooperative matrices on request), panicking with
//! naga's report and the source on failure.

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
