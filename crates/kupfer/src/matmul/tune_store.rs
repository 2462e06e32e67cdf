//! Tuned matmul choices kept on disk, one small text file per adapter and kupfer version in
//! kupfer's cache directory (beside the pipeline cache), so that only the first process on a
//! machine pays for tuning a shape class.
//!
//! Each line is `key<TAB>choice`: the tuning key and the chosen configuration, both as their
//! `Debug` text. A stored choice is used only when it is one of the current candidates (a
//! newer kupfer or another adapter limit simply tunes again); the last line for a key wins.

use crate::device::Device;
use std::path::PathBuf;

/// FNV-1a: a hash that stays the same across processes and Rust versions.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The store's file for `device`, or None without a cache directory.
#[cfg(not(target_arch = "wasm32"))]
fn path(device: &Device) -> Option<PathBuf> {
    let info = device.info();
    let id = format!(
        "{}\n{}\n{}\n{}\n{}",
        info.name,
        info.backend,
        info.driver,
        info.vendor,
        env!("CARGO_PKG_VERSION")
    );
    let dir = device.context().config().cache_dir.as_ref()?;
    Some(dir.join(format!("matmul-tune-{:016x}.txt", fnv1a(&id))))
}

#[cfg(target_arch = "wasm32")]
fn path(_: &Device) -> Option<PathBuf> {
    None
}

/// The choice stored for `key` in the text of a store file (the last one wins).
fn find<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(k, _)| *k == key)
        .map(|(_, v)| v)
        .next_back()
}

/// The line recording `choice` for `key` (tabs and newlines in either are replaced, so that
/// one line holds one entry).
fn line(key: &str, choice: &str) -> String {
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    format!("{}\t{}\n", clean(key), clean(choice))
}

/// The choice stored for `key` on this device's adapter, if any.
pub(crate) fn load(device: &Device, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path(device)?).ok()?;
    find(&text, key).map(str::to_string)
}

/// Records `choice` for `key`; failures (read-only cache, no directory) are ignored: the next
/// process tunes again.
pub(crate) fn save(device: &Device, key: &str, choice: &str) {
    use std::io::Write;
    let Some(path) = path(device) else { return };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = f.write_all(line(key, choice).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::{find, fnv1a, line};

    #[test]
    fn the_last_entry_for_a_key_wins_and_others_are_ignored() {
        let text = [
            line("k1", "a"),
            line("k2", "b"),
            "garbage without a tab\n".to_string(),
            line("k1", "c"),
        ]
        .concat();
        assert_eq!(find(&text, "k1"), Some("c"));
        assert_eq!(find(&text, "k2"), Some("b"));
        assert_eq!(find(&text, "k3"), None);
    }

    #[test]
    fn one_entry_is_one_line() {
        let l = line("key\twith tab", "choice\nwith newline");
        assert_eq!(l.matches('\n').count(), 1);
        assert_eq!(find(&l, "key with tab"), Some("choice with newline"));
    }

    #[test]
    fn the_hash_is_fixed() {
        // FNV-1a's published test vectors.
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
