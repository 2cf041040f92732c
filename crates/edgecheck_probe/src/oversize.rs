//! How large a certificate chain is that no client accepts (#16 item 13). rustls stops at the handshake
//! message's header, and TLS 1.3 encrypts the Certificate message, so the first handshake cannot say. A
//! second handshake offering TLS 1.2 only reads the server's plaintext Certificate message off the wire,
//! within bounds (at most [`MAX_READ`] bytes and the phase's timeout), to say its size and how many
//! certificates it holds. A server that does not speak TLS 1.2 leaves them unknown.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The most read from the server for the measure.
const MAX_READ: usize = 16 << 20;

/// The server's Certificate message, as far as it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChainSize {
    /// The message's length, as its header declares it.
    pub(crate) bytes: usize,
    /// The certificates whose entries were seen.
    pub(crate) certificates: usize,
    /// Whether the whole message was read (else `certificates` is a lower bound).
    pub(crate) complete: bool,
}

impl ChainSize {
    /// `5,000,123 bytes holding 12,503 certificates` (`at least` when not all was read).
    pub(crate) fn describe(&self) -> String {
        let at_least = if self.complete { "" } else { "at least " };
        format!(
            "the server's Certificate message is {} bytes holding {at_least}{} certificate{} (read over TLS 1.2)",
            thousands(self.bytes),
            thousands(self.certificates),
            if self.certificates == 1 { "" } else { "s" }
        )
    }
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Connects to `addr` again and measures the Certificate message over TLS 1.2; `None` when it cannot
/// (no TLS 1.2, a timeout, no Certificate message).
pub(crate) async fn measure(
    addr: std::net::SocketAddr,
    name: ServerName<'static>,
    verifier: Arc<dyn rustls::client::danger::ServerCertVerifier>,
    timeout: Duration,
) -> Option<ChainSize> {
    let run = async {
        let tcp = TcpStream::connect(addr).await.ok()?;
        let cfg = rustls::ClientConfig::builder_with_protocol_versions(&[&rustls::version::TLS12])
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        let conn = tokio_rustls::TlsConnector::from(Arc::new(cfg));
        let mut rec = match conn.connect(name, Recorder { inner: tcp, seen: Vec::new() }).into_fallible().await {
            // It fits over TLS 1.2: nothing to say here.
            Ok(_) => return None,
            Err((_, rec)) => rec,
        };
        // rustls stopped at the header: read on, past it, until the message is whole or a bound is reached.
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            if certificate_message(&rec.seen).is_some_and(|c| c.complete) || rec.seen.len() >= MAX_READ {
                break;
            }
            match rec.inner.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => rec.seen.extend_from_slice(&buf[..n.min(MAX_READ - rec.seen.len())]),
            }
        }
        certificate_message(&rec.seen)
    };
    tokio::time::timeout(timeout, run).await.ok().flatten()
}

/// The Certificate handshake message in `wire` (the server's bytes: TLS records), as far as it goes.
pub(crate) fn certificate_message(wire: &[u8]) -> Option<ChainSize> {
    // The handshake layer: the payloads of handshake records, until the server changes cipher spec.
    let mut hs: Vec<u8> = Vec::new();
    let mut pos = 0;
    while pos + 5 <= wire.len() {
        let (kind, len) = (wire[pos], usize::from(u16::from_be_bytes([wire[pos + 3], wire[pos + 4]])));
        let end = (pos + 5 + len).min(wire.len());
        match kind {
            22 => hs.extend_from_slice(&wire[pos + 5..end]),
            20 | 23 => break,
            _ => {}
        }
        pos += 5 + len;
    }
    let u24 = |b: &[u8], i: usize| {
        b.get(i..i + 3).map(|x| (usize::from(x[0]) << 16) | (usize::from(x[1]) << 8) | usize::from(x[2]))
    };
    let mut i = 0;
    while i + 4 <= hs.len() {
        let (kind, len) = (hs[i], u24(&hs, i + 1)?);
        if kind == 11 {
            let body = i + 4;
            let list_end = body + 3 + u24(&hs, body).unwrap_or(0);
            let mut j = body + 3;
            let mut certificates = 0;
            while j + 3 <= hs.len().min(list_end) {
                certificates += 1;
                j += 3 + u24(&hs, j)?;
            }
            return Some(ChainSize { bytes: len, certificates, complete: hs.len() >= body + len });
        }
        i += 4 + len;
    }
    None
}

/// A stream that keeps what it reads (at most [`MAX_READ`] bytes).
struct Recorder {
    inner: TcpStream,
    seen: Vec<u8>,
}

impl AsyncRead for Recorder {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let room = MAX_READ.saturating_sub(self.seen.len());
            let new = &buf.filled()[before..];
            let keep = new.len().min(room);
            self.seen.extend_from_slice(&new[..keep]);
        }
        r
    }
}

impl AsyncWrite for Recorder {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TLS records carrying `hs` (split into records of at most `max` bytes).
    fn records(hs: &[u8], max: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in hs.chunks(max) {
            out.extend_from_slice(&[22, 3, 3]);
            out.extend_from_slice(&u16::try_from(chunk.len()).expect("record").to_be_bytes());
            out.extend_from_slice(chunk);
        }
        out
    }

    fn u24(n: usize) -> [u8; 3] {
        [(n >> 16) as u8, (n >> 8) as u8, n as u8]
    }

    #[test]
    fn the_certificate_message_is_measured_across_records() {
        // A ServerHello (type 2, 4 bytes), then a Certificate (type 11) of three certificates of 1000 bytes.
        let mut hs = vec![2];
        hs.extend_from_slice(&u24(4));
        hs.extend_from_slice(&[0, 0, 0, 0]);
        let certs: Vec<u8> = (0..3).flat_map(|_| u24(1000).into_iter().chain(std::iter::repeat_n(7u8, 1000))).collect();
        let mut body = u24(certs.len()).to_vec();
        body.extend_from_slice(&certs);
        hs.push(11);
        hs.extend_from_slice(&u24(body.len()));
        hs.extend_from_slice(&body);
        let wire = records(&hs, 700);
        assert_eq!(
            certificate_message(&wire),
            Some(ChainSize { bytes: 3 + 3 * 1003, certificates: 3, complete: true })
        );
        // Cut short: the certificates seen so far, and the size the header declares.
        let cut = &wire[..1500];
        let c = certificate_message(cut).expect("header seen");
        assert_eq!((c.bytes, c.complete), (3 + 3 * 1003, false));
        assert!(c.certificates >= 1 && c.certificates < 3, "{c:?}");
        assert_eq!(
            ChainSize { bytes: 5_000_123, certificates: 12_503, complete: false }.describe(),
            "the server's Certificate message is 5,000,123 bytes holding at least 12,503 certificates (read over TLS 1.2)"
        );
        // Encrypted from the start (TLS 1.3 after the ServerHello): nothing to measure.
        assert_eq!(certificate_message(&[23, 3, 3, 0, 2, 1, 2]), None);
    }
}
