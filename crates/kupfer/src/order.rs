//! NumPy's `order=` for reading and writing elements: `ravel`, `flatten`, `reshape` and
//! `copy` in C (row-major), F (column-major), A and K order, as views and permutations of
//! views over kupfer's C-ordered buffers.

use crate::array::Array;
use kupfer_core::layout::{resolve_shape, Layout};
use kupfer_core::{Error, Result};

/// NumPy's index order (`order='C'`, `'F'`, `'A'`, `'K'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// Row-major: the last index changes fastest.
    #[default]
    C,
    /// Column-major: the first index changes fastest.
    F,
    /// F when the array is Fortran-contiguous and not C-contiguous, else C.
    A,
    /// Memory order: the axes as their strides lie in memory (NumPy's iterator order; negative
    /// strides are not flipped).
    K,
}

impl Order {
    /// Parses NumPy's spelling (`"C"`, `"F"`, `"A"`, `"K"`, any case).
    ///
    /// ```
    /// assert_eq!(kupfer::Order::parse("f")?, kupfer::Order::F);
    /// assert!(kupfer::Order::parse("X").is_err());
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<Order> {
        match s {
            "C" | "c" => Ok(Order::C),
            "F" | "f" => Ok(Order::F),
            "A" | "a" => Ok(Order::A),
            "K" | "k" => Ok(Order::K),
            _ => Err(Error::invalid(format!(
                "order must be one of 'C', 'F', 'A', or 'K' (got '{s}')"
            ))),
        }
    }
}

/// True when `layout` is Fortran-contiguous and not C-contiguous (NumPy's `ISFORTRAN`).
fn is_fortran(layout: &Layout) -> bool {
    if layout.is_c_contiguous() {
        return false;
    }
    let mut acc = 1isize;
    for (&n, &s) in layout.shape.iter().zip(&layout.strides) {
        if n != 1 && s != acc {
            return false;
        }
        acc *= n as isize;
    }
    true
}

/// The axes from outermost to innermost in NumPy's memory order (its iterator's insertion sort
/// on |stride|, where a zero stride compares with nothing and so keeps its place).
fn memory_axes(layout: &Layout) -> Vec<isize> {
    let n = layout.ndim();
    // Innermost first, as NumPy's iterator keeps its axes.
    let mut perm: Vec<usize> = (0..n).rev().collect();
    for i0 in 1..n {
        let ax0 = perm[i0];
        let s0 = layout.strides[ax0].unsigned_abs();
        let mut pos = i0;
        for i1 in (0..i0).rev() {
            let s1 = layout.strides[perm[i1]].unsigned_abs();
            if s0 != 0 && s1 != 0 {
                if s1 <= s0 {
                    break;
                }
                pos = i1;
            }
        }
        if pos != i0 {
            perm.remove(i0);
            perm.insert(pos, ax0);
        }
    }
    perm.iter().rev().map(|&a| a as isize).collect()
}

impl Array {
    /// The order `order` means for this array: `A` and `K` resolved against its layout, as a
    /// permutation of the axes (outermost first) to read in C order.
    fn read_axes(&self, order: Order) -> Result<Vec<isize>> {
        let n = self.ndim() as isize;
        let c: Vec<isize> = (0..n).collect();
        let f: Vec<isize> = (0..n).rev().collect();
        Ok(match order {
            Order::C => c,
            Order::F => f,
            Order::A if self.ndim() > 1 && is_fortran(&self.layout()?) => f,
            Order::A => c,
            Order::K if self.ndim() > 1 => {
                let layout = self.layout()?;
                if layout.is_c_contiguous() {
                    c
                } else if is_fortran(&layout) {
                    f
                } else {
                    memory_axes(&layout)
                }
            }
            Order::K => c,
        })
    }

    /// `a.ravel(order)`: the elements in `order` as a 1-D array (a view when possible).
    ///
    /// ```
    /// use kupfer::Order;
    /// let x = kupfer::Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(x.ravel_order(Order::F)?.to_vec::<i32>()?, [1, 4, 2, 5, 3, 6]);
    /// assert_eq!(x.transpose(None)?.ravel_order(Order::K)?.to_vec::<i32>()?, [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn ravel_order(&self, order: Order) -> Result<Array> {
        let axes = self.read_axes(order)?;
        self.transpose(Some(&axes))?.ravel()
    }

    /// `a.flatten(order)`: [`Array::ravel_order`], always a copy.
    pub fn flatten_order(&self, order: Order) -> Result<Array> {
        let axes = self.read_axes(order)?;
        self.transpose(Some(&axes))?.flatten()
    }

    /// `a.reshape(shape, order)`: reads the elements in `order` and places them in the new
    /// shape in that order (F: the first index fastest; A: F when the array is
    /// Fortran-contiguous; K is not allowed, as in NumPy).
    pub fn reshape_order(&self, shape: &[isize], order: Order) -> Result<Array> {
        let fortran = match order {
            Order::C => false,
            Order::F => true,
            Order::A => self.ndim() > 1 && is_fortran(&self.layout()?),
            Order::K => return Err(Error::invalid("order 'K' is not permitted for reshaping")),
        };
        if !fortran {
            return self.reshape(shape);
        }
        let mut reversed: Vec<isize> = resolve_shape(shape, self.size())?
            .iter()
            .map(|&n| n as isize)
            .collect();
        reversed.reverse();
        self.transpose(None)?.reshape(&reversed)?.transpose(None)
    }

    /// `a.copy(order)`: a copy laid out in `order` (F: Fortran-contiguous, as NumPy's
    /// `np.array(a, order='F')`; K: the axes' memory order kept, strides made positive).
    pub fn copy_order(&self, order: Order) -> Result<Array> {
        let axes = self.read_axes(order)?;
        let mut inverse = vec![0isize; axes.len()];
        for (i, &a) in axes.iter().enumerate() {
            inverse[a as usize] = i as isize;
        }
        self.transpose(Some(&axes))?
            .copy()?
            .transpose(Some(&inverse))
    }
}

impl Array {
    /// This array (of `proto`'s shape) laid out as `order` says for `proto`: NumPy's `*_like`
    /// and `astype` keep the prototype's memory order under `K` (and `A` when it is
    /// Fortran-contiguous). Copies only when the layout changes.
    pub fn with_layout_of(&self, proto: &Array, order: Order) -> Result<Array> {
        if self.shape() != proto.shape() {
            return match order {
                Order::F => self.copy_order(Order::F),
                _ => Ok(self.clone()),
            };
        }
        let axes = proto.read_axes(order)?;
        if axes.iter().enumerate().all(|(i, &a)| a == i as isize) {
            return Ok(self.clone());
        }
        let mut inverse = vec![0isize; axes.len()];
        for (i, &a) in axes.iter().enumerate() {
            inverse[a as usize] = i as isize;
        }
        self.transpose(Some(&axes))?
            .copy()?
            .transpose(Some(&inverse))
    }
}

impl Array {
    /// This array itself when its layout already satisfies `order` (C: C-contiguous; F:
    /// Fortran-contiguous; A and K: any), else [`Array::copy_order`] (`np.asarray(a, order=)`).
    pub fn as_order(&self, order: Order) -> Result<Array> {
        let keep = match order {
            Order::C => self.ndim() < 2 || self.layout()?.is_c_contiguous(),
            Order::F => {
                let layout = self.layout()?;
                self.ndim() < 2 || self.size() <= 1 || is_fortran(&layout) || {
                    // C-contiguous with at most one axis longer than 1 is F-contiguous too.
                    layout.is_c_contiguous() && self.shape().iter().filter(|&&n| n > 1).count() <= 1
                }
            }
            Order::A | Order::K => true,
        };
        if keep {
            Ok(self.clone())
        } else {
            self.copy_order(order)
        }
    }
}
