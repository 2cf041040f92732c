//! `lint --diff-base REF`: what a change breaks. The base revision is checked out in a temporary detached
//! git worktree (git's own bookkeeping, removed afterwards, also on error), linted with the working tree's
//! configuration, and compared with the working tree by finding identity ([`edgecheck_report::fingerprints`],
//! SARIF's `partialFingerprints`): introduced, fixed, and the hosts whose verdict changes. And the baselines
//! (`--baseline`, `--write-baseline`) on the same identity.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::Context as _;
use edgecheck_checks::diagnose::Diagnosis;
use edgecheck_core::Finding;
use edgecheck_report::{DiffReport, Format, HostChange, HostSide, Report};

use super::lint::{self, Part};
use crate::cli::{ColorChoice, LintArgs};

/// A temporary detached worktree of the base revision; dropping it removes it and prunes git's record.
pub struct Worktree {
    /// The repository's top directory (as git names it).
    top: PathBuf,
    /// The worktree's directory (canonical).
    dir: PathBuf,
}

impl Worktree {
    /// `git worktree add --detach` of `sha` into a fresh directory under the temp directory. Hooks are off
    /// (a `post-checkout` hook must not run on the user's behalf).
    fn add(top: &Path, sha: &str) -> anyhow::Result<Worktree> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("edgecheck-base-{}-{nanos}", std::process::id()));
        let dir_s = dir.to_string_lossy().into_owned();
        let out = git(top, &["-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", "--quiet", &dir_s, sha])?;
        // From here the guard owns whatever git made, even if the rest fails.
        let mut wt = Worktree { top: top.to_path_buf(), dir };
        if !out.status.success() {
            anyhow::bail!(
                "--diff-base: `git worktree add` of {sha} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        wt.dir = wt.dir.canonicalize().with_context(|| format!("--diff-base: worktree {dir_s}"))?;
        Ok(wt)
    }

    /// A path of the worktree as the working tree's (config discovery); other paths unchanged.
    pub fn to_head(&self, p: &Path) -> PathBuf {
        let abs = absolute(p);
        match abs.strip_prefix(&self.dir) {
            Ok(rel) => self.top.join(rel),
            Err(_) => p.to_path_buf(),
        }
    }

    /// A path of the working tree as the worktree's; paths outside the repository unchanged.
    pub fn to_base(&self, p: &Path) -> PathBuf {
        let abs = absolute(p);
        match abs.strip_prefix(&self.top) {
            Ok(rel) => self.dir.join(rel),
            Err(_) => p.to_path_buf(),
        }
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let dir = self.dir.to_string_lossy().into_owned();
        let _ = git(&self.top, &["worktree", "remove", "--force", &dir]);
        if self.dir.exists() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        let _ = git(&self.top, &["worktree", "prune"]);
    }
}

/// The path made absolute and canonical where it exists (git names the top directory canonically).
fn absolute(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf()))
}

/// Runs git in `dir`, its output captured.
fn git(dir: &Path, args: &[&str]) -> anyhow::Result<Output> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .context("--diff-base: cannot run git")
}

/// The revision to compare with: the flag's value, else `origin/$GITHUB_BASE_REF`, else `$GITHUB_BASE_REF`
/// (the candidates in order).
fn candidates(value: &str) -> anyhow::Result<Vec<String>> {
    if !value.is_empty() {
        return Ok(vec![value.to_string()]);
    }
    match std::env::var("GITHUB_BASE_REF").ok().filter(|v| !v.trim().is_empty()) {
        Some(b) => Ok(vec![format!("origin/{b}"), b]),
        None => anyhow::bail!("--diff-base without a REF takes the base from GITHUB_BASE_REF, which is not set: name the base (`--diff-base origin/main`)"),
    }
}

/// How the loader names the files below `p` (`display` of edgecheck_load): `/` separators, no `./`.
fn display(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// Rewrites the worktree's paths in the base's findings as the working tree's files are named, so that the
/// identities (file, build) match: each pair is (the worktree path's name, the working tree path's name).
struct Rename {
    pairs: Vec<(String, String, String, String)>,
}

impl Rename {
    fn new(pairs: &[(PathBuf, PathBuf)]) -> Rename {
        // Prefixes: a name below the path (`<p>/x` without `x`); for `.`, the empty prefix.
        let prefix = |p: &Path| {
            let s = display(&p.join("x"));
            s[..s.len() - 1].to_string()
        };
        let mut pairs: Vec<_> =
            pairs.iter().map(|(base, head)| (display(base), display(head), prefix(base), prefix(head))).collect();
        // The longest first: a nested path before its parent.
        pairs.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        Rename { pairs }
    }

    /// A name (a file): the whole of it.
    fn name(&self, s: &mut String) {
        for (base, head, base_prefix, head_prefix) in &self.pairs {
            if s == base {
                head.clone_into(s);
                return;
            }
            if let Some(rest) = s.strip_prefix(base_prefix.as_str()) {
                *s = format!("{head_prefix}{rest}");
                return;
            }
        }
    }

    /// Free text (a message, a build name): every occurrence.
    fn text(&self, s: &mut String) {
        for (_, _, base_prefix, head_prefix) in &self.pairs {
            if s.contains(base_prefix.as_str()) {
                *s = s.replace(base_prefix.as_str(), head_prefix);
            }
        }
    }

    fn finding(&self, f: &mut Finding) {
        if let Some(file) = &mut f.file {
            self.name(file);
        }
        for n in &mut f.notes {
            self.name(&mut n.file);
        }
        for s in [&mut f.build, &mut f.root, &mut f.fix, &mut f.patch].into_iter().flatten() {
            self.text(s);
        }
        self.text(&mut f.message);
        f.evidence.iter_mut().for_each(|e| self.text(e));
    }
}

/// The hosts of some parts: by cluster and target, each side's verdict and root cause.
fn hosts(parts: &[Part]) -> BTreeMap<(Option<String>, String), HostSide> {
    let mut out = BTreeMap::new();
    for p in parts {
        for d in &p.analysis.diagnoses {
            let side = HostSide {
                verdict: Some(d.verdict.as_str()),
                layer: d.layer,
                code: d.root_cause.and_then(|i| p.analysis.findings.get(i)).map(|f| f.meta.code),
            };
            out.entry((p.cluster.clone(), d.target.target.clone())).or_insert(side);
        }
    }
    out
}

/// Every finding of some parts, in part order, with its part's index.
fn all_findings(parts: &[Part]) -> Vec<(usize, &Finding)> {
    parts.iter().enumerate().flat_map(|(i, p)| p.analysis.findings.iter().map(move |f| (i, f))).collect()
}

fn fingerprints_of(findings: &[(usize, &Finding)]) -> Vec<String> {
    let owned: Vec<Finding> = findings.iter().map(|(_, f)| (*f).clone()).collect();
    edgecheck_report::fingerprints(&owned)
}

/// `lint --diff-base [REF] PATH...`.
pub fn run(args: &LintArgs, color: ColorChoice) -> anyhow::Result<u8> {
    let format: Format = args.format.into();
    if matches!(format, Format::Dot | Format::Mermaid | Format::Html) {
        anyhow::bail!("--diff-base reports as text, concise, json, markdown, sarif, github or gitlab");
    }
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        anyhow::bail!("--diff-base: stdin (`-`) has no base revision; name files or directories of a git repository");
    }
    let baseline = args.baseline.as_deref().map(read_baseline).transpose()?;
    let candidates = candidates(args.diff_base.as_deref().unwrap_or_default())?;
    let first = &args.paths[0];
    let dir = if first.is_dir() { first.clone() } else { first.parent().map_or_else(|| ".".into(), Path::to_path_buf) };
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    let out = git(&dir, &["rev-parse", "--show-toplevel"])?;
    if !out.status.success() {
        anyhow::bail!("--diff-base: {} is not in a git repository", first.display());
    }
    let top = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let top = top.canonicalize().unwrap_or(top);
    for p in &args.paths {
        if !absolute(p).starts_with(&top) {
            anyhow::bail!("--diff-base: {} is not in the repository {}", p.display(), top.display());
        }
    }
    let mut resolved = None;
    for c in &candidates {
        let out = git(&top, &["rev-parse", "--verify", "--quiet", &format!("{c}^{{commit}}")])?;
        if out.status.success() {
            resolved = Some((c.clone(), String::from_utf8_lossy(&out.stdout).trim().to_string()));
            break;
        }
    }
    let Some((base_ref, sha)) = resolved else {
        let shallow = git(&top, &["rev-parse", "--is-shallow-repository"])
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true");
        let named = candidates.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(" nor ");
        eprintln!(
            "edgecheck: --diff-base: {named} names no commit in {}{}; a shallow clone lacks the base revision: \
             check out the whole history (actions/checkout `fetch-depth: 0`) or fetch it (`git fetch origin {}`)",
            top.display(),
            if shallow { " (a shallow clone)" } else { "" },
            candidates.last().map(|c| c.strip_prefix("origin/").unwrap_or(c)).unwrap_or_default(),
        );
        return Ok(2);
    };

    // The base: its worktree, the same paths, the working tree's configuration.
    let base_parts = {
        let wt = Worktree::add(&top, &sha)?;
        let pairs: Vec<(PathBuf, PathBuf)> = args.paths.iter().map(|p| (wt.to_base(p), p.clone())).collect();
        // A path the change adds is not in the base: the base has nothing there.
        let base_paths: Vec<PathBuf> = pairs.iter().map(|(b, _)| b.clone()).filter(|b| b.exists()).collect();
        let mut parts =
            if base_paths.is_empty() { Vec::new() } else { lint::lint_parts(args, &base_paths, color, Some(&wt))? };
        let rename = Rename::new(&pairs);
        for p in &mut parts {
            p.analysis.findings.iter_mut().for_each(|f| rename.finding(f));
            rename.text(&mut p.label);
        }
        parts
        // The worktree is removed here (and on every early return above).
    };

    let head_parts = lint::lint_parts(args, &args.paths, color, None)?;
    if head_parts.is_empty() {
        return Ok(2);
    }
    let head = all_findings(&head_parts);
    let base = all_findings(&base_parts);
    let head_prints = fingerprints_of(&head);
    let base_prints = fingerprints_of(&base);
    let base_set: HashSet<&String> = base_prints.iter().collect();
    let head_set: HashSet<&String> = head_prints.iter().collect();
    let mut total = edgecheck_checks::Summary::default();
    for p in &head_parts {
        lint::add(&mut total, &p.analysis.summary(&p.graph));
    }
    let mut introduced = Vec::new();
    let mut failed = false;
    for ((part, f), print) in head.iter().zip(&head_prints) {
        if baseline.as_ref().is_some_and(|b| b.contains(print)) {
            total.suppressed += 1;
            match f.severity {
                edgecheck_core::Severity::Error => total.errors -= 1,
                edgecheck_core::Severity::Warning => total.warnings -= 1,
                _ => total.infos -= 1,
            }
            continue;
        }
        if !base_set.contains(print) {
            failed |= head_parts[*part].settings.fail_on.is_some_and(|t| f.severity.reaches(t));
            introduced.push((*f).clone());
        }
    }
    let fixed: Vec<Finding> =
        base.iter().zip(&base_prints).filter(|(_, p)| !head_set.contains(p)).map(|((_, f), _)| (*f).clone()).collect();

    let before = hosts(&base_parts);
    let after = hosts(&head_parts);
    let absent = HostSide { verdict: None, layer: None, code: None };
    let mut changes: Vec<HostChange> = Vec::new();
    let keys: std::collections::BTreeSet<_> = before.keys().chain(after.keys()).collect();
    for key in keys {
        let b = before.get(key).unwrap_or(&absent);
        let a = after.get(key).unwrap_or(&absent);
        if b.verdict != a.verdict || (a.verdict != Some("ok") && (a.layer, a.code) != (b.layer, b.code)) {
            changes.push(HostChange {
                target: key.1.clone(),
                cluster: key.0.clone(),
                before: b.clone(),
                after: a.clone(),
            });
        }
    }
    // What the change breaks first.
    changes.sort_by_key(|h| !h.worse());

    let settings = &head_parts[0].settings;
    let version = env!("CARGO_PKG_VERSION");
    let rendered: Vec<_> = head_parts.iter().flat_map(|p| p.graph.rendered.iter().cloned()).collect();
    let render_tools = super::builds::tools(&rendered);
    let report = DiffReport {
        base_ref: &base_ref,
        base: &sha,
        introduced: &introduced,
        fixed: &fixed,
        hosts: &changes,
        summary: &total,
        version,
        render_tools: &render_tools,
    };
    let file = settings.output_file.as_deref();
    match format {
        Format::Json => super::write_output(&edgecheck_report::render_diff_json(&report), file)?,
        Format::Markdown => super::write_output(&edgecheck_report::render_diff_markdown(&report), file)?,
        Format::Sarif | Format::Github | Format::Gitlab => {
            // The CI formats annotate what the change introduces.
            let r = Report {
                findings: &introduced,
                objects: &Vec::new(),
                summary: &total,
                version,
                render_tools: &render_tools,
                group_by_object: false,
                diagnoses: &[],
                trace: false,
                observations: &[],
            };
            super::write_report(&r, format, &settings.style, file)?;
        }
        _ => super::write_output(&edgecheck_report::render_diff_text(&report, &settings.style), file)?,
    }
    Ok(u8::from(failed))
}

/// A baseline: the identities of findings accepted as they are.
pub type Baseline = HashSet<String>;

/// Reads a baseline file (`{"version": 1, "fingerprints": [{"fingerprint", ...}]}`); one that cannot be
/// read or parsed is an error naming the file (exit 2).
pub fn read_baseline(file: &Path) -> anyhow::Result<Baseline> {
    let text = std::fs::read_to_string(file).with_context(|| format!("--baseline {}: cannot read", file.display()))?;
    let bad = |why: &str| anyhow::anyhow!("--baseline {}: not an edgecheck baseline ({why})", file.display());
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    if v.get("version") != Some(&serde_json::json!(1)) {
        return Err(bad("expected \"version\": 1"));
    }
    let entries =
        v.get("fingerprints").and_then(serde_json::Value::as_array).ok_or_else(|| bad("no \"fingerprints\" array"))?;
    entries
        .iter()
        .map(|e| e.get("fingerprint").and_then(serde_json::Value::as_str).map(str::to_string))
        .collect::<Option<Baseline>>()
        .ok_or_else(|| bad("an entry without a \"fingerprint\" string"))
}

/// `--write-baseline FILE`: the identities of every finding of the parts, sorted, with the code, object and
/// file that make them readable; exit 0.
pub fn write_baseline(file: &Path, parts: &[Part]) -> anyhow::Result<u8> {
    let findings = all_findings(parts);
    let prints = fingerprints_of(&findings);
    let mut entries: Vec<(String, serde_json::Value)> = findings
        .iter()
        .zip(prints)
        .map(|((_, f), print)| {
            let object = match &f.object.namespace {
                Some(ns) => format!("{}/{ns}/{}", f.object.kind, f.object.name),
                None => format!("{}/{}", f.object.kind, f.object.name),
            };
            let mut e = serde_json::json!({"fingerprint": print, "code": f.meta.code, "object": object});
            if let Some(file) = &f.file {
                e["file"] = file.clone().into();
            }
            (print, e)
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let n = entries.len();
    let doc =
        serde_json::json!({"version": 1, "fingerprints": entries.into_iter().map(|(_, e)| e).collect::<Vec<_>>()});
    let mut text = serde_json::to_string_pretty(&doc)?;
    text.push('\n');
    std::fs::write(file, text).with_context(|| format!("--write-baseline {}: cannot write", file.display()))?;
    eprintln!("edgecheck: wrote {n} finding identit{} to {}", if n == 1 { "y" } else { "ies" }, file.display());
    Ok(0)
}

/// Drops the findings the baseline holds (counted as suppressed); the diagnoses' indices follow.
pub fn apply_baseline(parts: &mut [Part], baseline: &Baseline) {
    let prints = fingerprints_of(&all_findings(parts));
    let mut prints = prints.into_iter();
    for p in parts {
        let keep: Vec<bool> =
            p.analysis.findings.iter().map(|_| !prints.next().is_some_and(|f| baseline.contains(&f))).collect();
        if keep.iter().all(|k| *k) {
            continue;
        }
        let mut map = Vec::with_capacity(keep.len());
        let mut next = 0;
        for k in &keep {
            map.push(k.then(|| {
                next += 1;
                next - 1
            }));
        }
        let mut i = 0;
        p.analysis.findings.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        p.analysis.suppressed += keep.iter().filter(|k| !**k).count();
        p.analysis.diagnoses.iter_mut().for_each(|d| remap(d, &map));
    }
}

/// Moves a diagnosis's finding indices through `map` (old index to new; `None` for a dropped finding).
fn remap(d: &mut Diagnosis, map: &[Option<usize>]) {
    let at = |i: usize| map.get(i).copied().flatten();
    let list = |v: &mut Vec<usize>| *v = v.iter().filter_map(|&i| at(i)).collect();
    d.root_cause = d.root_cause.and_then(at);
    list(&mut d.consequences);
    list(&mut d.also);
    d.chain.iter_mut().for_each(|l| l.finding = l.finding.and_then(at));
    d.nodes.iter_mut().for_each(|n| list(&mut n.findings));
    d.causes.retain(|c| at(c.root_cause).is_some());
    for c in &mut d.causes {
        c.root_cause = at(c.root_cause).unwrap_or_default();
        list(&mut c.explains);
        c.chain.iter_mut().for_each(|l| l.finding = l.finding.and_then(at));
    }
}
