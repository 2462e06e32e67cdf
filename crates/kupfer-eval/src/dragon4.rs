//! Exact float-to-decimal conversion with NumPy's digit rules.
//!
//! NumPy prints floats with Dragon4 (Steele & White, Burger & Dybvig) in its own variant:
//! "unique" mode prints the shortest digits that identify the value among floats *of its
//! own type* (so float16 `0.1` prints as `0.1`), a cutoff can cap the digits (rounding the
//! exact binary value, ties to even), and a minimum can force more *true* digits of the
//! binary value (float32 `0.3` with 8 digits is `3.0000001e-01`, not `3.0000000e-01`).
//! [`positional`] and [`scientific`] reproduce `np.format_float_positional` and
//! `np.format_float_scientific` for finite values, with big-integer arithmetic.

use std::cmp::Ordering;

/// An arbitrary-precision unsigned integer, little-endian 32-bit limbs, no leading zero limbs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BigUint {
    limbs: Vec<u32>,
}

impl BigUint {
    fn from_u64(v: u64) -> BigUint {
        let mut b = BigUint {
            limbs: vec![v as u32, (v >> 32) as u32],
        };
        b.trim();
        b
    }

    fn pow2(n: u32) -> BigUint {
        let mut b = BigUint::from_u64(1);
        b.shl(n);
        b
    }

    fn pow10(n: u32) -> BigUint {
        let mut b = BigUint::from_u64(1);
        let mut left = n;
        while left >= 9 {
            b.mul_small(1_000_000_000);
            left -= 9;
        }
        b.mul_small(10u32.pow(left));
        b
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    fn shl(&mut self, bits: u32) {
        if self.is_zero() || bits == 0 {
            return;
        }
        let words = (bits / 32) as usize;
        let rem = bits % 32;
        let mut out = vec![0u32; words];
        if rem == 0 {
            out.extend_from_slice(&self.limbs);
        } else {
            let mut carry = 0u32;
            for &l in &self.limbs {
                out.push((l << rem) | carry);
                carry = l >> (32 - rem);
            }
            if carry != 0 {
                out.push(carry);
            }
        }
        self.limbs = out;
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in &mut self.limbs {
            let p = u64::from(*l) * u64::from(m) + carry;
            *l = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
        self.trim();
    }

    fn mul(&self, other: &BigUint) -> BigUint {
        let mut out = vec![0u32; self.limbs.len() + other.limbs.len()];
        for (i, &a) in self.limbs.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in other.limbs.iter().enumerate() {
                let t = u64::from(out[i + j]) + u64::from(a) * u64::from(b) + carry;
                out[i + j] = t as u32;
                carry = t >> 32;
            }
            let mut k = i + other.limbs.len();
            while carry != 0 {
                let t = u64::from(out[k]) + carry;
                out[k] = t as u32;
                carry = t >> 32;
                k += 1;
            }
        }
        let mut b = BigUint { limbs: out };
        b.trim();
        b
    }

    fn add(&self, other: &BigUint) -> BigUint {
        let n = self.limbs.len().max(other.limbs.len());
        let mut out = Vec::with_capacity(n + 1);
        let mut carry = 0u64;
        for i in 0..n {
            let a = u64::from(self.limbs.get(i).copied().unwrap_or(0));
            let b = u64::from(other.limbs.get(i).copied().unwrap_or(0));
            let t = a + b + carry;
            out.push(t as u32);
            carry = t >> 32;
        }
        if carry != 0 {
            out.push(carry as u32);
        }
        let mut b = BigUint { limbs: out };
        b.trim();
        b
    }

    /// `self -= other`; requires `self >= other`.
    fn sub_assign(&mut self, other: &BigUint) {
        let mut borrow = 0i64;
        for i in 0..self.limbs.len() {
            let b = i64::from(other.limbs.get(i).copied().unwrap_or(0));
            let mut t = i64::from(self.limbs[i]) - b - borrow;
            borrow = 0;
            if t < 0 {
                t += 1 << 32;
                borrow = 1;
            }
            self.limbs[i] = t as u32;
        }
        self.trim();
    }

    fn cmp(&self, other: &BigUint) -> Ordering {
        self.limbs.len().cmp(&other.limbs.len()).then_with(|| {
            for (a, b) in self.limbs.iter().rev().zip(other.limbs.iter().rev()) {
                match a.cmp(b) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            Ordering::Equal
        })
    }

    /// `floor(self / divisor)` for a quotient known to be below 10; `self` keeps the remainder.
    fn div_rem_digit(&mut self, divisor: &BigUint) -> u32 {
        let mut q = 0;
        while self.cmp(divisor) != Ordering::Less {
            self.sub_assign(divisor);
            q += 1;
        }
        q
    }
}

/// A finite float as `mantissa · 2^exponent`, with what Dragon4 needs to know about its type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatParts {
    /// Integer significand (with the hidden bit for normal numbers).
    pub mantissa: u64,
    /// Binary exponent.
    pub exponent: i32,
    /// Index of the highest set bit of `mantissa`.
    pub mantissa_bit: u32,
    /// True when the gap to the next float below is half the gap above (powers of two).
    pub unequal_margins: bool,
    /// The sign bit.
    pub negative: bool,
}

fn parts(bits: u64, mant_bits: u32, exp_bits: u32, negative: bool) -> FloatParts {
    let frac = bits & ((1u64 << mant_bits) - 1);
    let biased = ((bits >> mant_bits) & ((1u64 << exp_bits) - 1)) as i32;
    let bias = (1i32 << (exp_bits - 1)) - 1;
    if biased != 0 {
        FloatParts {
            mantissa: frac | (1u64 << mant_bits),
            exponent: biased - bias - mant_bits as i32,
            mantissa_bit: mant_bits,
            unequal_margins: biased != 1 && frac == 0,
            negative,
        }
    } else {
        FloatParts {
            mantissa: frac,
            exponent: 1 - bias - mant_bits as i32,
            mantissa_bit: 63u32.saturating_sub(frac.leading_zeros()),
            unequal_margins: false,
            negative,
        }
    }
}

impl FloatParts {
    /// Parts of a float64.
    pub fn f64(x: f64) -> FloatParts {
        parts(x.to_bits(), 52, 11, x.is_sign_negative())
    }

    /// Parts of a float32.
    pub fn f32(x: f32) -> FloatParts {
        parts(u64::from(x.to_bits()), 23, 8, x.is_sign_negative())
    }

    /// Parts of a float16 given by its bits.
    pub fn f16_bits(bits: u16) -> FloatParts {
        parts(u64::from(bits), 10, 5, bits & 0x8000 != 0)
    }
}

/// How Dragon4 chooses digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigitMode {
    /// The shortest digits that round-trip in the value's own type.
    Unique,
    /// The exact binary value, up to the cutoff.
    Exact,
}

/// What a precision counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutoffMode {
    /// Significant digits.
    TotalLength,
    /// Digits after the decimal point.
    FractionLength,
}

/// NumPy's trim modes (`'k'`, `'.'`, `'0'`, `'-'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trim {
    /// `'k'`: keep trailing zeros.
    None,
    /// `'.'`: trim trailing zeros, keep the point.
    Zeros,
    /// `'0'`: trim trailing zeros but leave one after the point.
    LeaveOneZero,
    /// `'-'`: trim trailing zeros and the point.
    DptZeros,
}

const MAX_DIGITS: i32 = 16384;

/// The digits of `p` and the decimal exponent of the first one. `cutoff_max` / `cutoff_min`
/// are -1 for none.
fn digits(
    p: &FloatParts,
    mode: DigitMode,
    cutoff_mode: CutoffMode,
    cutoff_max: i32,
    cutoff_min: i32,
) -> (Vec<u8>, i32) {
    if p.mantissa == 0 {
        return (vec![0], 0);
    }
    let is_even = p.mantissa.is_multiple_of(2);
    let m = BigUint::from_u64(p.mantissa);
    let high_factor: u32 = if p.unequal_margins { 2 } else { 1 };
    // value = m·2^e; scaled so that value = num/scale, margins = half gaps to neighbours.
    let (mut num, mut scale, mut margin_low) = if p.exponent > 0 {
        let mut num = m;
        num.shl(p.exponent as u32 + high_factor);
        (
            num,
            BigUint::from_u64(2 * u64::from(high_factor)),
            BigUint::pow2(p.exponent as u32),
        )
    } else {
        let mut num = m;
        num.shl(high_factor);
        let scale = BigUint::pow2((-p.exponent) as u32 + high_factor);
        (num, scale, BigUint::from_u64(1))
    };
    let log10_2 = std::f64::consts::LOG10_2;
    let mut digit_exp =
        ((f64::from(p.mantissa_bit as i32 + p.exponent)) * log10_2 - 0.69).ceil() as i32;
    if cutoff_max >= 0 && cutoff_mode == CutoffMode::FractionLength && digit_exp <= -cutoff_max {
        digit_exp = -cutoff_max + 1;
    }
    if digit_exp > 0 {
        scale = scale.mul(&BigUint::pow10(digit_exp as u32));
    } else if digit_exp < 0 {
        let p10 = BigUint::pow10((-digit_exp) as u32);
        num = num.mul(&p10);
        margin_low = margin_low.mul(&p10);
    }
    if num.cmp(&scale) != Ordering::Less {
        digit_exp += 1;
    } else {
        num.mul_small(10);
        margin_low.mul_small(10);
    }
    let mut cutoff_max_exp = digit_exp - MAX_DIGITS;
    if cutoff_max >= 0 {
        let desired = match cutoff_mode {
            CutoffMode::TotalLength => digit_exp - cutoff_max,
            CutoffMode::FractionLength => -cutoff_max,
        };
        cutoff_max_exp = cutoff_max_exp.max(desired);
    }
    let mut cutoff_min_exp = digit_exp;
    if cutoff_min >= 0 {
        let desired = match cutoff_mode {
            CutoffMode::TotalLength => digit_exp - cutoff_min,
            CutoffMode::FractionLength => -cutoff_min,
        };
        cutoff_min_exp = cutoff_min_exp.min(desired);
    }
    let mut out_exp = digit_exp - 1;
    let mut out = Vec::new();
    let (mut low, mut high) = (false, false);
    let mut digit;
    match mode {
        DigitMode::Unique => loop {
            digit_exp -= 1;
            digit = num.div_rem_digit(&scale) as u8;
            let mut margin_high = margin_low.clone();
            margin_high.mul_small(high_factor);
            let num_high = num.add(&margin_high);
            let c = num.cmp(&margin_low);
            low = if is_even {
                c != Ordering::Greater
            } else {
                c == Ordering::Less
            };
            let c = num_high.cmp(&scale);
            high = if is_even {
                c != Ordering::Less
            } else {
                c == Ordering::Greater
            };
            if ((low || high) && digit_exp <= cutoff_min_exp) || digit_exp == cutoff_max_exp {
                break;
            }
            out.push(digit);
            num.mul_small(10);
            margin_low.mul_small(10);
        },
        DigitMode::Exact => loop {
            digit_exp -= 1;
            digit = num.div_rem_digit(&scale) as u8;
            if num.is_zero() || digit_exp == cutoff_max_exp {
                break;
            }
            out.push(digit);
            num.mul_small(10);
        },
    }
    let mut round_down = low;
    if low == high {
        num.mul_small(2);
        round_down = match num.cmp(&scale) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => digit % 2 == 0,
        };
    }
    if round_down {
        out.push(digit);
    } else if digit < 9 {
        out.push(digit + 1);
    } else {
        // Carry through trailing nines.
        loop {
            match out.pop() {
                None => {
                    out.push(1);
                    out_exp += 1;
                    break;
                }
                Some(9) => {}
                Some(d) => {
                    out.push(d + 1);
                    break;
                }
            }
        }
    }
    (out, out_exp)
}

/// Options of [`positional`] and [`scientific`] (NumPy's `format_float_*` arguments).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// `precision` (-1 for none).
    pub precision: i32,
    /// `min_digits` (-1 for none).
    pub min_digits: i32,
    /// `unique`.
    pub unique: bool,
    /// `fractional` (positional only): precision counts digits after the point.
    pub fractional: bool,
    /// `trim`.
    pub trim: Trim,
    /// `sign`: show `+` for positive values.
    pub sign: bool,
    /// `pad_left` (-1 for none).
    pub pad_left: i32,
    /// `pad_right` (positional only, -1 for none).
    pub pad_right: i32,
    /// `exp_digits` (scientific only, -1 for the default of 2).
    pub exp_digits: i32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            precision: -1,
            min_digits: -1,
            unique: true,
            fractional: true,
            trim: Trim::None,
            sign: false,
            pad_left: -1,
            pad_right: -1,
            exp_digits: -1,
        }
    }
}

fn sign_str(p: &FloatParts, o: &Options) -> &'static str {
    if p.negative {
        "-"
    } else if o.sign {
        "+"
    } else {
        ""
    }
}

fn mode(o: &Options) -> DigitMode {
    if o.unique {
        DigitMode::Unique
    } else {
        DigitMode::Exact
    }
}

/// Pops trailing zeros of the fraction per `trim`; returns the new fraction length.
fn trim_fraction(text: &mut String, mut num_frac: i32, trim: Trim, remove_point: bool) -> i32 {
    if trim != Trim::None && num_frac > 0 {
        while text.ends_with('0') {
            text.pop();
            num_frac -= 1;
        }
        if text.ends_with('.') {
            if trim == Trim::LeaveOneZero {
                text.push('0');
                num_frac += 1;
            } else if trim == Trim::DptZeros && remove_point {
                text.pop();
            }
        }
    }
    num_frac
}

/// `np.format_float_positional` of a finite value.
pub fn positional(p: &FloatParts, o: &Options) -> String {
    let sign = sign_str(p, o);
    let cutoff_mode = if o.fractional {
        CutoffMode::FractionLength
    } else {
        CutoffMode::TotalLength
    };
    let (ds, exp) = digits(p, mode(o), cutoff_mode, o.precision, o.min_digits);
    let ds: String = ds.iter().map(|d| char::from(b'0' + d)).collect();
    let (whole, frac) = if exp >= 0 {
        let n_whole = (exp + 1) as usize;
        if ds.len() <= n_whole {
            (
                format!("{ds}{}", "0".repeat(n_whole - ds.len())),
                String::new(),
            )
        } else {
            (ds[..n_whole].to_string(), ds[n_whole..].to_string())
        }
    } else {
        (
            "0".to_string(),
            format!("{}{ds}", "0".repeat((-(exp + 1)) as usize)),
        )
    };
    let num_whole = whole.len() as i32;
    let mut num_frac = frac.len() as i32;
    let mut text = format!("{sign}{whole}");
    if num_frac > 0 {
        text.push('.');
        text.push_str(&frac);
    } else if o.trim != Trim::DptZeros {
        text.push('.');
    }
    let add_digits = if o.unique { o.min_digits } else { o.precision };
    let desired = match cutoff_mode {
        CutoffMode::TotalLength => add_digits - num_whole,
        CutoffMode::FractionLength => add_digits.max(0),
    };
    if o.trim == Trim::LeaveOneZero {
        if num_frac == 0 {
            text.push('0');
            num_frac = 1;
        }
    } else if o.trim == Trim::None && desired > num_frac {
        text.push_str(&"0".repeat((desired - num_frac) as usize));
        num_frac = desired;
    }
    num_frac = trim_fraction(&mut text, num_frac, o.trim, true);
    if o.pad_right >= num_frac {
        if o.trim == Trim::DptZeros && num_frac == 0 {
            text.push(' ');
        }
        text.push_str(&" ".repeat((o.pad_right - num_frac) as usize));
    }
    let left = num_whole + sign.len() as i32;
    if o.pad_left > left {
        text.insert_str(0, &" ".repeat((o.pad_left - left) as usize));
    }
    text
}

/// `np.format_float_scientific` of a finite value.
pub fn scientific(p: &FloatParts, o: &Options) -> String {
    let sign = sign_str(p, o);
    let mut text = String::new();
    let left = 1 + sign.len() as i32;
    if o.pad_left > left {
        text.push_str(&" ".repeat((o.pad_left - left) as usize));
    }
    text.push_str(sign);
    let cut = |n: i32| if n < 0 { -1 } else { n + 1 };
    let (ds, exp) = digits(
        p,
        mode(o),
        CutoffMode::TotalLength,
        cut(o.precision),
        cut(o.min_digits),
    );
    text.push(char::from(b'0' + ds[0]));
    let mut num_frac = ds.len() as i32 - 1;
    if num_frac > 0 {
        text.push('.');
        text.extend(ds[1..].iter().map(|d| char::from(b'0' + d)));
    } else if o.trim != Trim::DptZeros {
        text.push('.');
    }
    let add_digits = (if o.unique { o.min_digits } else { o.precision }).max(0);
    if o.trim == Trim::LeaveOneZero {
        if num_frac == 0 {
            text.push('0');
            num_frac = 1;
        }
    } else if o.trim == Trim::None && add_digits > num_frac {
        text.push_str(&"0".repeat((add_digits - num_frac) as usize));
        num_frac = add_digits;
    }
    trim_fraction(&mut text, num_frac, o.trim, false);
    let exp_digits = if o.exp_digits < 0 {
        2
    } else {
        o.exp_digits.min(5)
    } as usize;
    text.push('e');
    text.push(if exp >= 0 { '+' } else { '-' });
    text.push_str(&format!("{:0exp_digits$}", exp.unsigned_abs()));
    text
}

/// The shortest digits of `p` (unique mode, no cutoff) and the decimal exponent of the first.
pub fn shortest(p: &FloatParts) -> (Vec<u8>, i32) {
    digits(p, DigitMode::Unique, CutoffMode::TotalLength, -1, -1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(x: f64, o: Options) -> String {
        positional(&FloatParts::f64(x), &o)
    }

    fn sci(x: f64, o: Options) -> String {
        scientific(&FloatParts::f64(x), &o)
    }

    #[test]
    fn shortest_matches_rust_for_f64() {
        // Rust's `{:e}` is also shortest-round-trip; they agree away from exact ties.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            if !x.is_finite() || x == 0.0 {
                continue;
            }
            let (ds, exp) = shortest(&FloatParts::f64(x.abs()));
            let rust = format!("{:e}", x.abs());
            let (mant, e) = rust.split_once('e').unwrap();
            let rust_digits: String = mant.chars().filter(|c| *c != '.').collect();
            let ours: String = ds.iter().map(|d| char::from(b'0' + d)).collect();
            // Same length and exponent; the last digit may differ only on exact ties, where
            // NumPy (like Python) rounds to even and Rust rounds up. Both must round-trip.
            assert_eq!(
                (ours.len(), exp),
                (rust_digits.len(), e.parse().unwrap()),
                "{x:e}"
            );
            if ours != rust_digits {
                let back: f64 = format!("{}.{}e{exp}", &ours[..1], &ours[1..])
                    .parse()
                    .unwrap();
                assert_eq!(back, x.abs(), "{x:e}");
                assert_eq!((ours.as_bytes()[ours.len() - 1] - b'0') % 2, 0, "{x:e}");
            }
        }
    }

    #[test]
    fn numpy_examples() {
        let o = Options::default();
        assert_eq!(
            pos(
                1.0,
                Options {
                    trim: Trim::Zeros,
                    ..o
                }
            ),
            "1."
        );
        assert_eq!(
            pos(
                1.0,
                Options {
                    trim: Trim::LeaveOneZero,
                    ..o
                }
            ),
            "1.0"
        );
        assert_eq!(
            pos(
                1.0,
                Options {
                    trim: Trim::DptZeros,
                    ..o
                }
            ),
            "1"
        );
        assert_eq!(
            pos(
                0.1 + 0.2,
                Options {
                    precision: 8,
                    trim: Trim::Zeros,
                    ..o
                }
            ),
            "0.3"
        );
        assert_eq!(
            pos(
                2.0 / 3.0,
                Options {
                    precision: 8,
                    trim: Trim::Zeros,
                    ..o
                }
            ),
            "0.66666667"
        );
        assert_eq!(
            pos(
                0.001953125,
                Options {
                    precision: 8,
                    trim: Trim::Zeros,
                    ..o
                }
            ),
            "0.00195312"
        );
        assert_eq!(
            pos(
                -0.0,
                Options {
                    trim: Trim::Zeros,
                    ..o
                }
            ),
            "-0."
        );
        assert_eq!(
            pos(
                1.5,
                Options {
                    trim: Trim::Zeros,
                    pad_left: 3,
                    pad_right: 3,
                    ..o
                }
            ),
            "  1.5  "
        );
        assert_eq!(
            sci(
                1e-5,
                Options {
                    trim: Trim::Zeros,
                    precision: 8,
                    ..o
                }
            ),
            "1.e-05"
        );
        assert_eq!(
            sci(
                1e100,
                Options {
                    trim: Trim::DptZeros,
                    ..o
                }
            ),
            "1e+100"
        );
        assert_eq!(
            sci(
                1.5,
                Options {
                    trim: Trim::None,
                    min_digits: 3,
                    precision: 3,
                    ..o
                }
            ),
            "1.500e+00"
        );
        let f = FloatParts::f32(0.3);
        let o8 = Options {
            precision: 7,
            min_digits: 7,
            trim: Trim::None,
            ..o
        };
        assert_eq!(scientific(&f, &o8), "3.0000001e-01");
        assert_eq!(
            scientific(
                &FloatParts::f32(134_218_208.0),
                &Options {
                    trim: Trim::DptZeros,
                    ..o
                }
            ),
            "1.342182e+08"
        );
        // float16 0.1 is 0.0999755859375 but prints as 0.1.
        assert_eq!(
            positional(
                &FloatParts::f16_bits(0x2E66),
                &Options {
                    trim: Trim::Zeros,
                    ..o
                }
            ),
            "0.1"
        );
    }

    #[test]
    fn subnormals_and_extremes() {
        let o = Options {
            trim: Trim::DptZeros,
            ..Options::default()
        };
        assert_eq!(sci(5e-324, o), "5e-324");
        assert_eq!(sci(f64::MAX, o), "1.7976931348623157e+308");
        assert_eq!(sci(f64::MIN_POSITIVE, o), "2.2250738585072014e-308");
        assert_eq!(scientific(&FloatParts::f32(f32::from_bits(1)), &o), "1e-45");
        assert_eq!(positional(&FloatParts::f16_bits(0x7BFF), &o), "65500");
        assert_eq!(scientific(&FloatParts::f16_bits(1), &o), "6e-08");
        assert_eq!(
            pos(
                0.0,
                Options {
                    trim: Trim::LeaveOneZero,
                    ..o
                }
            ),
            "0.0"
        );
    }
}
