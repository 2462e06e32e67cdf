//! Partition by selection (`shaders/sort_partition.wgsl`; entry points `count`, `scan`,
//! `scatter`): the pivots of each row split it into `2 * pivots + 1` buckets of the sort's
//! order-preserving keys ([`crate::sort::KeyLoad`]), written bucket after bucket.

use crate::sort::{key_load_body, KeyLoad, KEY_HELPERS};
use crate::template::Template;

const PARTITION: &str = include_str!("../../../shaders/sort_partition.wgsl");

/// Elements each thread takes per tile of short rows (a tile is 256 times as many).
pub const PARTITION_ITEMS_SHORT: u32 = 8;

/// Elements each thread takes per tile of long rows: fewer, larger tiles keep the one
/// workgroup per row that scans the tiles' counts short (4096 tiles for 2^24 elements; the scatter stages a tile in 8 KiB of workgroup memory).
pub const PARTITION_ITEMS_LONG: u32 = 16;

/// Elements each thread of the partition kernels takes for rows of `rowlen` elements.
pub fn partition_items(rowlen: usize) -> u32 {
    if rowlen >= 1 << 18 {
        PARTITION_ITEMS_LONG
    } else {
        PARTITION_ITEMS_SHORT
    }
}

/// The most pivots (distinct `kth`) per row one partition module takes.
pub const MAX_PIVOTS: u32 = 8;

/// What the scatter writes per element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartitionOut {
    /// The element itself (`partition`).
    Values {
        /// u32 storage words per element.
        words: u32,
    },
    /// Its position in its row in the default integer dtype (`argpartition`).
    Positions {
        /// u32 words per position (1: int32, 2: int64).
        words: u32,
    },
}

/// The partition module with tiles of `256 * items` elements (`items` from
/// [`partition_items`]) for `pivots` (1 to [`MAX_PIVOTS`]) pivots per row, keys read as
/// `load` (`key_words` 1 or 2) from the data (binding 1, at element offset `P.off`) and from
/// the pivots (binding 2 at element offset `P.poff`, `pivots` elements of the data's dtype per row).
pub fn partition(
    load: KeyLoad,
    key_words: u32,
    items: u32,
    pivots: u32,
    out: PartitionOut,
) -> String {
    assert!((1..=MAX_PIVOTS).contains(&pivots), "partition pivots");
    let wide = key_words == 2;
    let ty = if wide { "vec2<u32>" } else { "u32" };
    let body = key_load_body(load, wide);
    let pivot = body
        .replace("keys_in", "pivots_in")
        .replace("P.off", "P.poff");
    let key_fns = format!(
        "fn data_key(i: u32) -> {ty} {{\n{body}\n}}\n\n\
         fn pivot_key(i: u32) -> {ty} {{\n{pivot}\n}}"
    );
    let (below, equal) = if wide {
        (
            "    return a.y < b.y || (a.y == b.y && a.x < b.x);",
            "    return all(a == b);",
        )
    } else {
        ("    return a < b;", "    return a == b;")
    };
    let write = match out {
        PartitionOut::Values { words: 1 } => {
            "            out[at] = keys_in[P.off + src];".to_string()
        }
        PartitionOut::Values { words } => format!(
            "            for (var w = 0u; w < {words}u; w = w + 1u) {{\n                \
             out[at * {words}u + w] = keys_in[(P.off + src) * {words}u + w];\n            }}"
        ),
        PartitionOut::Positions { words: 1 } => "            out[at] = i;".to_string(),
        PartitionOut::Positions { words } => format!(
            "            out[at * {words}u] = i;\n            \
             for (var w = 1u; w < {words}u; w = w + 1u) {{\n                \
             out[at * {words}u + w] = 0u;\n            }}"
        ),
    };
    Template::new(PARTITION)
        .set("ITEMS", items)
        .set("M", pivots)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("KEY_FUNCTIONS", &key_fns)
        .set("KEY_TYPE", ty)
        .set("BELOW", below)
        .set("EQUAL", equal)
        .set("WRITE", &write)
        .render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::valid::Capabilities;

    /// Every key load, both outputs and widths, the fewest and most pivots and a count
    /// that needs a second packed group.
    #[test]
    fn every_partition_module_validates() {
        for (k, load) in [
            (1, KeyLoad::F32 { equal_zeros: false }),
            (1, KeyLoad::I32),
            (1, KeyLoad::U32),
            (2, KeyLoad::F64 { equal_zeros: false }),
            (2, KeyLoad::I64),
        ] {
            for out in [
                PartitionOut::Values { words: k },
                PartitionOut::Positions { words: 1 },
                PartitionOut::Positions { words: 2 },
            ] {
                for pivots in [1, 3, 4, MAX_PIVOTS] {
                    for items in [PARTITION_ITEMS_SHORT, PARTITION_ITEMS_LONG] {
                        let src = partition(load, k, items, pivots, out);
                        crate::naga_check::validate(&src, Capabilities::empty());
                    }
                }
            }
        }
    }
}
