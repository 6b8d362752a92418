//! The bodies of the fuzz targets, shared by the libFuzzer targets (`fuzz_targets/`,
//! `cargo +nightly fuzz run TARGET`) and the stable runner (`src/bin/runner.rs`). Each takes
//! arbitrary bytes and must neither panic, hang nor grow without bound; a body that checks
//! a property (a command's text parses back to the same command) panics when it fails.
//! docs/fuzzing.md says how to run them.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::time::Duration;

use wavedbg_emulator::debug::command::parse;
use wavedbg_emulator::debug::session::{Script, Session};
use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::machine::LaunchOptions;
use wavedbg_emulator::program::Program;
use wavedbg_gdb::WaveTarget;

/// A fuzz target's body: takes any bytes.
pub type Body = fn(&[u8]);

/// The targets by name, as the runner and `cargo fuzz` call them.
pub const TARGETS: [(&str, Body); 5] = [
    ("assemble", assemble),
    ("object", object),
    ("command", command),
    ("session", session),
    ("packets", packets),
];

/// The assembler on any source text. (`.file` reads a file relative to the current
/// directory; the assembler bounds what it reads by the buffer's size.)
pub fn assemble(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = wavedbg_emulator::asm::assemble(text, "fuzz.s", None);
    }
}

/// The kernel object reader; an object it accepts writes back to text it accepts again.
pub fn object(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = Program::from_object(text) {
        if let Ok(again) = p.to_object() {
            if let Err(e) = Program::from_object(&again) {
                panic!("an accepted object does not read back after writing: {e}");
            }
        }
    }
}

/// The command parser on each line; a parsed command's text parses back to it.
pub fn command(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for line in text.lines() {
        if let Ok(Some(cmd)) = parse(line) {
            let shown = cmd.to_string();
            match parse(&shown) {
                Ok(Some(again)) => assert_eq!(
                    again, cmd,
                    "`{line}` shows as `{shown}`, which parses to another command"
                ),
                other => panic!("`{line}` shows as `{shown}`, which parses to {other:?}"),
            }
        }
    }
}

/// The session reader (RON) and the script reader.
pub fn session(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Session::from_ron(text, "fuzz.ron");
    let _ = Script::parse(text, "fuzz.wdb");
}

/// The kernel the packet target serves: small, so a `c` runs to its end quickly.
const PACKETS_KERNEL: &str = include_str!("../../tests/kernels/lanes.s");

/// The hex of `sav` in a `qRcmd` (`monitor save FILE` would write a file).
const MONITOR_SAVE: &[u8] = b"736176";

/// The GDB server's whole packet path (framing, checks, gdbstub, the target, runs) on one
/// connection: a client on 127.0.0.1 sends `data`, closes its side and reads every reply
/// until the server closes. Inputs that would `monitor save` a file are skipped.
pub fn packets(data: &[u8]) {
    if data.windows(MONITOR_SAVE.len()).any(|w| w == MONITOR_SAVE) {
        return;
    }
    exchange(data);
}

/// Serves a fresh engine on the packet kernel to a client that sends `data`; what the
/// client received.
pub fn exchange(data: &[u8]) -> Vec<u8> {
    let Ok(program) = wavedbg_emulator::asm::assemble(PACKETS_KERNEL, "lanes.s", None) else {
        panic!("the packet target's kernel does not assemble");
    };
    let Ok(engine) = Engine::new(&program, LaunchOptions::default()) else {
        panic!("the packet target's kernel does not launch");
    };
    let Ok(listener) = TcpListener::bind("127.0.0.1:0") else {
        return Vec::new();
    };
    let Ok(addr) = listener.local_addr() else {
        return Vec::new();
    };
    let bytes = data.to_vec();
    let client = std::thread::spawn(move || {
        let Ok(mut s) = TcpStream::connect(addr) else {
            return Vec::new();
        };
        // Read the replies meanwhile, or a server blocked writing them would never read.
        let drain = s.try_clone().ok().map(|mut r| {
            std::thread::spawn(move || {
                let mut got = Vec::new();
                let _ = r.read_to_end(&mut got);
                got
            })
        });
        let _ = s.write_all(&bytes);
        let _ = s.shutdown(Shutdown::Write);
        drain.and_then(|d| d.join().ok()).unwrap_or_default()
    });
    if let Ok((stream, _)) = listener.accept() {
        let mut target = WaveTarget::new(engine);
        let _ = wavedbg_gdb::session::run(&mut target, stream, Duration::from_secs(2));
    }
    client.join().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_packet_seeds_reach_the_server() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/target/seeds/packets/");
        let inspect = std::fs::read(format!("{dir}gdb-inspect")).expect("seed");
        let got = String::from_utf8_lossy(&super::exchange(&inspect)).into_owned();
        assert!(got.contains("PacketSize="), "{got}");
        assert!(got.contains("<target version"), "{got}");
    }

    #[test]
    fn every_target_takes_its_seeds() {
        for (name, body) in super::TARGETS {
            let dir = format!("{}/target/seeds/{name}", env!("CARGO_MANIFEST_DIR"));
            for e in std::fs::read_dir(dir).expect("seeds: run fuzz/seed.sh first") {
                body(&std::fs::read(e.expect("entry").path()).expect("seed"));
            }
        }
    }
}
