//! The two-tier binary search of `searchsorted` (`shaders/sort_search_tiered.wgsl`): samples
//! of the sorted array in workgroup memory first, then a window of it in memory; several
//! queries per thread. Keys are made from raw elements as the sort makes them
//! ([`crate::sort::KeyLoad`]).

use crate::sort::{search_key_fns, KeyLoad, KEY_HELPERS};
use crate::template::Template;

const TIERED: &str = include_str!("../../../shaders/sort_search_tiered.wgsl");

/// Queries each thread of the two-tier search takes.
pub const QUERIES_PER_THREAD: u32 = 4;

/// What the two-tier search writes per query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchOut {
    /// The position, as this many u32 words (1: uint32/int32, 2: int64).
    Position(u32),
    /// Whether the sorted array holds a value equal to the query (NaN equals nothing;
    /// -0.0 equals 0.0 where the load gives them one key), as a bool word: `isin`.
    Membership,
}

/// The two-tier search module over raw elements read as `load` (`key_words` 1 or 2), with
/// `samples` (a power of two, at most 4096) sampled keys in workgroup memory, writing `out`;
/// entry point `main`.
pub fn search_tiered(load: KeyLoad, key_words: u32, samples: u32, out: SearchOut) -> String {
    let wide = key_words == 2;
    let (key_fns, ty) = search_key_fns(load, wide);
    let before = if wide {
        "    let lt = s.y < q.y || (s.y == q.y && s.x < q.x);\n    \
         return lt || (P.right != 0u && all(s == q));"
    } else {
        "    return s < q || (P.right != 0u && s == q);"
    };
    let float = matches!(load, KeyLoad::F32 { .. } | KeyLoad::F64 { .. });
    let (out_words, write) = match out {
        SearchOut::Position(words) => (
            words,
            "            out[q * OUT_WORDS] = lo;\n            \
             if (OUT_WORDS == 2u) {\n                out[q * OUT_WORDS + 1u] = 0u;\n            }"
                .to_string(),
        ),
        SearchOut::Membership => {
            // NaN has the one largest key of a float load.
            let nan = match (float, wide) {
                (false, _) => "false",
                (true, false) => "qk == 0xffffffffu",
                (true, true) => "all(qk == vec2<u32>(0xffffffffu))",
            };
            (
                1,
                format!(
                    "            var found = false;\n            \
                     if (lo < P.n && !({nan})) {{\n                \
                     found = all(sorted_key(lo) == qk);\n            }}\n            \
                     out[q] = select(0u, 1u, found != (P.invert != 0u));"
                ),
            )
        }
    };
    Template::new(TIERED)
        .set("QPT", QUERIES_PER_THREAD)
        .set("SAMPLES", samples)
        .set("OUT_WORDS", out_words)
        .set("WRITE", &write)
        .set("KEY_TYPE", ty)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("KEY_FUNCTIONS", &key_fns)
        .set("BEFORE", before)
        .render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::valid::Capabilities;

    /// Every raw load the search takes, both output widths, the smallest and largest sample
    /// counts.
    #[test]
    fn every_tiered_search_validates() {
        for (k, load) in [
            (1, KeyLoad::F32 { equal_zeros: true }),
            (1, KeyLoad::I32),
            (1, KeyLoad::U32),
            (2, KeyLoad::F64 { equal_zeros: true }),
            (2, KeyLoad::I64),
        ] {
            for out in [
                SearchOut::Position(1),
                SearchOut::Position(2),
                SearchOut::Membership,
            ] {
                for samples in [256, 2048, 4096] {
                    let src = search_tiered(load, k, samples, out);
                    crate::naga_check::validate(&src, Capabilities::empty());
                }
            }
        }
    }
}
