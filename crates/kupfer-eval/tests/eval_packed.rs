//! Packed small integers (int8/uint8 four to a 32-bit word, int16/uint16 two) against NumPy:
//! views at offsets 1, 2 and 3 and reversed views as inputs to every family, and writes of
//! neighbouring elements (strided, masked, scattered, `copyto(where=)`, `put`, `place`,
//! `putmask`, `fill_diagonal`, `out=` into views) that must never
//! clobber the other elements of a word. Sizes are not multiples of 4. Each program runs in
//! kupfer eval and in NumPy (tests/python/program_oracle.py). Needs python3 with numpy; fails,
//! never skips, without them.

mod common;

use common::assert_programs_match_numpy;

const DTYPES: [&str; 4] = ["uint8", "int8", "uint16", "int16"];

/// `x` and `y`: 1003 elements of `dtype` spread over its whole range (wrapping casts).
fn setup(dtype: &str) -> String {
    let (mul, span, low) = if dtype.ends_with("16") {
        (4099, 65536, 32768)
    } else {
        (37, 256, 128)
    };
    format!(
        "x = (np.arange(1003) * {mul} % {span} - {low}).astype(np.{dtype}).copy(); \
         y = (np.arange(1003) * 11 % {span}).astype(np.{dtype})"
    )
}

/// Reads of views at odd offsets, strided and reversed, by every family.
const READS: &[&str] = &[
    "x[{k}:] * 3 + 1",
    "x[{k}::3].astype(np.float32) * 0.5 + 2",
    "x[{k}:].astype(np.int32)",
    "x[::-1] - x",
    "x[{k}::-1] + 1",
    "x[{k}:] + y[:-{k}]",
    "np.sum(x[{k}:], dtype=np.int32)",
    "np.max(x[{k}::2])",
    "np.argmin(x[::-{k}])",
    "np.cumsum(x[{k}::2], dtype=np.int32)",
    "np.sort(x[{k}:])",
    "np.argsort(x[::-1][{k}:], kind='stable')",
    "x[{k}:][np.array([5, 0, 3, 2, 1, 4, 999])]",
    "x[{k}:][x[{k}:] > 5]",
    "np.take(x[::-1], np.array([0, 1, 2, 3, 1002 - {k}]))",
    "x[{k}:{k} + 12].reshape(3, 4) @ y[{k}:{k} + 12].reshape(4, 3)",
    "np.concatenate([x[{k}:], y[:{k}]])",
    "np.flip(x[{k}:{k} + 40].reshape(5, 8), axis=1)",
    "x[{k}:{k} + 40].reshape(5, 8).T.copy()",
    "np.unique(x[{k}:])",
    "np.where(x[{k}:] > y[{k}:], x[{k}:], y[{k}:])",
    "np.roll(x[{k}:], 5)",
];

/// Writes into the packed buffer: each leaves every other element of its words intact.
const WRITES: &[&str] = &[
    "x[{k}::2] = 7; x",
    "x[{k}::2] = 7; x[{k} + 1::2] = 3; x",
    "x[{k}::4] = y[{k}::4]; x",
    "x[::-{k}] = 5; x",
    "x[x > 10] = 5; x",
    "x[{k}:][y[{k}:] % 3 == 0] = y[{k}:][y[{k}:] % 3 == 0]; x",
    "x[np.array([{k}, {k} + 1, {k} + 2, {k} + 3, 0, 1000])] = np.array([1, 2, 3, 4, 5, 6]).astype(x.dtype); x",
    "x[np.arange({k}, 1003, 2)] = y[:(1004 - {k}) // 2]; x",
    "x[{k}:] += 1; x",
    "x[{k}::3] *= 3; x",
    "np.copyto(x[{k}:], y[{k}:], where=x[{k}:] > 3); x",
    "np.put(x, [{k}, {k} + 1, {k} + 2], [1, 2, 3]); x",
    "np.place(x, x > 50, [7, 8]); x",
    "np.putmask(x, y > 100, y); x",
    "v = x[{k}:{k} + 9].reshape(3, 3); np.fill_diagonal(v, 1); x",
    "np.add(x[{k}:], y[{k}:], out=x[:-{k}]); x",
    "np.add(x[{k}:], 1, out=x[{k}:]); x",
    "v = x[{k}:]; v[:] = v[::-1]; x",
    // Contiguous writes of whole words (copied word for word) and their neighbours.
    "x[4:1000] = y[4:1000]; x",
    "x[:] = 9; x",
    "x[{k} * 4:{k} * 4 + 8] = y[:8]; x[{k} * 4 + 8] = 1; x",
    "x[:] = x[::-1]; x",
    "m = x[:1000].reshape(10, 100); m[2:5] = y[:300].reshape(3, 100); x",
    "m = x[:1000].reshape(10, 100); m[{k}] = 3; m[{k} + 1, 1:] = 4; x",
];

fn programs(templates: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for dtype in DTYPES {
        for t in templates {
            for k in 1..=3 {
                out.push(format!(
                    "{}; {}",
                    setup(dtype),
                    t.replace("{k}", &k.to_string())
                ));
            }
        }
    }
    out
}

#[test]
fn packed_views_at_odd_offsets_read_like_numpy() {
    let p = programs(READS);
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("packed_reads", &cases);
}

#[test]
fn writes_of_neighbouring_packed_elements_never_clobber() {
    let mut p = programs(WRITES);
    // 1004 elements: the last word is full.
    p.extend(
        programs(WRITES)
            .iter()
            .map(|s| s.replace("1004 - ", "1005 - ").replace("1003", "1004")),
    );
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("packed_writes", &cases);
}

/// Wrap-around arithmetic and casts both ways, on arrays stored packed: 1003 elements (one
/// element per thread) and 1004 (vector kernels: four elements per thread, read and written
/// as whole packed words), also at offsets that are multiples of 4.
#[test]
fn packed_arithmetic_and_casts_wrap_like_numpy() {
    let mut p = Vec::new();
    for (dtype, n) in DTYPES.iter().flat_map(|d| [(*d, 1003), (*d, 1004)]) {
        let s = setup(dtype).replace("1003", &n.to_string());
        for e in [
            "x + y",
            "x * y",
            "x - y",
            "-x",
            "x // np.maximum(y, 1).astype(x.dtype)",
            "x.astype(np.float32) * 0.75 - 3",
            "(x.astype(np.float32) * 1.5).astype(x.dtype)",
            "x.astype(np.uint8)",
            "x.astype(np.int8)",
            "x.astype(np.uint16)",
            "x.astype(np.int16)",
            "x.astype(bool)",
            "(x > y).astype(x.dtype)",
            "np.float32(-3.7) * np.ones(7, dtype=np.float32) + x[:7].astype(np.float32)",
            "x[4:] * 3 + y[:-4]",
            "x[8:] - y[4:-4] * x[8:]",
            "(x[4:].astype(np.float32) * 0.5).astype(x.dtype) + np.array(3, dtype=x.dtype)",
            "x + np.array([1, 2, 3, 4], dtype=x.dtype)[np.arange(x.size) % 4]",
        ] {
            p.push(format!("{s}; {e}"));
        }
    }
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("packed_arith", &cases);
}

/// `ufunc.at` on packed small integers: repeated indices accumulate exactly with NumPy's
/// wrap-around, negative indices, views at odd offsets and reversed, broadcast values, and
/// neighbouring elements of one word updated by different threads of one kernel.
const AT: &[&str] = &[
    "np.add.at(x, np.array([{k}, {k}, {k} + 1, -1, -1, -1, 0, 2, 3]), 100); x",
    "np.subtract.at(x, np.arange(1003) % 7 + {k}, y); x",
    "np.multiply.at(x, np.arange(40) % 5 + {k}, np.arange(40).astype(x.dtype)); x",
    "np.maximum.at(x, np.arange(1003) % 11, y); x",
    "np.minimum.at(x, np.arange(1003)[::-1] % 13 + {k}, y); x",
    "np.add.at(x[{k}:], np.arange(1003 - {k}), y[{k}:]); x",
    "np.add.at(x[::-{k}], np.array([0, 0, 1, 2, 3, -1, -2]), 77); x",
    "v = x[{k}:{k} + 40].reshape(5, 8); np.add.at(v, (np.array([0, 0, 4]), slice(None)), y[:8]); x",
    "v = x[{k}:{k} + 40].reshape(5, 8); np.add.at(v, np.array([1, 1, 3]), 9); x",
    "np.add.at(x, slice({k}, None, 2), 99); x",
    "np.subtract.at(x, np.array([-{k}, -{k}, 5]), y[:3]); x",
    "np.multiply.at(x[{k}:], np.array([0, 1, 2, 3, 0, 1, 2, 3]), 3); x",
    "np.add.at(x, np.arange(1003) % 4, 1); x",
];

#[test]
fn ufunc_at_on_packed_small_integers_matches_numpy() {
    let mut p = programs(AT);
    // 1004 elements (whole words) and a destination that is already lazy.
    for dtype in DTYPES {
        let s = setup(dtype).replace("1003", "1004");
        p.push(format!(
            "{s}; np.add.at(x, np.arange(2008) % 1004, np.concatenate([y, y[::-1]])); x"
        ));
        p.push(format!(
            "{s}; z = x + 1; np.add.at(z, np.array([1, 1, 2]), 5); z"
        ));
        p.push(format!(
            "{s}; z = x + 0; np.add.at(x, np.array([1, 1, 2]), 5); z"
        ));
        p.push(format!("{s}; np.add.at(x, np.array([1, 2]), x[:2]); x"));
    }
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("packed_ufunc_at", &cases);
}

/// The families beyond the fused kernels read packed arrays through unpacked copies (the
/// storage stays packed) and pack their small-integer results; values taken before a write
/// keep the values from before it.
const FAMILY_READS: &[&str] = &[
    "np.pad(x[{k}:{k} + 10], 2)",
    "np.tile(x[{k}:{k} + 5], 3)",
    "np.repeat(x[{k}:{k} + 5], 2)",
    "np.fft.fftshift(x[{k}:])",
    "np.partition(x[{k}:], 5)[5]",
    "np.searchsorted(np.sort(x[{k}:]), y[:7])",
    "np.bincount(x[{k}:] % 50)",
    "np.stack([x[{k}:{k} + 4], y[:4]])",
    "np.max(x[{k}:{k} + 40].reshape(5, 8), axis=0)",
    "np.cumsum(x[{k}:{k} + 40].reshape(5, 8), axis=1, dtype=x.dtype)",
    "x[{k}:{k} + 40].reshape(5, 8)[:, np.array([1, 3])]",
    "np.sort(x[{k}:{k} + 40].reshape(5, 8), axis=0)",
    "np.unique(x[{k}:], return_counts=True)[1]",
    "np.median(x[{k}:])",
    "np.sort(x[{k}:]) + x[:-{k}]",
    "s = np.sort(x); x[{k}::2] = 1; s",
    "t = np.take(x, np.array([1, 2, 3])); x[:] = 0; t",
    "v = x[np.array([{k}, 2, 3])]; x[2] = 50; x[{k}] = 51; v",
    "z = x[{k}:] + 1; x[{k}] = 9; z",
    "r = np.roll(x, {k}); x[:4] = 3; r",
    "s = np.sort(x); x[{k}::2] = 1; np.concatenate([s, x])",
    "np.add.at(x, np.array([{k}, {k}]), 1); s = np.sort(x); x[{k}] = 0; np.add.at(x, np.array([{k}]), 2); np.concatenate([s, x])",
];

#[test]
fn families_read_packed_arrays_and_pack_their_results() {
    let p = programs(FAMILY_READS);
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("packed_family_reads", &cases);
}
