//! The handshake time-out over real TCP connections on 127.0.0.1: a client that does not
//! send its first whole packet in time (silent, or stalled mid-packet) is dropped and the
//! next client is served; once the first packet is in, a client may stay silent.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::machine::LaunchOptions;

/// The time-out the tests serve with (the real one is `HANDSHAKE_TIMEOUT`).
const HANDSHAKE: Duration = Duration::from_millis(300);
/// How long a test waits for the server before it calls it hung.
const PATIENCE: Duration = Duration::from_secs(10);

fn server() -> (
    std::net::SocketAddr,
    JoinHandle<Result<(), wavedbg_gdb::ServeError>>,
) {
    let src = include_str!("../../scripts/histogram.s");
    let p = wavedbg_emulator::asm::assemble(src, "histogram.s", None).expect("assembles");
    let engine = Engine::new(&p, LaunchOptions::default()).expect("launches");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let server =
        std::thread::spawn(move || wavedbg_gdb::serve_on_with(engine, listener, HANDSHAKE));
    (addr, server)
}

fn connect(addr: std::net::SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(PATIENCE)).expect("timeout");
    s
}

fn packet(body: &str) -> Vec<u8> {
    let sum = body.bytes().fold(0u8, |a, b| a.wrapping_add(b));
    format!("${body}#{sum:02x}").into_bytes()
}

/// Reads until a whole packet (`$...#xx`) has come; its body.
fn reply(s: &mut TcpStream) -> String {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(start) = seen.iter().position(|&b| b == b'$') {
            if let Some(hash) = seen[start..].iter().position(|&b| b == b'#') {
                if seen.len() >= start + hash + 3 {
                    return String::from_utf8_lossy(&seen[start + 1..start + hash]).into_owned();
                }
            }
        }
        match s.read(&mut buf) {
            Ok(0) => panic!(
                "closed before a reply; got {:?}",
                String::from_utf8_lossy(&seen)
            ),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) => panic!("no reply: {e}; got {:?}", String::from_utf8_lossy(&seen)),
        }
    }
}

/// Waits for the server to close `s`; how long that took.
fn closed_after(s: &mut TcpStream, since: Instant) -> Duration {
    let mut buf = [0u8; 256];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return since.elapsed(),
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return since.elapsed(),
            Err(e) => panic!("not closed after {:?}: {e}", since.elapsed()),
        }
    }
}

/// A client is served: its `qSupported` gets the features, and it kills the kernel (the
/// server ends; one that detaches would leave the server waiting for the next client).
fn served_and_killed(mut s: TcpStream, server: JoinHandle<Result<(), wavedbg_gdb::ServeError>>) {
    s.write_all(b"+").expect("write");
    s.write_all(&packet("qSupported:multiprocess+;swbreak+;hwbreak+"))
        .expect("write");
    let features = reply(&mut s);
    assert!(features.contains("PacketSize="), "not served: {features}");
    s.write_all(b"+").expect("write");
    s.write_all(&packet("k")).expect("write");
    assert_eq!(reply(&mut s), "X09");
    server.join().expect("server thread").expect("server ends");
}

#[test]
fn a_silent_client_is_dropped_and_the_next_is_served() {
    let (addr, server) = server();
    let start = Instant::now();
    let mut silent = connect(addr);
    let took = closed_after(&mut silent, start);
    assert!(took >= HANDSHAKE, "dropped before the time-out: {took:?}");
    served_and_killed(connect(addr), server);
}

#[test]
fn a_client_stalled_mid_packet_is_dropped_and_the_next_is_served() {
    let (addr, server) = server();
    let start = Instant::now();
    let mut stalled = connect(addr);
    stalled.write_all(b"+$qSupported:multipro").expect("write");
    // Trickling bytes does not extend the time-out: it is for the whole first packet.
    for _ in 0..3 {
        std::thread::sleep(HANDSHAKE / 4);
        let _ = stalled.write_all(b"c");
    }
    let took = closed_after(&mut stalled, start);
    assert!(took >= HANDSHAKE, "dropped before the time-out: {took:?}");
    assert!(took < HANDSHAKE * 3, "the trickle kept it alive: {took:?}");
    served_and_killed(connect(addr), server);
}

#[test]
fn after_its_first_packet_a_client_may_stay_silent() {
    let (addr, server) = server();
    let mut s = connect(addr);
    s.write_all(b"+").expect("write");
    s.write_all(&packet("qSupported:multiprocess+"))
        .expect("write");
    assert!(reply(&mut s).contains("PacketSize="));
    std::thread::sleep(HANDSHAKE * 3);
    s.write_all(b"+").expect("write");
    s.write_all(&packet("?")).expect("write");
    assert!(reply(&mut s).starts_with('T'));
    s.write_all(b"+").expect("write");
    s.write_all(&packet("k")).expect("write");
    assert_eq!(reply(&mut s), "X09");
    server.join().expect("server thread").expect("server ends");
}
