//! Per-row radix selection (`shaders/sort_select_rows.wgsl`): one workgroup finds several
//! order statistics of one row without sorting it (median, quantiles and percentiles along an
//! axis). Keys are the sort's order-preserving words ([`crate::sort::KeyLoad`]).

use crate::sort::{select_key_fns, KeyLoad, KeyStore, KEY_HELPERS};
use crate::template::Template;

const SELECT_ROWS: &str = include_str!("../../../shaders/sort_select_rows.wgsl");

/// Workgroup-memory bytes of the per-row selection of `targets` order statistics.
pub fn select_rows_bytes(targets: u32) -> u32 {
    targets * (256 + 16 + 4) * 4
}

/// The per-row selection module (entry point `main`; bindings 1 raw elements, 2 ranks,
/// 3 values) for `targets` order statistics per launch (at most 16) of keys read as `load`
/// (`key_words` 1 or 2), writing values as `store` says (`Words`: the key words).
pub fn select_rows(targets: u32, key_words: u32, load: KeyLoad, store: KeyStore) -> String {
    let wide = key_words == 2;
    let key_fns = select_key_fns(load, wide);
    let emit = match store {
        KeyStore::F32 => "        values[at] = unkey32_exact(pre_lo[lid]);".to_string(),
        KeyStore::I32 => "        values[at] = pre_lo[lid] ^ 0x80000000u;".to_string(),
        KeyStore::F64 => {
            "        let v = unkey64_exact(vec2<u32>(pre_lo[lid], pre_hi[lid]));\n        \
             values[at] = v.x;\n        values[at + 1u] = v.y;"
                .to_string()
        }
        KeyStore::I64 => "        values[at] = pre_lo[lid];\n        \
             values[at + 1u] = pre_hi[lid] ^ 0x80000000u;"
            .to_string(),
        _ if wide => {
            "        values[at] = pre_lo[lid];\n        values[at + 1u] = pre_hi[lid];".to_string()
        }
        _ => "        values[at] = pre_lo[lid];".to_string(),
    };
    // The keys are read with `P.off` already in the row's base.
    let key_fns = key_fns.replace("P.off + i", "i");
    Template::new(SELECT_ROWS)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("T", targets)
        .set("K", key_words)
        .set("KEY_FUNCTIONS", &key_fns)
        .set("EMIT", &emit)
        .render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::valid::Capabilities;

    /// Every raw load the engine selects over, with every store of its width, at 1, 7 and 16
    /// targets.
    #[test]
    fn every_select_rows_variant_validates() {
        let loads = [
            (1, KeyLoad::F32 { equal_zeros: false }, KeyStore::F32),
            (1, KeyLoad::I32, KeyStore::I32),
            (1, KeyLoad::U32, KeyStore::Words),
            (2, KeyLoad::F64 { equal_zeros: false }, KeyStore::F64),
            (2, KeyLoad::I64, KeyStore::I64),
            (2, KeyLoad::I64, KeyStore::Words),
        ];
        for (k, load, store) in loads {
            for t in [1, 7, 16] {
                let src = select_rows(t, k, load, store);
                assert!(!src.contains("P.off + i"), "{src}");
                crate::naga_check::validate(&src, Capabilities::empty());
            }
        }
    }
}
