//! TLS 1.0/1.1 acceptance through OpenSSL (rustls cannot speak them). OpenSSL 3 refuses these versions
//! at its default security level, so this connector alone lowers it with `@SECLEVEL=0`.

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use edgecheck_core::observation::LegacyTlsObservation;
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode, SslVersion};

/// Tries a handshake at TLS 1.0 and at TLS 1.1.
pub(crate) fn probe(addr: &str, host: &str, timeout: Duration) -> Vec<LegacyTlsObservation> {
    [(SslVersion::TLS1, "TLSv1"), (SslVersion::TLS1_1, "TLSv1.1")]
        .into_iter()
        .map(|(v, name)| {
            let (accepted, detail) = match one(addr, host, v, timeout) {
                Ok(cipher) => (Some(true), Some(cipher)),
                Err(e) => (Some(false), Some(e)),
            };
            LegacyTlsObservation { version: name.into(), accepted, detail }
        })
        .collect()
}

fn one(addr: &str, host: &str, v: SslVersion, timeout: Duration) -> Result<String, String> {
    let sa: SocketAddr = addr.parse().map_err(|e| format!("{e}"))?;
    let tcp = TcpStream::connect_timeout(&sa, timeout).map_err(|e| e.to_string())?;
    tcp.set_read_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    tcp.set_write_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(|e| e.to_string())?;
    b.set_cipher_list("DEFAULT:@SECLEVEL=0").map_err(|e| e.to_string())?;
    b.set_min_proto_version(Some(v)).map_err(|e| e.to_string())?;
    b.set_max_proto_version(Some(v)).map_err(|e| e.to_string())?;
    b.set_verify(SslVerifyMode::NONE);
    let c = b.build();
    let cfg = c.configure().map_err(|e| e.to_string())?.verify_hostname(false);
    let s = cfg.connect(host, tcp).map_err(|e| e.to_string())?;
    Ok(s.ssl().current_cipher().map_or("?".into(), |c| c.name().to_string()))
}
