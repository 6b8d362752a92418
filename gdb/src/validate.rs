//! Strict checks of raw packets before gdbstub parses them.
//!
//! gdbstub 0.7 parses leniently and answers some malformed packets as if they were well
//! formed: a hex field may be empty (`m,4` reads address 0) or contain `x` digits (read
//! as 0), the length of an `M` or `X` packet is parsed and ignored, `Hg` of a thread that
//! does not exist answers `OK` without asking the target, and a bare `qSupported` (no
//! feature list) fails to parse. Those answers are written before the target sees the
//! packet, so the serve loop ([`crate::session`]) runs every packet through [`check`]
//! first: a packet that fails is answered with an error and never reaches gdbstub.

use crate::codes::{EINVAL, ESRCH};

/// What to do with a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Hand it to gdbstub as it is.
    Pass,
    /// Hand this body to gdbstub instead (same meaning, in a form gdbstub parses).
    Rewrite(Vec<u8>),
    /// Answer `Exx` with this errno.
    Reject(u8),
}

/// The body gdbstub gets for a `qSupported` without features: an unknown feature, which
/// the protocol says to ignore, so nothing is negotiated (as with no list at all).
pub const BARE_QSUPPORTED: &[u8] = b"qSupported:wavedbg-no-features=1";

/// A hex number as the protocol writes addresses and lengths: at least one digit, only
/// `0-9a-fA-F`, and within 64 bits.
pub fn hex(field: &[u8]) -> Option<u64> {
    if field.is_empty() || !field.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let digits = std::str::from_utf8(field).ok()?;
    u64::from_str_radix(digits, 16).ok()
}

/// A thread id: `TID` or `pPID.TID`, each `-1` (all), `0` (any) or a hex number. Returns
/// the specific thread (`Some(tid)`), `Ok(None)` for all/any, or an error.
fn thread_id(field: &[u8]) -> Result<Option<u64>, u8> {
    let one = |f: &[u8]| -> Result<Option<u64>, u8> {
        match f {
            b"-1" | b"0" => Ok(None),
            _ => hex(f).map(Some).ok_or(EINVAL),
        }
    };
    let tid = match field.strip_prefix(b"p") {
        Some(rest) => {
            let dot = rest.iter().position(|&b| b == b'.').ok_or(EINVAL)?;
            // The server has one process, pid 1.
            if let Some(pid) = one(&rest[..dot])? {
                if pid != 1 {
                    return Err(ESRCH);
                }
            }
            &rest[dot + 1..]
        }
        None => field,
    };
    one(tid)
}

/// A thread-id field that must name a listed thread if it names one.
fn thread_field(field: &[u8], listed: &dyn Fn(usize) -> bool) -> Verdict {
    match thread_id(field) {
        Err(e) => Verdict::Reject(e),
        Ok(None) => Verdict::Pass,
        Ok(Some(tid)) => match usize::try_from(tid) {
            Ok(t) if listed(t) => Verdict::Pass,
            _ => Verdict::Reject(ESRCH),
        },
    }
}

/// `ADDR,LEN`: both strict hex.
fn addr_len(field: &[u8]) -> Option<(u64, u64)> {
    let comma = field.iter().position(|&b| b == b',')?;
    Some((hex(&field[..comma])?, hex(&field[comma + 1..])?))
}

/// How many bytes a binary (`X`) payload holds once `}` escapes are undone.
fn unescaped_len(data: &[u8]) -> Option<u64> {
    let mut n = 0u64;
    let mut it = data.iter();
    while let Some(&b) = it.next() {
        if b == b'}' {
            it.next()?;
        }
        n += 1;
    }
    Some(n)
}

fn reject_unless(ok: bool) -> Verdict {
    if ok {
        Verdict::Pass
    } else {
        Verdict::Reject(EINVAL)
    }
}

/// Checks one packet body (between `$` and `#`). `listed(tid)` says whether thread id
/// `tid` is listed.
pub fn check(body: &[u8], listed: &dyn Fn(usize) -> bool) -> Verdict {
    if body == b"qSupported" || body == b"qSupported:" {
        return Verdict::Rewrite(BARE_QSUPPORTED.to_vec());
    }
    if let Some(actions) = body.strip_prefix(b"vCont;") {
        for action in actions.split(|&b| b == b';') {
            if let Some(colon) = action.iter().position(|&b| b == b':') {
                let v = thread_field(&action[colon + 1..], listed);
                if v != Verdict::Pass {
                    return v;
                }
            }
        }
        return Verdict::Pass;
    }
    let Some((&first, rest)) = body.split_first() else {
        return Verdict::Pass;
    };
    match first {
        b'H' => match rest.split_first() {
            Some((b'g' | b'c', tid)) => thread_field(tid, listed),
            _ => Verdict::Pass,
        },
        b'm' => reject_unless(addr_len(rest).is_some()),
        b'M' => {
            let Some(colon) = rest.iter().position(|&b| b == b':') else {
                return Verdict::Reject(EINVAL);
            };
            let data = &rest[colon + 1..];
            let ok = addr_len(&rest[..colon]).is_some_and(|(_, len)| {
                data.iter().all(u8::is_ascii_hexdigit)
                    && (data.len() as u64) == len.saturating_mul(2)
            });
            reject_unless(ok)
        }
        b'X' => {
            let Some(colon) = rest.iter().position(|&b| b == b':') else {
                return Verdict::Reject(EINVAL);
            };
            let ok = addr_len(&rest[..colon])
                .zip(unescaped_len(&rest[colon + 1..]))
                .is_some_and(|((_, len), n)| len == n);
            reject_unless(ok)
        }
        b'Z' | b'z' => {
            // `TYPE,ADDR,KIND[;conditions]`; other types are gdbstub's to refuse.
            let head = rest.split(|&b| b == b';').next().unwrap_or_default();
            let mut parts = head.split(|&b| b == b',');
            match parts.next() {
                Some(b"0" | b"1" | b"2" | b"3" | b"4") => {
                    let ok = parts.next().and_then(hex).is_some()
                        && parts.next().and_then(hex).is_some()
                        && parts.next().is_none();
                    reject_unless(ok)
                }
                _ => Verdict::Pass,
            }
        }
        _ => Verdict::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(body: &[u8]) -> Verdict {
        // Threads 1-4 exist (waves 0-3).
        check(body, &|tid| (1..=4).contains(&tid))
    }

    #[test]
    fn well_formed_packets_pass() {
        for p in [
            &b"m100000000,4"[..],
            b"M100000000,4:01020304",
            b"X100000000,0:",
            b"X100000000,2:}\x03a",
            b"Hg0",
            b"Hgp1.4",
            b"Hgp0.0",
            b"Hc-1",
            b"Hcp1.-1",
            b"vCont;s:p1.2;c:p1.-1",
            b"vCont;c",
            b"vCont?",
            b"Z0,6c,1",
            b"z2,8000000000100008,4",
            b"Z9,0,0",
            b"qSupported:multiprocess+",
            b"?",
        ] {
            assert_eq!(v(p), Verdict::Pass, "{}", String::from_utf8_lossy(p));
        }
    }

    #[test]
    fn malformed_packets_are_rejected() {
        for (p, e) in [
            (&b"m,4"[..], EINVAL),
            (b"m4,", EINVAL),
            (b"mx0,4", EINVAL),
            (b"m10000000000000000,4", EINVAL),
            (b"M0,8:00000000", EINVAL),
            (b"M0,4:0000000g", EINVAL),
            (b"M0,4", EINVAL),
            (b"X0,4:ab", EINVAL),
            (b"Hgp1.5", ESRCH),
            (b"Hg5", ESRCH),
            (b"Hgp2.1", ESRCH),
            (b"Hgzz", EINVAL),
            (b"vCont;c:ffff", ESRCH),
            (b"vCont;s:p1.9;c", ESRCH),
            (b"Z0,,1", EINVAL),
            (b"z2,8000000000000000,4,5", EINVAL),
        ] {
            assert_eq!(v(p), Verdict::Reject(e), "{}", String::from_utf8_lossy(p));
        }
    }

    #[test]
    fn a_bare_qsupported_is_negotiated_without_features() {
        assert_eq!(v(b"qSupported"), Verdict::Rewrite(BARE_QSUPPORTED.to_vec()));
    }
}
