//! Loads files, directories, multi-document YAML, JSON and `kubectl get -o yaml` dumps (`List` and
//! `*List` with `items`) into an [`Inventory`]. Bad input becomes a [`LoadProblem`] naming the file
//! and line; the run goes on with everything else.

mod objects;
pub mod read;
mod repo;
pub mod yaml;

use std::path::{Path, PathBuf};

use edgecheck_core::{Inventory, LineTable, LoadProblem, LoadProblemKind};
use rayon::prelude::*;

pub use objects::object_from_live_value;
pub use objects::{objects_from_document, Skipped};
pub use read::{read_regular_file, ReadError, DEFAULT_MAX_FILE_SIZE};

/// What to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Extra `repoURL`s that name a linted path (config `repo-urls`), as (path, url).
    pub repo_urls: Vec<(PathBuf, String)>,
    /// `repoURL`s of every linted checkout that no `repo_urls` path holds (`repo-urls` of a configuration
    /// named with `--config` from outside the checkout: a clone whose `origin` is a local mirror).
    pub checkout_urls: Vec<String>,
    /// The largest file (and stdin) read, in bytes; larger ones are `Unreadable` problems.
    pub max_file_size: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { repo_urls: Vec::new(), checkout_urls: Vec::new(), max_file_size: DEFAULT_MAX_FILE_SIZE }
    }
}

/// Why nothing at all could be loaded from a path (exit code 2).
#[derive(Debug)]
pub enum LoadError {
    /// The path does not exist.
    NotFound(PathBuf),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::NotFound(p) => write!(f, "{}: no such file or directory", p.display()),
        }
    }
}

/// A file to read, with the name it is shown under.
struct Input {
    path: PathBuf,
    display: String,
    stdin: bool,
    /// In an example directory below the root it was found under (`edgecheck_core::placement`).
    example: bool,
}

/// `p` with `.` segments, repeated separators and `x/..` pairs removed, as kustomize's `filepath.Clean`
/// reads paths: `a//b`, `a/./b`, `x/../a/b` and `a/b/.` all name `a/b`, so that each input root is
/// spelled one way and the builds' paths (normalised the same way) match the objects' files.
pub fn normalize_root(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// Loads every path. Paths that do not exist are returned as errors (the caller decides whether
/// that is fatal); everything else is in the inventory, problems included.
pub fn load_paths(paths: &[PathBuf], options: &LoadOptions) -> (Inventory, Vec<LoadError>) {
    let mut errors = Vec::new();
    let mut inputs = Vec::new();
    let mut skipped_templates = 0usize;
    let mut inv = Inventory::default();
    let roots: Vec<PathBuf> =
        paths.iter().map(|p| if p.as_os_str() == "-" { p.clone() } else { normalize_root(p) }).collect();
    for p in &roots {
        if p.as_os_str() == "-" {
            inputs.push(Input { path: p.clone(), display: "-".into(), stdin: true, example: false });
            continue;
        }
        if !p.exists() {
            errors.push(LoadError::NotFound(p.clone()));
            continue;
        }
        // Anything but a directory (links followed) is read as a file: reading refuses FIFOs and
        // devices with a problem naming them.
        if !p.is_dir() {
            inputs.push(Input { path: p.clone(), display: display(p), stdin: false, example: false });
            continue;
        }
        // One walk finds both the manifests and the charts (`Chart.yaml`) whose templates they may be.
        let mut charts = chart_ancestors(p);
        let inside = checkout_roots(p);
        let mut found = Vec::new();
        for entry in walkdir::WalkDir::new(p)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !is_ignored_dir(e))
        {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let path = e.path().map(display).unwrap_or_else(|| display(p));
                    inv.problems.push(problem(LoadProblemKind::Unreadable, &path, None, format!("cannot read: {e}")));
                    continue;
                }
            };
            if entry.file_type().is_file() && entry.file_name() == "Chart.yaml" {
                if let Some(parent) = entry.path().parent() {
                    charts.push(parent.to_path_buf());
                }
            }
            // Anything with a manifest's name that is not a directory (links followed) is an input: a
            // dangling link, a FIFO or a device becomes an `Unreadable` problem when it is read.
            // The walk's own file type (no `stat`), but for links, which are followed.
            let t = entry.file_type();
            let is_file = !(t.is_dir() || (t.is_symlink() && entry.path().is_dir()));
            if !is_file || !has_manifest_extension(entry.path()) {
                continue;
            }
            // A link out of the linted directory and its checkout is not read: a hostile checkout could
            // otherwise have its lint read (and quote) any file the runner can.
            if entry.path_is_symlink() && escapes(entry.path(), &inside) {
                inv.problems.push(problem(
                    LoadProblemKind::Unreadable,
                    &display(entry.path()),
                    None,
                    "not read: a symbolic link that leads out of the linted checkout".into(),
                ));
                continue;
            }
            found.push(entry.into_path());
        }
        let templates: Vec<PathBuf> = charts.iter().map(|c| c.join("templates")).collect();
        for path in found {
            if templates.iter().any(|t| path.starts_with(t)) {
                skipped_templates += 1;
                continue;
            }
            let rel = path.strip_prefix(p).map(display).unwrap_or_default();
            // Examples, and templates someone fills in before applying them, are not what the cluster runs
            // unless a build names them (docs/design.md "What is applied together").
            let example =
                edgecheck_core::placement::in_example_dir(&rel) || edgecheck_core::placement::template_file_name(&rel);
            inputs.push(Input { display: display(&path), path, stdin: false, example });
        }
    }

    // The checkouts are found (a walk of each tree, a `realpath` of each directory) while the files parse.
    let files: Vec<(String, PathBuf)> =
        inputs.iter().filter(|i| !i.stdin).map(|i| (i.display.clone(), i.path.clone())).collect();
    // Files are loaded in runs of consecutive inputs, each run's results gathered as its files are read: a
    // file's own vector of objects lives only until it is added, so that the next file's takes its place. (A
    // vector per file, all kept until the end, left a small hole per file among the objects' long-lived
    // memory once they were freed: 7 MB of a 100k-object lint's peak, #17.)
    // Runs short enough that every thread gets several (a repository of a few dozen files still parses on
    // every core), and at most FILES_PER_BATCH long.
    let per_batch = (inputs.len() / (rayon::current_num_threads() * 4)).clamp(1, FILES_PER_BATCH);
    let (batches, checkouts): (Vec<Batch>, repo::Checkouts) = rayon::join(
        || {
            inputs
                .par_iter()
                .fold_chunks(per_batch, Batch::default, |mut b, i| {
                    b.add(load_input(i, options.max_file_size));
                    b
                })
                .collect()
        },
        || repo::checkouts(&files, &roots, options),
    );
    // Files that could be read (whether or not they parse); the others are `Unreadable` problems.
    inv.files = batches.iter().map(|b| b.read).sum();
    inv.skipped_templates += skipped_templates;
    // Sized once: grown by doubling, the vector of a large repository's objects was copied into ever
    // larger fresh allocations, several times its final size in all.
    inv.objects.reserve_exact(batches.iter().map(|b| b.files.objects.len()).sum());
    inv.problems.reserve_exact(batches.iter().map(|b| b.files.problems.len()).sum());
    for Batch { files: r, .. } in batches {
        inv.objects.extend(r.objects);
        inv.problems.extend(r.problems);
        inv.skipped_documents += r.skip.documents;
        inv.skipped_templates += r.templates + r.skip.templates;
        inv.builds.extend(r.builds);
        inv.node_configs.extend(r.node_configs);
    }
    // Kustomize patch files hold partial objects that are merged into others: not objects.
    let patches: std::collections::HashSet<&str> =
        inv.builds.iter().flat_map(|b| b.patches.iter().map(String::as_str)).collect();
    if !patches.is_empty() {
        let before = inv.objects.len();
        inv.objects.retain(|o| !o.source.file().is_some_and(|f| patches.contains(f)));
        inv.skipped_documents += before - inv.objects.len();
    }
    repo::attach(&mut inv, checkouts);
    (inv, errors)
}

/// Loads text as if it were a file named `name` (tests, stdin).
pub fn load_text(name: &str, text: &str) -> Inventory {
    let r = parse_text(name, text, name.ends_with(".json"));
    Inventory {
        objects: r.objects,
        problems: r.problems,
        skipped_documents: r.skip.documents,
        skipped_templates: r.templates + r.skip.templates,
        files: 1,
        builds: r.builds,
        node_configs: r.node_configs,
        ..Inventory::default()
    }
}

/// The most consecutive inputs one task loads before its results are gathered with the others'.
const FILES_PER_BATCH: usize = 64;

/// What a run of consecutive files holds, in file order.
#[derive(Default)]
struct Batch {
    files: FileResult,
    /// Files that could be read as text.
    read: usize,
}

impl Batch {
    fn add(&mut self, r: FileResult) {
        let b = &mut self.files;
        b.objects.extend(r.objects);
        b.problems.extend(r.problems);
        b.skip.documents += r.skip.documents;
        b.skip.templates += r.skip.templates;
        b.builds.extend(r.builds);
        b.templates += r.templates;
        b.node_configs.extend(r.node_configs);
        self.read += usize::from(r.read);
    }
}

#[derive(Default)]
struct FileResult {
    objects: Vec<edgecheck_core::Object>,
    problems: Vec<LoadProblem>,
    skip: objects::Skipped,
    builds: Vec<edgecheck_core::inventory::Build>,
    /// Documents that do not parse because they are templates.
    templates: usize,
    node_configs: Vec<edgecheck_core::NodeConfig>,
    /// The file could be read as text (it may still not parse); binary files are not.
    read: bool,
}

fn load_input(input: &Input, limit: u64) -> FileResult {
    let bytes = if input.stdin {
        read::read_bounded(std::io::stdin().lock(), limit)
    } else {
        read::read_regular_file(&input.path, limit)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => return unreadable(&input.display, &e.to_string()),
    };
    if bytes.contains(&0) {
        return FileResult {
            problems: vec![problem(
                LoadProblemKind::Binary,
                &input.display,
                None,
                "binary file (contains NUL bytes), not a manifest".into(),
            )],
            ..FileResult::default()
        };
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = e.as_bytes()[..e.utf8_error().valid_up_to()].iter().filter(|b| **b == b'\n').count() + 1;
            return FileResult {
                problems: vec![problem(
                    LoadProblemKind::Binary,
                    &input.display,
                    u32::try_from(line).ok(),
                    "not UTF-8 text".into(),
                )],
                ..FileResult::default()
            };
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut r = parse_text(&input.display, text, input.path.extension().is_some_and(|e| e == "json"));
    if input.example {
        r.objects.iter_mut().for_each(|o| o.source.example = true);
        r.builds.iter_mut().for_each(|b| b.example = true);
        r.problems.iter_mut().for_each(|p| p.example = true);
    }
    r
}

fn parse_text(file: &str, text: &str, json: bool) -> FileResult {
    let mut r = FileResult { read: true, ..FileResult::default() };
    let docs = if json {
        match yaml::parse_single(text) {
            Ok(d) => d.into_iter().map(Ok).collect(),
            // JSON has no aliases: a YAML reading that expands too many is reported as such.
            Err(yerr) if yerr.excessive_aliasing => vec![Err(yerr)],
            Err(yerr) => match serde_json::from_str::<edgecheck_core::Value>(text) {
                Ok(value) => vec![Ok(yaml::Document { line: 1, value, lines: LineTable::default() })],
                Err(e) => {
                    r.problems.push(LoadProblem {
                        not_manifest: !yaml::names_kubernetes(text),
                        ..problem(
                            LoadProblemKind::JsonSyntax,
                            file,
                            u32::try_from(e.line()).ok(),
                            format!("invalid JSON: {e}"),
                        )
                    });
                    let _ = yerr;
                    return r;
                }
            },
        }
    } else {
        yaml::parse_documents(text)
    };
    // One object per document but for Lists: each file's vector is the right size (all of them are alive
    // until the inventory is assembled).
    r.objects.reserve_exact(docs.len());
    let shared = edgecheck_core::FileRef::new(file);
    for d in docs {
        match d {
            Ok(doc) => {
                if edgecheck_core::NodeConfig::looks_like(file, &doc.value) {
                    r.node_configs.push(edgecheck_core::NodeConfig {
                        file: file.to_string(),
                        line: doc.line,
                        value: doc.value.clone(),
                    });
                }
                let lines = doc.lines;
                objects::objects_from_document(
                    &shared,
                    doc.line,
                    doc.value,
                    &lines,
                    &mut r.objects,
                    &mut r.problems,
                    &mut r.skip,
                    &mut r.builds,
                );
            }
            Err(e) if e.templated => r.templates += 1,
            Err(e) if e.excessive_aliasing => r.problems.push(problem(
                LoadProblemKind::YamlSyntax,
                file,
                Some(e.line),
                format!("{} (column {})", e.message, e.col),
            )),
            Err(e) => r.problems.push(LoadProblem {
                not_manifest: !e.manifest,
                ..problem(
                    LoadProblemKind::YamlSyntax,
                    file,
                    Some(e.line),
                    format!("invalid YAML: {} (column {})", e.message, e.col),
                )
            }),
        }
    }
    r
}

fn unreadable(file: &str, why: &str) -> FileResult {
    FileResult {
        problems: vec![problem(LoadProblemKind::Unreadable, file, None, format!("cannot read: {why}"))],
        ..FileResult::default()
    }
}

pub(crate) fn problem(kind: LoadProblemKind, file: &str, line: Option<u32>, message: String) -> LoadProblem {
    LoadProblem {
        kind,
        file: file.to_string(),
        line,
        message,
        object: None,
        other: None,
        example: false,
        not_manifest: false,
    }
}

fn display(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

fn has_manifest_extension(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json"))
}

fn is_ignored_dir(e: &walkdir::DirEntry) -> bool {
    e.file_type().is_dir()
        && e.file_name().to_str().is_some_and(|n| n.starts_with('.') || n == "node_modules" || n == "target")
}

/// `root` and the directories above it that hold a `Chart.yaml`: their `templates/` are Helm templates,
/// not manifests (charts below `root` are found by the walk itself).
fn chart_ancestors(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut cur = Some(root);
    while let Some(d) = cur {
        if d.join("Chart.yaml").is_file() {
            out.push(d.to_path_buf());
        }
        cur = d.parent().filter(|p| !p.as_os_str().is_empty());
    }
    out
}

impl std::error::Error for LoadError {}

/// The directories a link under `root` may lead into: `root` itself and the top of the git checkout that
/// holds it, resolved.
fn checkout_roots(root: &Path) -> Vec<PathBuf> {
    let Ok(real) = root.canonicalize() else { return Vec::new() };
    let top = real.ancestors().find(|a| a.join(".git").exists()).map(Path::to_path_buf);
    std::iter::once(real).chain(top).collect()
}

/// Whether `path` resolves outside every one of `roots` (a dangling link does not: reading it reports it).
fn escapes(path: &Path, roots: &[PathBuf]) -> bool {
    match path.canonicalize() {
        Ok(real) => !roots.is_empty() && !roots.iter().any(|r| real.starts_with(r)),
        Err(_) => false,
    }
}
