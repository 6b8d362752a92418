//! How the panes write a number in the format the user chose (`f` in the lane grid, the
//! Registers pane and the Memory pane; `set format`). The text is the REPL's:
//! [`view::format_value`] writes it for both, so `p/u v1`, `p/d`, `p/f` and `x/8fw` show
//! the same strings as the panes. Only hex differs: the panes leave out the `0x` (every
//! value of a hex pane is hex, and the 2 columns are better spent on another value).
//!
//! Each format has a fixed width, that of its widest value, so that columns line up and no
//! value is ever cut: hex `0000002a` (8), unsigned `4294967295` (10), signed
//! `-2147483648` (11), f32 `-1.17549435e-38` (15).

use wavedbg_emulator::debug::panes::NumberFormat;
use wavedbg_emulator::debug::view;

/// A 32-bit value in format `f` (at most [`width`]`(f)` columns).
pub fn word(v: u32, f: NumberFormat) -> String {
    let s = view::format_value(u64::from(v), f.letter(), 4);
    match f {
        NumberFormat::Hex => s.trim_start_matches("0x").to_string(),
        _ => s,
    }
}

/// The widest [`word`] of format `f`, in columns.
pub fn width(f: NumberFormat) -> usize {
    match f {
        NumberFormat::Hex => 8,
        NumberFormat::Unsigned => 10,
        NumberFormat::Signed => 11,
        NumberFormat::F32 => 15,
    }
}

/// A byte in format `f`: hex `2a`, unsigned `42`, signed `-86`. A byte has no f32 form:
/// the Memory pane shows words in f32 (see [`memory_words`]); here it is hex.
pub fn byte(b: u8, f: NumberFormat) -> String {
    match f {
        NumberFormat::Unsigned => b.to_string(),
        NumberFormat::Signed => (b as i8).to_string(),
        NumberFormat::Hex | NumberFormat::F32 => format!("{b:02x}"),
    }
}

/// The widest [`byte`] of format `f`, in columns.
pub fn byte_width(f: NumberFormat) -> usize {
    match f {
        NumberFormat::Unsigned => 3,
        NumberFormat::Signed => 4,
        NumberFormat::Hex | NumberFormat::F32 => 2,
    }
}

/// Whether the Memory pane shows 32-bit words: in word units, and always in f32 (a byte
/// is no float).
pub fn memory_words(words_unit: bool, f: NumberFormat) -> bool {
    words_unit || f == NumberFormat::F32
}

/// The format as a pane's title names it: `[hex]`, `[unsigned]`, `[signed]`, `[f32]`.
pub fn tag(f: NumberFormat) -> String {
    format!("[{}]", f.word())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of every format fits its width: the extremes, the float edge cases
    /// (subnormals, the smallest normal, infinities, NaN) and a sweep of bit patterns.
    #[test]
    fn no_value_is_wider_than_its_format() {
        let mut values: Vec<u32> = vec![
            0,
            1,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0x0000_0001,
            0x8000_0001,
            0x0080_0000,
            0x8080_0000,
            0x807f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xff7f_ffff,
            (-1.234_567_9e-38f32).to_bits(),
            (-3.402_823_5e38f32).to_bits(),
            (1.0e-5f32).to_bits(),
            (-0.000_123_456_79f32).to_bits(),
            (123_456_790.0f32).to_bits(),
        ];
        let mut x: u32 = 0x1234_5678;
        for _ in 0..200_000 {
            // xorshift: a spread of exponents and mantissas.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            values.push(x);
        }
        for f in NumberFormat::ALL {
            let widest = values.iter().map(|v| word(*v, f).len()).max().unwrap_or(0);
            assert!(widest <= width(f), "{f:?}: {widest} > {}", width(f));
            for b in 0..=255u8 {
                assert!(byte(b, f).len() <= byte_width(f));
            }
        }
        assert_eq!(word(0x2a, NumberFormat::Hex), "0000002a");
        assert_eq!(word(0xffff_ffff, NumberFormat::Unsigned), "4294967295");
        assert_eq!(word(0x8000_0000, NumberFormat::Signed), "-2147483648");
        assert_eq!(word(1.5f32.to_bits(), NumberFormat::F32), "1.5");
        assert_eq!(byte(0xaa, NumberFormat::Signed), "-86");
    }
}
