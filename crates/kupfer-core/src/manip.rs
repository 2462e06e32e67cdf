//! WGSL of the array-manipulation kernels: joining along an axis (`shaders/concat.wgsl`) and
//! the per-axis gather behind pad, roll, tile, repeat and delete (`shaders/gather_axes.wgsl`).
//! Both copy elements as storage units (no conversion), so one kernel serves every dtype of a
//! width: the generated code varies only in that unit, the number of joined inputs and
//! whether a gather reads an index table.

use crate::dtype::DType;
use crate::template::Template;

const CONCAT: &str = include_str!("../../../shaders/concat.wgsl");
const GATHER: &str = include_str!("../../../shaders/gather_axes.wgsl");

/// Most inputs one joining dispatch binds (WebGPU's default limit is 8 storage buffers per
/// stage, one of which is the output).
pub const MAX_JOINED: usize = 7;

/// Most axes of a gather (the uniform block holds 8 per map).
pub const MAX_GATHER_RANK: usize = 8;

/// How an element is stored and copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// 2 bytes (float16; needs SHADER_F16).
    Half,
    /// 4 bytes.
    Word,
    /// 8 bytes.
    Pair,
    /// 16 bytes.
    Quad,
}

impl Unit {
    /// The unit of a dtype's storage.
    pub fn of(dtype: DType) -> Unit {
        match dtype.gpu_size() {
            2 => Unit::Half,
            8 => Unit::Pair,
            16 => Unit::Quad,
            _ => Unit::Word,
        }
    }

    /// Bytes per unit.
    pub fn bytes(self) -> usize {
        match self {
            Unit::Half => 2,
            Unit::Word => 4,
            Unit::Pair => 8,
            Unit::Quad => 16,
        }
    }

    fn wgsl(self) -> &'static str {
        match self {
            Unit::Half => "f16",
            Unit::Word => "u32",
            Unit::Pair => "vec2<u32>",
            Unit::Quad => "vec4<u32>",
        }
    }

    fn enable(self) -> &'static str {
        match self {
            Unit::Half => "enable f16;",
            _ => "",
        }
    }

    /// The fill value `which` from the uniform's `vec4<u32>`s of bits.
    fn fill(self) -> &'static str {
        match self {
            Unit::Half => "f16(unpack2x16float(p.fill[which].x).x)",
            Unit::Word => "p.fill[which].x",
            Unit::Pair => "p.fill[which].xy",
            Unit::Quad => "p.fill[which]",
        }
    }
}

/// One joining kernel: `inputs` arrays (1..=[`MAX_JOINED`]) of one storage unit; `vector`
/// writes four 4-byte units per thread (only for [`Unit::Word`], a dispatch covering whole
/// rows and a multiple of four elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JoinKernel {
    /// Storage unit of every input and the output.
    pub unit: Unit,
    /// Inputs bound by one dispatch.
    pub inputs: usize,
    /// Four elements per thread, stored as one vec4.
    pub vector: bool,
}

impl JoinKernel {
    /// Elements one thread writes.
    pub fn per_thread(&self) -> usize {
        if self.vector {
            4
        } else {
            1
        }
    }

    /// The kernel's WGSL.
    pub fn wgsl(&self) -> String {
        let unit = self.unit.wgsl();
        let k = self.inputs.clamp(1, MAX_JOINED);
        let mut bindings = String::new();
        for j in 0..k {
            bindings += &format!(
                "@group(0) @binding({}) var<storage, read> in{j}: array<{unit}>;\n",
                j + 1
            );
        }
        let dst = if self.vector { "vec4<u32>" } else { unit };
        bindings += &format!(
            "@group(0) @binding({}) var<storage, read_write> dst: array<{dst}>;",
            k + 1
        );
        let field = |name: &str, j: usize| format!("p.{name}[{}][{}]", j / 4, j % 4);
        let mut loads = String::new();
        for j in 0..k {
            let read = format!(
                "in{j}[{} + row * {} + col - {}]",
                field("off", j),
                field("rstride", j),
                field("bound", j)
            );
            if j + 1 < k {
                loads += &format!(
                    "    if (col < {}) {{\n        return {read};\n    }}\n",
                    field("bound", j + 1)
                );
            } else {
                loads += &format!("    return {read};");
            }
        }
        let body = if self.vector {
            "    var v: vec4<u32>;\n    for (var e = 0u; e < 4u; e++) {\n        \
             let j = i * 4u + e;\n        v[e] = load(j / p.width, j % p.width);\n    }\n    \
             dst[i] = v;"
                .to_string()
        } else {
            "    let row = i / p.cols;\n    let col = p.col0 + i % p.cols;\n    \
             dst[row * p.width + col] = load(row, col);"
                .to_string()
        };
        Template::new(CONCAT)
            .set("ENABLE", self.unit.enable())
            .set("INPUTS", k)
            .set("UNIT", unit)
            .set("PER", self.per_thread())
            .set("BINDINGS", &bindings)
            .set("LOADS", &loads)
            .set("BODY", &body)
            .render()
    }
}

/// One per-axis gather kernel: its storage unit, whether any axis maps through an index
/// table (bound at binding 3), and whether each thread writes four elements of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GatherKernel {
    /// Storage unit of the source and the output.
    pub unit: Unit,
    /// True when an axis uses the table map (mode 6).
    pub table: bool,
    /// Four consecutive elements of the last axis per thread (its extent a multiple of 4),
    /// stored as one vec4 for 4-byte units; one element per thread otherwise.
    pub vector: bool,
}

/// The per-axis maps of [`GatherKernel`] (the `mode` values of `shaders/gather_axes.wgsl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AxisMap {
    /// `c - before`, the fill value outside the source.
    Shift {
        /// Output positions before the source's first element.
        before: usize,
    },
    /// `clamp(c - before, 0, len - 1)`.
    Edge {
        /// Output positions before the source's first element.
        before: usize,
    },
    /// Reflection about the end elements.
    Reflect {
        /// Output positions before the source's first element.
        before: usize,
    },
    /// Reflection repeating the end elements.
    Symmetric {
        /// Output positions before the source's first element.
        before: usize,
    },
    /// `(c + add) mod len`.
    Wrap {
        /// Added to the coordinate before the modulo.
        add: usize,
    },
    /// `c / count`.
    Divide {
        /// Output positions per source position.
        count: usize,
    },
    /// `table[start + c]`.
    Table {
        /// First table entry of this axis.
        start: usize,
    },
}

impl AxisMap {
    /// (mode, arg, arg2) as the kernel reads them.
    pub fn encode(self) -> (u32, u32, u32) {
        match self {
            AxisMap::Shift { before } => (0, before as u32, 0),
            AxisMap::Edge { before } => (1, before as u32, 0),
            AxisMap::Reflect { before } => (2, before as u32, 0),
            AxisMap::Symmetric { before } => (3, before as u32, 0),
            AxisMap::Wrap { add } => (4, add as u32, 0),
            AxisMap::Divide { count } => (5, count.max(1) as u32, 0),
            AxisMap::Table { start } => (6, 0, start as u32),
        }
    }

    /// The identity map.
    pub const IDENTITY: AxisMap = AxisMap::Shift { before: 0 };
}

impl GatherKernel {
    /// The kernel's WGSL.
    pub fn wgsl(&self) -> String {
        let (decl, case) = if self.table {
            (
                "@group(0) @binding(3) var<storage, read> table: array<u32>;",
                "                s = i32(table[p.arg2[q][r] + c]);",
            )
        } else {
            ("", "")
        };
        let items = self.per_thread();
        let items_body: String = (0..items)
            .map(|j| {
                format!("    let v{j} = item(last, c_last + {j}u, address, outside, which);\n")
            })
            .collect();
        let (dst, store) = if self.vector && self.unit == Unit::Word {
            (
                "vec4<u32>",
                "    dst[t] = vec4<u32>(v0, v1, v2, v3);".to_string(),
            )
        } else {
            (
                self.unit.wgsl(),
                (0..items)
                    .map(|j| format!("    dst[i + {j}u] = v{j};"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        };
        let fill_last = self
            .unit
            .fill()
            .replace("which", "2u * last + u32(m.y - 1)");
        Template::new(GATHER)
            .set("ENABLE", self.unit.enable())
            .set("UNIT", self.unit.wgsl())
            .set("DST", dst)
            .set("ITEMS", items)
            .set("ITEMS_BODY", items_body.trim_end())
            .set("STORE", &store)
            .set("FILL_LAST", &fill_last)
            .set("FILL", self.unit.fill())
            .set("TABLE_DECL", decl)
            .set("TABLE_CASE", case)
            .render()
    }

    /// Elements one thread writes.
    pub fn per_thread(&self) -> usize {
        if self.vector {
            4
        } else {
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naga_check::validate;
    use naga::valid::Capabilities;

    const UNITS: [Unit; 4] = [Unit::Half, Unit::Word, Unit::Pair, Unit::Quad];

    /// Every unit is in [`UNITS`] (the `match` stops compiling when a variant is added), and
    /// every dtype's storage unit among them.
    #[test]
    fn units_are_complete() {
        for unit in UNITS {
            match unit {
                Unit::Half | Unit::Word | Unit::Pair | Unit::Quad => {}
            }
        }
        for d in DType::ALL {
            assert!(UNITS.contains(&Unit::of(d)), "{d}");
        }
    }

    #[test]
    fn every_join_kernel_validates() {
        for unit in UNITS {
            for inputs in 1..=MAX_JOINED {
                let k = JoinKernel {
                    unit,
                    inputs,
                    vector: false,
                };
                validate(&k.wgsl(), Capabilities::empty());
            }
        }
        for inputs in 1..=MAX_JOINED {
            let k = JoinKernel {
                unit: Unit::Word,
                inputs,
                vector: true,
            };
            validate(&k.wgsl(), Capabilities::empty());
        }
    }

    #[test]
    fn every_gather_kernel_validates() {
        for unit in UNITS {
            for table in [false, true] {
                for vector in [false, true] {
                    let k = GatherKernel {
                        unit,
                        table,
                        vector,
                    };
                    validate(&k.wgsl(), Capabilities::empty());
                }
            }
        }
    }

    #[test]
    fn units_follow_storage_sizes() {
        assert_eq!(Unit::of(DType::Bool), Unit::Word);
        assert_eq!(Unit::of(DType::F16), Unit::Half);
        assert_eq!(Unit::of(DType::I64), Unit::Pair);
        assert_eq!(Unit::of(DType::Complex64), Unit::Pair);
        assert_eq!(Unit::of(DType::Complex128), Unit::Quad);
    }
}
