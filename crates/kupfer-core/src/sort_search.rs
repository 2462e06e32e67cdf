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

/// How the two-tier search is laid out (variants for timing; the default is the form
/// `KUPFER_SEARCHSORTED` leaves unset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TieredForm {
    /// Queries per thread (1, 2, 4 or 8; a multiple of `interleave`).
    pub qpt: u32,
    /// 0: each query searched in turn with early-exit branches (the default form); 1, 2 or
    /// 4: that many queries stepped together, branch-free (every step loads each query's
    /// probe unconditionally, scalars named per query, so the loads are in flight together).
    pub interleave: u32,
    /// The samples come from a contiguous table that entry point `make_table` writes first
    /// (binding 4; one coalesced read per workgroup instead of `samples` scattered ones).
    pub table: bool,
    /// 0, or the spacing of a third tier between the two (a power of two from 2 to 256):
    /// entry point `make_fine` first copies every `fine`-th key into a contiguous table
    /// (binding 5), whose part inside the first tier's window the search then bisects
    /// before it reads at most `fine - 1` keys of the array. For arrays larger than the
    /// cache: the table's probes hit it where the array's would go to memory.
    pub fine: u32,
}

impl Default for TieredForm {
    fn default() -> TieredForm {
        TieredForm {
            qpt: QUERIES_PER_THREAD,
            interleave: 0,
            table: false,
            fine: 0,
        }
    }
}

/// The two-tier search module over raw elements read as `load` (`key_words` 1 or 2), with
/// `samples` (a power of two, at most 4096) sampled keys in workgroup memory, writing `out`;
/// entry point `main`.
pub fn search_tiered(load: KeyLoad, key_words: u32, samples: u32, out: SearchOut) -> String {
    search_tiered_form(load, key_words, samples, out, TieredForm::default())
}

/// [`search_tiered`] in the layout `form` (`samples` a power of two up to 8192); with
/// `form.table` also entry point `make_table` (one thread per sample).
pub fn search_tiered_form(
    load: KeyLoad,
    key_words: u32,
    samples: u32,
    out: SearchOut,
    form: TieredForm,
) -> String {
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
    // Steps of the first tier: enough for `samples` (the default's 13 covers 4096).
    let tier1 = (32 - samples.max(4096).leading_zeros()).max(13);
    let fine = form.fine;
    let search = if form.interleave == 0 {
        sequential_search(&write, tier1, fine)
    } else {
        interleaved_search(&write, tier1, form.interleave, fine)
    };
    let (table_binding, table_entry, sample_key) = if form.table {
        let (read, store) = if wide {
            (
                "vec2<u32>(table[2u * j], table[2u * j + 1u])",
                "        table[2u * j] = k.x;\n        table[2u * j + 1u] = k.y;",
            )
        } else {
            ("table[j]", "        table[j] = k;")
        };
        (
            "@group(0) @binding(4) var<storage, read_write> table: array<u32>;",
            format!(
                "// The samples as one contiguous table (every STRIDE-th key), read by `main`.
@compute @workgroup_size(256)
fn make_table(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let j = gid.x;
    if (j < P.samples) {{
        let k = sorted_key(j * P.stride);
{store}
    }}
}}
"
            ),
            read.to_string(),
        )
    } else {
        ("", String::new(), "sorted_key(j * P.stride)".to_string())
    };
    let (fine_binding, fine_entry) = if fine > 0 {
        let (read, store) = if wide {
            (
                "vec2<u32>(fine_table[2u * i], fine_table[2u * i + 1u])",
                "        fine_table[2u * i] = k.x;\n        fine_table[2u * i + 1u] = k.y;",
            )
        } else {
            ("fine_table[i]", "        fine_table[i] = k;")
        };
        (
            "@group(0) @binding(5) var<storage, read_write> fine_table: array<u32>;".to_string(),
            format!(
                "const FINE: u32 = {fine}u;

// Key i * FINE of the sorted array, from the third tier's table.
fn fine_key(i: u32) -> {ty} {{
    return {read};
}}

// The third tier's table: every FINE-th key, one per thread of a grid-stride loop (at most
// ceil(n / FINE) / (256 * workgroups) rounds).
@compute @workgroup_size(256)
fn make_fine(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let count = (P.n + FINE - 1u) / FINE;
    for (var i = gid.x; i < count; i = i + nwg.x * WG) {{
        let k = sorted_key(i * FINE);
{store}
    }}
}}
"
            ),
        )
    } else {
        (String::new(), String::new())
    };
    Template::new(TIERED)
        .set("QPT", form.qpt)
        .set("FINE_BINDING", &fine_binding)
        .set("FINE_ENTRY", &fine_entry)
        .set("SEARCH", &search)
        .set("TABLE_BINDING", table_binding)
        .set("TABLE_ENTRY", &table_entry)
        .set("SAMPLE_KEY", &sample_key)
        .set("SAMPLES", samples)
        .set("OUT_WORDS", out_words)
        .set("KEY_TYPE", ty)
        .set("KEY_HELPERS", KEY_HELPERS)
        .set("KEY_FUNCTIONS", &key_fns)
        .set("BEFORE", before)
        .render()
}

/// The default search body: each of a thread's QPT queries in turn, early exits; with
/// `fine` > 0 the third tier (`fine_key`) between the samples and the array.
fn sequential_search(write: &str, tier1: u32, fine: u32) -> String {
    // Bisects the table entries at positions inside [lo, hi); entry c the first not before
    // the query leaves (c - 1) * FINE < answer <= c * FINE.
    let third = if fine > 0 {
        "        let f0 = (lo + FINE - 1u) / FINE;
        let f1 = (hi + FINE - 1u) / FINE;
        var fa = f0;
        var fb = f1;
        for (var step = 0u; step < 33u && fa < fb; step = step + 1u) {
            let mid = fa + (fb - fa) / 2u;
            if (before(fine_key(mid), qk)) {
                fa = mid + 1u;
            } else {
                fb = mid;
            }
        }
        lo = select(lo, (fa - 1u) * FINE + 1u, fa > f0);
        hi = select(hi, fa * FINE, fa < f1);
"
    } else {
        ""
    };
    format!(
        "    for (var k = 0u; k < QPT; k = k + 1u) {{
        let q = (group * QPT + k) * WG + lid;
        if (q >= P.nq) {{
            break;
        }}
        let qk = query_key(q);
        var a = 0u;
        var b = P.samples;
        for (var step = 0u; step < {tier1}u && a < b; step = step + 1u) {{
            let mid = a + (b - a) / 2u;
            if (before(sample_keys[mid], qk)) {{
                a = mid + 1u;
            }} else {{
                b = mid;
            }}
        }}
        var lo = select(0u, (a - 1u) * P.stride + 1u, a > 0u);
        var hi = select(P.n, a * P.stride, a < P.samples);
{third}        for (var step = 0u; step < 33u && lo < hi; step = step + 1u) {{
            let mid = lo + (hi - lo) / 2u;
            if (before(sorted_key(mid), qk)) {{
                lo = mid + 1u;
            }} else {{
                hi = mid;
            }}
        }}
{write}
    }}"
    )
}

/// `m` queries of a thread stepped together, branch-free: per step every query's probe is
/// loaded (clamped into the array once its range is empty) before any is compared; with
/// `fine` > 0 the third tier likewise.
fn interleaved_search(write: &str, tier1: u32, m: u32, fine: u32) -> String {
    let each = |f: &dyn Fn(u32) -> String| -> String { (0..m).map(f).collect() };
    let setup = each(&|j| {
        format!(
            "        let q{j} = (group * QPT + g * {m}u + {j}u) * WG + lid;
        let qk{j} = query_key(min(q{j}, P.nq - 1u));
        var a{j} = 0u;
        var b{j} = P.samples;
"
        )
    });
    let tier1_probe = each(&|j| {
        format!(
            "            let m{j} = a{j} + (b{j} - a{j}) / 2u;
            let s{j} = sample_keys[min(m{j}, P.samples - 1u)];
"
        )
    });
    let tier1_step = each(&|j| bisect_step(j, "a", "b"));
    let windows = each(&|j| {
        format!(
            "        var lo{j} = select(0u, (a{j} - 1u) * P.stride + 1u, a{j} > 0u);
        var hi{j} = select(P.n, a{j} * P.stride, a{j} < P.samples);
"
        )
    });
    let busy = any_open(m, "lo", "hi");
    let third = if fine > 0 {
        let setup = each(&|j| {
            format!(
                "        let f0{j} = (lo{j} + FINE - 1u) / FINE;
        let f1{j} = (hi{j} + FINE - 1u) / FINE;
        var fa{j} = f0{j};
        var fb{j} = f1{j};
"
            )
        });
        let fine_busy = any_open(m, "fa", "fb");
        let probe = each(&|j| {
            format!(
                "            let m{j} = fa{j} + (fb{j} - fa{j}) / 2u;
            let s{j} = fine_key(min(m{j}, last_entry));
"
            )
        });
        let step = each(&|j| bisect_step(j, "fa", "fb"));
        let narrow = each(&|j| {
            format!(
                "        lo{j} = select(lo{j}, (fa{j} - 1u) * FINE + 1u, fa{j} > f0{j});
        hi{j} = select(hi{j}, fa{j} * FINE, fa{j} < f1{j});
"
            )
        });
        format!(
            "        let last_entry = (P.n + FINE - 1u) / FINE - 1u;
{setup}        for (var step = 0u; step < 33u; step = step + 1u) {{
            if (!({fine_busy})) {{
                break;
            }}
{probe}{step}        }}
{narrow}"
        )
    } else {
        String::new()
    };
    let tier2_probe = each(&|j| {
        format!(
            "            let m{j} = lo{j} + (hi{j} - lo{j}) / 2u;
            let s{j} = sorted_key(min(m{j}, P.n - 1u));
"
        )
    });
    let tier2_step = each(&|j| bisect_step(j, "lo", "hi"));
    let writes = each(&|j| {
        format!(
            "        if (q{j} < P.nq) {{
            let q = q{j};
            let lo = lo{j};
            let qk = qk{j};
{write}
        }}
"
        )
    });
    format!(
        "    for (var g = 0u; g < QPT / {m}u; g = g + 1u) {{
        if ((group * QPT + g * {m}u) * WG + lid >= P.nq) {{
            break;
        }}
{setup}        for (var step = 0u; step < {tier1}u; step = step + 1u) {{
{tier1_probe}{tier1_step}        }}
{windows}{third}        for (var step = 0u; step < 33u; step = step + 1u) {{
            if (!({busy})) {{
                break;
            }}
{tier2_probe}{tier2_step}        }}
{writes}    }}"
    )
}

/// One branch-free bisection step of query `j` over `[{lo}{j}, {hi}{j})`: probe `m{j}` with
/// key `s{j}` narrows the range from below or above, unless it is already empty.
fn bisect_step(j: u32, lo: &str, hi: &str) -> String {
    format!(
        "            let go{j} = {lo}{j} < {hi}{j};
            let bf{j} = before(s{j}, qk{j});
            {lo}{j} = select({lo}{j}, m{j} + 1u, go{j} && bf{j});
            {hi}{j} = select({hi}{j}, m{j}, go{j} && !bf{j});
"
    )
}

/// Whether any of `m` queries' ranges `[{lo}j, {hi}j)` is still open.
fn any_open(m: u32, lo: &str, hi: &str) -> String {
    (0..m)
        .map(|j| format!("{lo}{j} < {hi}{j}"))
        .collect::<Vec<_>>()
        .join(" || ")
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
                for (qpt, interleave, table, samples, fine) in [
                    (4, 1, false, 2048, 0),
                    (2, 2, true, 8192, 16),
                    (8, 4, true, 256, 0),
                    (1, 0, true, 4096, 0),
                    (4, 0, false, 2048, 16),
                    (2, 0, true, 256, 2),
                ] {
                    let form = TieredForm {
                        qpt,
                        interleave,
                        table,
                        fine,
                    };
                    let src = search_tiered_form(load, k, samples, out, form);
                    crate::naga_check::validate(&src, Capabilities::empty());
                }
            }
        }
    }
}
