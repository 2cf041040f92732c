//! What each controller will apply (docs/design.md "Builds"): the builds of a loaded repository found
//! the way Argo CD and Flux find them, rendered with the user's own `helm` and `kustomize`, and the
//! inventory rebuilt from what they render. Files a rendered build includes are replaced by its output;
//! builds that render controllers are expanded in turn (app of apps) up to a depth limit; what no build
//! applies is loose. Nothing here reaches the network or runs plugins, and every tool runs under a
//! deadline and an output bound.

mod appset;
mod cache;
mod clusters;
mod discover;
pub mod envsubst;
mod gotemplate;
mod helm_cache;
mod map;
mod render;
pub mod run;
pub mod tools;
mod values;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use edgecheck_core::graph::{under_dir, DirSet};
use edgecheck_core::inventory::{BuildRecord, BuildState, NotRendered};
use edgecheck_core::{Build, Inventory, LoadProblem, LoadProblemKind, Object};
use rayon::prelude::*;

use discover::{How, Spec, World};
pub use values::{annotate as annotate_value_sources, annotate_patches};

/// Names, on each finding at a rendered object, where the user edits what decided it: the values a chart
/// template's line reads ([`annotate_value_sources`]) and the kustomize patches that set the field
/// ([`annotate_patches`]). Every command that checks rendered builds (`lint`, `trace --from`) calls it.
pub fn annotate_sources(records: &[edgecheck_core::inventory::BuildRecord], findings: &mut [edgecheck_core::Finding]) {
    annotate_value_sources(records, findings);
    annotate_patches(records, findings);
}

/// Whether to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Render what the tools on this machine can render.
    #[default]
    Auto,
    /// Render nothing; list the builds.
    Never,
}

/// What one run rendered, by part: the tool, the files the part replaces, the objects.
#[derive(Default)]
pub struct Memo(std::sync::Mutex<HashMap<String, Rendered>>);

type Rendered = (String, HashSet<String>, Vec<Object>);

impl Memo {
    fn get(&self, key: &str) -> Option<Rendered> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: &str, tool: &str, replaced: &HashSet<String>, objects: &[Object]) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(key.to_string(), (tool.to_string(), replaced.clone(), objects.to_vec()));
        }
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map(|m| m.len()).unwrap_or(0);
        write!(f, "Memo({n} parts)")
    }
}

/// How to render.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub mode: Mode,
    /// `--helm`: the helm binary (else `PATH`).
    pub helm: Option<PathBuf>,
    /// `--kustomize`: the kustomize (or kubectl) binary (else `PATH`).
    pub kustomize: Option<PathBuf>,
    /// `--api-versions` passed to helm besides the CRDs' of the inputs.
    pub api_versions: Vec<String>,
    /// `--kube-version` passed to helm.
    pub kube_version: Option<String>,
    /// The deadline of one tool run.
    pub timeout: Duration,
    /// The most one tool run may print.
    pub max_output: u64,
    /// The most resident memory one tool run (with its children) may hold (`--render-memory`).
    pub max_memory: u64,
    /// Rounds of expansion (app of apps) before giving up.
    pub max_depth: usize,
    /// Where rendered parts are cached (`None`: no cache, `--no-cache`).
    pub cache: Option<PathBuf>,
    /// The parts rendered in this run, shared by the options' clones: a lint of several clusters renders
    /// each part once, with or without the disk cache.
    pub memo: std::sync::Arc<Memo>,
    /// `--fetch`: let helm pull remote charts (the only network edgecheck's rendering reaches).
    pub fetch: bool,
    /// `--cluster`: only the builds for this cluster (an Argo CD destination name or server, a Flux
    /// `clusters/<name>` tree), and no file of another cluster's tree.
    pub cluster: Option<String>,
}

impl RenderOptions {
    /// The bounds of one tool run.
    pub(crate) fn bounds(&self) -> run::Bounds {
        run::Bounds { timeout: self.timeout, max_output: self.max_output, max_memory: self.max_memory }
    }
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            mode: Mode::Auto,
            helm: None,
            kustomize: None,
            api_versions: Vec::new(),
            kube_version: None,
            timeout: Duration::from_secs(60),
            max_output: 64 << 20,
            max_memory: 2 << 30,
            max_depth: 8,
            cache: cache::default_dir(),
            memo: std::sync::Arc::default(),
            fetch: false,
            cluster: None,
        }
    }
}

/// What one part of a build produced.
struct PartResult {
    objects: Vec<Object>,
    problems: Vec<LoadProblem>,
    /// Files whose objects the part replaces (rendered) or applies as they are (directory).
    replaced: HashSet<String>,
    applied: HashSet<String>,
    /// Objects it rendered or applies.
    count: usize,
    /// Its objects came from the cache.
    cached: bool,
    state: Result<Option<String>, NotRendered>,
}

struct Outcome {
    parts: Vec<PartResult>,
}

impl Outcome {
    fn objects(&self) -> impl Iterator<Item = &Object> {
        self.parts.iter().flat_map(|p| p.objects.iter())
    }
}

/// Renders the builds of `inv` and returns the inventory of what they apply. An inventory without
/// builds comes back as it was.
pub fn render(mut inv: Inventory, opts: &RenderOptions) -> Inventory {
    let mut files: Vec<Object> = std::mem::take(&mut inv.objects);
    let trees = clusters::Trees::find(&files);
    let prefixes = prefixes(&files, &inv);
    let object_files: HashSet<String> = files.iter().filter_map(|o| o.source.file().map(str::to_string)).collect();
    let index = FileIndex::new(&files);
    let kustomizations: HashMap<&str, &Build> =
        inv.builds.iter().filter(|b| !b.flux).map(|b| (b.dir.as_str(), b)).collect();
    let included: HashSet<&str> = inv.builds.iter().flat_map(|b| b.dirs.iter().map(String::as_str)).collect();
    let helm = if opts.mode == Mode::Auto { tools::helm(opts.helm.as_deref()) } else { Err(String::new()) };
    let kustomize =
        if opts.mode == Mode::Auto { tools::kustomize(opts.kustomize.as_deref()) } else { Err(String::new()) };
    let mut api_versions = opts.api_versions.clone();
    api_versions.extend(render::crd_api_versions(&files.iter().collect::<Vec<_>>()));
    let ctx = render::Ctx {
        opts,
        helm: &helm,
        kustomize: &kustomize,
        kustomizations,
        object_files: &object_files,
        api_versions,
        helm_home: helm_cache::HelmHome::from_env(),
        roots: inv.repos.iter().filter_map(|r| r.root.canonicalize().ok()).collect(),
    };

    let app_charts = app_of_apps_charts(&inv, &prefixes);
    if let Some(dir) = &opts.cache {
        cache::prune(dir);
    }
    let mut outcomes: HashMap<String, Outcome> = HashMap::new();
    let mut specs: Vec<Spec> = Vec::new();
    // What the previous round's discovery read (the objects themselves, by address: files and outcomes are
    // neither moved nor dropped while rounds run).
    let mut read: Option<Vec<*const Object>> = None;
    for _ in 0..opts.max_depth.max(1) {
        let found = {
            let mut objects = current(&files, &specs, &outcomes);
            let unlisted = unlisted_flux_files(&ctx, &specs, &outcomes, &objects);
            objects.retain(|o| !(is_flux_build(o) && o.source.file().is_some_and(|f| unlisted.contains(f))));
            let objects = discover::inputs(objects);
            // The same inputs find the same builds: what the renders added or replaced is nothing discovery
            // reads (2,500 Applications of plain directories were discovered a second time only to agree).
            let now: Vec<*const Object> = objects.iter().map(|o| std::ptr::from_ref(*o)).collect();
            if read.as_ref() == Some(&now) {
                break;
            }
            read = Some(now);
            let world = World::new(objects, &inv.repos, &prefixes, &trees);
            let mut found = discover::controllers(&world);
            found.extend(plain_roots(&inv.builds, &included, &app_charts, &found, &ctx));
            let mut found = dedupe(found);
            assign_clusters(&mut found, &trees);
            // The clusters builds target, before --cluster keeps one: what it may name.
            for c in found.iter().filter_map(|s| s.cluster.as_ref()) {
                if !inv.clusters.contains(c) {
                    inv.clusters.push(c.clone());
                }
            }
            found
        };
        let same = found.len() == specs.len() && found.iter().zip(&specs).all(|(a, b)| a.key() == b.key());
        if same {
            break;
        }
        if opts.mode == Mode::Auto {
            let new: Vec<&Spec> = found.iter().filter(|s| !outcomes.contains_key(s.key())).collect();
            let rendered: Vec<(String, Outcome)> =
                new.par_iter().map(|s| (s.key().to_string(), render_spec(&ctx, s, &files, &index))).collect();
            outcomes.extend(rendered);
        }
        specs = found;
        if opts.mode == Mode::Never {
            break;
        }
    }

    inv.clusters.sort();
    // With --cluster, every cluster's builds were rendered (the cache makes the others cheap), so that what
    // another cluster applies is neither a plain root nor a loose file here; only this cluster's builds (and
    // those no cluster claims) make the inventory, and the files the others replace or apply leave it, as do
    // the files of the other clusters' trees.
    let mut foreign: HashSet<String> = HashSet::new();
    let mut foreign_dirs: Vec<String> = Vec::new();
    // Kustomization directories only other clusters' builds read: a file there that their kustomization does
    // not list is loose in their cluster, not in this one.
    let mut foreign_kdirs: HashSet<String> = HashSet::new();
    if let Some(c) = &opts.cluster {
        let (mine, others): (Vec<Spec>, Vec<Spec>) =
            std::mem::take(&mut specs).into_iter().partition(|s| s.cluster.as_deref().is_none_or(|x| x == c));
        let kdirs = |list: &[Spec]| -> HashSet<String> {
            let starts = list.iter().flat_map(|s| &s.parts).filter_map(|h| match h {
                How::Kustomize { dir, overlay } | How::FluxGenerated { dir, overlay } => {
                    Some(std::iter::once(dir.clone()).chain(overlay.components.iter().cloned()).collect::<Vec<_>>())
                }
                _ => None,
            });
            starts.flat_map(|start| render::reach_dirs(&ctx, start).into_iter().map(str::to_string)).collect()
        };
        let own = kdirs(&mine);
        foreign_kdirs = kdirs(&others).into_iter().filter(|d| !own.contains(d)).collect();
        for s in &others {
            foreign_dirs.extend(s.claims.iter().cloned());
            match outcomes.get(s.key()) {
                Some(o) => {
                    for (p, how) in o.parts.iter().zip(&s.parts) {
                        foreign.extend(p.replaced.iter().cloned());
                        foreign.extend(p.applied.iter().cloned());
                        if p.state.is_err() {
                            foreign_dirs.extend(part_dir(how).map(str::to_string));
                        }
                    }
                }
                None => foreign_dirs.extend(s.parts.iter().filter_map(part_dir).map(str::to_string)),
            }
        }
        specs = mine;
        files.retain(|o| o.source.file().and_then(|f| trees.of(f)).is_none_or(|x| x == c));
    }
    // The inventory: what the builds rendered, then the files they do not replace.
    let mut replaced: HashSet<&str> = HashSet::new();
    let mut applied: HashSet<&str> = HashSet::new();
    let mut in_failed: Vec<&str> = Vec::new();
    // The files of failed kustomize parts: what their kustomizations list.
    let mut failed_files: HashSet<String> = HashSet::new();
    let mut unfilled: HashSet<String> = HashSet::new();
    let mut claimed_files: HashSet<String> = HashSet::new();
    // One record a build, held until the report: sized once (grown by doubling, it carried a third more).
    let mut records = Vec::with_capacity(specs.len());
    let mut objects: Vec<Object> = Vec::new();
    let mut problems: Vec<LoadProblem> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    // A chart of this checkout that did not render and whose templates make Applications or Flux
    // Kustomizations: what those apply is not known, so no directory can be said to be applied by no build.
    let mut unknown_builds = false;
    for s in &specs {
        let outcome = outcomes.get(s.key());
        let failed = |i: usize| outcome.is_none_or(|o| o.parts.get(i).is_none_or(|p| p.state.is_err()));
        unknown_builds |= s.parts.iter().enumerate().any(|(i, how)| failed(i) && render::makes_builds(how));
        records.push(record(&ctx, s, outcome, opts.mode));
        in_failed.extend(s.claims.iter().map(String::as_str));
        claimed_files.extend(claim_files(&ctx, &s.claims));
        let Some(o) = outcome else {
            s.parts.iter().for_each(|how| failed_part(&ctx, how, &mut in_failed, &mut failed_files));
            continue;
        };
        for (p, how) in o.parts.iter().zip(&s.parts) {
            if p.state.is_err() {
                failed_part(&ctx, how, &mut in_failed, &mut failed_files);
                // A failed build whose kustomizations rewrite what they include (`replacements`, `vars`):
                // its files hold placeholders only the build fills in, so they are not checked as written.
                if let Some(dir) = part_dir(how) {
                    if render::reach_builds(&ctx, [dir.to_string()]).iter().any(|b| b.rewrites) {
                        unfilled.extend(render::reach_files(&ctx, [dir.to_string()]));
                    }
                }
            }
            replaced.extend(p.replaced.iter().map(String::as_str));
            applied.extend(p.applied.iter().map(String::as_str));
        }
        if taken.insert(s.key().to_string()) {
            objects.extend(o.objects().cloned());
            problems.extend(o.parts.iter().flat_map(|p| p.problems.iter().cloned()));
        }
    }
    let rendered_ids: HashSet<(String, edgecheck_core::value::Str, Option<edgecheck_core::value::Str>)> =
        objects.iter().map(|o| (o.kind.kind.to_string(), o.name.clone(), o.namespace.clone())).collect();
    let rendered_names: HashSet<(String, edgecheck_core::value::Str)> =
        objects.iter().map(|o| (o.kind.kind.to_string(), o.name.clone())).collect();
    let has_builds = !specs.is_empty();
    // What sits beside the controller objects (a Namespace, an AppProject) is applied with them.
    let controller_dirs: HashSet<String> = files
        .iter()
        .filter(|o| is_controller_input(o))
        .filter_map(|o| o.source.file())
        .map(|f| f.rsplit_once('/').map_or(String::new(), |(d, _)| d.to_string()))
        .collect();
    // Per directory: how many objects no build applies, and in which files.
    let mut loose: BTreeMap<String, (usize, BTreeSet<String>)> = BTreeMap::new();
    foreign_dirs.retain(|d| !d.is_empty());
    let foreign_dirs: DirSet = foreign_dirs.iter().map(String::as_str).collect();
    let in_failed: DirSet = in_failed.into_iter().collect();
    // Filtered in place: a second vector of every object would double the largest allocation of a lint.
    files.retain_mut(|o| {
        let f = o.source.file().unwrap_or("");
        if replaced.contains(f) || unfilled.contains(f) {
            return false;
        }
        let dir = f.rsplit_once('/').map_or("", |(d, _)| d);
        let failed = failed_files.contains(f) || in_failed.holds(f);
        let mine = applied.contains(f) || claimed_files.contains(f) || failed;
        if !mine && (foreign.contains(f) || foreign_dirs.holds(f) || foreign_kdirs.contains(dir)) {
            return false; // another cluster's
        }
        let of_a_build = applied.contains(f) || claimed_files.contains(f) || failed || controller_dirs.contains(dir);
        if has_builds && !of_a_build && !o.source.example && !is_controller_input(o) {
            // A copy of what a build renders never stands in for it or collides with it.
            let same = match &o.namespace {
                Some(ns) => rendered_ids.contains(&(o.kind.kind.to_string(), o.name.clone(), Some(ns.clone()))),
                None => rendered_names.contains(&(o.kind.kind.to_string(), o.name.clone())),
            };
            if same {
                return false;
            }
            if !objects.is_empty() {
                let (dir, name) = f.rsplit_once('/').unwrap_or(("", f));
                let e = loose.entry(dir.to_string()).or_default();
                e.0 += 1;
                e.1.insert(name.to_string());
                o.source.loose = true;
            }
        }
        true
    });
    if objects.is_empty() {
        objects = files;
    } else {
        objects.reserve_exact(files.len());
        objects.extend(files);
    }
    inv.loose = loose.values().map(|(n, _)| n).sum();
    if unknown_builds {
        loose.clear();
    }
    for (dir, (n, names)) in loose {
        // Which files, so that the reader need not diff the directory against its kustomization.
        const SHOWN: usize = 5;
        let mut files = names.iter().take(SHOWN).map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
        if names.len() > SHOWN {
            files.push_str(&format!(" and {} more", names.len() - SHOWN));
        }
        problems.push(LoadProblem {
            kind: LoadProblemKind::NotApplied,
            file: if dir.is_empty() { ".".into() } else { dir },
            line: None,
            message: format!(
                "{n} object{} here {} applied by no build ({files})",
                if n == 1 { "" } else { "s" },
                if n == 1 { "is" } else { "are" },
            ),
            object: None,
            other: None,
            example: false,
            not_manifest: false,
        });
    }
    // Templates of the charts that were rendered are no longer skipped.
    let rendered_templates: usize = specs
        .iter()
        .filter_map(|s| outcomes.get(s.key()).map(|o| (s, o)))
        .flat_map(|(s, o)| s.parts.iter().zip(&o.parts))
        .filter(|(_, p)| p.state.is_ok())
        .filter_map(|(h, _)| match h {
            How::Helm(h) if h.remote.is_none() => Some(h.chart.clone()),
            _ => None,
        })
        .collect::<HashSet<String>>()
        .iter()
        .map(|c| template_files(c))
        .sum();
    inv.skipped_templates = inv.skipped_templates.saturating_sub(rendered_templates);
    inv.objects = objects;
    // A rendered copy of a replaced file reports its Secret data problems again: the file's are dropped.
    inv.problems.retain(|p| {
        !(matches!(p.kind, LoadProblemKind::BadBase64 | LoadProblemKind::BadPem) && replaced.contains(p.file.as_str()))
    });
    inv.problems.extend(problems);
    inv.rendered = records;
    inv
}

/// The files the kustomizations in claimed directories include (a claimed Flux path's overlay reaching its
/// bases elsewhere).
fn claim_files(ctx: &render::Ctx<'_>, claims: &[String]) -> HashSet<String> {
    render::reach_files(ctx, claims.iter().cloned())
}

/// The manifest files below a chart's `templates/` (the loader skipped them as templates).
fn template_files(chart: &str) -> usize {
    let dir = std::path::Path::new(if chart.is_empty() { "." } else { chart }).join("templates");
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter(|e| matches!(e.path().extension().and_then(|x| x.to_str()), Some("yaml" | "yml" | "json")))
        .count()
}

/// Kinds that controllers read rather than apply from a build: the roots of the builds themselves, their
/// sources and Flux's other objects (applied by bootstrap), never loose.
fn is_controller_input(o: &Object) -> bool {
    matches!(
        (o.kind.group.as_str(), o.kind.kind.as_str()),
        ("argoproj.io", "Application" | "ApplicationSet" | "AppProject")
    ) || o.kind.group.ends_with(".fluxcd.io")
}

/// The directory a part builds.
/// Where a part that did not render keeps the files checked as written: for a kustomization, the files it
/// lists (a file beside it that it leaves out is not its own, as when it renders); else (a chart, a directory,
/// a kustomization that could not be read) its whole directory.
fn failed_part<'a>(ctx: &render::Ctx<'_>, how: &'a How, dirs: &mut Vec<&'a str>, files: &mut HashSet<String>) {
    let listed = match how {
        How::Kustomize { .. } | How::FluxGenerated { .. } => render::replaced_files(ctx, how),
        _ => HashSet::new(),
    };
    if listed.is_empty() {
        dirs.extend(part_dir(how));
    } else {
        files.extend(listed);
    }
}

fn part_dir(h: &How) -> Option<&str> {
    match h {
        How::Kustomize { dir, .. } | How::FluxGenerated { dir, .. } | How::Directory { dir, .. } => Some(dir),
        // A remote chart has no directory here: its empty `chart` is not the checkout's root.
        How::Helm(h) if h.remote.is_some() => None,
        How::Helm(h) => Some(&h.chart),
        How::Generate { .. } | How::No { .. } => None,
    }
}

/// How each checkout's root is spelled in the objects' file names.
fn prefixes(files: &[Object], inv: &Inventory) -> Vec<Option<String>> {
    let mut out = vec![None; inv.repos.len()];
    for o in files {
        let (Some(f), Some((r, rel))) = (o.source.file(), o.source.repo_path()) else { continue };
        if out[r].is_none() {
            if let Some(p) = f.strip_suffix(rel) {
                out[r] = Some(p.trim_end_matches('/').to_string());
            }
        }
    }
    for (i, r) in inv.repos.iter().enumerate() {
        if out[i].is_none() {
            out[i] = Some(r.root.to_string_lossy().into_owned());
        }
    }
    out
}

/// The objects of the current pass: what the specs rendered, and the files they do not replace.
fn current<'a>(files: &'a [Object], specs: &[Spec], outcomes: &'a HashMap<String, Outcome>) -> Vec<&'a Object> {
    let mut replaced: HashSet<&str> = HashSet::new();
    let mut out: Vec<&Object> = Vec::new();
    let mut seen = HashSet::new();
    for s in specs {
        let key = s.key();
        let Some(o) = outcomes.get(key) else { continue };
        for p in &o.parts {
            replaced.extend(p.replaced.iter().map(String::as_str));
        }
        if seen.insert(key) {
            out.extend(o.objects());
        }
    }
    out.extend(files.iter().filter(|o| !o.source.file().is_some_and(|f| replaced.contains(f))));
    out
}

/// A Flux Kustomization or HelmRelease read from a file (not rendered by a build).
fn is_flux_build(o: &Object) -> bool {
    o.source.build().is_none()
        && matches!(
            (o.kind.group.as_str(), o.kind.kind.as_str()),
            ("kustomize.toolkit.fluxcd.io", "Kustomization") | ("helm.toolkit.fluxcd.io", "HelmRelease")
        )
}

/// Files of Flux objects that a build does not apply although it builds their directory: the nearest
/// kustomization above the file is one a rendered build reaches, and it does not list the file
/// (`# - ./app/ks.yaml` commented out, or never added). kustomize applies only what is listed, so such an
/// object is not in the cluster and is no build. Argo CD Applications are left alone: a root Application is
/// often applied by hand beside a kustomization that does not list it.
fn unlisted_flux_files(
    ctx: &render::Ctx<'_>,
    specs: &[Spec],
    outcomes: &HashMap<String, Outcome>,
    objects: &[&Object],
) -> HashSet<String> {
    let mut built: Vec<String> = Vec::new();
    for s in specs {
        let Some(o) = outcomes.get(s.key()) else { continue };
        for (how, p) in s.parts.iter().zip(&o.parts) {
            match (how, &p.state) {
                (How::Kustomize { dir, .. }, Ok(_)) => built.push(dir.clone()),
                // Flux's generated kustomization lists the kustomizations below it.
                (How::FluxGenerated { dir, .. }, Ok(_)) => {
                    built.extend(render::flux_generated(dir, ctx.object_files).1)
                }
                _ => {}
            }
        }
    }
    if built.is_empty() {
        return HashSet::new();
    }
    let built: HashSet<&str> = render::reach_dirs(ctx, built).into_iter().collect();
    let mut out = HashSet::new();
    let mut listed: HashMap<&str, HashSet<String>> = HashMap::new();
    for o in objects.iter().filter(|o| is_flux_build(o)) {
        let Some(file) = o.source.file() else { continue };
        // The nearest directory above the file that has a kustomization.
        let mut dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        let nearest = loop {
            if ctx.kustomizations.contains_key(dir) {
                break Some(dir);
            }
            match dir.rsplit_once('/') {
                Some((up, _)) => dir = up,
                None if !dir.is_empty() => dir = "",
                None => break None,
            }
        };
        let Some(k) = nearest.filter(|k| built.contains(k)) else { continue };
        if !listed.entry(k).or_insert_with(|| render::reach_files(ctx, [k.to_string()])).contains(file) {
            out.insert(file.to_string());
        }
    }
    out
}

/// The cluster of each build: its own (an Argo CD destination), else that of the `clusters/<name>` tree its
/// object's file is in, else that of the build that rendered its object.
fn assign_clusters(specs: &mut [Spec], trees: &clusters::Trees) {
    for s in specs.iter_mut() {
        if s.cluster.is_none() && s.from.is_none() {
            s.cluster = s.file.as_deref().and_then(|f| trees.of(f)).map(str::to_string);
        }
    }
    for _ in 0..8 {
        let by_name: HashMap<String, Option<String>> =
            specs.iter().map(|s| (s.name.clone(), s.cluster.clone())).collect();
        let mut changed = false;
        for s in specs.iter_mut().filter(|s| s.cluster.is_none()) {
            let inherited = s.from.as_ref().and_then(|f| by_name.get(f).cloned().flatten());
            let own = || s.file.as_deref().and_then(|f| trees.of(f)).map(str::to_string);
            if let Some(c) = inherited.or_else(own) {
                s.cluster = Some(c);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// One spec per key; names made unique.
fn dedupe(found: Vec<Spec>) -> Vec<Spec> {
    let mut seen = HashSet::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for mut s in found {
        s.seal();
        if !seen.insert(s.key().to_string()) {
            continue;
        }
        let n = names.entry(s.name.clone()).or_default();
        *n += 1;
        if *n > 1 {
            s.name = format!("{} ({}:{})", s.name, s.file.as_deref().unwrap_or("-"), s.line.unwrap_or(0));
        }
        out.push(s);
    }
    out
}

/// Kustomizations no other kustomization includes and no controller build reaches: each a build of its
/// own (`kustomize build` of the directory, as `kubectl apply -k` does).
fn plain_roots(
    builds: &[Build],
    included: &HashSet<&str>,
    app_charts: &[String],
    controllers: &[Spec],
    ctx: &render::Ctx<'_>,
) -> Vec<Spec> {
    let mut reached: HashSet<&str> = HashSet::new();
    let mut trees: Vec<&str> = Vec::new();
    for s in controllers {
        trees.extend(s.claims.iter().map(String::as_str));
        reached.extend(render::reach_dirs(ctx, s.claims.iter().cloned()));
        for p in &s.parts {
            match p {
                How::Kustomize { dir, overlay } => {
                    let start = std::iter::once(dir.clone()).chain(overlay.components.iter().cloned());
                    reached.extend(render::reach_dirs(ctx, start));
                }
                How::FluxGenerated { .. } | How::Helm(_) | How::Directory { recurse: true, .. } => {
                    trees.extend(part_dir(p))
                }
                _ => {}
            }
        }
    }
    // A directory is free when no tree holds it: it and its ancestors are looked up (a scan of every tree per
    // directory was O(builds × controllers)).
    let tree_set: HashSet<&str> = trees.iter().copied().collect();
    let free = |dir: &str| {
        !std::iter::once(dir)
            .chain(dir.rmatch_indices('/').map(|(i, _)| &dir[..i]))
            .chain([""])
            .any(|a| tree_set.contains(a))
    };
    // An app-of-apps chart (its templates write Applications) no build renders: bootstrap installs it by
    // hand (`argocd app create --path`, `helm install`), with its own values.
    let charts: Vec<Spec> = app_charts
        .iter()
        .filter(|c| free(c) && !app_charts.iter().any(|o| o != *c && under_dir(c, o)))
        .map(|c| {
            plain(
                format!("chart {}", if c.is_empty() { "." } else { c }),
                edgecheck_core::namespaces::join_path(c, "Chart.yaml"),
                How::Helm(Box::new(discover::HelmSpec {
                    remote: None,
                    chart: c.clone(),
                    release: c.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or("root").to_string(),
                    namespace: None,
                    value_files: Vec::new(),
                    values: Vec::new(),
                    set: Vec::new(),
                    set_file: Vec::new(),
                    skip_crds: false,
                    ignore_missing: false,
                })),
            )
        })
        .collect();
    builds
        .iter()
        .filter(|b| !b.flux && !b.example && !b.component && !b.template)
        .filter(|b| !included.contains(b.dir.as_str()) && !reached.contains(b.dir.as_str()))
        .filter(|b| free(&b.dir))
        // An aggregate of directories controller builds apply one by one (`infra/network` listing `cilium` and
        // `vpn`, each a Flux Kustomization's path, maybe in different clusters) is a convenience to preview them
        // together, not what a cluster runs: as a build it would put every part in every cluster. Only a pure
        // aggregate: an overlay that changes what it includes (its own files, patches, a namespace) is a build.
        .filter(|b| {
            let aggregate = b.files.is_empty()
                && b.patches.is_empty()
                && b.namespace.is_none()
                && !b.helm_charts
                && !b.rewrites
                && !b.dirs.is_empty()
                && b.dirs.iter().any(|d| reached.contains(d.as_str()) || !free(d));
            !aggregate
        })
        .map(|b| {
            plain(
                format!("kustomization {}", if b.dir.is_empty() { "." } else { &b.dir }),
                edgecheck_core::namespaces::join_path(&b.dir, "kustomization.yaml"),
                How::Kustomize { dir: b.dir.clone(), overlay: discover::Overlay::default() },
            )
        })
        .chain(charts)
        .collect()
}

/// A build no object declares: a plain kustomize root, an app-of-apps chart.
fn plain(name: String, file: String, how: How) -> Spec {
    Spec {
        name,
        origin: None,
        file: Some(file),
        line: None,
        cluster: None,
        namespace: None,
        parts: vec![how],
        substitute: None,
        claims: Vec::new(),
        from: None,
        key: String::new(),
    }
}

/// Charts in the checkouts whose templates write Argo CD Applications or ApplicationSets.
fn app_of_apps_charts(inv: &Inventory, prefixes: &[Option<String>]) -> Vec<String> {
    let mut out = Vec::new();
    for (repo, r) in inv.repos.iter().enumerate() {
        let Some(prefix) = prefixes.get(repo).cloned().flatten() else { continue };
        for chart in r.files.iter().filter_map(|f| f.strip_suffix("Chart.yaml")) {
            let chart = chart.trim_end_matches('/');
            if edgecheck_core::placement::in_example_dir(chart) {
                continue;
            }
            let templates = format!("{}templates/", if chart.is_empty() { String::new() } else { format!("{chart}/") });
            let writes_apps = r.files.from(&templates).take_while(|f| f.starts_with(&templates)).any(|f| {
                let path = edgecheck_core::namespaces::join_path(prefix.trim_end_matches('/'), f);
                edgecheck_load::read::read_regular_text(std::path::Path::new(&path), 1 << 20).is_ok_and(|t| {
                    t.contains("argoproj.io/")
                        && (t.contains("kind: Application\n") || t.contains("kind: ApplicationSet"))
                })
            });
            if writes_apps {
                out.push(edgecheck_core::namespaces::join_path(prefix.trim_end_matches('/'), chart));
            }
        }
    }
    out
}

fn render_spec(ctx: &render::Ctx<'_>, spec: &Spec, files: &[Object], index: &FileIndex) -> Outcome {
    let parts = spec.parts.iter().map(|how| render_part(ctx, spec, how, files, index)).collect();
    Outcome { parts }
}

/// The files objects were read from, sorted, each with the indexes of its objects: a part's directory or
/// chart is a range of it and a kustomization's sources are lookups, not a scan of every object for every
/// part (quadratic in builds × objects: 20,000 objects in 2,500 Applications took 3 s).
struct FileIndex {
    files: Vec<(String, Vec<usize>)>,
}

impl FileIndex {
    fn new(objects: &[Object]) -> FileIndex {
        let mut by_file: std::collections::BTreeMap<&str, Vec<usize>> = std::collections::BTreeMap::new();
        for (i, o) in objects.iter().enumerate() {
            if let Some(f) = o.source.file() {
                by_file.entry(f).or_default().push(i);
            }
        }
        FileIndex { files: by_file.into_iter().map(|(f, ids)| (f.to_string(), ids)).collect() }
    }

    /// The files under `dir` (every file when `dir` is empty), with their objects.
    fn under<'a>(&'a self, dir: &str) -> &'a [(String, Vec<usize>)] {
        if dir.is_empty() {
            return &self.files;
        }
        let prefix = format!("{dir}/");
        let start = self.files.partition_point(|(f, _)| f.as_str() < prefix.as_str());
        let len = self.files[start..].iter().take_while(|(f, _)| f.starts_with(&prefix)).count();
        &self.files[start..start + len]
    }

    /// The objects of `file`.
    fn objects(&self, file: &str) -> &[usize] {
        match self.files.binary_search_by(|(f, _)| f.as_str().cmp(file)) {
            Ok(i) => &self.files[i].1,
            Err(_) => &[],
        }
    }
}

fn render_part(ctx: &render::Ctx<'_>, spec: &Spec, how: &How, files: &[Object], index: &FileIndex) -> PartResult {
    let mut r = PartResult {
        objects: Vec::new(),
        problems: Vec::new(),
        replaced: HashSet::new(),
        applied: HashSet::new(),
        count: 0,
        cached: false,
        state: Ok(None),
    };
    // A part this run rendered already (another cluster's pass), or a cached one: nothing runs.
    let key = cache_key(ctx, spec, how);
    if let Some((tool, replaced, objects)) = key.as_deref().and_then(|k| ctx.opts.memo.get(k)) {
        r.count = objects.len();
        r.objects = objects;
        r.replaced = replaced;
        r.state = Ok(Some(tool));
        return r;
    }
    if let (Some(dir), Some(key)) = (&ctx.opts.cache, &key) {
        if let Some((tool, replaced, objects)) = cache::load(dir, key) {
            r.count = objects.len();
            r.objects = objects;
            r.replaced = replaced;
            r.cached = true;
            r.state = Ok(Some(tool));
            return r;
        }
    }
    match render::part(ctx, how) {
        render::Output::No(why) => r.state = Err(why),
        render::Output::Files => {
            if let How::Directory { dir, recurse, include, exclude } = how {
                let applied: Vec<&(String, Vec<usize>)> = index
                    .under(dir)
                    .iter()
                    .filter(|(f, _)| {
                        let (d, base) = f.rsplit_once('/').unwrap_or(("", f));
                        (*recurse || d == dir)
                            && (include.is_empty() || include.iter().any(|g| glob(g, base)))
                            && !exclude.iter().any(|g| glob(g, base))
                    })
                    .collect();
                r.count = applied.iter().map(|(_, ids)| ids.len()).sum();
                r.applied = applied.into_iter().map(|(f, _)| f.clone()).collect();
            }
        }
        render::Output::Generated(apps) => {
            // Shown at the ApplicationSet that generates them.
            let file = spec.file.clone().unwrap_or_else(|| spec.name.clone());
            let text = apps.iter().map(edgecheck_core::Value::to_string).collect::<Vec<_>>().join("\n---\n");
            let parsed = map::helm(&text, "", &spec.name, Some(&file));
            r.objects = parsed.objects;
            r.problems = parsed.problems;
            r.count = r.objects.len();
            for o in &mut r.objects {
                o.source.set_line(spec.line);
                o.value = o.value.without_lines();
                if o.namespace.is_none() {
                    o.namespace = Some("argocd".into());
                }
            }
            // No tool ran: the generators are evaluated here.
            r.state = Ok(None);
        }
        render::Output::Remote { text, tool } => {
            let file = spec.file.clone().unwrap_or_else(|| spec.name.clone());
            let parsed = map::helm(&text, "", &spec.name, Some(&file));
            r.objects = parsed.objects;
            r.count = r.objects.len();
            r.problems = parsed.problems;
            for o in &mut r.objects {
                // No file holds it: it is shown at the object that names the chart.
                o.source.set_line(spec.line);
                o.value = o.value.without_lines();
                if o.kind.namespaced() && o.namespace.is_none() {
                    o.namespace = spec.namespace.as_deref().map(Into::into).or_else(|| Some("default".into()));
                }
            }
            let pinned = matches!(how, How::Helm(h) if h.remote.as_ref().and_then(|r| r.version.as_deref())
                .is_some_and(|v| v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))));
            if let (Some(key), true) = (&key, r.problems.is_empty()) {
                ctx.opts.memo.put(key, &tool, &r.replaced, &r.objects);
            }
            if let (Some(dir), Some(key), true, true) = (&ctx.opts.cache, &key, r.problems.is_empty(), pinned) {
                cache::store(dir, key, &tool, &r.replaced, &r.objects);
            }
            r.state = Ok(Some(tool));
        }
        render::Output::Text { text, tool, helm_chart } => {
            let text = match &spec.substitute {
                Some(vars) => substitute_documents(&text, vars),
                None => text,
            };
            let parsed = match &helm_chart {
                Some(chart) => {
                    r.replaced = index.under(chart).iter().map(|(f, _)| f.clone()).collect();
                    map::helm(&text, chart, &spec.name, None)
                }
                None => {
                    r.replaced = render::replaced_files(ctx, how);
                    let mut ids: Vec<usize> = r.replaced.iter().flat_map(|f| index.objects(f)).copied().collect();
                    ids.sort_unstable();
                    let sources: Vec<&Object> = ids.into_iter().map(|i| &files[i]).collect();
                    let label = spec.file.clone().unwrap_or_else(|| spec.name.clone());
                    map::kustomize(&text, &label, &spec.name, &sources)
                }
            };
            r.objects = parsed.objects;
            r.count = r.objects.len();
            r.problems = parsed.problems;
            for o in &mut r.objects {
                if o.kind.namespaced() && o.namespace.is_none() {
                    o.namespace = spec.namespace.as_deref().map(Into::into).or_else(|| Some("default".into()));
                }
            }
            // Only a clean render is kept: problems are reported again by rendering again.
            if let (Some(key), true) = (&key, r.problems.is_empty()) {
                ctx.opts.memo.put(key, &tool, &r.replaced, &r.objects);
            }
            if let (Some(dir), Some(key), true) = (&ctx.opts.cache, &key, r.problems.is_empty()) {
                cache::store(dir, key, &tool, &r.replaced, &r.objects);
            }
            r.state = Ok(Some(tool));
        }
    }
    r
}

/// The cache key of a part that runs a tool: its settings, the substitutions and the build's name (objects
/// carry it), the tool binary, and every file it may read. `None` for parts that run nothing.
fn cache_key(ctx: &render::Ctx<'_>, spec: &Spec, how: &How) -> Option<String> {
    let (tool, inputs): (&tools::Tool, Vec<String>) = match how {
        How::Kustomize { dir, overlay } | How::FluxGenerated { dir, overlay } => {
            let tool = ctx.kustomize.as_ref().ok()?;
            let start = std::iter::once(dir.clone()).chain(overlay.components.iter().cloned());
            let mut inputs: Vec<String> = render::reach_dirs(ctx, start).into_iter().map(str::to_string).collect();
            inputs.push(dir.clone());
            inputs.extend(render::reach_files(ctx, inputs.clone()));
            (tool, inputs)
        }
        How::Helm(h) => {
            let tool = ctx.helm.as_ref().ok()?;
            // A remote chart reads no directory of the checkout (its pinned version is in the description);
            // an empty `chart` would otherwise be the working directory, walked whole.
            let mut inputs = if h.remote.is_some() { Vec::new() } else { vec![h.chart.clone()] };
            inputs.extend(h.value_files.iter().cloned());
            inputs.extend(h.set_file.iter().map(|(_, p)| p.clone()));
            (tool, inputs)
        }
        _ => return None,
    };
    let description = format!(
        "{how:?}|{:?}|{:?}|{}|{:?}|{:?}",
        spec.namespace, spec.substitute, spec.name, ctx.api_versions, ctx.opts.kube_version
    );
    Some(cache::key(&description, &tool.path, &inputs))
}

/// Flux's substitution, document by document: one that opts out
/// (`kustomize.toolkit.fluxcd.io/substitute: disabled`) is left as it is.
fn substitute_documents(text: &str, vars: &envsubst::Vars) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, doc) in text.split("\n---\n").enumerate() {
        if i > 0 {
            out.push_str("\n---\n");
        }
        if doc.contains("kustomize.toolkit.fluxcd.io/substitute: disabled") {
            out.push_str(doc);
            continue;
        }
        let substituted = envsubst::substitute(doc, vars).text;
        let parses = |t: &str| edgecheck_load::yaml::parse_documents(t).iter().all(Result::is_ok);
        // A multi-line value can make text YAML that Go's parser reads and ours does not (a flow sequence
        // less indented than its key): then the strings of the parsed document are substituted instead, and
        // the document is written as JSON (YAML too).
        if substituted == doc || parses(&substituted) || !parses(doc) {
            out.push_str(&substituted);
            continue;
        }
        match edgecheck_load::yaml::parse_single(doc) {
            Ok(Some(mut d)) => {
                substitute_strings(&mut d.value, vars);
                out.push_str(&d.value.to_string());
            }
            _ => out.push_str(&substituted),
        }
    }
    out
}

fn substitute_strings(v: &mut edgecheck_core::Value, vars: &envsubst::Vars) {
    match v {
        edgecheck_core::Value::String(s) => *s = envsubst::substitute(s, vars).text.into(),
        edgecheck_core::Value::Array(a) => a.iter_mut().for_each(|x| substitute_strings(x, vars)),
        edgecheck_core::Value::Object(m) => m.values_mut().for_each(|x| substitute_strings(x, vars)),
        _ => {}
    }
}

/// `*` and `?` globs over a file name, as Argo CD's `include`/`exclude` mostly use them.
fn glob(pattern: &str, name: &str) -> bool {
    fn m(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => m(&p[1..], n) || (!n.is_empty() && m(p, &n[1..])),
            (Some(b'?'), Some(_)) => m(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => m(&p[1..], &n[1..]),
            _ => false,
        }
    }
    let base = pattern.rsplit('/').next().unwrap_or(pattern);
    m(base.as_bytes(), name.as_bytes())
}

fn record(ctx: &render::Ctx<'_>, s: &Spec, outcome: Option<&Outcome>, mode: Mode) -> BuildRecord {
    let kind = match s.parts.first() {
        Some(How::Helm(_)) => "helm",
        Some(How::Kustomize { .. }) => "kustomize",
        Some(How::FluxGenerated { .. }) => "flux",
        Some(How::Directory { .. }) => "directory",
        Some(How::Generate { .. }) => "applicationset",
        Some(How::No { .. }) | None => "none",
    };
    let path = s
        .parts
        .iter()
        .map(|p| match p {
            How::No { what, .. } => what.clone(),
            How::Generate { apps } => {
                let names: Vec<&str> =
                    apps.iter().take(5).filter_map(|a| a.pointer("/metadata/name").and_then(|n| n.as_str())).collect();
                let more = if apps.len() > names.len() {
                    format!(" and {} more", apps.len() - names.len())
                } else {
                    String::new()
                };
                format!(
                    "{} Application{} ({}{more})",
                    apps.len(),
                    if apps.len() == 1 { "" } else { "s" },
                    names.join(", ")
                )
            }
            How::Helm(h) if h.remote.is_some() => h.remote.as_ref().map(|r| r.what.clone()).unwrap_or_default(),
            p => part_dir(p).map_or_else(String::new, |d| if d.is_empty() { ".".into() } else { d.to_string() }),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let (state, tool, objects) = match (outcome, mode) {
        (_, Mode::Never) => (BuildState::NotRendered(NotRendered::Disabled), None, 0),
        (None, _) => (BuildState::NotRendered(NotRendered::Other("not reached".into())), None, 0),
        (Some(o), _) => {
            let failed = o.parts.iter().find_map(|p| p.state.clone().err());
            let tool = o.parts.iter().find_map(|p| p.state.clone().ok().flatten());
            let n = o.parts.iter().map(|p| p.count).sum();
            let ran = o.parts.iter().filter(|p| matches!(p.state, Ok(Some(_)))).count();
            let cached = ran > 0 && o.parts.iter().filter(|p| p.cached).count() == ran;
            let ok = if cached { BuildState::Cached } else { BuildState::Rendered };
            (failed.map_or(ok, BuildState::NotRendered), tool, n)
        }
    };
    // A local chart: where its values come from, for findings at its templates.
    let local = s.parts.iter().find_map(|p| match p {
        How::Helm(h) if h.remote.is_none() => Some(h),
        _ => None,
    });
    let origin = s.origin.as_ref().map_or_else(|| s.name.clone(), ToString::to_string);
    let kustomized: Vec<String> = s
        .parts
        .iter()
        .filter_map(|p| match p {
            How::Kustomize { dir, overlay } => {
                Some(std::iter::once(dir.clone()).chain(overlay.components.iter().cloned()).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    BuildRecord {
        patches: if kustomized.is_empty() { Vec::new() } else { render::reach_patches(ctx, kustomized) },
        chart: local.map(|h| h.chart.clone()),
        values: local.map(|h| values::sources(h, &origin)).unwrap_or_default(),
        name: s.name.clone(),
        kind,
        path,
        origin: s.origin.clone(),
        file: s.file.clone(),
        line: s.line,
        tool,
        cluster: s.cluster.clone(),
        namespace: s.namespace.clone(),
        state,
        objects,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn clusters_are_read_from_flux_trees() {
        assert_eq!(super::discover::cluster_of_path("clusters/prod/apps.yaml"), Some("prod"));
        assert_eq!(
            super::discover::cluster_of_path("kubernetes/clusters/main/flux-system/gotk-sync.yaml"),
            Some("main")
        );
        assert_eq!(super::discover::cluster_of_path("clusters/README.yaml"), None);
        assert_eq!(super::discover::cluster_of_path("apps/web/ingress.yaml"), None);
    }

    #[test]
    fn globs_match_file_names() {
        assert!(super::glob("*.yaml", "a.yaml"));
        assert!(super::glob("config/*.yaml", "a.yaml"));
        assert!(!super::glob("*.yaml", "a.yml"));
        assert!(super::glob("a?.json", "ab.json"));
    }
}
