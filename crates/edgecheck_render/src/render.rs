//! Running one part of a build: `kustomize build` (with a wrapping kustomization for what a controller sets
//! on top, and the one Flux generates for a directory without one) and `helm template` (values as Argo CD
//! and Flux pass them). Nothing here reaches the network or runs plugins: remote resources and charts that
//! are not vendored are refused before the tool runs.

use edgecheck_core::ValueRef;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use edgecheck_core::inventory::NotRendered;
use edgecheck_core::namespaces::join_path;
use edgecheck_core::Build;
use edgecheck_core::{json, Value};

use crate::discover::{HelmSpec, How, Overlay};
use crate::run::{run, RunError};
use crate::tools::Tool;
use crate::RenderOptions;

/// What the parts of the run share.
pub struct Ctx<'a> {
    pub opts: &'a RenderOptions,
    pub helm: &'a Result<Tool, String>,
    pub kustomize: &'a Result<Tool, String>,
    /// Kustomization files by directory.
    pub kustomizations: HashMap<&'a str, &'a Build>,
    /// Files the loader found objects in (Flux's generated kustomization lists those).
    pub object_files: &'a HashSet<String>,
    /// `--api-versions` for helm: the option's, and the CRDs' of the inputs.
    pub api_versions: Vec<String>,
    /// helm's repository list and cache: remote charts already pulled are rendered from there.
    pub helm_home: Option<crate::helm_cache::HelmHome>,
    /// The linted checkouts' roots, resolved: no build reads through a symbolic link that leaves them.
    pub roots: Vec<PathBuf>,
}

impl Ctx<'_> {
    /// The first of `paths` (files or directories a build reads, relative to the working directory) that
    /// is, or lies under, a symbolic link leading out of every linted checkout. A hostile checkout could
    /// otherwise have helm or kustomize read `/etc`, a device or another user's files into the output.
    fn escaping<'p>(&self, paths: impl IntoIterator<Item = &'p str>) -> Option<String> {
        if self.roots.is_empty() {
            return None;
        }
        paths.into_iter().find_map(|p| {
            let real = Path::new(if p.is_empty() { "." } else { p }).canonicalize().ok()?;
            (!self.roots.iter().any(|r| real.starts_with(r))).then(|| p.to_string())
        })
    }

    /// A symbolic link under `dir` (a chart helm reads whole) that leads out of every linted checkout.
    fn escaping_under(&self, dir: &str) -> Option<String> {
        if self.roots.is_empty() {
            return None;
        }
        walkdir::WalkDir::new(if dir.is_empty() { "." } else { dir })
            .follow_links(false)
            .max_depth(32)
            .into_iter()
            .take(100_000)
            .flatten()
            .filter(|e| e.path_is_symlink())
            .find_map(|e| self.escaping([e.path().to_str()?]))
    }
}

/// Why a build that would read through a link out of the checkout is not rendered.
fn escapes(path: &str) -> NotRendered {
    NotRendered::Other(format!(
        "`{path}` is a symbolic link that leads out of the linted checkout: it is not followed into a build"
    ))
}

/// The output of one part.
pub enum Output {
    /// A tool's manifests.
    Text { text: String, tool: String, helm_chart: Option<String> },
    /// A remote chart's manifests: no file of the checkout is its source.
    Remote { text: String, tool: String },
    /// The files of a directory, applied as they are.
    Files,
    /// Objects made without a tool (the Applications an ApplicationSet generates).
    Generated(Vec<Value>),
    /// Not rendered.
    No(NotRendered),
}

pub fn part(ctx: &Ctx<'_>, how: &How) -> Output {
    match how {
        How::Kustomize { dir, overlay } => kustomize(ctx, dir, overlay, false),
        How::FluxGenerated { dir, overlay } => kustomize(ctx, dir, overlay, true),
        How::Helm(h) => helm(ctx, h),
        How::Directory { .. } => Output::Files,
        How::Generate { apps } => Output::Generated(apps.clone()),
        How::No { why, .. } => Output::No(why.clone()),
    }
}

fn abs(p: &str) -> PathBuf {
    let p = if p.is_empty() { "." } else { p };
    Path::new(p).canonicalize().or_else(|_| std::path::absolute(p)).unwrap_or_else(|_| PathBuf::from(p))
}

/// `to` relative to the directory `from` (both made absolute): kustomize takes no absolute directory as a
/// resource, so the wrapping kustomization names what it builds by a relative path.
fn relative(from: &Path, to: &str) -> String {
    let (from, to) = (from.canonicalize().unwrap_or_else(|_| from.to_path_buf()), abs(to));
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    out.to_string_lossy().into_owned()
}

/// Every kustomization reachable from `dir` (itself included).
fn reach<'a>(ctx: &Ctx<'a>, dirs: impl IntoIterator<Item = String>) -> Vec<&'a Build> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<String> = dirs.into_iter().collect();
    let mut out = Vec::new();
    while let Some(d) = stack.pop() {
        if !seen.insert(d.clone()) {
            continue;
        }
        if let Some(b) = ctx.kustomizations.get(d.as_str()) {
            out.push(*b);
            stack.extend(b.dirs.iter().cloned());
        }
    }
    out
}

/// The kustomizations reachable from `dirs`.
pub fn reach_builds<'a>(ctx: &Ctx<'a>, dirs: impl IntoIterator<Item = String>) -> Vec<&'a Build> {
    reach(ctx, dirs)
}

/// The kustomization directories reachable from `dirs`.
pub fn reach_dirs<'a>(ctx: &Ctx<'a>, dirs: impl IntoIterator<Item = String>) -> HashSet<&'a str> {
    reach(ctx, dirs).into_iter().map(|b| b.dir.as_str()).collect()
}

/// Every patch file of the kustomizations reachable from `dirs`, and their kustomization files (inline
/// patches).
pub fn reach_patches(ctx: &Ctx<'_>, dirs: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in reach(ctx, dirs) {
        out.extend(b.patches.iter().cloned());
        // The kustomization itself, for its inline `patches`.
        out.extend(KUSTOMIZATION_FILES.iter().map(|k| join_path(&b.dir, k)).find(|f| Path::new(f).is_file()));
    }
    out.sort();
    out.dedup();
    out
}

/// Every file the kustomizations reachable from `dirs` list.
pub fn reach_files(ctx: &Ctx<'_>, dirs: impl IntoIterator<Item = String>) -> HashSet<String> {
    reach(ctx, dirs).into_iter().flat_map(|b| b.files.iter().cloned()).collect()
}

/// The files whose objects a rendered kustomize part replaces: every file its kustomizations list (and
/// for Flux's generated kustomization, the manifests it lists).
pub fn replaced_files(ctx: &Ctx<'_>, how: &How) -> HashSet<String> {
    let mut out = HashSet::new();
    let start: Vec<String> = match how {
        How::Kustomize { dir, overlay } => {
            std::iter::once(dir.clone()).chain(overlay.components.iter().cloned()).collect()
        }
        How::FluxGenerated { dir, overlay } => {
            let (files, dirs) = flux_generated(dir, ctx.object_files);
            out.extend(files);
            dirs.into_iter().chain(overlay.components.iter().cloned()).collect()
        }
        _ => Vec::new(),
    };
    for b in reach(ctx, start) {
        out.extend(b.files.iter().cloned());
    }
    out
}

/// The resources of the kustomization Flux generates for `dir`: its manifests, and the subdirectories
/// that hold a kustomization (not descended into).
pub fn flux_generated(dir: &str, object_files: &HashSet<String>) -> (Vec<String>, Vec<String>) {
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    let root = if dir.is_empty() { "." } else { dir };
    let mut walk = walkdir::WalkDir::new(root).sort_by_file_name().into_iter();
    while let Some(Ok(e)) = walk.next() {
        if e.depth() == 0 {
            continue;
        }
        let name = e.file_name().to_string_lossy();
        let rel = e.path().to_string_lossy().replace('\\', "/");
        let rel = rel.strip_prefix("./").unwrap_or(&rel).to_string();
        if e.file_type().is_dir() {
            if name.starts_with('.') {
                walk.skip_current_dir();
            } else if ["kustomization.yaml", "kustomization.yml", "Kustomization"]
                .iter()
                .any(|k| e.path().join(k).is_file())
            {
                dirs.push(rel);
                walk.skip_current_dir();
            }
            continue;
        }
        if (name.ends_with(".yaml") || name.ends_with(".yml")) && object_files.contains(&rel) {
            files.push(rel);
        }
    }
    (files, dirs)
}

/// The directories a kustomize build starts from: its own, and the components joined at it.
fn start_dirs(dir: &str, overlay: &Overlay) -> Vec<String> {
    std::iter::once(dir.to_string()).chain(overlay.components.iter().cloned()).collect()
}

fn kustomize(ctx: &Ctx<'_>, dir: &str, overlay: &Overlay, generated: bool) -> Output {
    let tool = match ctx.kustomize {
        Ok(t) => t,
        Err(name) => return Output::No(NotRendered::ToolMissing(name.clone())),
    };
    let (files, subdirs) = if generated { flux_generated(dir, ctx.object_files) } else { (Vec::new(), Vec::new()) };
    let start: Vec<String> = if generated { subdirs.clone() } else { start_dirs(dir, overlay) };
    for b in reach(ctx, start) {
        if let Some(r) = b.remote.first() {
            return Output::No(NotRendered::Remote(format!(
                "kustomize resource `{}` in {}/kustomization.yaml is fetched over the network",
                edgecheck_core::redact::credentials(r),
                b.dir
            )));
        }
        if b.helm_charts {
            return Output::No(NotRendered::Remote(format!(
                "{}/kustomization.yaml inflates Helm charts (helmCharts), which needs `kustomize build --enable-helm`",
                b.dir
            )));
        }
    }
    let reached = reach(ctx, if generated { subdirs.clone() } else { start_dirs(dir, overlay) });
    let read = reached
        .iter()
        .flat_map(|b| std::iter::once(&b.dir).chain(&b.files).chain(&b.patches))
        .chain(&files)
        .map(String::as_str);
    if let Some(p) = ctx.escaping(std::iter::once(dir).chain(read)) {
        return Output::No(escapes(&p));
    }
    if generated && files.is_empty() && subdirs.is_empty() {
        return Output::Text { text: String::new(), tool: tool.version().to_string(), helm_chart: None };
    }
    let mut cmd = tool.command(false);
    if overlay.is_empty() && !generated {
        // Flux builds without load restrictions; Argo CD's may be configured so (`kustomize.buildOptions`):
        // a file outside the kustomization's root is not what fails a build here.
        cmd.arg(if dir.is_empty() { "." } else { dir }).arg("--load-restrictor").arg("LoadRestrictionsNone");
    } else {
        let Ok(tmp) = tempfile::tempdir() else {
            return Output::No(NotRendered::Other("cannot create a temporary directory".into()));
        };
        let mut resources: Vec<String> = Vec::new();
        // Flux adds a Kustomization's `components` to the kustomization at its path, so that the path's own
        // patches see what the components add; a wrapper around it would apply them after. The path is built
        // from a mirror of the checkout (the directories down to it real, everything else linked) whose
        // kustomization lists the components too: relative references resolve as in the checkout.
        let mut components_inside = false;
        let mut mirrored_root: Option<PathBuf> = None;
        if generated {
            resources.extend(files.iter().chain(&subdirs).map(|f| relative(tmp.path(), f)));
        } else if !overlay.components.is_empty() {
            match mirror_with_components(tmp.path(), dir, &overlay.components) {
                Ok((mirrored, root)) => {
                    resources.push(relative(tmp.path(), &mirrored.to_string_lossy()));
                    components_inside = true;
                    mirrored_root = Some(root);
                }
                Err(why) => return Output::No(NotRendered::Other(why)),
            }
        } else {
            resources.push(relative(tmp.path(), dir));
        }
        let mut k = json!({
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": resources,
        });
        let m = k.as_object_mut().expect("an object literal");
        if let Some(v) = &overlay.namespace {
            m.insert("namespace".into(), json!(v));
        }
        if let Some(v) = &overlay.name_prefix {
            m.insert("namePrefix".into(), json!(v));
        }
        if let Some(v) = &overlay.name_suffix {
            m.insert("nameSuffix".into(), json!(v));
        }
        if !overlay.images.is_empty() {
            m.insert("images".into(), Value::from(overlay.images.clone()));
        }
        if let Some(v) = overlay.common_labels.as_ref().filter(|v| v.is_object()) {
            m.insert("commonLabels".into(), v.clone());
        }
        if let Some(v) = overlay.common_annotations.as_ref().filter(|v| v.is_object()) {
            m.insert("commonAnnotations".into(), v.clone());
        }
        if !overlay.patches.is_empty() {
            // A patch file is relative to the directory built; the wrapper is elsewhere.
            let patches: Vec<Value> = overlay
                .patches
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    if let Some(path) = p.get("path").and_then(Value::as_str).map(|f| join_path(dir, f)) {
                        p["path"] = json!(relative(tmp.path(), &path));
                    }
                    p
                })
                .collect();
            m.insert("patches".into(), Value::from(patches));
        }
        if !overlay.components.is_empty() && !components_inside {
            let c: Vec<String> = overlay.components.iter().map(|c| relative(tmp.path(), c)).collect();
            m.insert("components".into(), json!(c));
        }
        // JSON is YAML: kustomize reads it as its kustomization file.
        if std::fs::write(tmp.path().join("kustomization.yaml"), k.to_string()).is_err() {
            return Output::No(NotRendered::Other("cannot write a temporary kustomization".into()));
        }
        cmd.arg(tmp.path()).arg("--load-restrictor").arg("LoadRestrictionsNone");
        let result = run(cmd, ctx.opts.bounds());
        return match result {
            Ok(text) => Output::Text { text, tool: tool.version().to_string(), helm_chart: None },
            Err(e) => Output::No(in_checkout_terms(failure(&e, false), tmp.path(), mirrored_root.as_deref())),
        };
    }
    match run(cmd, ctx.opts.bounds()) {
        Ok(text) => Output::Text { text, tool: tool.version().to_string(), helm_chart: None },
        Err(e) => Output::No(failure(&e, false)),
    }
}

/// A failure of a build made in a temporary directory, told in the checkout's terms: the mirror's paths as
/// the checkout's, the wrapping kustomization as such. A temporary name in a message would differ from
/// run to run (and mean nothing to the reader).
fn in_checkout_terms(n: NotRendered, tmp: &Path, mirrored_root: Option<&Path>) -> NotRendered {
    let tmps: Vec<PathBuf> = [Some(tmp.to_path_buf()), tmp.canonicalize().ok()].into_iter().flatten().collect();
    let fix = |m: String| {
        let mut m = m;
        for t in &tmps {
            match mirrored_root {
                // kustomize names the mirror by its path, by the wrapper's relative name, and (loading a
                // directory) by the temporary directory joined with the mirrored path.
                Some(root) => {
                    let root = root.to_string_lossy();
                    m = m.replace(&*t.join("mirror").to_string_lossy(), &root);
                    m = m.replace(&*t.to_string_lossy(), &root);
                    m = m.replace("'mirror/", &format!("'{root}/"));
                }
                None => m = m.replace(&*t.to_string_lossy(), "(edgecheck's wrapping kustomization)"),
            }
        }
        m
    };
    match n {
        NotRendered::ToolMissing(m) => NotRendered::ToolMissing(fix(m)),
        NotRendered::Remote(m) => NotRendered::Remote(fix(m)),
        NotRendered::Failed(m) => NotRendered::Failed(fix(m)),
        NotRendered::Other(m) => NotRendered::Other(fix(m)),
        NotRendered::Disabled => NotRendered::Disabled,
    }
}

const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// A mirror under `tmp` of the checkout that holds `dir`: the directories from the checkout's root down to
/// `dir` are real, every other entry a symbolic link to the original; `dir`'s kustomization is the original
/// with `components` (relative to `dir`) appended. Returns the mirrored `dir` and the directory mirrored.
/// Nothing of the checkout is written.
///
/// The root mirrored holds `dir` and every component: the checkout's (where `.git` is) when it holds them
/// all, else the deepest directory that does (a checkout without `.git`: an archive, a CI's export).
fn mirror_with_components(tmp: &Path, dir: &str, components: &[String]) -> Result<(PathBuf, PathBuf), String> {
    let target = abs(dir);
    let git_root = target.ancestors().find(|a| a.join(".git").exists()).map(Path::to_path_buf);
    // Components that do not exist are left to kustomize to report.
    let present = components.iter().map(|c| abs(c)).filter(|c| c.is_absolute() && c.exists());
    let root = std::iter::once(git_root.unwrap_or_else(|| target.clone()))
        .chain(present)
        .fold(None::<PathBuf>, |acc, p| Some(acc.map_or(p.clone(), |a| common_ancestor(&a, &p))))
        .unwrap_or_else(|| target.clone());
    let rel = target.strip_prefix(&root).map_err(|_| "the build's directory is outside its checkout".to_string())?;
    let mirror = tmp.join("mirror");
    let mut src = root.clone();
    let mut dst = mirror.clone();
    let steps: Vec<_> = rel.components().collect();
    let fail = |e: std::io::Error| format!("cannot mirror the checkout to apply Flux components: {e}");
    std::fs::create_dir_all(&dst).map_err(fail)?;
    for i in 0..=steps.len() {
        let next = steps.get(i).map(|c| c.as_os_str().to_os_string());
        let last = i == steps.len();
        for e in std::fs::read_dir(&src).map_err(fail)?.flatten() {
            let name = e.file_name();
            if Some(&name) == next.as_ref() || (last && KUSTOMIZATION_FILES.iter().any(|k| name == *k)) {
                continue;
            }
            std::os::unix::fs::symlink(e.path(), dst.join(&name)).map_err(fail)?;
        }
        if let Some(n) = next {
            src = src.join(&n);
            dst = dst.join(&n);
            std::fs::create_dir_all(&dst).map_err(fail)?;
        }
    }
    let file = KUSTOMIZATION_FILES
        .iter()
        .map(|k| target.join(k))
        .find(|p| p.is_file())
        .ok_or("no kustomization at the path")?;
    let text = edgecheck_load::read::read_regular_text(&file, 4 << 20).map_err(|e| e.to_string())?;
    let mut k = match edgecheck_load::yaml::parse_single(&text) {
        Ok(Some(d)) if d.value.is_object() => d.value,
        _ => return Err(format!("{} is not a kustomization", file.display())),
    };
    let mut list: Vec<Value> = k.get("components").and_then(Value::as_array).map(<[_]>::to_vec).unwrap_or_default();
    list.extend(components.iter().map(|c| json!(relative(&target, c))));
    k["components"] = Value::from(list);
    std::fs::write(dst.join("kustomization.yaml"), k.to_string()).map_err(fail)?;
    Ok((dst, root))
}

/// The deepest directory that holds both `a` and `b` (absolute paths).
fn common_ancestor(a: &Path, b: &Path) -> PathBuf {
    a.components().zip(b.components()).take_while(|(x, y)| x == y).map(|(x, _)| x.as_os_str()).collect()
}

/// A tool's failure as a reason: what edgecheck refuses to do is not a template error.
fn failure(e: &RunError, helm: bool) -> NotRendered {
    let m = e.to_string();
    if m.contains("--enable-alpha-plugins") || m.contains("--enable-exec") || m.contains("plugin") && !helm {
        return NotRendered::Other(format!("uses kustomize plugins, which edgecheck does not run: {m}"));
    }
    if helm && m.contains("missing in charts/ directory") {
        return NotRendered::Remote(format!("chart dependencies are not vendored in charts/: {m}"));
    }
    match e {
        RunError::Spawn(_) => NotRendered::ToolMissing(m),
        _ => NotRendered::Failed(m),
    }
}

/// The dependencies a chart declares that `charts/` does not hold (`helm dependency build` not run).
fn missing_dependencies(chart: &str) -> Vec<String> {
    let Ok(text) = edgecheck_load::read::read_regular_text(Path::new(&join_path(chart, "Chart.yaml")), 1 << 20) else {
        return Vec::new();
    };
    let Ok(Some(doc)) = edgecheck_load::yaml::parse_single(&text) else { return Vec::new() };
    let charts = Path::new(chart).join("charts");
    let present: Vec<String> = std::fs::read_dir(&charts)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut missing = Vec::new();
    for d in doc.value.get("dependencies").and_then(Value::as_array).into_iter().flatten() {
        let Some(name) = d.get("name").and_then(Value::as_str) else { continue };
        let found = present
            .iter()
            .any(|p| p == name || p.strip_prefix(name).is_some_and(|r| r.starts_with('-') && r.ends_with(".tgz")));
        if !found {
            let repo = d.get("repository").and_then(Value::as_str).unwrap_or("");
            missing.push(format!("{name} ({})", edgecheck_core::redact::credentials(repo)));
        }
    }
    missing
}

/// A copy of `chart` under `tmp` with its dependencies fetched by helm (`helm dependency build` when a
/// `Chart.lock` pins them, else `update`), under the render deadline. Symbolic links are not followed and
/// the copy is bounded like a tool's output.
fn fetch_dependencies(ctx: &Ctx<'_>, tool: &Tool, chart: &str, tmp: &Path) -> Result<PathBuf, NotRendered> {
    let src = abs(chart);
    let name = src.file_name().map_or_else(|| "chart".into(), |n| n.to_string_lossy().into_owned());
    let dst = tmp.join("chart").join(name);
    let mut total = 0u64;
    for e in walkdir::WalkDir::new(&src).follow_links(false).into_iter().flatten() {
        let Ok(rel) = e.path().strip_prefix(&src) else { continue };
        let to = dst.join(rel);
        let copied = if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).map(|()| 0)
        } else if e.file_type().is_file() {
            total += e.metadata().map_or(0, |m| m.len());
            if total > ctx.opts.max_output {
                return Err(NotRendered::Other(format!("chart {chart} is larger than the render output limit")));
            }
            std::fs::copy(e.path(), &to)
        } else {
            Ok(0)
        };
        if copied.is_err() {
            return Err(NotRendered::Other("cannot copy the chart to a temporary directory".into()));
        }
    }
    let mut cmd = std::process::Command::new(&tool.path);
    let verb = if dst.join("Chart.lock").is_file() { "build" } else { "update" };
    cmd.args(["dependency", verb]).arg(&dst);
    cmd.env("HELM_PLUGINS", tmp.join("no-plugins"));
    match run(cmd, ctx.opts.bounds()) {
        Ok(_) => Ok(dst),
        Err(e) => Err(NotRendered::Remote(format!(
            "chart dependencies of {chart} could not be fetched: {}",
            edgecheck_core::redact::credentials(&e.to_string())
        ))),
    }
}

fn helm(ctx: &Ctx<'_>, h: &HelmSpec) -> Output {
    let tool = match ctx.helm {
        Ok(t) => t,
        Err(name) => return Output::No(NotRendered::ToolMissing(name.clone())),
    };
    // A remote chart helm already pulled (its cache holds the archive its repository's index lists) is
    // rendered from there without --fetch; otherwise only --fetch lets helm pull it.
    let cached = match &h.remote {
        Some(r) if !ctx.opts.fetch => match ctx.helm_home.as_ref().and_then(|home| crate::helm_cache::find(home, r)) {
            Some(archive) => Some(archive),
            None => {
                return Output::No(NotRendered::Remote(format!(
                    "{} (not in helm's cache: pass --fetch to let helm pull it)",
                    r.what
                )))
            }
        },
        _ => None,
    };
    if h.remote.is_none() {
        if let Some(p) = ctx.escaping([h.chart.as_str()]).or_else(|| ctx.escaping_under(&h.chart)) {
            return Output::No(escapes(&p));
        }
    }
    let missing = if h.remote.is_some() { Vec::new() } else { missing_dependencies(&h.chart) };
    if !missing.is_empty() && !ctx.opts.fetch {
        return Output::No(NotRendered::Remote(format!(
            "chart dependencies not vendored in {}/charts: {} (pass --fetch to let helm fetch them, or run `helm dependency build`)",
            h.chart,
            missing.join(", ")
        )));
    }
    let Ok(tmp) = tempfile::tempdir() else {
        return Output::No(NotRendered::Other("cannot create a temporary directory".into()));
    };
    // Under --fetch, dependencies that are not vendored are fetched into a copy of the chart: the checkout
    // is never written.
    let chart_dir = if missing.is_empty() {
        abs(&h.chart)
    } else {
        match fetch_dependencies(ctx, tool, &h.chart, tmp.path()) {
            Ok(dir) => dir,
            Err(why) => return Output::No(why),
        }
    };
    let mut cmd = tool.command(true);
    match (&h.remote, &cached) {
        (Some(_), Some(archive)) => {
            cmd.arg(&h.release).arg(archive);
        }
        // helm pulls it, the version pinned as the object pins it (a constraint is helm's to resolve).
        (Some(r), None) => {
            cmd.arg(&h.release).arg(&r.chart);
            if let Some(repo) = &r.repo {
                cmd.arg("--repo").arg(repo);
            }
            if let Some(v) = &r.version {
                cmd.arg("--version").arg(v);
            }
        }
        (None, _) => {
            cmd.arg(&h.release).arg(&chart_dir);
        }
    }
    if let Some(ns) = &h.namespace {
        cmd.arg("--namespace").arg(ns);
    }
    if !h.skip_crds {
        cmd.arg("--include-crds");
    }
    if let Some(v) = &ctx.opts.kube_version {
        cmd.arg("--kube-version").arg(v);
    }
    for a in &ctx.api_versions {
        cmd.arg("--api-versions").arg(a);
    }
    for f in &h.value_files {
        if !Path::new(f).is_file() {
            if h.ignore_missing {
                continue;
            }
            return Output::No(NotRendered::Failed(format!("value file {f} does not exist")));
        }
        if let Some(p) = ctx.escaping([f.as_str()]) {
            return Output::No(escapes(&p));
        }
        cmd.arg("--values").arg(abs(f));
    }
    for (i, v) in h.values.iter().enumerate() {
        let p = tmp.path().join(format!("values-{i}.json"));
        if std::fs::write(&p, v.to_string()).is_err() {
            return Output::No(NotRendered::Other("cannot write a temporary values file".into()));
        }
        cmd.arg("--values").arg(p);
    }
    for (k, v, string) in &h.set {
        cmd.arg(if *string { "--set-string" } else { "--set" }).arg(format!("{k}={v}"));
    }
    for (k, p) in &h.set_file {
        cmd.arg("--set-file").arg(format!("{k}={}", abs(p).display()));
    }
    // No plugins: helm finds none in an empty directory. No repository is consulted for a local chart.
    cmd.env("HELM_PLUGINS", tmp.path().join("no-plugins"));
    match run(cmd, ctx.opts.bounds()) {
        Ok(text) if cached.is_some() => {
            Output::Remote { text, tool: format!("{} (the chart from helm's cache)", tool.version()) }
        }
        Ok(text) if h.remote.is_some() => Output::Remote { text, tool: tool.version().to_string() },
        Ok(text) => Output::Text { text, tool: tool.version().to_string(), helm_chart: Some(h.chart.clone()) },
        Err(e) => Output::No(failure(&e, true)),
    }
}

/// `--api-versions` from the CRDs of the inputs: `group/version` and `group/version/Kind` for each served
/// version, as the API server's discovery lists them.
pub fn crd_api_versions(objects: &[&edgecheck_core::Object]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for o in objects.iter().filter(|o| o.kind.kind == "CustomResourceDefinition") {
        let spec = o.value.get("spec");
        let group = spec.and_then(|s| s.get("group")).and_then(ValueRef::as_str);
        let kind = spec.and_then(|s| s.pointer("/names/kind")).and_then(ValueRef::as_str);
        let (Some(group), Some(kind)) = (group, kind) else { continue };
        for v in spec.and_then(|s| s.get("versions")).and_then(ValueRef::as_array).into_iter().flatten() {
            if v.get("served").and_then(ValueRef::as_bool) == Some(false) {
                continue;
            }
            if let Some(name) = v.get("name").and_then(ValueRef::as_str) {
                out.insert(format!("{group}/{name}"));
                out.insert(format!("{group}/{name}/{kind}"));
            }
        }
    }
    out.into_iter().collect()
}

/// Whether a build of this checkout may make builds of its own: a local chart whose templates hold Argo CD
/// Applications or ApplicationSets, or Flux Kustomizations (an app of apps). Read from the templates' text,
/// for a chart that did not render.
pub fn makes_builds(how: &How) -> bool {
    let How::Helm(h) = how else { return false };
    if h.remote.is_some() {
        return false;
    }
    let templates = Path::new(if h.chart.is_empty() { "." } else { &h.chart }).join("templates");
    walkdir::WalkDir::new(templates)
        .max_depth(4)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        // Bounded: a chart's templates are few and small; a hostile one is not read to the end.
        .take(500)
        .filter_map(|e| edgecheck_load::read::read_regular_text(e.path(), 256 << 10).ok())
        .any(|text| {
            text.lines().any(|l| {
                let v = l.trim().strip_prefix("kind:").map(|v| v.trim().trim_matches(|c| c == '"' || c == '\''));
                matches!(v, Some("Application" | "ApplicationSet" | "Kustomization"))
            })
        })
}
