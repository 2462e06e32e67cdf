//! `.npy` files (NumPy's format), as `np.load` / `np.save` for one array.
//!
//! dtypes: bool, int32, uint32, int64, float16, float32, float64, complex64, in either byte
//! order and in C or Fortran order.

use crate::array::Array;
use crate::host::{HostArray, HostData};
use kupfer_core::{Error, Result};
use npyz::WriterBuilder;
use std::io::Read;

fn io_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{what}: {e}"))
}

/// NumPy's bound on a header's length (`np.load`'s `max_header_size`): longer headers are
/// refused before they are read.
pub const MAX_HEADER_BYTES: usize = 10_000;

/// What a `.npy` header says, checked before any data is read or allocated.
struct Header {
    /// Bytes before the data (magic, version, length field, header text).
    data_offset: usize,
    /// Bytes of data the header states: elements times the item size.
    data_len: usize,
}

/// The item size of a plain `.npy` type string (`'<f8'`: 8), if kupfer reads that type.
fn item_size(descr: &str) -> Option<usize> {
    Some(match descr.trim_start_matches(['<', '>', '|', '=']) {
        "b1" | "i1" | "u1" => 1,
        "f2" | "i2" | "u2" => 2,
        "i4" | "u4" | "f4" => 4,
        "i8" | "u8" | "f8" | "c8" => 8,
        "c16" => 16,
        _ => return None,
    })
}

/// Reads the magic, version and header of a `.npy` stream (at most [`MAX_HEADER_BYTES`] of
/// header) and checks its shape as NumPy checks a new array's, so that a header stating an
/// overflowing or impossible size is refused before its data is read. Returns the bytes read
/// (to be followed by the data) and what the header states.
fn read_header(reader: &mut impl std::io::Read) -> Result<(Vec<u8>, Header)> {
    let invalid = |m: &str| Error::Io(format!("not a valid .npy file: {m}"));
    let mut prefix = vec![0u8; 10];
    reader
        .read_exact(&mut prefix[..8])
        .map_err(|_| invalid("magic not found for NPY file"))?;
    if &prefix[..6] != b"\x93NUMPY" {
        return Err(invalid("magic not found for NPY file"));
    }
    let len_bytes = match prefix[6] {
        1 => 2,
        2 | 3 => 4,
        v => return Err(invalid(&format!("unsupported format version {v}"))),
    };
    prefix.resize(8 + len_bytes, 0);
    reader
        .read_exact(&mut prefix[8..])
        .map_err(|_| invalid("file ends inside the header"))?;
    let header_len = prefix[8..]
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    if header_len > MAX_HEADER_BYTES {
        return Err(invalid(&format!(
            "header of {header_len} bytes is longer than NumPy's max_header_size of \
             {MAX_HEADER_BYTES}"
        )));
    }
    let start = prefix.len();
    prefix.resize(start + header_len, 0);
    reader
        .read_exact(&mut prefix[start..])
        .map_err(|_| invalid("file ends inside the header"))?;
    // Python reads line breaks and tabs inside the dict as spaces (NumPy's header parser is
    // Python's); the trailing newline stays.
    let body_end = prefix.len().saturating_sub(1).max(start);
    for b in &mut prefix[start..body_end] {
        if matches!(*b, b'\n' | b'\r' | b'\t') {
            *b = b' ';
        }
    }
    let text = std::str::from_utf8(&prefix[start..])
        .map_err(|_| invalid("the header is not text"))?
        .trim_end();
    let dict: py_literal::Value = text
        .parse()
        .map_err(|_| invalid("the header is not a Python literal"))?;
    let py_literal::Value::Dict(entries) = dict else {
        return Err(invalid("the header is not a dictionary"));
    };
    let field = |name: &str| {
        entries
            .iter()
            .find(|(k, _)| matches!(k, py_literal::Value::String(s) if s == name))
            .map(|(_, v)| v)
    };
    let Some(py_literal::Value::Tuple(dims)) = field("shape") else {
        return Err(invalid("the header has no shape tuple"));
    };
    let dims: Vec<i64> = dims
        .iter()
        .map(|d| match d {
            py_literal::Value::Integer(i) => i
                .to_string()
                .parse()
                .map_err(|_| Error::invalid("Maximum allowed dimension exceeded")),
            _ => Err(invalid("a length in the shape is not an integer")),
        })
        .collect::<Result<_>>()?;
    let shape = kupfer_core::layout::shape_from_signed(&dims)?;
    // Types kupfer does not read are refused by the full parse below, with their name.
    let itemsize = match field("descr") {
        Some(py_literal::Value::String(d)) => item_size(d).unwrap_or(1),
        _ => 1,
    };
    let count = kupfer_core::layout::checked_size(&shape, itemsize)?;
    Ok((
        prefix,
        Header {
            data_offset: start + header_len,
            data_len: count * itemsize,
        },
    ))
}

/// Parses `.npy` bytes. The data must be at least as long as the header states (the check
/// comes before any allocation); bytes after it are ignored, as NumPy ignores them.
pub fn read_npy_bytes(bytes: &[u8]) -> Result<HostArray> {
    let (prefix, header) = read_header(&mut &bytes[..])?;
    let held = bytes.len() - header.data_offset;
    if held < header.data_len {
        return Err(short_data(header.data_len, held));
    }
    let end = header.data_offset + header.data_len;
    if prefix[..] == bytes[..header.data_offset] {
        parse_npy(&bytes[..end])
    } else {
        // The header's whitespace was normalised: parse the normalised copy.
        let mut all = prefix;
        all.extend_from_slice(&bytes[header.data_offset..end]);
        parse_npy(&all)
    }
}

fn short_data(stated: usize, held: usize) -> Error {
    Error::Io(format!(
        "not a valid .npy file: the header states {stated} bytes of data but the file holds {held}"
    ))
}

/// Parses complete, checked `.npy` bytes: the header and exactly the data it states.
fn parse_npy(bytes: &[u8]) -> Result<HostArray> {
    let npy = npyz::NpyFile::new(bytes).map_err(|e| io_err("not a valid .npy file", e))?;
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let fortran = npy.order() == npyz::Order::Fortran;
    let descr = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => return Err(Error::unsupported(format!(".npy dtype {}", other.descr()))),
    };
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    let bad = |e: std::io::Error| io_err("reading .npy data", e);
    let data = match code {
        // NumPy reads any non-zero byte as True; the data is the last bytes of `bytes`.
        "b1" => {
            let n = npy.len() as usize;
            HostData::Bool(bytes[bytes.len() - n..].iter().map(|&b| b != 0).collect())
        }
        "i1" => HostData::I8(npy.into_vec::<i8>().map_err(bad)?),
        "u1" => HostData::U8(npy.into_vec::<u8>().map_err(bad)?),
        "i2" => HostData::I16(npy.into_vec::<i16>().map_err(bad)?),
        "u2" => HostData::U16(npy.into_vec::<u16>().map_err(bad)?),
        "i4" => HostData::I32(npy.into_vec::<i32>().map_err(bad)?),
        "u4" => HostData::U32(npy.into_vec::<u32>().map_err(bad)?),
        "i8" => HostData::I64(npy.into_vec::<i64>().map_err(bad)?),
        "u8" => HostData::U64(npy.into_vec::<u64>().map_err(bad)?),
        "f2" => HostData::F16(npy.into_vec::<half::f16>().map_err(bad)?),
        "f4" => HostData::F32(npy.into_vec::<f32>().map_err(bad)?),
        "f8" => HostData::F64(npy.into_vec::<f64>().map_err(bad)?),
        "c8" => HostData::Complex64(npy.into_vec::<num_complex::Complex32>().map_err(bad)?),
        "c16" => HostData::Complex128(npy.into_vec::<num_complex::Complex64>().map_err(bad)?),
        _ => {
            return Err(Error::unsupported(format!(
                ".npy dtype '{descr}' (kupfer reads bool, int8, uint8, int16, uint16, int32, \
                 uint32, int64, uint64, float16, float32, float64, complex64, complex128)"
            )))
        }
    };
    let host = HostArray::new(shape.clone(), data)?;
    Ok(if fortran && shape.len() > 1 {
        fortran_to_c(host)
    } else {
        host
    })
}

/// Reorders Fortran-order data (C order of the reversed shape) into C order.
fn fortran_to_c(h: HostArray) -> HostArray {
    let shape = h.shape.clone();
    let n: usize = shape.iter().product();
    let nd = shape.len();
    // Element at C index (i0..ik) sits at Fortran offset sum(i_j * prod(shape[..j])).
    let mut fstrides = vec![1usize; nd];
    for j in 1..nd {
        fstrides[j] = fstrides[j - 1] * shape[j - 1];
    }
    let order: Vec<usize> = (0..n)
        .map(|lin| {
            let (mut rem, mut off) = (lin, 0);
            for j in (0..nd).rev() {
                off += (rem % shape[j]) * fstrides[j];
                rem /= shape[j];
            }
            off
        })
        .collect();
    macro_rules! perm {
        ($v:expr, $variant:ident) => {
            HostData::$variant(order.iter().map(|&i| $v[i]).collect())
        };
    }
    let data = match &h.data {
        HostData::Bool(v) => perm!(v, Bool),
        HostData::I8(v) => perm!(v, I8),
        HostData::U8(v) => perm!(v, U8),
        HostData::I16(v) => perm!(v, I16),
        HostData::U16(v) => perm!(v, U16),
        HostData::I32(v) => perm!(v, I32),
        HostData::U32(v) => perm!(v, U32),
        HostData::I64(v) => perm!(v, I64),
        HostData::U64(v) => perm!(v, U64),
        HostData::F16(v) => perm!(v, F16),
        HostData::F32(v) => perm!(v, F32),
        HostData::F64(v) => perm!(v, F64),
        HostData::Complex64(v) => perm!(v, Complex64),
        HostData::Complex128(v) => perm!(v, Complex128),
    };
    HostArray { shape, data }
}

/// Serialises a host array as `.npy` bytes (C order, little-endian).
pub fn write_npy_bytes(host: &HostArray) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let shape: Vec<u64> = host.shape.iter().map(|&d| d as u64).collect();
    macro_rules! write {
        ($t:ty, $v:expr) => {{
            let mut w = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(&shape)
                .writer(&mut out)
                .begin_nd()
                .map_err(|e| io_err("writing .npy", e))?;
            w.extend($v.iter().copied())
                .map_err(|e| io_err("writing .npy", e))?;
            w.finish().map_err(|e| io_err("writing .npy", e))?;
        }};
    }
    match &host.data {
        HostData::Bool(v) => write!(bool, v),
        HostData::I8(v) => write!(i8, v),
        HostData::U8(v) => write!(u8, v),
        HostData::I16(v) => write!(i16, v),
        HostData::U16(v) => write!(u16, v),
        HostData::I32(v) => write!(i32, v),
        HostData::U32(v) => write!(u32, v),
        HostData::I64(v) => write!(i64, v),
        HostData::U64(v) => write!(u64, v),
        HostData::F16(v) => write!(half::f16, v),
        HostData::F32(v) => write!(f32, v),
        HostData::F64(v) => write!(f64, v),
        HostData::Complex64(v) => write!(num_complex::Complex32, v),
        HostData::Complex128(v) => write!(num_complex::Complex64, v),
    }
    Ok(out)
}

/// Reads a `.npy` stream: the header (bounded), then exactly the data it states, never
/// more. `known_len`, the stream's full length where it is known (a regular file), lets a
/// short file be refused before its data is allocated; without it (a pipe, a device) the
/// buffer grows only with what the stream delivers, up to the stated size.
pub fn read_npy_from(mut reader: impl std::io::Read, known_len: Option<u64>) -> Result<HostArray> {
    let (mut bytes, header) = read_header(&mut reader)?;
    if let Some(len) = known_len {
        let held = len.saturating_sub(header.data_offset as u64);
        if held < header.data_len as u64 {
            return Err(short_data(header.data_len, held as usize));
        }
        bytes
            .try_reserve_exact(header.data_len)
            .map_err(|_| Error::OutOfMemory(format!("{} bytes of .npy data", header.data_len)))?;
    }
    let held = reader
        .take(header.data_len as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err("reading .npy data", e))?;
    if held < header.data_len {
        return Err(short_data(header.data_len, held));
    }
    parse_npy(&bytes)
}

/// Reads a `.npy` file into host memory. A regular file's length is checked against its
/// header before the data is read; any other file (a pipe, `/dev/zero`) is read only up to
/// the size its header states.
pub fn read_npy(path: impl AsRef<std::path::Path>) -> Result<HostArray> {
    let path = path.as_ref();
    let cannot = |e: std::io::Error| io_err(&format!("cannot read '{}'", path.display()), e);
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if meta.is_dir() {
        return Err(Error::Io(format!(
            "cannot read '{}': it is a directory",
            path.display()
        )));
    }
    let known_len = meta.is_file().then_some(meta.len());
    read_npy_from(std::io::BufReader::new(file), known_len).map_err(|e| match e {
        Error::Io(m) => Error::Io(format!("'{}': {m}", path.display())),
        Error::Unsupported(m) => Error::Unsupported(format!("'{}': {m}", path.display())),
        Error::InvalidArgument(m) => Error::Io(format!("'{}': {m}", path.display())),
        e => e,
    })
}

/// Writes a host array as a `.npy` file, atomically: into a new temporary file in the same
/// directory, flushed to disk, then renamed over `path`. If anything fails (a full disk, a
/// file-size limit) the temporary file is removed, and `path` is as it was: absent, or the
/// old file untouched.
pub fn write_npy(path: impl AsRef<std::path::Path>, host: &HostArray) -> Result<()> {
    let path = path.as_ref();
    let bytes = write_npy_bytes(host)?;
    write_atomically(path, &bytes)
        .map_err(|e| io_err(&format!("cannot write '{}'", path.display()), e))
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(
        ".{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let tmp = dir.join(tmp_name);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            drop(file);
            std::fs::rename(&tmp, path)
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Loads a `.npy` file onto the current device (`cp.load`).
pub fn load(path: impl AsRef<std::path::Path>) -> Result<Array> {
    Array::from_host(&read_npy(path)?)
}

/// Saves an array as a `.npy` file (`cp.save`).
#[cfg(not(target_arch = "wasm32"))]
pub fn save(path: impl AsRef<std::path::Path>, a: &Array) -> Result<()> {
    write_npy(path, &a.to_host()?)
}
