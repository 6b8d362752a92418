//! The host's SIMD features, chosen at run time for the per-lane loops (AVX2 and FMA on
//! x86-64; the portable path everywhere else). Both paths give bit-identical results:
//! the integer operations are exact, f32 add/sub/mul are IEEE operations either way, and
//! `mul_add` is one correctly rounded fused operation whether LLVM emits `vfmadd` or calls
//! `fmaf`. `WAVEDBG_SIMD=0` forces the portable path (the lock-step test runs both).

use std::sync::atomic::{AtomicU8, Ordering};

const UNKNOWN: u8 = 0;
const PORTABLE: u8 = 1;
const AVX2: u8 = 2;

static MODE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether the SIMD path is in use (detected once, on first use).
#[inline]
pub fn enabled() -> bool {
    match MODE.load(Ordering::Relaxed) {
        UNKNOWN => detect() == AVX2,
        m => m == AVX2,
    }
}

#[cold]
fn detect() -> u8 {
    let off = std::env::var("WAVEDBG_SIMD").is_ok_and(|v| matches!(v.as_str(), "0" | "off"));
    let mode = if !off && host_has_simd() {
        AVX2
    } else {
        PORTABLE
    };
    MODE.store(mode, Ordering::Relaxed);
    mode
}

/// Whether this host has the features of the SIMD path.
pub fn host_has_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name` as a dispatcher over two compilations of the same body: one with the
/// SIMD target features, one portable. The body is written once.
macro_rules! simd_fn {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$doc])*
        #[inline]
        fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn body($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                fn simd($($arg: $ty),*) $(-> $ret)? {
                    body($($arg),*)
                }
                if $crate::exec::simd::enabled() {
                    // SAFETY: `enabled` is true only when the host has AVX2 and FMA.
                    return unsafe { simd($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}
pub(crate) use simd_fn;
