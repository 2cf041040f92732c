//! TLS 1.0/1.1 acceptance through OpenSSL (rustls cannot speak them). OpenSSL 3 refuses these versions
//! at its default security level, so this connector alone lowers it with `@SECLEVEL=0`.
//!
//! OpenSSL reads a blocking socket, and a socket's read timeout restarts on every byte: a server that
//! drips one byte a second would hold a handshake for ever. Each handshake therefore has one deadline,
//! and [`DeadlineStream`] sets the socket's timeouts to what is left of it before every read and write.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use edgecheck_core::observation::LegacyTlsObservation;
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode, SslVersion};

/// Tries a handshake at TLS 1.0 and at TLS 1.1, each within `timeout` (connect included).
pub(crate) fn probe(addr: &str, host: &str, timeout: Duration) -> Vec<LegacyTlsObservation> {
    [(SslVersion::TLS1, "TLSv1"), (SslVersion::TLS1_1, "TLSv1.1")]
        .into_iter()
        .map(|(v, name)| {
            let deadline = Instant::now() + timeout;
            let (accepted, detail) = match one(addr, host, v, deadline) {
                Ok(cipher) => (Some(true), Some(cipher)),
                // Out of time: the server neither accepted nor refused.
                Err(_) if Instant::now() >= deadline => {
                    (None, Some(format!("no {name} handshake within {} ms (the server stalled)", timeout.as_millis())))
                }
                Err(e) => (Some(false), Some(e)),
            };
            LegacyTlsObservation { version: name.into(), accepted, detail }
        })
        .collect()
}

fn one(addr: &str, host: &str, v: SslVersion, deadline: Instant) -> Result<String, String> {
    let sa: SocketAddr = addr.parse().map_err(|e| format!("{e}"))?;
    let left = DeadlineStream::left_until(deadline).map_err(|e| e.to_string())?;
    let tcp = TcpStream::connect_timeout(&sa, left).map_err(|e| e.to_string())?;
    let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(|e| e.to_string())?;
    b.set_cipher_list("DEFAULT:@SECLEVEL=0").map_err(|e| e.to_string())?;
    b.set_min_proto_version(Some(v)).map_err(|e| e.to_string())?;
    b.set_max_proto_version(Some(v)).map_err(|e| e.to_string())?;
    b.set_verify(SslVerifyMode::NONE);
    let c = b.build();
    let cfg = c.configure().map_err(|e| e.to_string())?.verify_hostname(false);
    let s = cfg.connect(host, DeadlineStream { tcp, deadline }).map_err(|e| e.to_string())?;
    Ok(s.ssl().current_cipher().map_or("?".into(), |c| c.name().to_string()))
}

/// A socket whose every read and write ends by `deadline`.
#[derive(Debug)]
struct DeadlineStream {
    tcp: TcpStream,
    deadline: Instant,
}

impl DeadlineStream {
    /// What is left until `deadline`; an error once it has passed (a zero timeout would mean none).
    fn left_until(deadline: Instant) -> io::Result<Duration> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(io::Error::new(io::ErrorKind::TimedOut, "the handshake's deadline has passed"))
        } else {
            Ok(left)
        }
    }
}

/// A timed-out blocking read is `WouldBlock` on Unix; OpenSSL would take that for a non-blocking
/// socket and hand the handshake back unfinished. Report it as what it is.
fn timed_out(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::WouldBlock {
        io::Error::new(io::ErrorKind::TimedOut, "the handshake's deadline has passed")
    } else {
        e
    }
}

impl Read for DeadlineStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.tcp.set_read_timeout(Some(Self::left_until(self.deadline)?))?;
        self.tcp.read(buf).map_err(timed_out)
    }
}

impl Write for DeadlineStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.set_write_timeout(Some(Self::left_until(self.deadline)?))?;
        self.tcp.write(buf).map_err(timed_out)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}
