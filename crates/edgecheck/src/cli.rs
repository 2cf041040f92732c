//! Arguments.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand, ValueEnum};
use edgecheck_report::Format;

/// Why is (or isn't) this service reachable over HTTPS, and which layer is the first one broken?
#[derive(Debug, Parser)]
#[command(name = "edgecheck", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Colours: auto (on a terminal, unless `NO_COLOR` is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Subcommands, in the order people use them (`--help` lists them so).
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check manifests or dumps (files, directories, `-` for stdin); exit 1 on findings at the fail level.
    Lint(LintArgs),
    /// Check a live cluster, read-only (discovery and list only); exit codes as `lint`.
    Scan(ScanArgs),
    /// Follow one URL through every layer: probe and objects joined, the root cause first.
    Trace(Box<TraceArgs>),
    /// Probe endpoints from the outside: DNS, TCP, TLS, HTTP/h2, gRPC; the first failing layer first.
    Probe(ProbeArgs),
    /// Watch a cluster and diagnose it continuously: Prometheus metrics, the reports and traces over HTTP.
    Serve(Box<ServeArgs>),
    /// Print a ClusterRole and ClusterRoleBinding granting exactly what `scan` reads (get, list; `--watch`
    /// adds watch, for `serve`).
    Rbac(RbacArgs),
    /// List the check catalogue.
    Checks {
        /// Output format.
        #[arg(long = "format", short = 'o', visible_alias = "output", value_enum, default_value_t = CatalogueFormat::Text)]
        format: CatalogueFormat,
    },
    /// Print one check's documentation.
    Explain {
        /// A code (`TLS003`) or name (`tls-cert-host-mismatch`).
        check: String,
    },
    /// Print a shell completion script (`edgecheck completions bash > /etc/bash_completion.d/edgecheck`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `edgecheck man | man -l -`), or write one page per subcommand.
    Man {
        /// Write `edgecheck.1` and one `edgecheck-<command>.1` per subcommand into this directory instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The name the binary answers to as a kubectl plugin (`kubectl edgecheck ...`).
pub const PLUGIN_NAME: &str = "kubectl-edgecheck";

/// Whether the process was started as the kubectl plugin: argv[0]'s file name (without `.exe`) is
/// [`PLUGIN_NAME`], as kubectl runs plugins found on PATH.
pub fn invoked_as_plugin() -> bool {
    std::env::args_os()
        .next()
        .is_some_and(|a| std::path::Path::new(&a).file_stem().is_some_and(|stem| stem == PLUGIN_NAME))
}

/// The command definition, named as it was invoked: `kubectl edgecheck` in usage and help when run as
/// the kubectl plugin, else `edgecheck`. The flags are the same.
pub fn command() -> clap::Command {
    let cmd = Cli::command();
    if invoked_as_plugin() {
        cmd.bin_name("kubectl edgecheck")
    } else {
        cmd
    }
}

/// Parses the process's arguments (exits with clap's message and code 2 on bad usage).
pub fn parse() -> Cli {
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The formats of a report of objects (`lint`, `scan`, `trace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Human text, grouped by layer.
    Text,
    /// One line per finding, `file:line:col: CODE message` (grep, editors).
    Concise,
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
    /// GitHub Actions annotations (`::error file=...,line=...::message`), one per finding.
    Github,
    /// GitLab Code Quality JSON (`artifacts: reports: codequality:`).
    Gitlab,
}

/// The formats of `probe` (no objects, so no path graphs to draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProbeFormat {
    /// Human text, grouped by endpoint, then layer.
    Text,
    /// One line per finding, `endpoint: CODE message`.
    Concise,
    /// The documented JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// Markdown (pull-request comments).
    Markdown,
    /// GitHub Actions annotations, one per finding.
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
}

/// The formats of `checks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CatalogueFormat {
    /// A table.
    Text,
    /// One JSON array.
    Json,
    /// A Markdown table.
    Markdown,
}

impl From<ReportFormat> for Format {
    fn from(f: ReportFormat) -> Format {
        match f {
            ReportFormat::Text => Format::Text,
            ReportFormat::Concise => Format::Concise,
            ReportFormat::Json => Format::Json,
            ReportFormat::Sarif => Format::Sarif,
            ReportFormat::Markdown => Format::Markdown,
            ReportFormat::Dot => Format::Dot,
            ReportFormat::Mermaid => Format::Mermaid,
            ReportFormat::Html => Format::Html,
            ReportFormat::Github => Format::Github,
            ReportFormat::Gitlab => Format::Gitlab,
        }
    }
}

impl From<ProbeFormat> for Format {
    fn from(f: ProbeFormat) -> Format {
        match f {
            ProbeFormat::Text => Format::Text,
            ProbeFormat::Concise => Format::Concise,
            ProbeFormat::Json => Format::Json,
            ProbeFormat::Sarif => Format::Sarif,
            ProbeFormat::Markdown => Format::Markdown,
            ProbeFormat::Github => Format::Github,
            ProbeFormat::Gitlab => Format::Gitlab,
        }
    }
}

impl From<CatalogueFormat> for Format {
    fn from(f: CatalogueFormat) -> Format {
        match f {
            CatalogueFormat::Text => Format::Text,
            CatalogueFormat::Json => Format::Json,
            CatalogueFormat::Markdown => Format::Markdown,
        }
    }
}

/// Colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether text written to stdout is coloured.
    pub fn enabled(self) -> bool {
        use std::io::IsTerminal as _;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
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
    /// Report suppressions (annotations, config `ignore` entries scoped to objects) that suppressed
    /// nothing, as infos (LOD009).
    #[arg(long)]
    pub show_unused_ignores: bool,
    /// The time to judge certificates by (RFC 3339) [default: now].
    #[arg(long, hide = true)]
    pub now: Option<String>,
    /// Text without source snippets (the YAML lines a finding points at).
    #[arg(long)]
    pub no_snippets: bool,
    /// Write the report to this file instead of stdout (`-o`/`--output` name the format, as kubectl's
    /// `-o json`); notices still go to stderr, and the exit code is the same.
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
}

/// `lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files or directories (recursively: .yaml, .yml, .json); `-` reads stdin.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long = "format", short = 'o', visible_alias = "output", value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// Files larger than this (and stdin) are not read (`64MiB`, `512KiB`, bytes) [default: 64MiB, or `max-file-size` in the config].
    #[arg(long, value_parser = parse_size)]
    pub max_file_size: Option<u64>,
    /// One inventory for everything named: directories that are repositories of their own (`.git`, or a
    /// config with `root = true`) are not linted apart.
    #[arg(long)]
    pub merge: bool,
    /// What this change breaks: lint the base revision REF (a temporary git worktree, with this tree's
    /// configuration) and the working tree, and report only the findings the change introduces, those it
    /// fixes, and every host whose verdict changes; exit 1 only for what it introduces. Without a value
    /// (`lint . --diff-base`) the base is `origin/$GITHUB_BASE_REF` (else `$GITHUB_BASE_REF`).
    #[arg(long, value_name = "REF", num_args = 0..=1, default_missing_value = "")]
    pub diff_base: Option<String>,
    /// Findings whose identity (SARIF `partialFingerprints`) is in this baseline file are not reported,
    /// only counted as suppressed: adopting edgecheck on a repository with existing findings.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the identities of the current findings to this baseline file (for `--baseline`) and exit 0.
    #[arg(long, value_name = "FILE", conflicts_with = "diff_base")]
    pub write_baseline: Option<PathBuf>,
    /// What the inventory is.
    #[command(flatten)]
    pub inventory: InventoryArgs,
    /// Rendering the builds.
    #[command(flatten)]
    pub render: RenderArgs,
    /// Shared options.
    #[command(flatten)]
    pub check: CheckArgs,
}

/// Rendering what the controllers apply (`lint`, `trace --from`): docs/design.md "Builds".
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Render the builds (Helm charts, kustomizations, Flux Kustomizations) with the tools on this machine
    /// [default: `render` in the config, else auto].
    #[arg(long, value_enum)]
    pub render: Option<RenderMode>,
    /// The helm binary [default: `helm` in the config, else `helm` on PATH].
    #[arg(long, value_name = "PATH")]
    pub helm: Option<PathBuf>,
    /// The kustomize binary, or a kubectl to use as `kubectl kustomize` [default: `kustomize` in the
    /// config, else `kustomize`, else `kubectl` on PATH].
    #[arg(long, value_name = "PATH")]
    pub kustomize: Option<PathBuf>,
    /// The Kubernetes version helm renders for (`--kube-version`) [default: `kube-version` in the config].
    #[arg(long, value_name = "VERSION")]
    pub kube_version: Option<String>,
    /// The deadline of one render (`60s`, `2m`).
    #[arg(long, value_parser = request_timeout, value_name = "DURATION")]
    pub render_timeout: Option<std::time::Duration>,
    /// The most memory one render (helm or kustomize, with its children) may hold; past it the tool is
    /// killed and the build reported as not rendered (`2GiB`, `512MiB`) [default: 2GiB].
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    pub render_memory: Option<u64>,
    /// List every build: its kind, tool and version, cluster, and whether it was rendered (and why not);
    /// then lint as usual.
    #[arg(long)]
    pub show_builds: bool,
    /// Let helm pull remote charts (Helm and OCI repositories), the versions pinned as the objects pin
    /// them; without it they are listed as not rendered. The only network rendering reaches.
    #[arg(long)]
    pub fetch: bool,
    /// Only this cluster's builds (an Argo CD destination name or server, a Flux `clusters/<name>` tree)
    /// and no file of another cluster's tree: one cluster's inventory.
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,
    /// Render every build again: do not read or write the render cache (`~/.cache/edgecheck/render`).
    #[arg(long)]
    pub no_cache: bool,
}

/// `--render`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderMode {
    /// Render what the tools here can render.
    Auto,
    /// Render nothing; one info finding says so.
    Never,
}

/// What the inventory is and the cluster it is for (`lint`, `scan`, `trace`).
#[derive(Debug, Args)]
pub struct InventoryArgs {
    /// Files: the namespace of objects that name none [default: `namespace` in the config, else default].
    /// A cluster: read only this namespace (cluster-scoped kinds are still read) [default: all].
    #[arg(long, short = 'n')]
    pub namespace: Option<String>,
    /// API versions the target cluster serves (like helm's flag): `group/version` or `group/version/Kind`.
    #[arg(long, value_delimiter = ',')]
    pub api_versions: Vec<String>,
    /// The cluster's CNI (flannel, terway, cilium, calico, ...), when the inventory does not show it.
    #[arg(long)]
    pub cni: Option<String>,
    /// Treat the inventory as a full dump of a cluster: absent objects are errors [default: detected; a
    /// scan of every namespace in which every kind could be listed is one].
    #[arg(long)]
    pub complete: bool,
}

/// Reading a live cluster (`scan`, `trace` without `--from`).
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Kubeconfig file [default: `KUBECONFIG`, `~/.kube/config`, else the in-cluster service account].
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
    /// Kubeconfig context [default: the current context].
    #[arg(long)]
    pub context: Option<String>,
    /// Time before one API request is given up, the kind then reported as not checked (`30s`, `1m`, or
    /// seconds as a bare number, like kubectl's; at most 24h; `0`, kubectl's "no timeout", is 24h).
    #[arg(long, default_value = "30s", value_parser = kubectl_request_timeout)]
    pub request_timeout: Duration,
}

/// `probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// `https://host[:port]/path`, `http://...`, `grpc(s)://host:port`, or `HOST[:PORT]` (https).
    #[arg(required = true, value_parser = probe_target)]
    pub targets: Vec<String>,
    /// Output format.
    #[arg(long = "format", short = 'o', visible_alias = "output", value_enum, default_value_t = ProbeFormat::Text)]
    pub format: ProbeFormat,
    /// Show what the probe saw of every endpoint, healthy or not: DNS answers, addresses tried, TLS
    /// version, cipher, ALPN, the served chain, HTTP status and headers (as dig, openssl s_client and curl -v).
    #[arg(long, short = 'v')]
    pub verbose: bool,
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
    /// Timeout per phase (`5s`, `500ms`, `1m30s`; at most 1h).
    #[arg(long, default_value = "5s", value_parser = probe_timeout)]
    pub timeout: Duration,
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
    #[arg(value_parser = trace_target)]
    pub url: String,
    /// Output format.
    #[arg(long = "format", short = 'o', visible_alias = "output", value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// Read the objects from these files, directories or dumps (`-` for stdin) instead of a cluster.
    #[arg(long, num_args = 1.., conflicts_with_all = ["kubeconfig", "context"])]
    pub from: Vec<PathBuf>,
    /// Objects only: do not probe the URL.
    #[arg(long, conflicts_with = "observations")]
    pub no_probe: bool,
    /// Use observations saved by `--save-observations` instead of probing (offline replay).
    #[arg(long)]
    pub observations: Option<PathBuf>,
    /// Files larger than this (and stdin) are not read (`64MiB`, `512KiB`, bytes) [default: 64MiB, or `max-file-size` in the config].
    #[arg(long, value_parser = parse_size)]
    pub max_file_size: Option<u64>,
    /// What the inventory is.
    #[command(flatten)]
    pub inventory: InventoryArgs,
    /// Rendering the builds of `--from`.
    #[command(flatten)]
    pub render: RenderArgs,
    /// The cluster, when the objects are read from one.
    #[command(flatten)]
    pub cluster: ClusterArgs,
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
    /// Output format.
    #[arg(long = "format", short = 'o', visible_alias = "output", value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// Scan all namespaces (the default; as kubectl's flag).
    #[arg(long, short = 'A', conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// The cluster.
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// What the inventory is.
    #[command(flatten)]
    pub inventory: InventoryArgs,
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
    /// Leave out Secrets: the TLS and repository checks that read them then report "could not check".
    #[arg(long)]
    pub no_secrets: bool,
    /// Grant `watch` too (get, list, watch): the role `edgecheck serve` needs.
    #[arg(long)]
    pub watch: bool,
}

/// `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to serve `/metrics`, `/healthz`, `/readyz`, `/report`, `/report.json` and `/trace?url=`:
    /// `[HOST]:PORT` (`:9813` is every IPv4 address, `[::]:9813` every address).
    #[arg(long, default_value = ":9813", value_name = "ADDR")]
    pub listen: String,
    /// Watch all namespaces (the default; as kubectl's flag).
    #[arg(long, short = 'A', conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// Quiet time after a change before the checks run again (`2s`, `500ms`).
    #[arg(long, default_value = "2s", value_parser = serve_duration, value_name = "DURATION")]
    pub debounce: Duration,
    /// Time between probes of every claimed host, jittered by a tenth (`5m`, `30s`).
    #[arg(long, default_value = "5m", value_parser = serve_duration, value_name = "DURATION")]
    pub probe_interval: Duration,
    /// Hosts probed at once.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub probe_concurrency: u16,
    /// Do not probe hosts matching this glob (`*.internal`, `admin.example.com`). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub probe_exclude: Vec<String>,
    /// Objects only: never probe (the verdicts then come from the objects alone).
    #[arg(long)]
    pub no_probe: bool,
    /// Timeout per probe phase (`5s`, `500ms`; at most 1h).
    #[arg(long, default_value = "5s", value_parser = probe_timeout, value_name = "DURATION")]
    pub probe_timeout: Duration,
    /// Use ADDR for HOST:PORT instead of DNS (curl's `--resolve HOST:PORT:ADDR`). Repeatable.
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    pub resolve: Vec<String>,
    /// Connect to ADDR:PORT2 for HOST:PORT, the host name kept for SNI and verification (curl's
    /// `--connect-to`). Repeatable.
    #[arg(long, value_name = "HOST:PORT:ADDR:PORT2")]
    pub connect_to: Vec<String>,
    /// Trust only the CA certificates in this PEM file when probing.
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// Checks to run: ALL, a layer (tls), a code prefix (TLS, TLS0), a code or a name. Repeatable, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Checks to skip (same selectors); the more specific selector wins.
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Configuration file [default: `.edgecheck.toml` or `edgecheck.toml` found upwards from the current directory].
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Ignore configuration files.
    #[arg(long)]
    pub no_config: bool,
    /// The time to judge certificates by (RFC 3339) [default: now].
    #[arg(long, hide = true)]
    pub now: Option<String>,
    /// The cluster.
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// What the inventory is.
    #[command(flatten)]
    pub inventory: InventoryArgs,
}

/// A duration of `serve` (at most 24h).
fn serve_duration(s: &str) -> Result<Duration, String> {
    parse_duration(s, MAX_DURATION)
}

fn parse_size(s: &str) -> Result<u64, String> {
    edgecheck_load::read::parse_size(s)
}

/// The longest probe timeout per phase.
const MAX_PROBE_TIMEOUT: Duration = Duration::from_secs(3600);
/// The longest of any other duration.
const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);

fn probe_timeout(s: &str) -> Result<Duration, String> {
    parse_duration(s, MAX_PROBE_TIMEOUT)
}

fn request_timeout(s: &str) -> Result<Duration, String> {
    parse_duration(s, MAX_DURATION)
}

/// kubectl's `--request-timeout`: a zero (`0`, `0s`, kubectl's default) means no timeout, which is the
/// longest edgecheck allows.
fn kubectl_request_timeout(s: &str) -> Result<Duration, String> {
    if matches!(s, "0" | "0s" | "0m" | "0h") {
        return Ok(MAX_DURATION);
    }
    request_timeout(s)
}

/// The one duration syntax of every flag ([`edgecheck_core::duration::parse`]).
pub fn parse_duration(s: &str, max: Duration) -> Result<Duration, String> {
    edgecheck_core::duration::parse(s, max)
}

fn probe_target(s: &str) -> Result<String, String> {
    target(s, "probe")
}

fn trace_target(s: &str) -> Result<String, String> {
    target(s, "trace")
}

/// The one target syntax of `probe` and `trace` ([`edgecheck_checks::diagnose::TraceTarget::parse`]).
fn target(s: &str, verb: &str) -> Result<String, String> {
    if edgecheck_checks::diagnose::TraceTarget::parse(s).is_some_and(|t| t.port != 0) {
        return Ok(s.to_string());
    }
    let scheme = s.split_once("://").map(|(sc, _)| sc.to_ascii_lowercase());
    let why = match scheme.as_deref() {
        Some("https" | "http" | "grpc" | "grpcs") | None => "no host, or a port that is not 1-65535".to_string(),
        Some(other) => format!("the scheme `{other}` is not one edgecheck speaks"),
    };
    Err(format!(
        "`{s}` is not a URL edgecheck can {verb} ({why}): expected https://host[:port]/path, http://, grpc://, grpcs:// or HOST[:PORT]"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Duration = Duration::from_secs(3600);

    #[test]
    fn durations_parse_once_and_stay_bounded() {
        assert_eq!(parse_duration("500ms", H), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s", H), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("30", H), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2.5", H), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("1m30s", H), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h", H), Ok(H));
        assert_eq!(parse_duration("0.25s", H), Ok(Duration::from_millis(250)));
        for bad in
            ["soon", "", "1e20s", "1e19s", "inf", "NaN", "-1s", "+5s", "1e400s", "5 s", "5x", "s", ".s", "1.2.3s"]
        {
            assert!(parse_duration(bad, H).is_err(), "{bad}");
        }
        assert!(parse_duration("18446744073709551615s", H).unwrap_err().contains("too large"));
        assert!(parse_duration("3601s", H).unwrap_err().contains("at most 1h"));
        assert!(parse_duration("0s", H).unwrap_err().contains("more than zero"));
        assert_eq!(parse_duration("24h", MAX_DURATION), Ok(MAX_DURATION));
        assert!(parse_duration("25h", MAX_DURATION).is_err());
        for zero in ["0", "0s", "0m"] {
            assert_eq!(kubectl_request_timeout(zero), Ok(MAX_DURATION), "{zero}");
        }
        assert_eq!(kubectl_request_timeout("30"), Ok(Duration::from_secs(30)));
        assert!(kubectl_request_timeout("-0s").is_err());
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn targets_parse_as_trace_does() {
        assert!(target("https://shop.example.com/x", "probe").is_ok());
        assert!(target("shop.example.com:8443", "probe").is_ok());
        assert!(target("ftp://127.0.0.1/", "probe").unwrap_err().contains("scheme `ftp`"));
        assert!(target("https://127.0.0.1:99999/", "probe").unwrap_err().contains("not 1-65535"));
        assert!(target("https://127.0.0.1:0/", "probe").unwrap_err().contains("not 1-65535"));
        assert!(target("https://:443/", "probe").unwrap_err().contains("no host"));
    }
}
