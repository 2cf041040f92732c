//! `scan`: a live cluster, read-only; `rbac`: the role it needs.

use edgecheck_core::{Graph, Options};

use crate::cli::{ClusterArgs, ColorChoice, InventoryArgs, RbacArgs, ScanArgs};
use crate::commands::lint::{emit, settings};
use crate::config;

pub fn run(args: &ScanArgs, color: ColorChoice) -> anyhow::Result<u8> {
    let loaded = config::discover(&std::env::current_dir()?, args.check.config.as_deref(), args.check.no_config)?;
    let cfg = &loaded.options;
    let s = settings(&args.check, args.format.into(), color, &loaded)?;
    let namespace = if args.all_namespaces { None } else { args.inventory.namespace.clone() };
    let (graph, options) = match scan_graph(&args.cluster, namespace, &args.inventory, cfg) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("edgecheck: {e}");
            return Ok(2);
        }
    };
    let analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        s.now,
        &s.selection,
        &s.suppressions,
        &[],
        edgecheck_checks::diagnose::Diagnose::Hosts,
    );
    emit(&graph, &analysis, &s)
}

/// Lists the cluster (only `namespace`, when given) and builds the graph, with the options a live
/// inventory implies.
pub fn scan_graph(
    cluster: &ClusterArgs,
    namespace: Option<String>,
    inv: &InventoryArgs,
    cfg: &config::Options,
) -> Result<(Graph, Options), String> {
    let scan_options = edgecheck_kube::ScanOptions {
        kubeconfig: cluster.kubeconfig.clone(),
        context: cluster.context.clone(),
        namespace,
        timeout: Some(cluster.request_timeout),
        page_size: None,
        limits: edgecheck_kube::Limits::default(),
        progress: progress_bar(),
    };
    let scan = edgecheck_kube::scan(&scan_options).map_err(|e| cluster_error(&e, cluster))?;
    for u in &scan.inventory.unchecked {
        eprintln!("edgecheck: could not check {} ({}): {}", u.kind, u.api_version, u.reason);
    }
    // A full dump only when every served kind was listed in all namespaces: then what is not
    // there is absent. One namespace, or a kind refused (LOD007): objects may exist unseen, so
    // absence follows the partial-inventory rule (and a refused kind is never absent, see
    // `CheckContext::absence`).
    let live = super::inventory::Live {
        default_namespace: scan.default_namespace.clone(),
        complete: scan_options.namespace.is_none() && scan.inventory.unchecked.is_empty(),
    };
    let options = super::inventory::options(inv, cfg, Some(live));
    Ok((Graph::build(scan.inventory, &options), options))
}

/// A scan that could not start, worded as kubectl words it: what failed in one sentence, a hint, and
/// the kubeconfig and context it used; no raw error chain.
fn cluster_error(e: &edgecheck_kube::ScanError, cluster: &ClusterArgs) -> String {
    let edgecheck_kube::ScanError::Discovery(raw) = e else { return e.to_string() };
    // `GET https://host:port/api: ...`: the server is the URL's origin.
    let url = raw.split_whitespace().nth(1).unwrap_or_default().trim_end_matches(':');
    let server = url.find("://").and_then(|i| url[i + 3..].find('/').map(|j| &url[..i + 3 + j])).unwrap_or(url);
    let lower = raw.to_ascii_lowercase();
    let what = if lower.contains("connection refused") {
        format!("the connection to {server} was refused — is the context right?")
    } else if lower.contains("dns error") || lower.contains("failed to lookup") || lower.contains("name or service") {
        format!("the server name of {server} does not resolve — is the context right, or the VPN up?")
    } else if lower.contains("timed out") || lower.contains("timeout") {
        format!(
            "{server} did not answer in time (--request-timeout {:?}) — is the context right?",
            cluster.request_timeout
        )
    } else if lower.contains("certificate") || lower.contains("tls") {
        format!("the TLS connection to {server} failed: the certificate is not trusted for it (certificate-authority in the kubeconfig)")
    } else if lower.contains("401") || lower.contains("unauthorized") {
        format!("{server} refused the credentials (401) — log in again or renew the token")
    } else if lower.contains("403") || lower.contains("forbidden") {
        format!("{server} forbids discovery (403) — see `edgecheck rbac` for the role scan needs")
    } else {
        format!("cannot reach {server}: {}", raw.rsplit(": ").next().unwrap_or(raw))
    };
    let kubeconfig = cluster
        .kubeconfig
        .clone()
        .or_else(|| std::env::var_os("KUBECONFIG").map(std::path::PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".kube/config")));
    let context = cluster.context.clone().or_else(|| kubeconfig.as_deref().and_then(current_context));
    format!(
        "{what} (kubeconfig {}, context {})",
        kubeconfig.map_or_else(|| "none".into(), |p| p.display().to_string()),
        context.unwrap_or_else(|| "none".into())
    )
}

/// The `current-context` of a kubeconfig file, when it names one (a bounded read; YAML's plain form).
fn current_context(path: &std::path::Path) -> Option<String> {
    let text = edgecheck_load::read::read_regular_file(path, 1 << 20).ok()?;
    let text = String::from_utf8(text).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("current-context:"))?;
    Some(line.trim().trim_matches(['"', '\'']).to_string()).filter(|c| !c.is_empty())
}

/// The ClusterRole (get, list on exactly the resources `scan` reads) and its binding.
pub fn rbac(args: &RbacArgs) -> anyhow::Result<u8> {
    let (sa_ns, sa_name) = args
        .service_account
        .split_once('/')
        .ok_or_else(|| anyhow::anyhow!("--service-account `{}`: expected namespace/name", args.service_account))?;
    super::write_stdout(&rbac_yaml(&args.name, sa_ns, sa_name, !args.no_secrets, args.watch))?;
    Ok(0)
}

pub fn rbac_yaml(name: &str, sa_ns: &str, sa_name: &str, secrets: bool, watch: bool) -> String {
    let mut y = String::new();
    if watch {
        y.push_str("# Read-only access for `edgecheck serve` (and `scan`): get, list and watch, nothing else.\n");
    } else {
        y.push_str("# Read-only access for `edgecheck scan`: get and list, nothing else.\n");
    }
    if secrets {
        y.push_str(
            "# Secrets: the TLS checks read certificates and keys (SANs, dates, chains, key match) and the\n\
             # repository checks Argo CD's repository Secrets; edgecheck summarises them as it reads and never\n\
             # prints a value. Without them (`edgecheck rbac --no-secrets`) those checks report \"could not check\"\n\
             # (LOD007) instead of guessing.\n",
        );
    } else {
        y.push_str(
            "# Without Secrets (--no-secrets): the TLS and repository checks that read them report \"could not\n\
             # check\" (LOD007).\n",
        );
    }
    y.push_str("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n");
    y.push_str(&format!("  name: {name}\nrules:\n"));
    for (group, mut resources) in edgecheck_kube::rbac_resources() {
        if !secrets {
            resources.retain(|r| r != "secrets");
        }
        y.push_str(&format!("  - apiGroups: [\"{group}\"]\n    resources: [{}]\n", quoted(&resources)));
        y.push_str(if watch {
            "    verbs: [\"get\", \"list\", \"watch\"]\n"
        } else {
            "    verbs: [\"get\", \"list\"]\n"
        });
    }
    y.push_str("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n");
    y.push_str(&format!("  name: {name}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n"));
    y.push_str(&format!(
        "  name: {name}\nsubjects:\n  - kind: ServiceAccount\n    name: {sa_name}\n    namespace: {sa_ns}\n"
    ));
    y
}

fn quoted(items: &[String]) -> String {
    items.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ")
}

/// A per-kind progress bar on stderr, only when stderr is a terminal (never in pipes, CI or JSON runs
/// redirected to a file).
pub fn progress_bar() -> Option<edgecheck_kube::Progress> {
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} listing {pos}/{len} kinds {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(edgecheck_kube::Progress(std::sync::Arc::new(move |done, total, kind| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(kind.to_string());
        if done == total {
            bar.finish_and_clear();
        }
    })))
}
