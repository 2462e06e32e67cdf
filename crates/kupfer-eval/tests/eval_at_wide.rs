//! `ufunc.at` with values whose dtype is not the destination's, against NumPy: NumPy computes
//! each step in the loop dtype of (destination, values) (a Python int is int64, a float
//! float64) and casts the result back (wrapping), so `np.maximum.at(uint8, i, 300)` writes 44.
//! Every op on every destination of 32 bits and fewer (packed int8/uint8/int16/uint16 too),
//! with int64, float and bool arrays and Python scalars as values, repeated and negative
//! indices, views as destinations, 0-d and empty selections, and the refusals. Each program
//! runs in kupfer eval and in NumPy (tests/python/program_oracle.py); needs python3 with numpy.

mod common;

use common::{assert_programs_match_numpy, assert_programs_refused_like_numpy};

const DESTS: [&str; 7] = [
    "uint8", "int8", "uint16", "int16", "int32", "uint32", "bool",
];
const OPS: [&str; 5] = ["add", "subtract", "multiply", "maximum", "minimum"];

/// `x`: 37 elements of `dtype` spread over its range.
fn setup(dtype: &str) -> String {
    if dtype == "bool" {
        return "x = (np.arange(37) % 3 == 0)".to_string();
    }
    format!(
        "x = (np.arange(37) * 7919 % 65536 - 300).astype(np.{dtype}); \
         i = np.array([0, 3, 3, -1, 5, 3, 36, 0, 7, 7, 7, 2])"
    )
}

/// Values of other dtypes (repeated indices, out of the destination's range both ways;
/// floats inside int32's range, where every cast agrees with x86's).
const VALUES: &[&str] = &[
    "np.array([300, -200, 5, 70000, -1, 2**40, -2**35, 255, 128, -129, 0, 1])",
    "np.array([300.5, -200.25, 5.75, 70000.5, -0.5, 1e9, -1e9, 255.9, 127.5, -128.5, 0.0, 1.25])",
    "np.array([1.5, -2.5, 3.25, 0.5, 7.0, 300.0, -300.0, 9.0, 1.0, 2.0, 3.0, 4.0], dtype=np.float32)",
    "np.array([True, False, True, True, False, True, False, True, True, False, False, True])",
    "np.array([300, -200, 5, 7, -1, 2**31 + 5, 9, 255, 128, 2**32 - 1, 0, 1], dtype=np.int64)[::-1]",
    "np.array([2**32 - 1, 7, 300, 65535, 65536, 2**31, 0, 1, 2, 3, 4, 5], dtype=np.uint32)",
    "np.array([250, 7, 3, 255, 128, 1, 0, 9, 200, 17, 4, 5], dtype=np.uint8)",
    "np.array([-128, 7, -3, 127, 100, -1, 0, 9, -100, 17, 4, 5], dtype=np.int8)",
];

/// Python scalars (int64 and float64 steps in NumPy 2.4's ufunc.at, wrapped back).
const SCALARS: &[&str] = &[
    "300", "-1", "2**40", "70000", "1.5", "-2.75", "300.5", "True", "2**63",
];

fn order_free(dest: &str, op: &str, values: &str) -> bool {
    // Steps that truncate, overflow or toggle do not commute: one element's repeated steps
    // apply in an unspecified order (documented); repeats only where the steps commute.
    let float_values = values.contains('.') || values.contains("float");
    let extrema = op == "maximum" || op == "minimum";
    let bool_sums = dest == "bool" && (op == "add" || op == "subtract");
    let truncating = float_values && !extrema && dest != "bool";
    !(truncating || bool_sums)
}

#[test]
fn ufunc_at_with_wider_values_matches_numpy() {
    let mut p = Vec::new();
    for dest in DESTS {
        let s = setup(dest);
        let s = if dest == "bool" {
            format!("{s}; i = np.array([0, 3, 3, -1, 5, 3, 36, 0, 7, 7, 7, 2])")
        } else {
            s
        };
        for op in OPS {
            for v in VALUES {
                if dest == "bool" && op == "subtract" && v.contains("True") {
                    continue;
                }
                // Repeated indices where the steps commute, else each index once.
                let idx = if order_free(dest, op, v) {
                    "i"
                } else {
                    "np.array([0, 3, 4, -1, 5, 6, 36, 1, 7, 8, 9, 2])"
                };
                p.push(format!("{s}; np.{op}.at(x, {idx}, {v}); x"));
            }
            for v in SCALARS {
                if dest == "bool" && op == "subtract" && *v == "True" {
                    continue;
                }
                if *v == "2**63" && (dest.starts_with("int") || dest == "bool") {
                    continue;
                }
                p.push(format!("{s}; np.{op}.at(x, i, {v}); x"));
            }
        }
    }
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("at_wide", &cases);
}

/// Order matters for extrema with values beyond the destination's range: the last replacing
/// value, then the extrema after it, as NumPy applies them one after another.
#[test]
fn extrema_of_out_of_range_values_apply_in_numpy_order() {
    let mut p = Vec::new();
    for dest in [
        "uint8", "int8", "uint16", "int16", "int32", "uint32", "bool",
    ] {
        for op in ["maximum", "minimum"] {
            for v in [
                "np.array([300, 50, 20, -5, 400, 10, 3, -700, 2**33, 5, 6, 7])",
                "np.array([50, 300, 20, 2**40, 10, -2**40, 8, 9, 1, 2, 3, 4])",
                "np.array([np.nan, 20.5, 1e9, 10.0, -1e9, 3.5, -0.5, 255.5, 1.0, 2.0, 3.0, 4.0])",
                "np.arange(12) * 97 - 500",
            ] {
                let s = if dest == "bool" {
                    "x = np.arange(37) % 3 == 0".to_string()
                } else {
                    format!("x = (np.arange(37) * 31 % 200).astype(np.{dest})")
                };
                p.push(format!(
                    "{s}; np.{op}.at(x, np.array([4, 4, 4, 4, 4, 4, 9, 9, 9, 4, 9, 4]), {v}); x"
                ));
                p.push(format!(
                    "{s}; np.{op}.at(x, np.zeros(12, dtype=np.int64), {v}); x"
                ));
            }
        }
    }
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("at_wide_order", &cases);
}

/// Views as destinations (packed words shared with untouched neighbours), float16/float32
/// destinations with wider values, broadcast values, 0-d and empty selections.
#[test]
fn wide_ufunc_at_on_views_floats_and_edges_matches_numpy() {
    let mut p = Vec::new();
    for dest in ["uint8", "int8", "int16", "uint16", "int32"] {
        let s = format!("x = (np.arange(41) * 37 % 256).astype(np.{dest})");
        for (op, v) in [
            ("maximum", "np.array([300, 5, -4, 1000])"),
            ("minimum", "np.array([300, -5, -400, 1000])"),
            ("add", "np.array([1.5, 2.5, -3.5, 300.25])"),
            ("maximum", "np.array([1.5, 2.5, -3.5, 300.25])"),
        ] {
            p.push(format!(
                "{s}; v = x[1::3]; np.{op}.at(v, np.array([0, 1, 2, -1]), {v}); x"
            ));
            p.push(format!(
                "{s}; v = x[::-2]; np.{op}.at(v, np.array([0, 1, 2, -1]), {v}); x"
            ));
            p.push(format!(
                "{s}; v = x[3:]; np.{op}.at(v, np.array([0, 1, 2, 3]), {v}); x"
            ));
            p.push(format!("{s}; np.{op}.at(x, slice(2, 10, 2), {v}); x"));
            p.push(format!(
                "{s}; m = x[:40].reshape(5, 8); np.{op}.at(m, (np.array([1, 1, 4]), slice(None, 4)), {v}); x"
            ));
            p.push(format!(
                "{s}; np.{op}.at(x, np.array([], dtype=np.int64), np.array([], dtype=np.int64)); x"
            ));
            p.push(format!(
                "y = np.array(7, dtype=np.{dest}); np.{op}.at(y, (), np.array(300)); y"
            ));
            p.push(format!(
                "y = np.array(7, dtype=np.{dest}); np.{op}.at(y, (), 2.5); y"
            ));
        }
    }
    for dest in ["float32", "float16"] {
        let s = format!("x = (np.arange(19) * 0.37 - 2).astype(np.{dest})");
        for op in OPS {
            for v in [
                "np.array([1e-8, 2.5, 16777217.0, -3.75])",
                "np.array([2**24 + 1, 3, -7, 2**40])",
                "16777217",
                "0.1",
                "np.array([1e300, -1e300, 3.0, np.nan])",
                "np.array([1 + 2j, 3 - 1j, 0.5j, -2])",
            ] {
                if dest == "float16" && v.contains("1e300") {
                    continue;
                }
                p.push(format!(
                    "{s}; np.{op}.at(x, np.array([0, 4, 7, -1]), {v}); x"
                ));
            }
        }
    }
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("at_wide_views", &cases);
}

/// NumPy's refusals: bool minus bool, an index out of bounds, a Python int beyond 64 bits,
/// values that do not broadcast.
#[test]
fn wide_ufunc_at_refusals_match_numpy() {
    assert_programs_refused_like_numpy(
        "at_wide_refused",
        &[
            "x = np.zeros(4, dtype=bool); np.subtract.at(x, np.array([0]), np.array([True])); x",
            "x = np.zeros(4, dtype=np.uint8); np.maximum.at(x, np.array([4]), np.array([300])); x",
            "x = np.zeros(4, dtype=np.uint8); np.maximum.at(x, np.array([-5]), 300); x",
            "x = np.zeros(4, dtype=np.uint8); np.maximum.at(x, np.array([0]), 2**70); x",
            "x = np.zeros(4, dtype=np.int32); np.add.at(x, np.array([0, 1]), np.array([1.5, 2.5, 3.5])); x",
        ],
    );
}

/// 64-bit destinations: values of their own kind go straight in (Python ints too, uint64
/// included); a loop wider than them is refused with a clear error.
#[test]
fn sixty_four_bit_destinations_take_their_own_kind() {
    assert_programs_match_numpy(
        "at_wide_64",
        &[
            "x = np.arange(6, dtype=np.uint64); np.add.at(x, np.array([0, 0, 5]), 3); x",
            "x = np.arange(6, dtype=np.uint64); np.subtract.at(x, np.array([0, 1, 1]), 1); x",
            "x = np.arange(6, dtype=np.uint64); np.maximum.at(x, np.array([0, 1, 1]), 4); x",
            "x = np.arange(6, dtype=np.int64); np.add.at(x, np.array([0, 0, 5]), -3); x",
            "x = np.arange(6, dtype=np.int64); np.maximum.at(x, np.array([0, 0, 5]), np.array([7, 9, -2], dtype=np.int8)); x",
            "x = np.arange(6, dtype=np.float64); np.add.at(x, np.array([0, 0, 5]), np.array([1, 2, 3], dtype=np.int64)); x",
            "x = np.arange(6, dtype=np.float64); np.maximum.at(x, np.array([0, 0, 5]), 2.5); x",
        ],
    );
}

/// `np.bitwise_and.at` / `bitwise_or.at` / `bitwise_xor.at`: every integer and bool
/// destination (int64 and uint64 too), wider and Python int values, repeated indices; NumPy's
/// refusal for floats.
#[test]
fn bitwise_ufunc_at_matches_numpy() {
    let mut p = Vec::new();
    for dest in [
        "uint8", "int8", "uint16", "int16", "int32", "uint32", "int64", "uint64", "bool",
    ] {
        let s = if dest == "bool" {
            "x = np.arange(37) % 3 == 0".to_string()
        } else {
            format!("x = (np.arange(37) * 7919 % 65536).astype(np.{dest})")
        };
        for op in ["bitwise_and", "bitwise_or", "bitwise_xor"] {
            for v in [
                "np.array([300, 255, 5, 70000, 1, 2**40 + 3, 7, 9, 12, 0, 1, 6])",
                "np.array([True, False, True, True, False, True, False, True, True, False, False, True])",
                "np.array([250, 7, 3, 255, 128, 1, 0, 9, 200, 17, 4, 5], dtype=np.uint8)",
                "300",
                "True",
            ] {
                if dest == "uint64" && (v.starts_with("np.array([300") || v == "300") {
                    continue; // uint64 with int64: NumPy's loop is float64 (refused)
                }
                p.push(format!(
                    "{s}; np.{op}.at(x, np.array([0, 3, 3, -1, 5, 3, 36, 0, 7, 7, 7, 2]), {v}); x"
                ));
            }
        }
    }
    let cases: Vec<&str> = p.iter().map(String::as_str).collect();
    assert_programs_match_numpy("at_bitwise", &cases);
    assert_programs_refused_like_numpy(
        "at_bitwise_refused",
        &[
            "x = np.zeros(4, dtype=np.float32); np.bitwise_and.at(x, np.array([0]), 1); x",
            "x = np.zeros(4, dtype=np.int32); np.bitwise_or.at(x, np.array([0]), 1.5); x",
            "x = np.zeros(4, dtype=np.uint8); np.bitwise_xor.at(x, np.array([0]), np.array([1.0])); x",
        ],
    );
}
