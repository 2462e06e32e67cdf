//! The keys-only row sort (`shaders/sort_rows_keys.wgsl`): short rows of 32-bit values
//! sorted inside workgroup memory by a bitonic network over their keys alone, values written
//! back from the keys (`sort` of the default kind; `argsort` and stable sorts use the
//! (key, position) row sort of [`crate::sort::rows`]).

use crate::sort::{key_load_body, KeyLoad, KeyStore, KEY_HELPERS};
use crate::template::Template;

const ROWS_KEYS: &str = include_str!("../../../shaders/sort_rows_keys.wgsl");

/// The keys-only row-sort module: `slots` keys in workgroup memory holding rows padded to
/// `row_slots` (powers of two, `row_slots <= slots`), `threads` per workgroup, keys read as
/// `load` (a one-word raw load) and written back as `store` (`F32`, `I32` or `Words`).
pub fn rows_keys(
    slots: u32,
    row_slots: u32,
    threads: u32,
    load: KeyLoad,
    store: KeyStore,
) -> String {
    let value = match store {
        KeyStore::F32 => "    return unkey32_exact(k);",
        KeyStore::I32 => "    return k ^ 0x80000000u;",
        _ => "    return k;",
    };
    Template::new(ROWS_KEYS)
        .set("WG", threads)
        .set("L", row_slots)
        .set("SLOTS", slots)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("LOAD", key_load_body(load, false))
        .set("STORE", value)
        .render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::valid::Capabilities;

    /// Every one-word raw load with its store, over the row-sort shapes (power-of-two slots
    /// up to 4096, rows up to the slots, threads as the engine clamps them).
    #[test]
    fn every_rows_keys_variant_validates() {
        for (load, store) in [
            (KeyLoad::F32 { equal_zeros: false }, KeyStore::F32),
            (KeyLoad::I32, KeyStore::I32),
            (KeyLoad::U32, KeyStore::Words),
        ] {
            for slots_log in 1..=12 {
                let slots = 1u32 << slots_log;
                for l_log in 1..=slots_log {
                    let threads = (slots / 2).clamp(32, 256);
                    let src = rows_keys(slots, 1 << l_log, threads, load, store);
                    crate::naga_check::validate(&src, Capabilities::empty());
                }
            }
        }
    }
}
