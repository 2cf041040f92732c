//! `serve`: the flags turned into an [`edgecheck_serve::Config`]; everything else is the library's.

use crate::cli::{CheckArgs, ColorChoice, ServeArgs};
use crate::config;

pub fn run(args: &ServeArgs) -> anyhow::Result<u8> {
    let loaded = config::discover(&std::env::current_dir()?, args.config.as_deref(), args.no_config)?;
    let check = CheckArgs {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        fail_on: None,
        config: args.config.clone(),
        no_config: args.no_config,
        show_unused_ignores: false,
        now: args.now.clone(),
        no_snippets: true,
        output_file: None,
    };
    let s = super::lint::settings(&check, edgecheck_report::Format::Json, ColorChoice::Never, &loaded)?;
    let namespace = if args.all_namespaces { None } else { args.inventory.namespace.clone() };
    // The engine's options as `scan` builds them; the default namespace and completeness come from the
    // cluster and the watches (every kind read in every namespace: a full dump).
    let mut options = super::inventory::options(&args.inventory, &loaded.options, None);
    options.complete = args.inventory.complete.then_some(true);
    let mut probe = edgecheck_probe::ProbeOptions {
        cacert: args.cacert.clone(),
        timeout: args.probe_timeout,
        concurrency: usize::from(args.probe_concurrency),
        ..edgecheck_probe::ProbeOptions::default()
    };
    for r in &args.resolve {
        probe.resolve.push(super::probe::parse_resolve(r)?);
    }
    if let Some(ca) = &probe.cacert {
        edgecheck_load::read::check_regular_file(ca, edgecheck_load::DEFAULT_MAX_FILE_SIZE)
            .map_err(|e| anyhow::anyhow!("--cacert {}: {e}", ca.display()))?;
    }
    let connect_to = args
        .connect_to
        .iter()
        .map(|c| edgecheck_serve::probe::parse_connect_to(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    edgecheck_serve::listen_addr(&args.listen)?;
    let config = edgecheck_serve::Config {
        scan: edgecheck_kube::ScanOptions {
            kubeconfig: args.cluster.kubeconfig.clone(),
            context: args.cluster.context.clone(),
            namespace,
            timeout: Some(args.cluster.request_timeout),
            page_size: None,
            limits: edgecheck_kube::Limits::default(),
            progress: None,
        },
        listen: args.listen.clone(),
        debounce: args.debounce,
        probe_interval: (!args.no_probe).then_some(args.probe_interval),
        probe: edgecheck_serve::ProbeConfig { options: probe, connect_to, exclude: args.probe_exclude.clone() },
        engine: edgecheck_serve::Engine {
            selection: s.selection,
            suppressions: s.suppressions,
            options,
            now: args.now.is_some().then_some(s.now),
        },
        watch: edgecheck_kube::watch::WatchLimits::default(),
        limits: edgecheck_serve::Limits::default(),
    };
    match edgecheck_serve::run(config) {
        Ok(()) => Ok(0),
        Err(e) => {
            eprintln!("edgecheck: {e}");
            Ok(2)
        }
    }
}
