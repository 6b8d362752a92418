//! The wire: each message is a `Content-Length: N` header block, a blank line, then N
//! bytes of JSON. Reading is bounded (header lines, header count, body size), so a
//! client that sends too much gets an error for that message and the stream stays in
//! step (an oversized body is read and thrown away, never held).

use std::io::{BufRead, Read, Write};

use crate::types::{Outgoing, Request};

/// The largest body read ([`Frame::TooLarge`] past it): a `writeMemory` of a few MiB fits.
pub const MAX_BODY: usize = 16 << 20;

/// The largest body skipped to stay in step; a longer one ends the stream (no client
/// sends one, and waiting for, say, 10^12 bytes would hold the session for ever).
pub const MAX_SKIP: usize = 1 << 30;

/// The longest header line, and the most header lines, before the stream is given up.
const MAX_HEADER_LINE: usize = 1024;
const MAX_HEADERS: usize = 32;

/// Why the stream cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// Reading or writing failed (the client went away).
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    /// The header block is not what the protocol sends (no way to find the next message).
    #[error("bad header: {0}")]
    Header(String),
    /// An outgoing message could not be serialized.
    #[error("cannot serialize a message: {0}")]
    Serialize(#[from] serde_json::Error),
}

/// One message read from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A request.
    Request(Request),
    /// A body that is not a request: the reason, and the `seq` and `command` when they
    /// could be read (an error response names them).
    Malformed {
        /// What is wrong.
        reason: String,
        /// The message's `seq`, if it had one.
        seq: Option<i64>,
        /// Its `command`, if it had one.
        command: Option<String>,
    },
    /// A body over [`MAX_BODY`] bytes, thrown away.
    TooLarge(usize),
    /// The client closed the stream between messages.
    Closed,
}

/// Reads the next message.
pub fn read_frame(input: &mut impl BufRead) -> Result<Frame, WireError> {
    let mut length: Option<usize> = None;
    let mut lines = 0;
    loop {
        let mut line = Vec::new();
        let n = input
            .by_ref()
            .take(MAX_HEADER_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            return if lines == 0 {
                Ok(Frame::Closed)
            } else {
                Err(WireError::Header("the stream ended in a header".into()))
            };
        }
        if line.last() != Some(&b'\n') {
            return Err(WireError::Header(format!(
                "a header line longer than {MAX_HEADER_LINE} bytes"
            )));
        }
        lines += 1;
        if lines > MAX_HEADERS {
            return Err(WireError::Header(format!(
                "more than {MAX_HEADERS} header lines"
            )));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            // Blank lines before a header block are tolerated (a client's stray newline).
            if length.is_none() && lines == 1 {
                lines = 0;
                continue;
            }
            break;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(WireError::Header(format!("`{text}` is not `Name: value`")));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            length = Some(value.trim().parse().map_err(|_| {
                WireError::Header(format!("Content-Length `{}` is not a number", value.trim()))
            })?);
        }
    }
    let Some(length) = length else {
        return Err(WireError::Header("no Content-Length header".into()));
    };
    if length > MAX_SKIP {
        return Err(WireError::Header(format!(
            "a Content-Length of {length} is over the {MAX_SKIP} bytes this adapter skips"
        )));
    }
    if length > MAX_BODY {
        // Thrown away as it comes, to find the next message.
        let skipped = std::io::copy(
            &mut input.by_ref().take(length as u64),
            &mut std::io::sink(),
        )?;
        if skipped < length as u64 {
            return Err(WireError::Header("the stream ended in a body".into()));
        }
        return Ok(Frame::TooLarge(length));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(parse_body(&body))
}

/// A body as a request, or what is wrong with it.
pub fn parse_body(body: &[u8]) -> Frame {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Frame::Malformed {
                reason: format!("the message is not JSON: {e}"),
                seq: None,
                command: None,
            }
        }
    };
    let seq = value.get("seq").and_then(serde_json::Value::as_i64);
    let command = value
        .get("command")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string);
    match serde_json::from_value::<Request>(value) {
        Ok(r) if r.kind == "request" => Frame::Request(r),
        Ok(r) => Frame::Malformed {
            reason: format!("a client sends requests, not `{}` messages", r.kind),
            seq,
            command,
        },
        Err(e) => Frame::Malformed {
            reason: format!("not a request: {e}"),
            seq,
            command,
        },
    }
}

/// Writes one message with its header, and flushes it.
pub fn write_message(out: &mut impl Write, message: &Outgoing) -> Result<(), WireError> {
    let body = serde_json::to_vec(message)?;
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(&body)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Event;

    fn frame(s: &str) -> Frame {
        read_frame(&mut std::io::Cursor::new(s.as_bytes().to_vec())).expect("a frame")
    }

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn reads_a_request() {
        let f = frame(&framed(r#"{"seq":3,"type":"request","command":"threads"}"#));
        let Frame::Request(r) = f else {
            panic!("{f:?}")
        };
        assert_eq!((r.seq, r.command.as_str()), (3, "threads"));
    }

    #[test]
    fn two_messages_in_a_row_and_then_the_end() {
        let a = framed(r#"{"seq":1,"type":"request","command":"a"}"#);
        let b = framed(r#"{"seq":2,"type":"request","command":"b"}"#);
        let mut input = std::io::Cursor::new(format!("{a}{b}").into_bytes());
        for want in ["a", "b"] {
            match read_frame(&mut input) {
                Ok(Frame::Request(r)) => assert_eq!(r.command, want),
                other => panic!("{other:?}"),
            }
        }
        assert!(matches!(read_frame(&mut input), Ok(Frame::Closed)));
    }

    #[test]
    fn malformed_json_keeps_what_it_can() {
        assert!(matches!(
            frame(&framed("{nope")),
            Frame::Malformed { seq: None, .. }
        ));
        let f = frame(&framed(r#"{"seq":4,"type":"event","command":"x"}"#));
        assert!(matches!(f, Frame::Malformed { seq: Some(4), .. }), "{f:?}");
        let f = frame(&framed(r#"{"seq":5,"type":"request"}"#));
        assert!(matches!(f, Frame::Malformed { seq: Some(5), .. }), "{f:?}");
    }

    #[test]
    fn an_oversized_body_is_skipped_and_the_next_message_read() {
        let big = " ".repeat(MAX_BODY + 1);
        let next = framed(r#"{"seq":9,"type":"request","command":"threads"}"#);
        let mut input = std::io::Cursor::new(format!("{}{next}", framed(&big)).into_bytes());
        assert!(matches!(read_frame(&mut input), Ok(Frame::TooLarge(n)) if n == MAX_BODY + 1));
        assert!(matches!(read_frame(&mut input), Ok(Frame::Request(r)) if r.seq == 9));
    }

    #[test]
    fn bad_headers_are_errors_not_panics() {
        for bad in [
            "Content-Length: x\r\n\r\n",
            "Nope\r\n\r\n",
            "X: 1\r\n\r\n",
            "Content-Length: 10\r\n",
            "Content-Length: 10\r\n\r\n{}",
        ] {
            let r = read_frame(&mut std::io::Cursor::new(bad.as_bytes().to_vec()));
            assert!(r.is_err(), "{bad:?}: {r:?}");
        }
        let long = format!("X: {}\r\n\r\n", "a".repeat(4000));
        assert!(read_frame(&mut std::io::Cursor::new(long.into_bytes())).is_err());
        // A megabyte-long header line is refused after its first KiB, not held.
        let huge = format!("Content-Length: {}\r\n\r\n", "9".repeat(1 << 20));
        assert!(matches!(
            read_frame(&mut std::io::Cursor::new(huge.into_bytes())),
            Err(WireError::Header(m)) if m.contains("longer than")
        ));
        // A length no client sends is refused at once, not waited for.
        let mut endless = std::io::Cursor::new(b"Content-Length: 1000000000000\r\n\r\n{}".to_vec());
        assert!(matches!(
            read_frame(&mut endless),
            Err(WireError::Header(m)) if m.contains("1000000000000")
        ));
    }

    #[test]
    fn writes_a_framed_event() {
        let mut out = Vec::new();
        let e = Outgoing::Event(Event {
            seq: 1,
            event: "initialized".into(),
            body: None,
        });
        write_message(&mut out, &e).expect("written");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(
            text,
            framed(r#"{"type":"event","seq":1,"event":"initialized"}"#)
        );
    }
}
