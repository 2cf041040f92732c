//! A temp-tree builder and a runner.

use std::path::{Path, PathBuf};
use std::process::Output;

pub struct Dir {
    pub tmp: tempfile::TempDir,
}

impl Dir {
    pub fn new() -> Dir {
        Dir { tmp: tempfile::tempdir().expect("tempdir") }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.tmp.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, content).expect("write");
        p
    }
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn edgecheck(dir: &Path, args: &[&str]) -> Run {
    let out: Output = assert_cmd::Command::cargo_bin("edgecheck")
        .expect("binary")
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", test_cache())
        .output()
        .expect("run");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The render cache of the tests: one directory below the system's temp directory, never the user's.
pub fn test_cache() -> std::path::PathBuf {
    std::env::temp_dir().join("edgecheck-test-cache")
}

/// stdout as one JSON document; a report (`--format json` of lint, scan, trace, probe, and the diff document
/// of `lint --diff-base`) is validated against docs/schema/edgecheck.schema.json first, so every JSON report
/// the tests read follows the contract.
pub fn json(run: &Run) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document: {e}\n{}", run.stdout));
    // A `lint --diff-base` document holds `diff` in place of `findings`.
    let diff = v.get("version") == Some(&serde_json::json!(1)) && v.get("diff").is_some();
    if crate::schema::is_report(&v) || diff {
        crate::schema::assert_valid(&v);
    }
    v
}

pub fn codes(v: &serde_json::Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A self-signed certificate and key, PEM.
pub fn cert(host: &str) -> (String, String) {
    let key = rcgen::KeyPair::generate().expect("key");
    let params = rcgen::CertificateParams::new(vec![host.to_string()]).expect("params");
    let cert = params.self_signed(&key).expect("cert");
    (cert.pem(), key.serialize_pem())
}

/// A test PKI generated at test time (never checked in): a root and a leaf it signs for `names`.
pub struct Pki {
    /// The root, PEM.
    pub root: String,
    /// The leaf, PEM and DER.
    pub leaf: String,
    pub leaf_der: Vec<u8>,
    /// The leaf's key, PKCS#8 DER and PEM.
    pub key_der: Vec<u8>,
    pub key: String,
}

/// A root named `root_name` and a leaf for `names`.
pub fn pki(root_name: &str, names: &[&str]) -> Pki {
    let ca_key = rcgen::KeyPair::generate().expect("key");
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    ca.distinguished_name.push(rcgen::DnType::CommonName, root_name);
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).expect("root");
    let root = rcgen::Issuer::new(ca, ca_key);
    let key = rcgen::KeyPair::generate().expect("key");
    let leaf = rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("params");
    let leaf = leaf.signed_by(&key, &root).expect("leaf");
    Pki {
        root: ca_cert.pem(),
        leaf: leaf.pem(),
        leaf_der: leaf.der().to_vec(),
        key_der: key.serialize_der(),
        key: key.serialize_pem(),
    }
}

impl Pki {
    /// A TLS server configuration serving the leaf over HTTP/1.1 (the ring provider installed).
    pub fn server_config(&self) -> std::sync::Arc<rustls::ServerConfig> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut cfg = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![self.leaf_der.clone().into()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(self.key_der.clone().into()),
            )
            .expect("server config");
        cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
        std::sync::Arc::new(cfg)
    }
}

/// The files of the findings with `code`, in report order.
pub fn files_with(v: &serde_json::Value, code: &str) -> Vec<String> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| f["file"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Runs the binary under guards against hangs and blow-ups, `stdin` from a path (else none): killed after
/// 30 s (exit 137) and its address space capped at 1 GiB (an allocation past it aborts, exit 134). The
/// cases that use it are about bounds, not speed: a correct run takes well under a second.
pub fn edgecheck_guarded(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Run {
    let bin = env!("CARGO_BIN_EXE_edgecheck");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v 1048576 && exec timeout -s KILL 30 \"$@\"")
        .arg("sh")
        .arg(bin)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", test_cache());
    cmd.stdin(match stdin {
        Some(p) => std::process::Stdio::from(std::fs::File::open(p).expect("stdin")),
        None => std::process::Stdio::null(),
    });
    let out = cmd.output().expect("run");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Makes a FIFO at `path` (no writer ever opens it: a reader would block forever).
pub fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo").success();
    assert!(ok, "mkfifo {}", path.display());
}
