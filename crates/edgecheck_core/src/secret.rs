//! What edgecheck learns from a Secret's data: keys, lengths, certificates and keys' public halves.
//! Never the values.

use std::collections::BTreeMap;

use crate::cert::{parse_pem, CertInfo, KeyInfo};
use crate::value::Str;

/// Keys whose values are not secret and may be kept (Argo CD repository Secrets name their URL,
/// type and project in them; checks need the URL).
pub const NON_SECRET_KEYS: &[&str] =
    &["url", "type", "name", "project", "insecure", "enableLfs", "proxy", "noProxy", "forceHttpBasicAuth", "enableOCI"];

/// The Secret, minus its values (what the render cache may store).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SecretInfo {
    /// `type`, defaulted to `Opaque`.
    pub secret_type: Str,
    /// Each data key (from `data` and `stringData`) with the length of its decoded value in bytes.
    pub lengths: Lengths,
    /// The certificates in `tls.crt`, in order (leaf first, as served).
    /// Shared between Secrets holding the same certificate ([`CertInfo::shared`]).
    pub certs: Box<[std::sync::Arc<CertInfo>]>,
    /// Why `tls.crt` could not be read, when it could not.
    pub cert_error: Option<String>,
    /// The key in `tls.key`.
    pub key: Option<KeyInfo>,
    /// Why `tls.key` could not be read.
    pub key_error: Option<String>,
    /// Values of [`NON_SECRET_KEYS`] for Argo CD repository Secrets.
    pub kept: BTreeMap<String, String>,
    /// The data is encrypted in Git (SOPS); values cannot be read and are not judged.
    pub encrypted: bool,
}

/// Each data key of a Secret with its value's length, sorted by key. Held for every Secret of a lint: an
/// exact-size slice of inline keys, not a tree (a `BTreeMap` node is ~370 bytes for a Secret's two keys).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lengths(Box<[(Str, usize)]>);

impl Lengths {
    /// The length of `key`'s value.
    pub fn get(&self, key: &str) -> Option<&usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok().map(|i| &self.0[i].1)
    }

    /// Whether the data has `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The keys, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &Str> {
        self.0.iter().map(|(k, _)| k)
    }

    /// Whether the data is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// As the map it was (the render cache's format).
impl serde::Serialize for Lengths {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k.as_str(), v)))
    }
}

impl<'de> serde::Deserialize<'de> for Lengths {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Lengths, D::Error> {
        let m = BTreeMap::<String, usize>::deserialize(d)?;
        Ok(Lengths(m.into_iter().map(|(k, v)| (Str::from(k), v)).collect()))
    }
}

/// A URL with the password of its userinfo replaced by `***` (`https://user:***@host/x`); other text as is.
pub fn without_password(url: &str) -> String {
    crate::redact::credentials(url).into_owned()
}

impl SecretInfo {
    /// Builds the summary from decoded values. `keep` says whether [`NON_SECRET_KEYS`] may be kept.
    pub fn from_values(
        secret_type: &str,
        values: &BTreeMap<String, Vec<u8>>,
        keep: bool,
        encrypted: bool,
    ) -> SecretInfo {
        let mut info = SecretInfo {
            secret_type: if secret_type.is_empty() { "Opaque".into() } else { secret_type.into() },
            encrypted,
            ..SecretInfo::default()
        };
        info.lengths = Lengths(values.iter().map(|(k, v)| (Str::from(k.as_str()), v.len())).collect());
        for (k, v) in values {
            if keep && NON_SECRET_KEYS.contains(&k.as_str()) {
                // URLs may carry credentials (`https://user:token@host/...`): keep them without the password.
                info.kept.insert(k.clone(), without_password(&String::from_utf8_lossy(v)));
            }
        }
        if encrypted {
            return info;
        }
        let is_pem_cert = |k: &str| k == "tls.crt";
        for (k, v) in values {
            if is_pem_cert(k) && !v.is_empty() {
                match std::str::from_utf8(v)
                    .map_err(|_| "not text".to_string())
                    .and_then(|t| parse_pem(t).map_err(|e| e.to_string()))
                {
                    Ok(blocks) => {
                        let mut certs = Vec::new();
                        for b in blocks.iter().filter(|b| b.label == "CERTIFICATE") {
                            match CertInfo::shared(&b.der) {
                                Ok(c) => certs.push(c),
                                Err(e) => info.cert_error = Some(format!("block at line {}: {e}", b.line)),
                            }
                        }
                        // Kept for every Secret of the lint: exact size, 8 bytes less than a vector (#17).
                        info.certs = certs.into();
                        if info.certs.is_empty() && info.cert_error.is_none() {
                            info.cert_error = Some("no CERTIFICATE block".into());
                        }
                    }
                    Err(e) => info.cert_error = Some(e),
                }
            }
            if k == "tls.key" && !v.is_empty() {
                match std::str::from_utf8(v)
                    .map_err(|_| "not text".to_string())
                    .and_then(|t| parse_pem(t).map_err(|e| e.to_string()))
                {
                    Ok(blocks) => match KeyInfo::from_pem(&blocks) {
                        Ok(key) => info.key = Some(key),
                        Err(e) => info.key_error = Some(e),
                    },
                    Err(e) => info.key_error = Some(e),
                }
            }
        }
        info
    }

    /// The leaf certificate.
    pub fn leaf(&self) -> Option<&CertInfo> {
        self.certs.first().map(|c| &**c)
    }

    /// Whether the key matches the leaf; `None` when either is missing or it cannot be told.
    pub fn key_matches(&self) -> Option<bool> {
        self.key.as_ref()?.matches(self.leaf()?)
    }

    /// True when `key` is in the data.
    pub fn has_key(&self, key: &str) -> bool {
        self.lengths.contains_key(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_look_up_by_key_and_serialize_as_a_map() {
        let values: BTreeMap<String, Vec<u8>> = [("tls.key", 3), ("ca.crt", 0), ("tls.crt", 5)]
            .into_iter()
            .map(|(k, n)| (k.to_string(), vec![0; n]))
            .collect();
        let info = SecretInfo::from_values("kubernetes.io/tls", &values, false, false);
        assert_eq!(info.lengths.get("tls.crt"), Some(&5));
        assert_eq!(info.lengths.get("ca.crt"), Some(&0));
        assert!(info.lengths.contains_key("tls.key") && !info.lengths.contains_key("password"));
        assert_eq!(info.lengths.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["ca.crt", "tls.crt", "tls.key"]);
        let json = serde_json::to_string(&info.lengths).expect("json");
        assert_eq!(json, r#"{"ca.crt":0,"tls.crt":5,"tls.key":3}"#);
        assert_eq!(serde_json::from_str::<Lengths>(&json).expect("back"), info.lengths);
    }

    #[test]
    fn passwords_are_dropped_from_kept_urls() {
        assert_eq!(
            without_password("https://bot:ghp_secret@github.com/acme/x.git"),
            "https://bot:***@github.com/acme/x.git"
        );
        assert_eq!(without_password("ssh://git:tok@git.example:2222/a"), "ssh://git:***@git.example:2222/a");
        assert_eq!(without_password("git@github.com:acme/x.git"), "git@github.com:acme/x.git");
        assert_eq!(without_password("https://github.com/a@b"), "https://github.com/a@b");
        assert_eq!(without_password("ssh://git@host/x"), "ssh://git@host/x");
    }
}
