//! Remote charts already on this machine: helm's own repository cache, where `helm repo add` and
//! `helm repo update` keep each repository's `index.yaml` and `helm install`/`template` keep the chart
//! archives they pulled. A chart is taken from there only when the archive is exactly the one the
//! repository's index lists for that version (its sha256 is the index's `digest`), so no network is reached
//! and nothing stale or foreign is rendered. OCI charts have no such cache and are not looked up.

use std::path::{Path, PathBuf};

use edgecheck_core::Value;
use sha2::{Digest, Sha256};

use crate::discover::RemoteChart;

/// Where helm keeps its repository list and its cache, as helm resolves them (`HELM_REPOSITORY_CONFIG`,
/// `HELM_REPOSITORY_CACHE`, `HELM_CONFIG_HOME`, `HELM_CACHE_HOME`, then the XDG directories).
pub struct HelmHome {
    pub repositories: PathBuf,
    pub cache: PathBuf,
}

impl HelmHome {
    pub fn from_env() -> Option<HelmHome> {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("HOME");
        let config = var("HELM_CONFIG_HOME")
            .or_else(|| var("XDG_CONFIG_HOME").map(|d| d.join("helm")))
            .or_else(|| home.as_ref().map(|h| h.join(".config/helm")))?;
        let cache = var("HELM_CACHE_HOME")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("helm")))
            .or_else(|| home.as_ref().map(|h| h.join(".cache/helm")))?;
        Some(HelmHome {
            repositories: var("HELM_REPOSITORY_CONFIG").unwrap_or_else(|| config.join("repositories.yaml")),
            cache: var("HELM_REPOSITORY_CACHE").unwrap_or_else(|| cache.join("repository")),
        })
    }
}

/// An index file can be large (tens of MiB for big repositories); past this it is not read.
const MAX_INDEX: u64 = 64 << 20;

fn same_url(a: &str, b: &str) -> bool {
    a.trim().trim_end_matches('/') == b.trim().trim_end_matches('/')
}

fn yaml(path: &Path, limit: u64) -> Option<Value> {
    let text = edgecheck_load::read::read_regular_text(path, limit).ok()?;
    edgecheck_load::yaml::parse_single(&text).ok().flatten().map(|d| d.value)
}

/// The archive of `chart` in helm's cache that the repository's cached index lists, with the same digest;
/// `None` when helm has not cached it (or it is not the index's), or the version is a range.
pub fn find(home: &HelmHome, chart: &RemoteChart) -> Option<PathBuf> {
    let repo = chart.repo.as_deref()?;
    let version = chart.version.as_deref()?;
    if !version.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')) {
        return None;
    }
    let repos = yaml(&home.repositories, 1 << 20)?;
    let names: Vec<&str> = repos
        .get("repositories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r.get("url").and_then(Value::as_str).is_some_and(|u| same_url(u, repo)))
        .filter_map(|r| r.get("name").and_then(Value::as_str))
        .collect();
    for name in names {
        let Some(index) = yaml(&home.cache.join(format!("{name}-index.yaml")), MAX_INDEX) else { continue };
        let entry = index
            .pointer(&format!("/entries/{}", chart.chart.replace('~', "~0").replace('/', "~1")))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|e| e.get("version").and_then(Value::as_str) == Some(version));
        let Some(digest) = entry.and_then(|e| e.get("digest")).and_then(Value::as_str) else { continue };
        let archive = home.cache.join(format!("{}-{version}.tgz", chart.chart));
        if sha256_file(&archive).is_some_and(|d| d.eq_ignore_ascii_case(digest)) {
            return Some(archive);
        }
    }
    None
}

fn sha256_file(p: &Path) -> Option<String> {
    let meta = std::fs::metadata(p).ok()?;
    if !meta.is_file() || meta.len() > 256 << 20 {
        return None;
    }
    let mut f = std::fs::File::open(p).ok()?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).ok()?;
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(version: &str) -> RemoteChart {
        RemoteChart {
            repo: Some("https://charts.example.org/".into()),
            chart: "web".into(),
            version: Some(version.into()),
            what: String::new(),
        }
    }

    #[test]
    fn only_the_archive_the_index_lists_is_taken() {
        let d = tempfile::tempdir().expect("tmp");
        let home = HelmHome { repositories: d.path().join("repositories.yaml"), cache: d.path().join("cache") };
        std::fs::create_dir_all(&home.cache).expect("mkdir");
        std::fs::write(&home.repositories, "repositories:\n  - name: acme\n    url: https://charts.example.org\n")
            .expect("w");
        let archive = home.cache.join("web-1.2.3.tgz");
        std::fs::write(&archive, b"not really a chart").expect("w");
        let digest = sha256_file(&archive).expect("digest");
        let index = |d: &str| {
            format!("apiVersion: v1\nentries:\n  web:\n    - name: web\n      version: 1.2.3\n      digest: {d}\n")
        };
        std::fs::write(home.cache.join("acme-index.yaml"), index(&digest)).expect("w");
        assert_eq!(find(&home, &chart("1.2.3")), Some(archive.clone()));
        // Another version, a range, another repository: not cached.
        assert_eq!(find(&home, &chart("1.2.4")), None);
        assert_eq!(find(&home, &chart(">=1.0.0")), None);
        let mut other = chart("1.2.3");
        other.repo = Some("https://other.example.org".into());
        assert_eq!(find(&home, &other), None);
        // An archive that is not the index's (stale or replaced): not taken.
        std::fs::write(home.cache.join("acme-index.yaml"), index(&"0".repeat(64))).expect("w");
        assert_eq!(find(&home, &chart("1.2.3")), None);
    }
}
