//! The in-place array methods `a.sort()` and `a.partition()` against NumPy, and the other
//! order and index methods (`argsort`, `argpartition`, `searchsorted`, `nonzero`,
//! `compress`, `repeat`, `take`, `put`, `choose`, `diagonal`) with NumPy's signatures.
//!
//! The methods return None and write into the array's memory, so every view of it sees the
//! write: the programs sort views (`a[::2]`, a column, the transpose) and read the base
//! array. `partition` leaves each side of `kth` in an order NumPy does not specify, so its
//! programs check the partition property (each side, sorted, around the `kth` element) —
//! their value under NumPy is the sorted array — never NumPy's layout. Each program runs in
//! kupfer eval and in NumPy (tests/python/program_oracle.py); programs NumPy refuses must
//! fail in kupfer with a short error. Needs python3 with numpy; fails, never skips.

mod common;

use common::{assert_programs_match_numpy, assert_programs_refused_like_numpy};

/// `a.sort()` for every dtype, with NaN, -0.0, infinities, views, every axis, empty arrays.
const SORT_CASES: &[&str] = &[
    // every dtype (signed values wrap into the unsigned ones through astype)
    "a = np.array([3, -1, 2, 0, -5, 4, 3, -128, 127]).astype(np.int8); a.sort(); a",
    "a = np.array([3, -1, 2, 0, -5, 4, 3, -32768, 9]).astype(np.int16); a.sort(); a",
    "a = np.array([3, -1, 2, 0, -5, 4, 3]).astype(np.int32); a.sort(); a",
    "a = np.array([3, -1, 2, 0, -5, 4, -2**62, 2**62]).astype(np.int64); a.sort(); a",
    "a = np.array([3, -1, 2, 0, -5, 4, 255]).astype(np.uint8); a.sort(); a",
    "a = np.array([3, -1, 2, 0, -5, 4]).astype(np.uint16); a.sort(); a",
    "a = np.array([3, -1, 2, 0, -5, 4]).astype(np.uint32); a.sort(); a",
    "a = np.array([3, -1, 2, 0, -5, 4]).astype(np.uint64); a.sort(); a",
    "a = np.array([2.5, -1, np.nan, 0, -np.inf, 65504, -0.0]).astype(np.float16); a.sort(); a",
    "a = np.array([2.5, -1, np.nan, 0, -np.inf, np.inf, -0.0, 1e-40], dtype=np.float32); a.sort(); a",
    "a = np.array([2.5, -1, np.nan, 0, -np.inf, np.nan, -0.0, 5e-324]); a.sort(); a",
    "a = np.array([True, False, True, False, False]); a.sort(); a",
    "a = np.array([1+2j, 1-1j, -1+5j, 0j, 1+0j, -1-5j]).astype(np.complex64); a.sort(); a",
    "a = np.array([1+2j, 1-1j, complex(np.nan, 0), -1+5j, complex(1, np.nan), 0j]); a.sort(); a",
    // -0.0 and 0.0 are equal: a stable sort keeps their order
    "a = np.array([0.0, -0.0, 0.0, -0.0, -1.0]); a.sort(kind='stable'); np.signbit(a)",
    "a = np.array([0.0, -0.0, 0.0, -0.0], dtype=np.float32); a.sort(stable=True); np.signbit(a)",
    // the kinds (every one sorts)
    "a = np.array([5, 1, 4, 1, 3]); a.sort(kind='quicksort'); a",
    "a = np.array([5, 1, 4, 1, 3]); a.sort(kind='mergesort'); a",
    "a = np.array([5.0, 1, 4, 1, 3]); a.sort(kind='heapsort'); a",
    "a = np.array([5.0, 1, 4, 1, 3]); a.sort(-1, 'stable', None); a",
    "a = np.array([5.0, 1, 4, 1, 3]); a.sort(kind='S'); a",
    "a = np.array([5.0, 1, 4]); a.sort(stable=False); a",
    // the method returns None
    "a = np.array([2, 1]); a.sort() is None",
    "a = np.array([2, 1]); a.partition(0) is None",
    // views: the write reaches the base array
    "a = np.arange(10)[::-1].copy(); a[::2].sort(); a",
    "a = np.arange(10, dtype=np.int8)[::-1].copy(); a[1::3].sort(); a",
    "a = np.arange(10, dtype=np.uint16)[::-1].copy(); a[::-3].sort(); a",
    "a = np.array([[3, 1, 2], [9, 7, 8], [6, 5, 4]]); a[:, 1].sort(); a",
    "a = np.array([[3, 1, 2], [9, 7, 8], [6, 5, 4]]); a[1].sort(); a",
    "a = np.array([[3, 1, 2], [9, 7, 8], [6, 5, 4]]); b = a.T; b.sort(axis=0); a",
    "a = np.array([[3.0, 1, 2], [9, 7, 8], [6, 5, 4]]); b = a.T; b.sort(); a",
    "a = np.array([[3, 1, 2], [9, 7, 8], [6, 5, 4]], dtype=np.float32); a[:, ::-1].sort(axis=1); a",
    "a = np.array([[3, 1, 2], [9, 7, 8], [6, 5, 4]]); a[::2, 1:].sort(axis=0); a",
    "a = np.arange(12)[::-1].copy(); b = a.reshape(3, 4); b.sort(axis=0); a",
    "a = np.array([4, 3, 2, 1]); b = a[1:3]; b.sort(); (a, b)[0]",
    "a = np.array([True, False, True, False, True, False]); a[::2].sort(); a",
    "a = np.array([3+1j, 1+0j, 2-1j, 0j]).astype(np.complex64); a[::-1].sort(); a",
    // every axis of a 3-D array
    "a = (np.arange(24) * 7 % 11).reshape(2, 3, 4); a.sort(axis=0); a",
    "a = (np.arange(24) * 7 % 11).reshape(2, 3, 4); a.sort(axis=1); a",
    "a = (np.arange(24) * 7 % 11).reshape(2, 3, 4).astype(np.float16); a.sort(axis=2); a",
    "a = (np.arange(24) * 7 % 11).reshape(2, 3, 4).astype(np.uint8); a.sort(axis=-2); a",
    "a = (np.arange(24) * 7 % 11).reshape(2, 3, 4); a.transpose(2, 0, 1).sort(axis=1); a",
    // long rows (the radix sort) and strided views of them
    "a = (np.arange(5000) * 7919 % 5003).astype(np.float32); a[::3].sort(); a",
    "a = (np.arange(6000) * 7919 % 6007).astype(np.int64) - 3000; a.sort(kind='stable'); a",
    "a = (np.arange(4000) * 7919 % 4001).reshape(2, 2000).astype(np.float64); a[:, ::-1].sort(); a",
    // empty and size-1
    "a = np.zeros((3, 0)); a.sort(); a",
    "a = np.zeros((3, 0), dtype=np.int32); a.sort(axis=0); a",
    "a = np.zeros(0, dtype=np.uint8); a.sort(); a",
    "a = np.array([7.0]); a.sort(); a",
];

/// `a.partition()`: the partition property (each side sorted around `kth`), whose value
/// under NumPy is the sorted array; untouched elements exactly.
const PARTITION_CASES: &[&str] = &[
    "x = np.array([7, 1, 9, 3, 3, 0, 8, 2, 5]); a = x.copy(); a.partition(4); \
     np.concatenate([np.sort(a[:4]), a[4:5], np.sort(a[5:])])",
    "x = np.array([7, 1, 9, 3, 3, 0, 8, 2, 5]); a = x.copy(); a.partition(-2); \
     np.concatenate([np.sort(a[:7]), a[7:8], np.sort(a[8:])])",
    "x = np.array([7, 1, 9, 3, 3, 0, 8, 2, 5]); a = x.copy(); a.partition([1, 5]); \
     np.concatenate([np.sort(a[:1]), a[1:2], np.sort(a[2:5]), a[5:6], np.sort(a[6:])])",
    "x = np.array([7, 1, 9, 3, 3, 0, 8, 2, 5]); a = x.copy(); a.partition(np.array([6, 2])); \
     np.concatenate([np.sort(a[:2]), a[2:3], np.sort(a[3:6]), a[6:7], np.sort(a[7:])])",
    "a = np.array([7, 1, 9, 3]); a.partition(kth=np.int64(0), axis=0); \
     np.concatenate([a[:1], np.sort(a[1:])])",
    // dtypes, NaN and -0.0
    "a = np.array([np.nan, 3.0, 1.0, np.nan, 2.0, -0.0, 5.0, -np.inf]); a.partition(3); \
     np.concatenate([np.sort(a[:3]), a[3:4], np.sort(a[4:])])",
    "a = np.array([np.nan, 3.0, 1.0, np.nan, 2.0, -0.0], dtype=np.float32); a.partition(4); \
     np.concatenate([np.sort(a[:4]), a[4:5], np.sort(a[5:])])",
    "a = np.array([9, -3, 5, 0, 2, -8, 7]).astype(np.int8); a.partition(2); \
     np.concatenate([np.sort(a[:2]), a[2:3], np.sort(a[3:])])",
    "a = np.array([9, 3, 5, 0, 2, 8, 7]).astype(np.uint16); a.partition(5); \
     np.concatenate([np.sort(a[:5]), a[5:6], np.sort(a[6:])])",
    "a = np.array([9, -3, 5, 0, 2, -8, 7]).astype(np.int16); a.partition(3); \
     np.concatenate([np.sort(a[:3]), a[3:4], np.sort(a[4:])])",
    "a = np.array([9, -3, 5, 0, 2, -8, 7]).astype(np.int32); a.partition(1); \
     np.concatenate([np.sort(a[:1]), a[1:2], np.sort(a[2:])])",
    "a = np.array([9, 3, 5, 0, 2, 8, 7]).astype(np.uint8); a.partition(6); \
     np.concatenate([np.sort(a[:6]), a[6:7]])",
    "a = np.array([9, 3, 5, 0, 2, 8, 7]).astype(np.uint32); a.partition(0); \
     np.concatenate([a[:1], np.sort(a[1:])])",
    "a = np.array([9, -3, 2**40, 0, 2, -2**40, 7]); a.partition(3); \
     np.concatenate([np.sort(a[:3]), a[3:4], np.sort(a[4:])])",
    "a = np.array([9, 3, 2**40, 0, 2, 7]).astype(np.uint64); a.partition(3); \
     np.concatenate([np.sort(a[:3]), a[3:4], np.sort(a[4:])])",
    "a = np.array([2.5, -1, 7, 0, 3, -0.0]).astype(np.float16); a.partition(2); \
     np.concatenate([np.sort(a[:2]), a[2:3], np.sort(a[3:])])",
    "a = np.array([True, False, True, False, True]); a.partition(2); \
     np.concatenate([np.sort(a[:2]), a[2:3], np.sort(a[3:])])",
    "a = np.array([3+1j, 1+0j, 2-1j, 0j, 1-1j]).astype(np.complex64); a.partition(2); \
     np.concatenate([np.sort(a[:2]), a[2:3], np.sort(a[3:])])",
    "a = np.array([3+1j, 1+0j, 2-1j, 0j, 1-1j]); a.partition([0, 3]); \
     np.concatenate([a[:1], np.sort(a[1:3]), a[3:4], np.sort(a[4:])])",
    // axes and views: the property along the axis, the untouched part exactly
    "a = (np.arange(24) * 7 % 11).reshape(4, 6); a.partition(1, axis=0); \
     np.concatenate([a[:1], np.sort(a[2:], axis=0)], axis=0)",
    "a = (np.arange(24) * 7 % 11).reshape(4, 6); a.partition(1, axis=0); \
     np.sort(a[:1], axis=0) <= a[1:2]",
    "a = (np.arange(24) * 7 % 11).reshape(4, 6); a[:, ::2].partition(2, axis=0); a[:, 1::2]",
    "a = (np.arange(24) * 7 % 11).reshape(4, 6); a[:, ::2].partition(2, axis=0); b = a[:, ::2]; \
     np.concatenate([np.sort(b[:2], axis=0), b[2:3], np.sort(b[3:], axis=0)], axis=0)",
    "a = (np.arange(24) * 7 % 11).reshape(2, 3, 4).astype(np.float32); a.partition(1, axis=1); \
     np.concatenate([a[:, :1], a[:, 1:2], np.sort(a[:, 2:], axis=1)], axis=1)",
    "a = (np.arange(24) * 7 % 11).reshape(2, 3, 4); b = a.T; b.partition(1); a",
    // long rows (the selection path) through a strided view; the other half untouched
    "x = (np.arange(3000) * 7919 % 3001).astype(np.float32); a = x.copy(); a[::2].partition(700); \
     b = a[::2]; np.concatenate([np.sort(b[:700]), b[700:701], np.sort(b[701:])])",
    "x = (np.arange(3000) * 7919 % 3001).astype(np.float32); a = x.copy(); a[::2].partition(700); \
     a[1::2]",
    "a = (np.arange(4096) * 7919 % 4099).reshape(2, 2048); a.partition([10, 2000]); \
     np.concatenate([np.sort(a[:, :10]), a[:, 10:11], np.sort(a[:, 11:2000]), a[:, 2000:2001], \
     np.sort(a[:, 2001:])], axis=1)",
    // median(overwrite_input=True) leaves the input partitioned (a flattened copy of a
    // non-contiguous input is partitioned instead, as NumPy's ravel() copies)
    "a = np.array([[10, 7, 4], [3, 2, 1]]); b = a.copy(); m = np.median(b, axis=1, \
     overwrite_input=True); np.concatenate([b.ravel(), m])",
    "a = np.array([[10, 7, 4], [3, 2, 1]]); b = a.copy(); m = np.median(b, axis=0, \
     overwrite_input=True); np.concatenate([b.ravel(), m])",
    "a = np.array([[10.0, 7, 4], [3, 2, 1]]); b = a.copy(); m = np.median(b, overwrite_input=True); \
     r = b.ravel(); np.concatenate([np.sort(r[:2]), r[2:4], np.sort(r[4:]), [m]])",
    "a = np.array([[10.0, 7, 4], [3, 2, 9]]); b = a.T; m = np.median(b, overwrite_input=True); \
     np.concatenate([a.ravel(), [m]])",
    "a = np.array([5, 3, 9, 1, 7]); b = a.copy(); np.median(b, overwrite_input=True); \
     assert not np.all(a == b); np.concatenate([np.sort(b[:2]), b[2:3], np.sort(b[3:])])",
    // empty: any kth
    "a = np.zeros((3, 0)); a.partition(5); a",
    "a = np.zeros(0, dtype=np.int8); a.partition(0); a",
];

/// The other methods, with NumPy's signatures.
const METHOD_CASES: &[&str] = &[
    "a = np.array([3, 1, 2, 1]); a.argsort(kind='stable')",
    "a = np.array([3, 1, 2, 1]); a.argsort(axis=0, stable=True)",
    "a = np.array([[3, 1], [2, 1]]); a.argsort(axis=None)",
    "a = np.array([3, 9, 2, 1]); a[a.argpartition(1)][1]",
    "a = np.array([[3, 9], [2, 1]]); np.take_along_axis(a, a.argpartition(0, axis=0), 0)[0]",
    "np.array([1, 2, 3, 5]).searchsorted(3, side='right')",
    "np.array([1, 2, 3, 5]).searchsorted([0, 3, 9], 'left', [0, 1, 2, 3])",
    "np.array([[0, 2], [3, 0]]).nonzero()[1]",
    "np.array([1, 2, 3]).compress([True, False, True])",
    "np.array([[1, 2], [3, 4]]).compress([False, True], axis=1)",
    "np.array([1, 2, 3]).repeat(2)",
    "np.array([[1, 2], [3, 4]]).repeat([1, 2], axis=0)",
    "np.array([4, 5, 6]).take([0, 2])",
    "np.array([[4, 5], [6, 7]]).take([1], axis=1, mode='clip')",
    "a = np.array([1, 2, 3]); a.put([0, 1], [9, 8]); a",
    "a = np.array([1, 2, 3]); a.put(indices=[5], values=[7], mode='clip'); a",
    "a = np.arange(6.0); a[::2].put([1], 9.5); a",
    "np.array([0, 1, 0]).choose([[1, 2, 3], [4, 5, 6]])",
    "np.array([0, 3, 1]).choose([10, 20, 30], mode='wrap')",
    "np.arange(9).reshape(3, 3).diagonal(offset=1)",
    "np.arange(24).reshape(2, 3, 4).diagonal(0, 2, 0)",
];

/// Programs NumPy refuses.
const REFUSED: &[&str] = &[
    "a = np.array(3.0); a.sort()",
    "a = np.array(3); a.sort(axis=0)",
    "a = np.arange(3); a.sort(axis=None)",
    "a = np.arange(3); a.sort(axis=1)",
    "a = np.arange(3); a.sort(1.0)",
    "a = np.arange(3.0); a.sort(order='x')",
    "a = np.arange(3.0); a.sort(axis=3, order='x')",
    "a = np.arange(3); a.sort(kind='foo')",
    "a = np.arange(3); a.sort(kind='')",
    "a = np.arange(3); a.sort(kind=1)",
    "a = np.arange(3); a.sort(kind='stable', stable=True)",
    "a = np.arange(3); a.sort(-1, 'stable', None, True)",
    "a = np.arange(3); a.partition(5)",
    "a = np.arange(3); a.partition(-4)",
    "a = np.arange(3); a.partition([0, 3])",
    "a = np.arange(3); a.partition(1, kind='quick')",
    "a = np.arange(3); a.partition(1, kind=None)",
    "a = np.arange(3); a.partition(1.0)",
    "a = np.arange(3); a.partition(True)",
    "a = np.arange(3); a.partition([])",
    "a = np.arange(3); a.partition(1, axis=None)",
    "a = np.arange(3); a.partition(1, axis=2)",
    "a = np.arange(3); a.partition(1, order='x')",
    "a = np.array(3); a.partition(0)",
    "a = np.arange(3); a.partition()",
    "a = np.arange(3); a.put(ind=[0], v=[1])",
];

#[test]
fn sort_method_sorts_in_place_like_numpy() {
    assert_programs_match_numpy("inplace_sort", SORT_CASES);
}

#[test]
fn partition_method_partitions_in_place() {
    assert_programs_match_numpy("inplace_partition", PARTITION_CASES);
}

#[test]
fn order_and_index_methods_have_numpys_signatures() {
    assert_programs_match_numpy("inplace_methods", METHOD_CASES);
}

#[test]
fn sort_and_partition_methods_refuse_like_numpy() {
    assert_programs_refused_like_numpy("inplace_refused", REFUSED);
}
