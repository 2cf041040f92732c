//! `.edgecheck.toml`: found by searching upwards from the first linted path.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Deserialize;

/// One `ignore` entry: a selector, or a suppression scoped to objects.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum IgnoreEntry {
    /// `"TLS003"`, `"tls"`, `"tls-cert-expired"`.
    Selector(String),
    /// `{ code = "TLS003", object = "Ingress/shop/web", reason = "..." }`, checked by [`Options::validate`].
    Scoped(toml::Table),
}

/// A scoped `ignore` entry, validated.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scoped {
    /// Selector.
    pub code: String,
    /// `Kind/namespace/name` or `Kind/name`; `*` matches any part.
    pub object: Option<String>,
    /// Why.
    pub reason: Option<String>,
}

impl IgnoreEntry {
    /// The entry as a selector or a scoped suppression; an entry with a key other than `code`, `object`
    /// and `reason` is an error, never a broader suppression (an `objekt` would otherwise ignore the code
    /// everywhere).
    pub fn parse(&self) -> anyhow::Result<(String, Option<Scoped>)> {
        match self {
            IgnoreEntry::Selector(s) => Ok((s.clone(), None)),
            IgnoreEntry::Scoped(t) => {
                if let Some(k) = t.keys().find(|k| !matches!(k.as_str(), "code" | "object" | "reason")) {
                    anyhow::bail!("ignore entry `{t}`: unknown key `{k}` (expected code, object, reason)");
                }
                let scoped: Scoped =
                    t.clone().try_into().map_err(|e| anyhow::anyhow!("ignore entry `{t}`: {}", e.message()))?;
                Ok((scoped.code.clone(), Some(scoped)))
            }
        }
    }
}

/// The file's options. Every field is optional; the CLI beats the file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Options {
    /// This directory is a repository of its own: `lint` of a directory above it lints it as a separate
    /// root, with this configuration and its own inventory.
    #[expect(
        dead_code,
        reason = "read by commands::roots before any config is loaded; declared so the file may say it"
    )]
    pub root: Option<bool>,
    /// Checks to run.
    pub select: Option<Vec<String>>,
    /// Checks or scoped suppressions to skip.
    pub ignore: Option<Vec<IgnoreEntry>>,
    /// `error`, `warning`, `info`, `never`.
    pub fail_on: Option<String>,
    /// Namespace for objects that name none.
    pub namespace: Option<String>,
    /// API versions the cluster serves.
    pub api_versions: Option<Vec<String>>,
    /// The cluster's CNI.
    pub cni: Option<String>,
    /// Git URLs under which Argo CD knows the directory holding this file (for trees that are not git
    /// checkouts, or whose remote differs).
    pub repo_urls: Option<Vec<String>>,
    /// Days before expiry at which certificates are reported.
    pub expiry_warning_days: Option<i64>,
    /// The largest file read (`"64MiB"`, `"512KiB"`, or a number of bytes) [default 64 MiB].
    pub max_file_size: Option<Size>,
    /// `auto` (render the builds) or `never`.
    pub render: Option<String>,
    /// The helm binary.
    pub helm: Option<std::path::PathBuf>,
    /// The kustomize (or kubectl) binary.
    pub kustomize: Option<std::path::PathBuf>,
    /// The Kubernetes version helm renders for.
    pub kube_version: Option<String>,
}

/// A size in a config file: a number of bytes or a string with a unit.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// `64MiB`.
    Text(String),
}

impl Size {
    /// In bytes.
    pub fn bytes(&self) -> anyhow::Result<u64> {
        match self {
            Size::Bytes(0) => anyhow::bail!("config max-file-size: the limit must be at least one byte"),
            Size::Bytes(n) => Ok(*n),
            Size::Text(t) => {
                edgecheck_load::read::parse_size(t).map_err(|e| anyhow::anyhow!("config max-file-size {e}"))
            }
        }
    }
}

/// A loaded config and where it was.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The options.
    pub options: Options,
    /// The file, when one was found.
    pub path: Option<PathBuf>,
    /// It was named with `--config` rather than found beside the linted files.
    pub explicit: bool,
}

/// Finds and reads the config for `start`.
pub fn discover(start: &Path, explicit: Option<&Path>, disabled: bool) -> anyhow::Result<Loaded> {
    if disabled {
        return Ok(Loaded::default());
    }
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => find_upwards(start),
    };
    let Some(path) = path else { return Ok(Loaded::default()) };
    let text = edgecheck_load::read::read_regular_file(&path, edgecheck_load::DEFAULT_MAX_FILE_SIZE)
        .with_context(|| format!("cannot read config {}", path.display()))?;
    let text = String::from_utf8(text).with_context(|| format!("config {} is not UTF-8", path.display()))?;
    let options: Options = toml::from_str(&text).with_context(|| format!("invalid config {}", path.display()))?;
    for e in options.ignore.iter().flatten() {
        e.parse().with_context(|| format!("invalid config {}", path.display()))?;
    }
    Ok(Loaded { options, path: Some(path), explicit: explicit.is_some() })
}

fn find_upwards(start: &Path) -> Option<PathBuf> {
    let abs = start.canonicalize().ok()?;
    let mut cur = if abs.is_dir() { Some(abs.as_path()) } else { abs.parent() };
    while let Some(d) = cur {
        for name in [".edgecheck.toml", "edgecheck.toml"] {
            let p = d.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
        cur = d.parent();
    }
    None
}
