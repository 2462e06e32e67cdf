//! Host-side arrays: typed element conversion between Rust values, GPU storage and `.npy`.

use half::f16;
use kupfer_core::{DType, Error, Result};
use num_complex::{Complex32, Complex64};

/// A Rust element type with a kupfer dtype.
pub trait Element: Copy + Send + Sync + 'static + std::fmt::Debug {
    /// The dtype of this type.
    const DTYPE: DType;
    /// Appends the GPU storage encoding of `xs` to `out`.
    fn encode(xs: &[Self], out: &mut Vec<u8>);
    /// The GPU storage bytes of `xs`: borrowed where the host layout already is the GPU's.
    fn gpu_bytes(xs: &[Self]) -> std::borrow::Cow<'_, [u8]> {
        let mut out = Vec::with_capacity(std::mem::size_of_val(xs));
        Self::encode(xs, &mut out);
        std::borrow::Cow::Owned(out)
    }
    /// Decodes GPU storage bytes.
    fn decode(bytes: &[u8]) -> Vec<Self>;
    /// Decodes GPU storage bytes (a whole number of elements) onto the end of `out`.
    fn decode_onto(bytes: &[u8], out: &mut Vec<Self>) {
        out.extend(Self::decode(bytes));
    }
    /// NumPy's little-endian bytes of `xs` (the packed GPU storage of the small integers).
    fn host_bytes(xs: &[Self]) -> std::borrow::Cow<'_, [u8]> {
        Self::gpu_bytes(xs)
    }
    /// Decodes NumPy's little-endian bytes (a packed small-integer buffer).
    fn decode_host(bytes: &[u8]) -> Vec<Self> {
        Self::decode(bytes)
    }
}

macro_rules! pod_element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn encode(xs: &[Self], out: &mut Vec<u8>) {
                out.extend_from_slice(bytemuck::cast_slice(xs));
            }
            fn gpu_bytes(xs: &[Self]) -> std::borrow::Cow<'_, [u8]> {
                std::borrow::Cow::Borrowed(bytemuck::cast_slice(xs))
            }
            fn decode(bytes: &[u8]) -> Vec<Self> {
                // Large read-backs are split over the copy pool's threads, into memory the
                // allocator need not zero first.
                let mut out = Vec::new();
                crate::copy_pool::append(&mut out, bytes);
                out
            }
            fn decode_onto(bytes: &[u8], out: &mut Vec<Self>) {
                crate::copy_pool::append(out, bytes);
            }
        }
    )*};
}
pod_element!(i32 => I32, u32 => U32, i64 => I64, u64 => U64, f32 => F32, f64 => F64, f16 => F16);

/// The small integers: packed on the GPU (see [`DType`]'s storage note), or one sign- or
/// zero-extended 32-bit word each (`gpu_bytes`/`decode`, the word form families compute on).
macro_rules! small_int_element {
    ($($t:ty => $wide:ty, $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn encode(xs: &[Self], out: &mut Vec<u8>) {
                out.reserve(xs.len() * 4);
                for &x in xs {
                    out.extend_from_slice(&<$wide>::from(x).to_le_bytes());
                }
            }
            fn decode(bytes: &[u8]) -> Vec<Self> {
                // The GPU holds every small integer in range; `as` keeps its low bits.
                bytes
                    .chunks_exact(4)
                    .map(|c| <$wide>::from_le_bytes([c[0], c[1], c[2], c[3]]) as $t)
                    .collect()
            }
            fn host_bytes(xs: &[Self]) -> std::borrow::Cow<'_, [u8]> {
                std::borrow::Cow::Owned(xs.iter().flat_map(|x| x.to_le_bytes()).collect())
            }
            fn decode_host(bytes: &[u8]) -> Vec<Self> {
                const SIZE: usize = std::mem::size_of::<$t>();
                bytes
                    .chunks_exact(SIZE)
                    .map(|c| <$t>::from_le_bytes(c.try_into().expect("one element's bytes")))
                    .collect()
            }
        }
    )*};
}
small_int_element!(i8 => i32, I8, u8 => u32, U8, i16 => i32, I16, u16 => u32, U16);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn encode(xs: &[Self], out: &mut Vec<u8>) {
        out.reserve(xs.len() * 4);
        for &b in xs {
            out.extend_from_slice(&u32::from(b).to_le_bytes());
        }
    }
    fn decode(bytes: &[u8]) -> Vec<Self> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) != 0)
            .collect()
    }
}

/// Complex elements: the real part, then the imaginary part, each little-endian.
macro_rules! complex_element {
    ($($t:ty => $part:ty, $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn encode(xs: &[Self], out: &mut Vec<u8>) {
                out.reserve(std::mem::size_of_val(xs));
                for z in xs {
                    out.extend_from_slice(&z.re.to_le_bytes());
                    out.extend_from_slice(&z.im.to_le_bytes());
                }
            }
            fn decode(bytes: &[u8]) -> Vec<Self> {
                const PART: usize = std::mem::size_of::<$part>();
                let part = |b: &[u8]| {
                    <$part>::from_le_bytes(b.try_into().expect("one component's bytes"))
                };
                bytes
                    .chunks_exact(2 * PART)
                    .map(|c| <$t>::new(part(&c[..PART]), part(&c[PART..])))
                    .collect()
            }
        }
    )*};
}
complex_element!(Complex32 => f32, Complex64, Complex64 => f64, Complex128);

/// Typed host data of any kupfer dtype.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum HostData {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F16(Vec<f16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Complex64(Vec<Complex32>),
    Complex128(Vec<Complex64>),
}

macro_rules! dispatch_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            HostData::Bool($v) => $body,
            HostData::I8($v) => $body,
            HostData::U8($v) => $body,
            HostData::I16($v) => $body,
            HostData::U16($v) => $body,
            HostData::I32($v) => $body,
            HostData::U32($v) => $body,
            HostData::I64($v) => $body,
            HostData::U64($v) => $body,
            HostData::F16($v) => $body,
            HostData::F32($v) => $body,
            HostData::F64($v) => $body,
            HostData::Complex64($v) => $body,
            HostData::Complex128($v) => $body,
        }
    };
}

impl HostData {
    /// The dtype.
    pub fn dtype(&self) -> DType {
        match self {
            HostData::Bool(_) => DType::Bool,
            HostData::I8(_) => DType::I8,
            HostData::U8(_) => DType::U8,
            HostData::I16(_) => DType::I16,
            HostData::U16(_) => DType::U16,
            HostData::I32(_) => DType::I32,
            HostData::U32(_) => DType::U32,
            HostData::I64(_) => DType::I64,
            HostData::U64(_) => DType::U64,
            HostData::F16(_) => DType::F16,
            HostData::F32(_) => DType::F32,
            HostData::F64(_) => DType::F64,
            HostData::Complex64(_) => DType::Complex64,
            HostData::Complex128(_) => DType::Complex128,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        dispatch_data!(self, v => v.len())
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// GPU storage bytes (borrowed for every dtype but bool, the small integers and complex).
    pub fn gpu_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        dispatch_data!(self, v => Element::gpu_bytes(v))
    }

    /// NumPy's little-endian bytes (the packed GPU storage of the small integers).
    pub fn host_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        dispatch_data!(self, v => Element::host_bytes(v))
    }

    /// Decodes GPU storage bytes of `dtype`.
    pub fn decode(dtype: DType, bytes: &[u8]) -> HostData {
        match dtype {
            DType::Bool => HostData::Bool(Element::decode(bytes)),
            DType::I8 => HostData::I8(Element::decode(bytes)),
            DType::U8 => HostData::U8(Element::decode(bytes)),
            DType::I16 => HostData::I16(Element::decode(bytes)),
            DType::U16 => HostData::U16(Element::decode(bytes)),
            DType::I32 => HostData::I32(Element::decode(bytes)),
            DType::U32 => HostData::U32(Element::decode(bytes)),
            DType::I64 => HostData::I64(Element::decode(bytes)),
            DType::U64 => HostData::U64(Element::decode(bytes)),
            DType::F16 => HostData::F16(Element::decode(bytes)),
            DType::F32 => HostData::F32(Element::decode(bytes)),
            DType::F64 => HostData::F64(Element::decode(bytes)),
            DType::Complex64 => HostData::Complex64(Element::decode(bytes)),
            DType::Complex128 => HostData::Complex128(Element::decode(bytes)),
        }
    }

    /// Element `i` as f64 (real part of complex, 1/0 for bool).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            HostData::Bool(v) => f64::from(u8::from(v[i])),
            HostData::I8(v) => f64::from(v[i]),
            HostData::U8(v) => f64::from(v[i]),
            HostData::I16(v) => f64::from(v[i]),
            HostData::U16(v) => f64::from(v[i]),
            HostData::I32(v) => f64::from(v[i]),
            HostData::U32(v) => f64::from(v[i]),
            HostData::I64(v) => v[i] as f64,
            HostData::U64(v) => v[i] as f64,
            HostData::F16(v) => f64::from(v[i]),
            HostData::F32(v) => f64::from(v[i]),
            HostData::F64(v) => v[i],
            HostData::Complex64(v) => f64::from(v[i].re),
            HostData::Complex128(v) => v[i].re,
        }
    }
}

/// An n-dimensional array in host memory (C order).
#[derive(Debug, Clone, PartialEq)]
pub struct HostArray {
    /// Shape.
    pub shape: Vec<usize>,
    /// Elements in C order.
    pub data: HostData,
}

impl HostArray {
    /// Checks that the element count matches the shape.
    pub fn new(shape: Vec<usize>, data: HostData) -> Result<HostArray> {
        let n = kupfer_core::layout::checked_size(&shape, data.dtype().host_size())?;
        if n != data.len() {
            return Err(Error::invalid(format!(
                "{} elements cannot have shape {shape:?}",
                data.len()
            )));
        }
        Ok(HostArray { shape, data })
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }
}
