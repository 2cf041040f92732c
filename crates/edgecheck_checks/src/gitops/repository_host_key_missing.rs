use edgecheck_core::kind::K;
use edgecheck_core::views::ConfigMap;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

const KNOWN_HOSTS_CM: &str = "argocd-ssh-known-hosts-cm";

declare_check! {
    /// ## What it checks
    /// An Argo CD repository Secret (label `argocd.argoproj.io/secret-type: repository` or `repo-creds`)
    /// whose `url` is an SSH URL (`ssh://git@host/...` or `git@host:org/repo`) when the ConfigMap
    /// `argocd-ssh-known-hosts-cm` is in the inventory and its `ssh_known_hosts` has no entry for that host
    /// (`[host]:port` for a port other than 22). Secrets with `insecure: "true"` and ConfigMaps with hashed
    /// entries (`|1|...`), which cannot be matched, are left alone.
    ///
    /// ## Why it matters
    /// The repo-server refuses the Git server's host key (`knownhosts: key is unknown`) before it offers the
    /// deploy key: every Application of that repository shows `ComparisonError`. In the UI this looks like a
    /// deploy key without permission, but the fix is different: trust the server's identity, not change
    /// the key or its grants.
    ///
    /// ## Example
    /// Secret `argocd/k8s-infra-repo` has `url: ssh://git@git.example.internal/platform/k8s-infra.git`;
    /// `ssh_known_hosts` lists only `github.com` and `gitlab.com`.
    ///
    /// ## How to fix
    /// Add the Git server's public host keys to `ssh_known_hosts` in `argocd-ssh-known-hosts-cm` (or with
    /// `argocd cert add-ssh`), after checking their fingerprints through a trusted channel; `ssh-keyscan`
    /// alone proves nothing about the server's identity.
    pub(crate) struct RepositoryHostKeyMissing {
        code: "GIT003", name: "repository-host-key-missing", layer: Layer::Gitops, severity: Severity::Error,
    }
}

impl RepositoryHostKeyMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let cms: Vec<_> =
            cx.graph.ids(K::CONFIG_MAP).iter().copied().filter(|id| cx.graph.obj(*id).name == KNOWN_HOSTS_CM).collect();
        if cms.is_empty() {
            return;
        }
        for &sid in cx.graph.ids(K::SECRET) {
            let so = cx.graph.obj(sid);
            if !matches!(so.label("argocd.argoproj.io/secret-type"), Some("repository" | "repo-creds")) {
                continue;
            }
            let Some(info) = so.secret.as_deref() else { continue };
            if info.kept.get("insecure").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
                continue;
            }
            let Some(url) = info.kept.get("url") else { continue };
            let Some((host, port)) = ssh_host(url) else { continue };
            // The ConfigMap in the Secret's namespace, else the only one.
            let cm = cms
                .iter()
                .copied()
                .find(|c| cx.graph.obj(*c).namespace == so.namespace)
                .or_else(|| (cms.len() == 1).then(|| cms[0]));
            let Some(cm) = cm else { continue };
            let known = ConfigMap::get(cx.graph.obj(cm), "ssh_known_hosts").map(str::to_string).unwrap_or_default();
            let entries: Vec<&str> =
                known.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
            if entries.iter().any(|l| l.starts_with("|1|")) {
                continue;
            }
            let want = if port == 22 { host.clone() } else { format!("[{host}]:{port}") };
            let listed = |l: &&str| {
                let first = l.split_whitespace().next().unwrap_or("");
                let first = if first.starts_with('@') { l.split_whitespace().nth(1).unwrap_or("") } else { first };
                first.split(',').any(|p| p.eq_ignore_ascii_case(&want))
            };
            if entries.iter().any(listed) {
                continue;
            }
            let cmo = cx.graph.obj(cm);
            let mut hosts: Vec<&str> =
                entries.iter().filter_map(|l| l.split_whitespace().next()).flat_map(|h| h.split(',')).collect();
            hosts.sort_unstable();
            hosts.dedup();
            let mut f = out
                .at(so, if so.field_line("stringData.url").is_some() { "stringData.url" } else { "data.url" })
                .message(format!(
                    "{} uses SSH to {want}, which has no entry in {}: the repo-server rejects the host key before \
                     it offers the deploy key",
                    so.to_ref(),
                    cmo.to_ref()
                ))
                .evidence(format!("url: {url}"))
                .evidence(format!(
                    "ssh_known_hosts lists: {}",
                    if hosts.is_empty() { "nothing".to_string() } else { hosts.join(", ") }
                ))
                .related(cmo.to_ref());
            if !info.lengths.contains_key("sshPrivateKey")
                && so.label("argocd.argoproj.io/secret-type") == Some("repository")
            {
                f = f.evidence("the Secret has no sshPrivateKey either (a separate problem: the deploy key)");
            }
            f.fix(format!(
                "add {want}'s public host keys to ssh_known_hosts in {KNOWN_HOSTS_CM}, after verifying their fingerprints"
            ))
            .emit();
        }
    }
}

/// Host and port of an SSH repository URL: `ssh://user@host[:port]/path` or scp-like `user@host:path`.
fn ssh_host(url: &str) -> Option<(String, u16)> {
    let url = url.trim();
    if let Some(rest) = url.strip_prefix("ssh://").or_else(|| url.strip_prefix("git+ssh://")) {
        let authority = rest.split('/').next()?;
        let hostport = authority.rsplit('@').next()?;
        return Some(match hostport.rsplit_once(':') {
            Some((h, p)) => (h.to_ascii_lowercase(), p.parse().ok()?),
            None => (hostport.to_ascii_lowercase(), 22),
        });
    }
    if url.contains("://") {
        return None;
    }
    let (userhost, _) = url.split_once(':')?;
    let host = userhost.rsplit('@').next()?;
    (!host.is_empty() && userhost.contains('@')).then(|| (host.to_ascii_lowercase(), 22))
}

#[cfg(test)]
mod tests {
    use super::ssh_host;

    #[test]
    fn ssh_urls_are_parsed() {
        assert_eq!(
            ssh_host("ssh://git@git.example.internal/platform/k8s-infra.git"),
            Some(("git.example.internal".into(), 22))
        );
        assert_eq!(ssh_host("ssh://git@git.example.internal:2222/x.git"), Some(("git.example.internal".into(), 2222)));
        assert_eq!(ssh_host("git@github.com:acme/platform.git"), Some(("github.com".into(), 22)));
        assert_eq!(ssh_host("https://github.com/acme/platform"), None);
    }
}
