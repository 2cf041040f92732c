//! The certificate model: PEM bundles, X.509 summaries, private keys and whether they match.
//!
//! Nothing here keeps private key material: a key is reduced to its algorithm, size and public half.

use std::borrow::Cow;

use sha2::{Digest, Sha256};
use x509_parser::extensions::{GeneralName, ParsedExtension};
use x509_parser::prelude::{FromDer, X509Certificate};
use x509_parser::public_key::PublicKey;

/// One PEM block: its label and its decoded DER bytes.
#[derive(Debug, Clone)]
pub struct PemBlock {
    /// The label between `BEGIN ` and `-----`.
    pub label: String,
    /// The decoded contents.
    pub der: Vec<u8>,
    /// 1-based line of the `BEGIN` line inside the PEM text.
    pub line: u32,
}

/// Why PEM text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PemError {
    /// No `-----BEGIN` line at all.
    #[error("no PEM block found")]
    NoBlock,
    /// A `BEGIN` without its `END` line: the text is truncated.
    #[error("PEM block `{label}` starting at line {line} has no END line (truncated)")]
    Truncated {
        /// Block label.
        label: String,
        /// Line of the BEGIN line.
        line: u32,
    },
    /// The body is not valid base64.
    #[error("PEM block `{label}` starting at line {line} is not valid base64")]
    BadBase64 {
        /// Block label.
        label: String,
        /// Line of the BEGIN line.
        line: u32,
    },
}

/// Splits PEM text into blocks. Text outside blocks (comments, `Bag Attributes`) is ignored.
pub fn parse_pem(text: &str) -> Result<Vec<PemBlock>, PemError> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, u32, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if let Some(rest) = line.strip_prefix("-----BEGIN ") {
            if let Some((label, _, _)) = current.take() {
                return Err(PemError::Truncated { label, line: n });
            }
            current = Some((rest.trim_end_matches('-').to_string(), n, String::new()));
        } else if line.starts_with("-----END ") {
            let Some((label, start, body)) = current.take() else {
                continue;
            };
            let der = crate::go_base64::decode_pem_body(&body)
                .map_err(|_| PemError::BadBase64 { label: label.clone(), line: start })?;
            blocks.push(PemBlock { label, der, line: start });
        } else if let Some((_, _, body)) = current.as_mut() {
            if !line.contains(':') {
                body.push_str(line);
            }
        }
    }
    if let Some((label, line, _)) = current {
        return Err(PemError::Truncated { label, line });
    }
    if blocks.is_empty() {
        return Err(PemError::NoBlock);
    }
    Ok(blocks)
}

/// What edgecheck knows of one certificate. Public data only.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CertInfo {
    /// Subject, RFC 4514 style.
    pub subject: String,
    /// Subject common name.
    pub common_name: Option<String>,
    /// Issuer, RFC 4514 style.
    pub issuer: String,
    /// DNS names in the subjectAltName extension.
    pub dns_names: Box<[String]>,
    /// IP addresses in the subjectAltName extension.
    pub ip_addresses: Box<[String]>,
    /// Whether a subjectAltName extension is present at all.
    pub has_san: bool,
    /// notBefore, Unix seconds.
    pub not_before: i64,
    /// notAfter, Unix seconds.
    pub not_after: i64,
    /// Serial number.
    pub serial: Hex,
    /// SHA-256 of the DER (shown as hex with colons).
    pub sha256: Fingerprint,
    /// Public key algorithm: `RSA`, `EC`, `Ed25519`, or the OID.
    pub key_algorithm: Cow<'static, str>,
    /// Public key size in bits (RSA modulus, EC field size).
    pub key_bits: u32,
    /// Signature algorithm name (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`, ...).
    pub signature_algorithm: Cow<'static, str>,
    /// basicConstraints CA flag.
    pub is_ca: bool,
    /// Subject equals issuer and the signature verifies with its own key.
    pub self_signed: bool,
    /// Subject key identifier.
    pub subject_key_id: Option<Hex>,
    /// Authority key identifier.
    pub authority_key_id: Option<Hex>,
    /// AIA caIssuers URLs.
    pub ca_issuers: Box<[String]>,
    /// SHA-256 of the subject public key as [`KeyInfo::matches`] compares it (RSA: the modulus without
    /// leading zeros; others: the bit string of SubjectPublicKeyInfo); `None` for an RSA key whose modulus
    /// cannot be read. A digest, not the key: a large dump's TLS Secrets held every key (#17).
    pub key_digest: Option<Fingerprint>,
}

/// A SHA-256 digest, shown (and serialized) as upper-case hex with colons: held as its 32 bytes, not as the
/// 95 characters that show it (#17).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The SHA-256 of `bytes`.
    pub fn of(bytes: &[u8]) -> Fingerprint {
        Fingerprint(Sha256::digest(bytes).into())
    }
}

/// Bytes shown (and serialized) as upper-case hex with colons: key identifiers, serial numbers.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Hex(pub Box<[u8]>);

fn write_hex(f: &mut std::fmt::Formatter<'_>, bytes: &[u8]) -> std::fmt::Result {
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            f.write_str(":")?;
        }
        write!(f, "{b:02X}")?;
    }
    Ok(())
}

fn read_hex(s: &str) -> Option<Vec<u8>> {
    s.split(':')
        .filter(|p| !p.is_empty())
        .map(|p| (p.len() == 2).then(|| u8::from_str_radix(p, 16).ok()).flatten())
        .collect()
}

macro_rules! hex_text {
    ($t:ty, $from:expr) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write_hex(f, &self.0)
            }
        }

        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write_hex(f, &self.0)
            }
        }

        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                let s = String::deserialize(d)?;
                read_hex(&s).and_then($from).ok_or_else(|| serde::de::Error::custom("not colon-separated hex"))
            }
        }
    };
}

hex_text!(Fingerprint, |b: Vec<u8>| <[u8; 32]>::try_from(b).ok().map(Fingerprint));
hex_text!(Hex, |b: Vec<u8>| Some(Hex(b.into_boxed_slice())));

/// True when the certificate `issuer` (DER) signed the certificate `der`. A [`CertInfo`] keeps no DER
/// (a large repository's Secrets would hold every certificate twice): the caller that checks signatures
/// along a chain (the probe, on what a server sent) has it.
pub fn signed_by(der: &[u8], issuer: &[u8]) -> bool {
    let (Ok((_, me)), Ok((_, them))) = (X509Certificate::from_der(der), X509Certificate::from_der(issuer)) else {
        return false;
    };
    me.issuer() == them.subject() && me.verify_signature(Some(them.public_key())).is_ok()
}

/// Certificates read from Secrets, by the SHA-256 of their DER, while some Secret holds them.
static SHARED: std::sync::Mutex<Option<Shared>> = std::sync::Mutex::new(None);

#[derive(Default)]
struct Shared {
    by_digest: std::collections::HashMap<[u8; 32], std::sync::Weak<CertInfo>>,
    /// Entries after the last removal of those no Secret holds any more.
    pruned_at: usize,
}

impl CertInfo {
    /// Parses one DER certificate, or shares the one already read from another Secret: a chain's
    /// intermediates and roots repeat in every Secret their issuer signed (#17: a cluster's TLS Secrets
    /// held one parsed copy each).
    pub fn shared(der: &[u8]) -> Result<std::sync::Arc<CertInfo>, String> {
        let digest: [u8; 32] = Sha256::digest(der).into();
        let mut guard = SHARED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let shared = guard.get_or_insert_with(Shared::default);
        if let Some(c) = shared.by_digest.get(&digest).and_then(std::sync::Weak::upgrade) {
            return Ok(c);
        }
        drop(guard);
        let cert = std::sync::Arc::new(CertInfo::from_der(der)?);
        let mut guard = SHARED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let shared = guard.get_or_insert_with(Shared::default);
        shared.by_digest.insert(digest, std::sync::Arc::downgrade(&cert));
        // A long run (`serve`) reads Secrets again and again: entries of dropped ones go when they are half.
        if shared.by_digest.len() >= 2 * shared.pruned_at.max(1024) {
            shared.by_digest.retain(|_, w| w.strong_count() > 0);
            shared.pruned_at = shared.by_digest.len();
        }
        Ok(cert)
    }

    /// Parses one DER certificate.
    pub fn from_der(der: &[u8]) -> Result<CertInfo, String> {
        let (_, cert) = X509Certificate::from_der(der).map_err(|e| format!("not an X.509 certificate: {e}"))?;
        let mut info = CertInfo {
            subject: cert.subject().to_string(),
            common_name: cert.subject().iter_common_name().next().and_then(|cn| cn.as_str().ok()).map(str::to_string),
            issuer: cert.issuer().to_string(),
            not_before: cert.validity().not_before.timestamp(),
            not_after: cert.validity().not_after.timestamp(),
            serial: Hex(cert.raw_serial().into()),
            sha256: Fingerprint::of(der),
            signature_algorithm: signature_name(&cert.signature_algorithm.algorithm.to_id_string()),
            ..CertInfo::default()
        };
        let spk = &cert.public_key().subject_public_key.data;
        match cert.public_key().parsed() {
            Ok(PublicKey::RSA(rsa)) => {
                info.key_algorithm = Cow::Borrowed("RSA");
                info.key_bits = u32::try_from(rsa.key_size()).unwrap_or(0);
            }
            Ok(PublicKey::EC(point)) => {
                info.key_algorithm = Cow::Borrowed("EC");
                info.key_bits = u32::try_from(point.key_size()).unwrap_or(0);
            }
            _ => {
                let oid = cert.public_key().algorithm.algorithm.to_id_string();
                info.key_algorithm = match oid.as_str() {
                    "1.3.101.112" => Cow::Borrowed("Ed25519"),
                    "1.3.101.113" => Cow::Borrowed("Ed448"),
                    _ => Cow::Owned(oid),
                };
                info.key_bits = if info.key_algorithm == "Ed25519" { 256 } else { 0 };
            }
        }
        info.key_digest = if info.key_algorithm == "RSA" {
            rsa_public_modulus(spk).map(|m| Fingerprint::of(strip_zeros(&m)))
        } else {
            Some(Fingerprint::of(spk))
        };
        // Gathered here, held as exact-size slices (8 bytes less each, #17).
        let (mut dns_names, mut ip_addresses, mut ca_issuers) = (Vec::new(), Vec::new(), Vec::new());
        for ext in cert.extensions() {
            match ext.parsed_extension() {
                ParsedExtension::SubjectAlternativeName(san) => {
                    info.has_san = true;
                    for name in &san.general_names {
                        match name {
                            GeneralName::DNSName(d) => dns_names.push((*d).to_string()),
                            GeneralName::IPAddress(ip) => ip_addresses.push(ip_string(ip)),
                            _ => {}
                        }
                    }
                }
                ParsedExtension::BasicConstraints(bc) => info.is_ca = bc.ca,
                ParsedExtension::SubjectKeyIdentifier(k) => info.subject_key_id = Some(Hex(k.0.into())),
                ParsedExtension::AuthorityKeyIdentifier(aki) => {
                    info.authority_key_id = aki.key_identifier.as_ref().map(|k| Hex(k.0.into()));
                }
                ParsedExtension::AuthorityInfoAccess(aia) => {
                    for d in &aia.accessdescs {
                        if d.access_method.to_id_string() == "1.3.6.1.5.5.7.48.2" {
                            if let GeneralName::URI(u) = &d.access_location {
                                ca_issuers.push((*u).to_string());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        (info.dns_names, info.ip_addresses, info.ca_issuers) =
            (dns_names.into(), ip_addresses.into(), ca_issuers.into());
        info.self_signed = cert.subject() == cert.issuer() && cert.verify_signature(None).is_ok();
        Ok(info)
    }

    /// True when `issuer` is this certificate's issuer by the rules clients use to build a path: its
    /// subject is this certificate's issuer name and, where both carry them, its subject key id is this
    /// certificate's authority key id. Cheap (no signature check); see [`signed_by`].
    pub fn issued_by(&self, issuer: &CertInfo) -> bool {
        self.issuer == issuer.subject
            && match (&self.authority_key_id, &issuer.subject_key_id) {
                (Some(aki), Some(ski)) => aki == ski,
                _ => true,
            }
    }

    /// The names the certificate is valid for: SAN DNS names, or the CN when there is no SAN
    /// (which current clients no longer accept; see [`CertInfo::cn_only`]).
    pub fn names(&self) -> Vec<String> {
        if self.dns_names.is_empty() {
            self.common_name.iter().cloned().collect()
        } else {
            self.dns_names.to_vec()
        }
    }

    /// True when the certificate names a host only in its CN (no DNS SAN): browsers and Go reject it.
    pub fn cn_only(&self) -> bool {
        self.dns_names.is_empty() && self.ip_addresses.is_empty() && self.common_name.is_some()
    }

    /// True when a DNS SAN covers `host` (RFC 6125 matching; the CN is not used).
    pub fn covers(&self, host: &str) -> bool {
        crate::hostname::any_covers(&self.dns_names, host)
    }

    /// Why the key is weak, if it is.
    pub fn weak_key(&self) -> Option<String> {
        match &*self.key_algorithm {
            "RSA" if self.key_bits < 2048 => Some(format!("RSA key of {} bits (at least 2048 needed)", self.key_bits)),
            "EC" if self.key_bits < 256 => Some(format!("EC key of {} bits (at least 256 needed)", self.key_bits)),
            _ => None,
        }
    }

    /// Why the signature is weak, if it is.
    pub fn weak_signature(&self) -> Option<String> {
        let s = self.signature_algorithm.to_ascii_lowercase();
        (s.contains("sha1") || s.contains("md5") || s.contains("md2"))
            .then(|| format!("signed with {}", self.signature_algorithm))
    }
}

/// A private key reduced to what can be shown and compared.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeyInfo {
    /// `RSA`, `EC`, `Ed25519`, or what the PEM label says.
    pub algorithm: String,
    /// Size in bits when known.
    pub bits: u32,
    /// The public half, in the form certificates carry it (RSA: the RSAPublicKey DER's modulus;
    /// EC: the uncompressed point; Ed25519: the 32 bytes). `None` when it could not be derived.
    pub public: Option<Vec<u8>>,
    /// The key is encrypted (cannot be used by an ingress controller).
    pub encrypted: bool,
}

impl KeyInfo {
    /// Reads a private key from PEM blocks.
    pub fn from_pem(blocks: &[PemBlock]) -> Result<KeyInfo, String> {
        let block = blocks
            .iter()
            .find(|b| b.label.contains("PRIVATE KEY"))
            .ok_or_else(|| "no PRIVATE KEY block".to_string())?;
        match block.label.as_str() {
            "RSA PRIVATE KEY" => rsa_pkcs1(&block.der),
            "EC PRIVATE KEY" => sec1(&block.der, None),
            "PRIVATE KEY" => pkcs8(&block.der),
            "ENCRYPTED PRIVATE KEY" => {
                Ok(KeyInfo { algorithm: "encrypted".into(), bits: 0, public: None, encrypted: true })
            }
            other => Err(format!("unsupported key block `{other}`")),
        }
    }

    /// Whether this key is the private half of `cert`'s public key; `None` when it cannot be told.
    pub fn matches(&self, cert: &CertInfo) -> Option<bool> {
        let public = self.public.as_ref()?;
        if self.algorithm != cert.key_algorithm {
            return Some(false);
        }
        let theirs = cert.key_digest?;
        let mine = if self.algorithm == "RSA" { Fingerprint::of(strip_zeros(public)) } else { Fingerprint::of(public) };
        Some(mine == theirs)
    }
}

/// A minimal DER reader: enough for the key structures above.
struct Der<'a> {
    rest: &'a [u8],
}

impl<'a> Der<'a> {
    fn new(b: &'a [u8]) -> Self {
        Der { rest: b }
    }

    /// Reads one TLV; returns (tag, contents).
    fn next(&mut self) -> Option<(u8, &'a [u8])> {
        let (&tag, rest) = self.rest.split_first()?;
        let (&len0, mut rest) = rest.split_first()?;
        let len = if len0 < 0x80 {
            usize::from(len0)
        } else {
            let n = usize::from(len0 & 0x7f);
            if n == 0 || n > 4 || rest.len() < n {
                return None;
            }
            let mut l = 0usize;
            for b in &rest[..n] {
                l = (l << 8) | usize::from(*b);
            }
            rest = &rest[n..];
            l
        };
        if rest.len() < len {
            return None;
        }
        let (body, tail) = rest.split_at(len);
        self.rest = tail;
        Some((tag, body))
    }
}

fn seq(der: &[u8]) -> Option<Der<'_>> {
    let (tag, body) = Der::new(der).next()?;
    (tag == 0x30).then(|| Der::new(body))
}

fn rsa_pkcs1(der: &[u8]) -> Result<KeyInfo, String> {
    let mut s = seq(der).ok_or("RSA key is not a DER SEQUENCE")?;
    let _version = s.next().ok_or("RSA key truncated")?;
    let (_, n) = s.next().ok_or("RSA key truncated")?;
    let n = strip_zeros(n).to_vec();
    let bits = u32::try_from(n.len() * 8).unwrap_or(0) - n.first().map_or(0, |b| b.leading_zeros());
    Ok(KeyInfo { algorithm: "RSA".into(), bits, public: Some(n), encrypted: false })
}

fn sec1(der: &[u8], curve_oid: Option<&[u8]>) -> Result<KeyInfo, String> {
    let mut s = seq(der).ok_or("EC key is not a DER SEQUENCE")?;
    let _version = s.next().ok_or("EC key truncated")?;
    let (_, private) = s.next().ok_or("EC key truncated")?;
    let mut public = None;
    let mut curve = curve_oid.map(<[u8]>::to_vec);
    while let Some((tag, body)) = s.next() {
        match tag {
            0xa0 => {
                if let Some((0x06, oid)) = Der::new(body).next() {
                    curve = Some(oid.to_vec());
                }
            }
            0xa1 => {
                if let Some((0x03, bits)) = Der::new(body).next() {
                    public = bits.get(1..).map(<[u8]>::to_vec);
                }
            }
            _ => {}
        }
    }
    let bits = match curve.as_deref() {
        Some(P256) => 256,
        Some(P384) => 384,
        Some(P521) => 521,
        _ => u32::try_from(private.len() * 8).unwrap_or(0),
    };
    Ok(KeyInfo { algorithm: "EC".into(), bits, public, encrypted: false })
}

const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];
const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
const P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];

fn pkcs8(der: &[u8]) -> Result<KeyInfo, String> {
    let mut s = seq(der).ok_or("PKCS#8 key is not a DER SEQUENCE")?;
    let _version = s.next().ok_or("PKCS#8 key truncated")?;
    let (_, alg) = s.next().ok_or("PKCS#8 key truncated")?;
    let (_, inner) = s.next().ok_or("PKCS#8 key truncated")?;
    let mut a = Der::new(alg);
    let (_, oid) = a.next().ok_or("PKCS#8 algorithm truncated")?;
    let params = a.next();
    if oid == OID_RSA {
        return rsa_pkcs1(inner);
    }
    if oid == OID_EC {
        let curve = params.and_then(|(t, p)| (t == 0x06).then_some(p));
        let mut info = sec1(inner, curve)?;
        if info.public.is_none() {
            info.public = ec_public_from_pkcs8(der, curve);
        }
        return Ok(info);
    }
    if oid == OID_ED25519 {
        let public = ring::signature::Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
            .ok()
            .map(|k| ring::signature::KeyPair::public_key(&k).as_ref().to_vec());
        return Ok(KeyInfo { algorithm: "Ed25519".into(), bits: 256, public, encrypted: false });
    }
    Err("PKCS#8 key of an algorithm edgecheck does not know".into())
}

fn ec_public_from_pkcs8(der: &[u8], curve: Option<&[u8]>) -> Option<Vec<u8>> {
    let alg = match curve? {
        P256 => &ring::signature::ECDSA_P256_SHA256_ASN1_SIGNING,
        P384 => &ring::signature::ECDSA_P384_SHA384_ASN1_SIGNING,
        _ => return None,
    };
    let rng = ring::rand::SystemRandom::new();
    let pair = ring::signature::EcdsaKeyPair::from_pkcs8(alg, der, &rng).ok()?;
    Some(ring::signature::KeyPair::public_key(&pair).as_ref().to_vec())
}

fn rsa_public_modulus(spk: &[u8]) -> Option<Vec<u8>> {
    let mut s = seq(spk)?;
    let (_, n) = s.next()?;
    Some(n.to_vec())
}

fn strip_zeros(b: &[u8]) -> &[u8] {
    let i = b.iter().position(|x| *x != 0).unwrap_or(b.len());
    &b[i..]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

fn ip_string(b: &[u8]) -> String {
    match b.len() {
        4 => std::net::Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string(),
        16 => {
            let mut a = [0u8; 16];
            a.copy_from_slice(b);
            std::net::Ipv6Addr::from(a).to_string()
        }
        _ => hex(b),
    }
}

fn signature_name(oid: &str) -> Cow<'static, str> {
    match oid {
        "1.2.840.113549.1.1.5" => "sha1WithRSAEncryption",
        "1.2.840.113549.1.1.4" => "md5WithRSAEncryption",
        "1.2.840.113549.1.1.11" => "sha256WithRSAEncryption",
        "1.2.840.113549.1.1.12" => "sha384WithRSAEncryption",
        "1.2.840.113549.1.1.13" => "sha512WithRSAEncryption",
        "1.2.840.113549.1.1.10" => "rsassaPss",
        "1.2.840.10045.4.1" => "ecdsa-with-SHA1",
        "1.2.840.10045.4.3.2" => "ecdsa-with-SHA256",
        "1.2.840.10045.4.3.3" => "ecdsa-with-SHA384",
        "1.2.840.10045.4.3.4" => "ecdsa-with-SHA512",
        "1.3.101.112" => "Ed25519",
        other => return Cow::Owned(other.to_string()),
    }
    .into()
}

/// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_time(t: i64) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

/// Parses an RFC 3339 UTC time (`2026-01-02T03:04:05Z`, fractional seconds and offsets allowed). Each field
/// within its RFC 3339 range (a four-digit year): no arithmetic below can overflow.
pub fn parse_time(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = s.split_once(['T', ' '])?;
    let mut dp = date.split('-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: i64 = dp.next()?.parse().ok()?;
    let d: i64 = dp.next()?.parse().ok()?;
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(i) => (&time[..i], &time[i..]),
        None => (time, "Z"),
    };
    let clock = clock.split('.').next()?;
    let mut tp = clock.split(':');
    let hh: i64 = tp.next()?.parse().ok()?;
    let mm: i64 = tp.next()?.parse().ok()?;
    let ss: i64 = tp.next().unwrap_or("0").parse().ok()?;
    let within = |v: i64, hi: i64| (0..=hi).contains(&v);
    let date_ok = within(y, 9999) && (1..=12).contains(&m) && (1..=31).contains(&d);
    if !date_ok || !within(hh, 23) || !within(mm, 59) || !within(ss, 60) {
        return None;
    }
    let off = if offset.eq_ignore_ascii_case("z") {
        0
    } else {
        let sign = if offset.starts_with('-') { -1 } else { 1 };
        let (oh, om) = offset[1..].split_once(':').unwrap_or((&offset[1..], "0"));
        let (oh, om) = (oh.parse::<i64>().ok()?, om.parse::<i64>().ok()?);
        if !within(oh, 23) || !within(om, 59) {
            return None;
        }
        sign * (oh * 3600 + om * 60)
    };
    Some(days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss - off)
}

// Howard Hinnant's civil calendar algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Parses a Go duration as cert-manager writes them (`2160h`, `1h30m`, `90m0s`, `720h0m0s`).
pub fn parse_go_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total = 0f64;
    let mut num = String::new();
    let mut chars = s.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let mut unit = c.to_string();
        if (c == 'm' || c == 'u' || c == 'µ' || c == 'n') && chars.peek() == Some(&'s') {
            unit.push('s');
            chars.next();
        }
        let v: f64 = num.parse().ok()?;
        num.clear();
        let mult = match unit.as_str() {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += v * mult;
        any = true;
    }
    if !num.is_empty() || !any {
        return None;
    }
    #[expect(clippy::cast_possible_truncation, reason = "durations fit in i64 seconds")]
    Some(total as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        let t = parse_time("2026-12-02T15:00:00Z").unwrap();
        assert_eq!(format_time(t), "2026-12-02T15:00:00Z");
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_time("2026-12-02T16:00:00+01:00"), Some(t));
        assert_eq!(parse_time("2026-12-02T15:00:00.123Z"), Some(t));
        // Fields out of range are no time (a year of 15 digits overflowed the day arithmetic: fuzz, #16).
        for bad in [
            "111111111111116-9-06T11:0:26Z",
            "2026-13-01T00:00:00Z",
            "2026-12-02T24:00:00Z",
            "2026-12-02T15:00:00+99:00",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("2160h"), Some(2160 * 3600));
        assert_eq!(parse_go_duration("1h30m"), Some(5400));
        assert_eq!(parse_go_duration("720h0m0s"), Some(720 * 3600));
        assert_eq!(parse_go_duration("10"), None);
        assert_eq!(parse_go_duration("5d"), None);
    }

    #[test]
    fn truncated_pem_is_reported() {
        let text = "-----BEGIN CERTIFICATE-----\nMIIB\n";
        assert_eq!(parse_pem(text).unwrap_err(), PemError::Truncated { label: "CERTIFICATE".into(), line: 1 });
        assert_eq!(parse_pem("hello").unwrap_err(), PemError::NoBlock);
    }

    fn pki(alg: &'static rcgen::SignatureAlgorithm) -> (rcgen::Certificate, rcgen::KeyPair) {
        let key = rcgen::KeyPair::generate_for(alg).unwrap();
        let mut params =
            rcgen::CertificateParams::new(vec!["shop.example.com".into(), "*.example.com".into()]).unwrap();
        params.distinguished_name.push(rcgen::DnType::CommonName, "shop");
        (params.self_signed(&key).unwrap(), key)
    }

    #[test]
    fn certificates_and_keys_match() {
        for alg in [&rcgen::PKCS_ECDSA_P256_SHA256, &rcgen::PKCS_ECDSA_P384_SHA384, &rcgen::PKCS_ED25519] {
            let (cert, key) = pki(alg);
            let (other_cert, _) = pki(alg);
            let blocks = parse_pem(&cert.pem()).unwrap();
            let info = CertInfo::from_der(&blocks[0].der).unwrap();
            assert_eq!(*info.dns_names, ["shop.example.com", "*.example.com"]);
            assert!(info.self_signed);
            assert!(info.covers("x.example.com"));
            assert!(!info.covers("x.y.example.com"));
            let k = KeyInfo::from_pem(&parse_pem(&key.serialize_pem()).unwrap()).unwrap();
            assert_eq!(k.matches(&info), Some(true), "{alg:?}");
            let other = CertInfo::from_der(&parse_pem(&other_cert.pem()).unwrap()[0].der).unwrap();
            assert_eq!(k.matches(&other), Some(false));
        }
    }

    #[test]
    fn digests_and_ids_show_as_colon_hex_and_read_back() {
        let (cert, _) = pki(&rcgen::PKCS_ECDSA_P256_SHA256);
        let info = CertInfo::from_der(cert.der()).unwrap();
        let want: Vec<String> = Sha256::digest(cert.der()).iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(info.sha256.to_string(), want.join(":"));
        assert_eq!(format!("{:?}", info.sha256), want.join(":"));
        assert_eq!(Hex(vec![0x0a, 0xff, 0].into()).to_string(), "0A:FF:00");
        let json = serde_json::to_string(&info).unwrap();
        assert!(json.contains(&format!("\"{}\"", want.join(":"))), "{json}");
        let back: CertInfo = serde_json::from_str(&json).unwrap();
        assert_eq!(back, info);
        assert!(serde_json::from_str::<Fingerprint>("\"0A:FF\"").is_err(), "32 bytes or nothing");
        assert!(serde_json::from_str::<Hex>("\"0A:F\"").is_err());
    }

    #[test]
    fn secrets_holding_one_certificate_share_it_while_one_holds_it() {
        let (a, _) = pki(&rcgen::PKCS_ECDSA_P256_SHA256);
        let (b, _) = pki(&rcgen::PKCS_ECDSA_P256_SHA256);
        let first = CertInfo::shared(a.der()).unwrap();
        let again = CertInfo::shared(a.der()).unwrap();
        let other = CertInfo::shared(b.der()).unwrap();
        assert!(std::sync::Arc::ptr_eq(&first, &again));
        assert!(!std::sync::Arc::ptr_eq(&first, &other));
        assert_eq!(other.sha256, CertInfo::from_der(b.der()).unwrap().sha256);
        let serial = first.serial.clone();
        drop((first, again));
        // Read again once no Secret holds it: parsed anew, the same certificate.
        assert_eq!(CertInfo::shared(a.der()).unwrap().serial, serial);
        assert!(CertInfo::shared(b"not DER").is_err());
    }
}
