//! The render stage of `lint` and `trace --from`: options from flags over the config, and the
//! `--show-builds` listing (docs/design.md "Builds").

use edgecheck_core::inventory::{BuildRecord, BuildState};
use edgecheck_core::Inventory;
use edgecheck_render::{Mode, RenderOptions};

use crate::cli::{InventoryArgs, RenderArgs, RenderMode};
use crate::config;

/// The render options: flags, else the config (paths in it relative to its directory), else defaults.
pub fn options(args: &RenderArgs, inv: &InventoryArgs, loaded: &config::Loaded) -> anyhow::Result<RenderOptions> {
    let cfg = &loaded.options;
    let mode = match (args.render, cfg.render.as_deref()) {
        (Some(RenderMode::Auto), _) | (None, None | Some("auto")) => Mode::Auto,
        (Some(RenderMode::Never), _) | (None, Some("never")) => Mode::Never,
        (None, Some(other)) => anyhow::bail!("config render `{other}`: expected auto or never"),
    };
    let dir = loaded.path.as_ref().and_then(|p| p.parent()).map(std::path::Path::to_path_buf).unwrap_or_default();
    let from_config = |p: &Option<std::path::PathBuf>| {
        p.as_ref().map(|p| if p.is_relative() && p.components().count() > 1 { dir.join(p) } else { p.clone() })
    };
    let mut api_versions = inv.api_versions.clone();
    api_versions.extend(cfg.api_versions.iter().flatten().cloned());
    Ok(RenderOptions {
        mode,
        helm: args.helm.clone().or_else(|| from_config(&cfg.helm)),
        kustomize: args.kustomize.clone().or_else(|| from_config(&cfg.kustomize)),
        api_versions,
        kube_version: args.kube_version.clone().or_else(|| cfg.kube_version.clone()),
        timeout: args.render_timeout.unwrap_or(std::time::Duration::from_secs(60)),
        max_memory: args.render_memory.unwrap_or(RenderOptions::default().max_memory),
        cache: if args.no_cache { None } else { RenderOptions::default().cache },
        fetch: args.fetch,
        cluster: args.cluster.clone(),
        ..RenderOptions::default()
    })
}

/// Renders the builds of `inv`; with `--show-builds`, lists them on stderr-free stdout first.
pub fn apply(inv: Inventory, args: &RenderArgs, opts: &RenderOptions) -> anyhow::Result<Inventory> {
    let inv = edgecheck_render::render(inv, opts);
    // A cluster the inputs do not name would silently lint nothing of it.
    if let Some(c) = &opts.cluster {
        if !inv.clusters.contains(c) {
            let found = if inv.clusters.is_empty() { "none".to_string() } else { inv.clusters.join(", ") };
            anyhow::bail!("--cluster {c}: no build targets a cluster of that name; clusters found: {found}");
        }
    }
    if args.show_builds {
        super::write_stdout(&listing(&inv.rendered))?;
    }
    Ok(inv)
}

/// The tools that rendered (or whose cache gave) what was checked, each once, as they name their versions
/// (`helm v3.17.1`): the report's `tool.renderers`.
pub fn tools(records: &[BuildRecord]) -> Vec<String> {
    let mut tools: Vec<String> = records
        .iter()
        .filter(|r| !matches!(r.state, BuildState::NotRendered(_)))
        .filter_map(|r| r.tool.clone())
        .collect();
    tools.sort();
    tools.dedup();
    tools
}

/// One line per build: name, kind and path, tool, cluster, state.
pub fn listing(records: &[BuildRecord]) -> String {
    if records.is_empty() {
        return "builds: none (no Application, Flux Kustomization, HelmRelease or kustomization root)\n".into();
    }
    let mut out = format!("builds: {}\n", records.len());
    for r in records {
        let state = match &r.state {
            BuildState::Rendered => format!("rendered, {} object{}", r.objects, if r.objects == 1 { "" } else { "s" }),
            BuildState::Cached => format!("cached, {} object{}", r.objects, if r.objects == 1 { "" } else { "s" }),
            BuildState::NotRendered(why) => format!("not rendered: {}", why.reason()),
        };
        let at = match (&r.file, r.line) {
            // A name made unique by its place already says it.
            (Some(f), _) if r.name.contains(f.as_str()) => String::new(),
            (Some(f), Some(l)) => format!("  ({f}:{l})"),
            (Some(f), None) => format!("  ({f})"),
            _ => String::new(),
        };
        let name = edgecheck_core::redact::controls(&r.name);
        out.push_str(&format!("  {name}{at}\n    {} {}", r.kind, edgecheck_core::redact::controls(&r.path)));
        if let Some(t) = &r.tool {
            out.push_str(&format!(" with {t}"));
        }
        if let Some(c) = &r.cluster {
            out.push_str(&format!(", cluster {}", edgecheck_core::redact::credentials(c)));
        }
        if let Some(ns) = &r.namespace {
            out.push_str(&format!(", namespace {ns}"));
        }
        out.push_str(&format!(": {}\n", edgecheck_core::redact::controls(&state)));
    }
    out
}
