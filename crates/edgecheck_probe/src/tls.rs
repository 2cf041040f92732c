//! TLS: a verifier that records the served chain and why it fails, and lets the probe go on.

use std::sync::{Arc, Mutex};

use edgecheck_core::cert::CertInfo;
use edgecheck_core::observation::{ServedCert, VerifyProblem};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, Error, RootCertStore, SignatureScheme};

/// What the verifier saw during one handshake.
#[derive(Debug, Default)]
pub(crate) struct Record {
    pub chain: Vec<Vec<u8>>,
    pub error: Option<Error>,
    pub signature_error: Option<String>,
}

/// Records, verifies with webpki, and always accepts (the probe never sends secrets).
#[derive(Debug)]
pub(crate) struct RecordingVerifier {
    inner: Arc<WebPkiServerVerifier>,
    pub record: Mutex<Record>,
}

impl RecordingVerifier {
    pub(crate) fn new(inner: Arc<WebPkiServerVerifier>) -> Self {
        RecordingVerifier { inner, record: Mutex::new(Record::default()) }
    }
    pub(crate) fn take(&self) -> Record {
        self.record.lock().map(|mut r| std::mem::take(&mut *r)).unwrap_or_default()
    }
}

impl ServerCertVerifier for RecordingVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let res = self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp, now);
        if let Ok(mut r) = self.record.lock() {
            r.chain = std::iter::once(end_entity).chain(intermediates).map(|c| c.as_ref().to_vec()).collect();
            r.error = res.err();
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        if let Err(e) = self.inner.verify_tls12_signature(message, cert, dss) {
            self.note_sig(e);
        }
        Ok(HandshakeSignatureValid::assertion())
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        if let Err(e) = self.inner.verify_tls13_signature(message, cert, dss) {
            self.note_sig(e);
        }
        Ok(HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        // Offer every scheme we can name so servers with odd keys still complete the handshake.
        let mut v = self.inner.supported_verify_schemes();
        for s in [SignatureScheme::RSA_PKCS1_SHA1, SignatureScheme::ECDSA_SHA1_Legacy] {
            if !v.contains(&s) {
                v.push(s);
            }
        }
        v
    }
}

impl RecordingVerifier {
    fn note_sig(&self, e: Error) {
        if let Ok(mut r) = self.record.lock() {
            r.signature_error = Some(e.to_string());
        }
    }
}

/// The trust store: `--cacert` PEM file, else the system roots, else webpki-roots.
pub(crate) fn roots(cacert: Option<&std::path::Path>) -> (Arc<RootCertStore>, String) {
    let mut store = RootCertStore::empty();
    if let Some(path) = cacert {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for b in edgecheck_core::cert::parse_pem(&text).unwrap_or_default() {
            if b.label == "CERTIFICATE" {
                let _ = store.add(CertificateDer::from(b.der));
            }
        }
        return (Arc::new(store), path.display().to_string());
    }
    let native = rustls_native_certs::load_native_certs();
    for c in native.certs {
        let _ = store.add(c);
    }
    if store.is_empty() {
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        return (Arc::new(store), "webpki-roots".into());
    }
    (Arc::new(store), "system".into())
}

/// Turns what the verifier saw into the chain and precise reasons.
pub(crate) fn analyze(rec: &Record, host: &str, now: i64) -> (Vec<ServedCert>, bool, Vec<VerifyProblem>) {
    let infos: Vec<Option<CertInfo>> = rec.chain.iter().map(|d| CertInfo::from_der(d).ok()).collect();
    let chain: Vec<ServedCert> = rec.chain.iter().map(|d| ServedCert::from_der(d)).collect();
    let mut problems = Vec::new();
    let leaf = infos.first().and_then(|c| c.as_ref());
    if let Some(e) = &rec.error {
        match e {
            Error::InvalidCertificate(ce) => match ce {
                CertificateError::UnknownIssuer => {
                    if let Some(l) = leaf {
                        let issuer_served = infos.iter().zip(&rec.chain).skip(1).any(|(c, der)| {
                            c.as_ref().is_some_and(|c| c.subject == l.issuer)
                                || edgecheck_core::cert::signed_by(&rec.chain[0], der)
                        });
                        if l.self_signed || l.subject == l.issuer {
                            problems.push(VerifyProblem::SelfSigned { subject: l.subject.clone() });
                        } else if !issuer_served {
                            problems.push(VerifyProblem::IncompleteChain {
                                missing_issuer: l.issuer.clone(),
                                aia: l.ca_issuers.to_vec(),
                            });
                        } else {
                            let top = infos.iter().flatten().last().map_or(l.issuer.clone(), |c| c.issuer.clone());
                            problems.push(VerifyProblem::UnknownIssuer { issuer: top });
                        }
                    } else {
                        problems.push(VerifyProblem::UnknownIssuer { issuer: String::new() });
                    }
                }
                CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                    for c in infos.iter().flatten().filter(|c| c.not_after < now) {
                        problems.push(VerifyProblem::Expired { subject: c.subject.clone(), not_after: c.not_after });
                    }
                }
                CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                    for c in infos.iter().flatten().filter(|c| c.not_before > now) {
                        problems
                            .push(VerifyProblem::NotYetValid { subject: c.subject.clone(), not_before: c.not_before });
                    }
                }
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                    name_problem(leaf, host, &mut problems)
                }
                other => problems.push(VerifyProblem::Other { detail: format!("{other:?}") }),
            },
            other => problems.push(VerifyProblem::Other { detail: other.to_string() }),
        }
        if problems.is_empty() {
            problems.push(VerifyProblem::Other { detail: e.to_string() });
        }
    }
    // webpki stops at the first error: also report the name and dates when the issuer was the problem.
    if let Some(l) = leaf {
        let has = |ps: &[VerifyProblem], f: fn(&VerifyProblem) -> bool| ps.iter().any(f);
        if rec.error.is_some() {
            if !has(&problems, |p| matches!(p, VerifyProblem::NameMismatch { .. } | VerifyProblem::CnOnly { .. }))
                && !covers(l, host)
            {
                name_problem(Some(l), host, &mut problems);
            }
            if !has(&problems, |p| matches!(p, VerifyProblem::Expired { .. })) && l.not_after < now {
                problems.push(VerifyProblem::Expired { subject: l.subject.clone(), not_after: l.not_after });
            }
            if !has(&problems, |p| matches!(p, VerifyProblem::NotYetValid { .. })) && l.not_before > now {
                problems.push(VerifyProblem::NotYetValid { subject: l.subject.clone(), not_before: l.not_before });
            }
        }
    }
    for c in infos.iter().flatten().filter(|c| !c.self_signed) {
        if let Some(d) = c.weak_key() {
            problems.push(VerifyProblem::WeakKey { subject: c.subject.clone(), detail: d });
        }
        if let Some(d) = c.weak_signature() {
            problems.push(VerifyProblem::WeakSignature { subject: c.subject.clone(), detail: d });
        }
    }
    if let Some(s) = &rec.signature_error {
        problems.push(VerifyProblem::HandshakeSignature { detail: s.clone() });
    }
    let verified = rec.error.is_none() && rec.signature_error.is_none() && !rec.chain.is_empty();
    (chain, verified, problems)
}

fn covers(l: &CertInfo, host: &str) -> bool {
    l.covers(host) || l.ip_addresses.iter().any(|ip| ip == host)
}

fn name_problem(leaf: Option<&CertInfo>, host: &str, problems: &mut Vec<VerifyProblem>) {
    let Some(l) = leaf else { return };
    if l.cn_only() {
        problems.push(VerifyProblem::CnOnly { common_name: l.common_name.clone().unwrap_or_default() });
    } else {
        problems.push(VerifyProblem::NameMismatch {
            host: host.to_string(),
            sans: l.dns_names.iter().chain(&l.ip_addresses).cloned().collect(),
        });
    }
}
