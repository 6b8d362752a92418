//! `wavedbg serve` with a connection that never sends a byte: it holds the one client slot
//! for the handshake time-out (5 s) only, and gdb attaches after it (before, the silent
//! connection was the attached client for as long as it stayed open, and every gdb was
//! refused). The time-out itself is tested with short values in gdb/tests/handshake.rs.

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

mod clients;
use clients::*;

#[test]
fn a_silent_connection_is_dropped_and_gdb_then_attaches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start(&k);
    let started = Instant::now();
    let mut silent = TcpStream::connect(&server.addr).expect("connect");
    silent
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut buf = [0u8; 64];
    let n = silent.read(&mut buf);
    let took = started.elapsed();
    assert!(
        matches!(n, Ok(0)),
        "the silent connection is closed by the server: {n:?} after {took:?}\n{}",
        server.log()
    );
    assert!(
        took >= Duration::from_millis(4500) && took < Duration::from_secs(20),
        "dropped after the 5 s time-out, not {took:?}"
    );
    if have("gdb") {
        let out = gdb("gdb", &server, "info threads 1\n", false, None);
        check(&out, &server, &["Thread 1.1 (wave 0, workgroup 0"]);
    }
    assert!(
        server
            .log()
            .contains("sent no packet within 5.0 s; dropped"),
        "{}",
        server.log()
    );
}

/// `--listen` takes a host name as gdbserver does (`localhost:PORT`), loopback only
/// without `--allow-remote`; a malformed one is one plain message.
#[test]
fn listen_takes_a_host_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start_listening(&k, "localhost:0", &[]);
    assert!(server.addr.starts_with("127.0.0.1:"), "{}", server.addr);
    if have("gdb") {
        let port = server.addr.rsplit(':').next().expect("port");
        let out = run_client(
            {
                let mut cmd = std::process::Command::new("gdb");
                cmd.args(["-nx", "-batch", "-ex"])
                    .arg(format!("target remote localhost:{port}"))
                    .args(["-ex", "info threads 1"]);
                cmd
            },
            Duration::from_secs(60),
            None,
        );
        check(&out, &server, &["Thread 1.1 (wave 0, workgroup 0"]);
    }
    for (listen, says) in [
        (
            "localhost",
            "`localhost` is not HOST:PORT (for example localhost:9000)",
        ),
        (
            "localhost:http",
            "`http` in `localhost:http` is not a port number (0-65535)",
        ),
        (
            ":9000",
            "`:9000` names no host (for example localhost:9000)",
        ),
        (
            "no-such-host.invalid:9000",
            "cannot resolve `no-such-host.invalid`",
        ),
    ] {
        let out = std::process::Command::new(bin())
            .arg("serve")
            .arg(&k)
            .args(["--listen", listen])
            .output()
            .expect("serve");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{listen}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        // The same parser for `dap --listen`.
        let out = std::process::Command::new(bin())
            .args(["dap", "--listen", listen])
            .output()
            .expect("dap");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "dap {listen}: {err}"
        );
    }
}
