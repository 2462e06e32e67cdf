//! Bluestein's chirp-z transform for sizes with a prime factor above 7: a DFT of size `n` as
//! a circular convolution of a smooth size `m >= 2n - 1` (see [`convolution_size`]), O(n log
//! n) at every size.
//!
//! With `w_j = exp(-sgn * pi i j^2 / n)` (j^2 reduced modulo 2n exactly, in f64):
//! `X_k = w_k * sum_j (x_j w_j) conj(w_(k-j))`. The chirp multiply is fused into the first
//! pass's load, the product with the precomputed spectrum `B = FFT(conj(w)) / m` into the
//! forward transform's last store, and the final chirp, crop and scale into the inverse
//! transform's last store: two power-of-two transforms, no extra kernels.

use super::plan::{scratch, Aux, Job, LineKind, Lines, Precision, Stockham};
use crate::device::Device;
use kupfer_core::fft::{self, LoadKind};
use kupfer_core::{Error, Result};
use kupfer_wgpu::GpuBuffer;
use std::sync::Arc;

/// A chirp-z plan: the inner smooth-size plan and `[chirp (n) | B (m)]` in one buffer.
pub(crate) struct Bluestein {
    n: usize,
    m: usize,
    inner: Stockham,
    aux: Arc<GpuBuffer>,
    precision: Precision,
}

impl Bluestein {
    /// The plan of size `n` in direction `sgn`; `B` is computed on the device.
    pub(crate) fn new(
        device: &Device,
        n: usize,
        sgn: i8,
        kind: LineKind,
        precision: Precision,
    ) -> Result<Bluestein> {
        let m = convolution_size(n);
        // Its inner transforms keep the passes they were measured with: the register passes
        // of large batches were not (those of mid-sized ones were 1.4-2x slower here).
        let kind = LineKind {
            large: false,
            ..kind
        };
        let inner = Stockham::new(device, m, kind, precision)?
            .ok_or_else(|| Error::invalid("smooth-size FFT plan missing"))?;
        let w = fft::chirp(n, f64::from(sgn));
        let mut aux = w.clone();
        aux.resize(n + m, [0.0, 0.0]);
        let aux = device.context().upload(&precision.table_bytes(&aux))?;
        let mut b = vec![[0.0f64; 2]; m];
        for (j, c) in w.iter().enumerate() {
            let v = [c[0], -c[1]];
            b[j] = v;
            if j > 0 {
                b[m - j] = v;
            }
        }
        let b = device.context().upload(&precision.table_bytes(&b))?;
        let job = Job {
            lines: 1,
            blo: 1,
            input: whole(&b, 0),
            in_len: m,
            load: LoadKind::Complex,
            conj_in: false,
            output: whole(&aux, n as u32),
            out_len: m,
            store_real: false,
            sgn: 1,
            scale: 1.0 / m as f64,
            nlog: 0,
            real_dc: None,
        };
        inner.run(device, &job, None)?;
        Ok(Bluestein {
            n,
            m,
            inner,
            aux,
            precision,
        })
    }

    /// Runs the transform over `job` (input and output as for a Stockham plan).
    pub(crate) fn run(&self, device: &Device, job: &Job) -> Result<()> {
        let tmp = scratch(device, job.lines, job.blo, self.m, self.precision)?;
        let first = Job {
            output: tmp.clone(),
            out_len: self.m,
            store_real: false,
            real_dc: None,
            sgn: 1,
            scale: 1.0,
            nlog: self.n,
            in_len: job.in_len.min(self.n),
            ..job.clone()
        };
        self.inner.run(
            device,
            &first,
            Some(Aux {
                buffer: &self.aux,
                load: Some(0),
                store: Some(self.n as u32),
            }),
        )?;
        let second = Job {
            input: tmp,
            in_len: self.m,
            load: LoadKind::Complex,
            conj_in: false,
            sgn: -1,
            nlog: 0,
            out_len: job.out_len.min(self.n),
            ..job.clone()
        };
        self.inner.run(
            device,
            &second,
            Some(Aux {
                buffer: &self.aux,
                load: None,
                store: Some(0),
            }),
        )
    }
}

/// The circular convolution size for a chirp-z transform of `n`: the smallest `2^a 3^b 5^c`
/// (b ≤ 2, c ≤ 1) of at least `2n - 1`, so that the two inner transforms stay Stockham plans
/// with at most three odd-radix passes, and are up to 44% shorter than the next power of two
/// (1048577: 9 * 2^18 instead of 2^22).
fn convolution_size(n: usize) -> usize {
    let need = 2 * n - 1;
    let mut best = need.next_power_of_two();
    for odd in [3, 5, 9, 15, 45] {
        let mut m = odd;
        while m < need {
            m *= 2;
        }
        best = best.min(m);
    }
    best
}

fn whole(buffer: &Arc<GpuBuffer>, off: u32) -> Lines {
    Lines {
        buffer: buffer.clone(),
        off,
        stride: 1,
        shi: 0,
        slo: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::convolution_size;

    #[test]
    fn convolution_sizes_are_smooth_and_long_enough() {
        for n in [2usize, 3, 11, 13, 97, 1009, 999_983, 1_048_577, 4_194_319] {
            let m = convolution_size(n);
            assert!(m >= 2 * n - 1, "{n}: {m}");
            let mut r = m;
            for p in [2, 3, 5] {
                while r.is_multiple_of(p) {
                    r /= p;
                }
            }
            assert_eq!(r, 1, "{n}: {m} is not 2,3,5-smooth");
            assert!(m <= (2 * n - 1).next_power_of_two());
        }
        assert_eq!(convolution_size(1_048_577), 9 << 18);
        assert_eq!(convolution_size(999_983), 1 << 21);
    }
}
