//! Arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Why is (or isn't) this service reachable over HTTPS, and which layer is the first one broken?
#[derive(Debug, Parser)]
#[command(name = "edgecheck", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check manifests or dumps (files, directories, `-` for stdin); exit 1 on findings at the fail level.
    Lint(LintArgs),
    /// Probe endpoints from the outside: DNS, TCP, TLS, HTTP/h2, gRPC; the first failing layer first.
    Probe(ProbeArgs),
    /// List the check catalogue.
    Checks {
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
    },
    /// Print one check's documentation.
    Explain {
        /// A code (`TLS003`) or name (`tls-cert-host-mismatch`).
        check: String,
    },
    /// Check a live cluster, read-only (discovery and list only); exit codes as `lint`.
    Scan(ScanArgs),
    /// Follow one URL through every layer: probe and objects joined, the root cause first.
    Trace(TraceArgs),
    /// Print a ClusterRole and ClusterRoleBinding granting exactly what `scan` reads (get, list).
    Rbac(RbacArgs),
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Human text, grouped by layer.
    Text,
    /// The documented JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// Markdown (pull-request comments).
    Markdown,
    /// Graphviz DOT of the diagnoses' path graphs (`dot -Tsvg`).
    Dot,
    /// A Mermaid flowchart of the diagnoses' path graphs.
    Mermaid,
    /// One self-contained HTML page: path graphs, chains, findings.
    Html,
}

/// Colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Fail levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Exit 1 on errors.
    Error,
    /// Exit 1 on errors and warnings.
    Warning,
    /// Exit 1 on any finding.
    Info,
    /// Always exit 0 unless the input could not be read.
    Never,
}

/// Options shared by commands that run checks.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Output format.
    #[arg(long, short = 'o', value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Checks to run: ALL, a layer (tls), a code prefix (TLS, TLS0), a code or a name. Repeatable, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Checks to skip (same selectors); the more specific selector wins.
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Exit 1 when a finding reaches this level [default: error, or `fail-on` in the config].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Configuration file [default: `.edgecheck.toml` or `edgecheck.toml` found upwards from the first path].
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Ignore configuration files.
    #[arg(long)]
    pub no_config: bool,
    /// Colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The time to judge certificates by (RFC 3339) [default: now].
    #[arg(long, hide = true)]
    pub now: Option<String>,
}

/// `lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files or directories (recursively: .yaml, .yml, .json); `-` reads stdin.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Namespace for objects that name none.
    #[arg(long, short = 'n')]
    pub namespace: Option<String>,
    /// API versions the target cluster serves (like helm's flag): `group/version` or `group/version/Kind`.
    #[arg(long, value_delimiter = ',')]
    pub api_versions: Vec<String>,
    /// The cluster's CNI (flannel, terway, cilium, calico, ...), when the inventory does not show it.
    #[arg(long)]
    pub cni: Option<String>,
    /// Treat the input as a full dump of a cluster: absent objects are errors [default: detected].
    #[arg(long)]
    pub complete: bool,
    /// Shared options.
    #[command(flatten)]
    pub check: CheckArgs,
}

/// `probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// `https://host[:port]/path`, `http://...`, `grpc(s)://host:port`, or `HOST[:PORT]` (https).
    #[arg(required = true)]
    pub targets: Vec<String>,
    /// Probe options.
    #[command(flatten)]
    pub probe: ProbeOpts,
    /// Shared options.
    #[command(flatten)]
    pub check: CheckArgs,
}

/// Options of the probe (`probe` and `trace`).
#[derive(Debug, Args)]
pub struct ProbeOpts {
    /// Use ADDR for HOST:PORT instead of DNS (curl's `--resolve HOST:PORT:ADDR`). Repeatable.
    #[arg(long)]
    pub resolve: Vec<String>,
    /// Trust only the CA certificates in this PEM file.
    #[arg(long)]
    pub cacert: Option<PathBuf>,
    /// Send and verify this server name instead of the host.
    #[arg(long)]
    pub sni: Option<String>,
    /// ALPN protocols to offer.
    #[arg(long, value_delimiter = ',', default_value = "h2,http/1.1")]
    pub alpn: Vec<String>,
    /// Timeout per phase (`5s`, `500ms`).
    #[arg(long, default_value = "5s")]
    pub timeout: String,
    /// Also ask this DNS server (ADDR[:PORT]) and compare with the system resolver.
    #[arg(long)]
    pub dns_server: Option<String>,
    /// Targets probed at once.
    #[arg(long, default_value_t = 64)]
    pub concurrency: usize,
    /// Probe native gRPC and grpc-web too (always for grpc:// and grpcs:// targets).
    #[arg(long)]
    pub grpc: bool,
    /// Check whether TLS 1.0 and 1.1 are still accepted.
    #[arg(long)]
    pub legacy: bool,
    /// Redirects to follow at most.
    #[arg(long, default_value_t = 5)]
    pub max_redirects: usize,
    /// Write the raw observations as JSON to this file (a fixture sidecar, or evidence to keep).
    #[arg(long)]
    pub save_observations: Option<PathBuf>,
}

/// `trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The URL whose path to follow: `https://host[:port]/path`, `http://...`, `grpc(s)://host:port`.
    pub url: String,
    /// Read the objects from these files, directories or dumps (`-` for stdin) instead of a cluster.
    #[arg(long, num_args = 1..)]
    pub from: Vec<PathBuf>,
    /// Kubeconfig file, when reading the objects from a cluster.
    #[arg(long, conflicts_with = "from")]
    pub kubeconfig: Option<PathBuf>,
    /// Kubeconfig context, when reading the objects from a cluster.
    #[arg(long, conflicts_with = "from")]
    pub context: Option<String>,
    /// Objects only: do not probe the URL.
    #[arg(long, conflicts_with = "observations")]
    pub no_probe: bool,
    /// Use observations saved by `--save-observations` instead of probing (offline replay).
    #[arg(long)]
    pub observations: Option<PathBuf>,
    /// Default namespace of objects without one (files only).
    #[arg(long)]
    pub namespace: Option<String>,
    /// Probe options.
    #[command(flatten)]
    pub probe: ProbeOpts,
    /// Shared options.
    #[command(flatten)]
    pub check: CheckArgs,
}

/// `scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Kubeconfig file [default: `KUBECONFIG`, `~/.kube/config`, else the in-cluster service account].
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
    /// Kubeconfig context [default: the current context].
    #[arg(long)]
    pub context: Option<String>,
    /// Scan only this namespace (cluster-scoped kinds are still read) [default: all namespaces].
    #[arg(long, short = 'n', conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Scan all namespaces (the default; as kubectl's flag).
    #[arg(long, short = 'A')]
    pub all_namespaces: bool,
    /// Seconds before one API request is given up (the kind is then reported as not checked).
    #[arg(long, default_value_t = 30)]
    pub request_timeout: u64,
    /// The cluster's CNI (flannel, terway, cilium, calico, ...), when the objects do not show it.
    #[arg(long)]
    pub cni: Option<String>,
    /// Shared options.
    #[command(flatten)]
    pub check: CheckArgs,
}

/// `rbac`.
#[derive(Debug, Args)]
pub struct RbacArgs {
    /// The name of the ClusterRole and ClusterRoleBinding.
    #[arg(long, default_value = "edgecheck-scan")]
    pub name: String,
    /// The ServiceAccount to bind, as `namespace/name`.
    #[arg(long, default_value = "edgecheck/edgecheck")]
    pub service_account: String,
}
