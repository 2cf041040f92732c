//! The user's own render tools: `helm` and `kustomize` (or `kubectl kustomize`), found on `PATH` or given
//! by path, with their versions.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A tool that can run.
#[derive(Debug, Clone)]
pub struct Tool {
    /// The binary.
    pub path: PathBuf,
    /// `kubectl kustomize` rather than `kustomize build`.
    pub kubectl: bool,
    /// Helm rather than kustomize.
    helm: bool,
    /// What it says its version is, asked once when first needed (a warm cache asks nothing).
    version: std::sync::OnceLock<String>,
}

impl Tool {
    /// What it says its version is (`helm v3.17.1`, `kubectl kustomize v5.5.0`).
    pub fn version(&self) -> &str {
        self.version.get_or_init(|| {
            if self.helm {
                let v = version_of(&self.path, &["version", "--short"]).unwrap_or_default();
                let v = v.trim().split('+').next().unwrap_or("").to_string();
                format!("helm {}", if v.is_empty() { "?" } else { &v })
            } else if self.kubectl {
                let out = version_of(&self.path, &["version", "--client"]).unwrap_or_default();
                let v =
                    out.lines().find_map(|l| l.strip_prefix("Kustomize Version:")).unwrap_or("?").trim().to_string();
                format!("kubectl kustomize {v}")
            } else {
                let out = version_of(&self.path, &["version"]).unwrap_or_default();
                let v = out.split_whitespace().find(|w| w.starts_with('v') || w.contains("v5")).unwrap_or("?");
                format!("kustomize {}", v.trim_start_matches("{Version:kustomize/").trim_end_matches(','))
            }
        })
    }

    /// A command for a build: `helm`, `kustomize build`, `kubectl kustomize`.
    pub fn command(&self, helm: bool) -> Command {
        let mut c = Command::new(&self.path);
        if helm {
            c.arg("template");
        } else if self.kubectl {
            c.arg("kustomize");
        } else {
            c.arg("build");
        }
        c
    }
}

/// Where `name` is on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn version_of(path: &Path, args: &[&str]) -> Option<String> {
    let mut c = Command::new(path);
    c.args(args);
    let bounds = crate::run::Bounds { timeout: Duration::from_secs(10), max_output: 64 * 1024, max_memory: 256 << 20 };
    let out = crate::run::run(c, bounds).ok()?;
    Some(out)
}

/// `helm`: the given path, else `PATH`. `Err` names what is missing.
pub fn helm(given: Option<&Path>) -> Result<Tool, String> {
    let path = match given {
        Some(p) if is_executable(p) => p.to_path_buf(),
        Some(p) => return Err(format!("{} (--helm)", p.display())),
        None => which("helm").ok_or_else(|| "helm".to_string())?,
    };
    Ok(Tool { path, kubectl: false, helm: true, version: std::sync::OnceLock::new() })
}

/// `kustomize`: the given path (a `kubectl` binary is used as `kubectl kustomize`), else `kustomize` on
/// `PATH`, else `kubectl`'s built-in copy.
pub fn kustomize(given: Option<&Path>) -> Result<Tool, String> {
    let (path, kubectl) = match given {
        Some(p) if is_executable(p) => {
            (p.to_path_buf(), p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("kubectl")))
        }
        Some(p) => return Err(format!("{} (--kustomize)", p.display())),
        None => match which("kustomize") {
            Some(p) => (p, false),
            None => (which("kubectl").ok_or_else(|| "kustomize (or kubectl)".to_string())?, true),
        },
    };
    Ok(Tool { path, kubectl, helm: false, version: std::sync::OnceLock::new() })
}
