//! ApplicationSets expanded to the Applications Argo CD's ApplicationSet controller generates (docs/design.md
//! "Builds"): the `list` generator (`elements`, `elementsYaml`), the `git` generator's `directories` and
//! `files` over a linted checkout, and `matrix` of two of those; the template rendered as fasttemplate
//! (`{{path.basename}}`) or, with `goTemplate: true`, as a Go template (`{{.path.basename}}`, pipelines,
//! `if`, and the Sprig and Argo CD functions ApplicationSets use: [`crate::gotemplate`]). Anything else
//! (cluster, SCM, pull request and plugin generators, `merge`, selectors, `templatePatch`, a function or
//! action edgecheck does not evaluate) is refused with the reason, never guessed.

use edgecheck_core::value::Str;
use edgecheck_core::{Map, Value};

/// One parameter set: the flat names fasttemplate reads (`path.basename`) and the tree Go templates read
/// (`.path.basename`).
#[derive(Debug, Clone, Default)]
pub struct Params {
    flat: Map,
    tree: Map,
}

impl Params {
    fn merged(&self, other: &Params) -> Params {
        let mut p = self.clone();
        p.flat.extend(other.flat.clone());
        p.tree.extend(other.tree.clone());
        p
    }
}

/// Reads a repository-relative file (bounded); `None` when it cannot.
pub type Reader<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

/// A checkout as a git generator sees it: its directories and files relative to its root, and how to read
/// a file.
pub struct Checkout<'a> {
    pub dirs: &'a edgecheck_core::pathset::PathSet,
    pub files: &'a edgecheck_core::pathset::PathSet,
    /// Reads a repository-relative file (bounded).
    pub read: Reader<'a>,
}

/// Why an ApplicationSet is not expanded.
pub type Refusal = String;

/// The Applications `appset` generates, or why they cannot be known here. `checkout` finds the linted
/// checkout of a git generator's `repoURL`.
pub fn expand<'a>(
    appset: &Value,
    namespace: Option<&str>,
    checkout: &dyn Fn(&str) -> Option<Checkout<'a>>,
) -> Result<Vec<Value>, Refusal> {
    let spec = appset.get("spec").ok_or("no spec")?;
    if spec.get("templatePatch").is_some() {
        return Err("its templatePatch is not evaluated".into());
    }
    let go = match spec.get("goTemplate").and_then(Value::as_bool).unwrap_or(false) {
        false => Mode::Fast,
        true => Mode::Go { strict: go_options(spec)? },
    };
    let template = spec.get("template").ok_or("no template")?;
    let mut params = Vec::new();
    for g in spec.get("generators").and_then(Value::as_array).into_iter().flatten() {
        params.extend(generate(g, checkout, go, 0)?);
    }
    let mut apps = Vec::new();
    for p in &params {
        let mut t = template.clone();
        render_value(&mut t, p, go)?;
        let mut app = Map::new();
        app.insert("apiVersion".into(), "argoproj.io/v1alpha1".into());
        app.insert("kind".into(), "Application".into());
        let mut meta = t.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
        // The controller creates Applications in its own namespace.
        if let Some(ns) = namespace {
            meta.insert("namespace".into(), ns.into());
        }
        app.insert("metadata".into(), Value::Object(meta));
        app.insert("spec".into(), t.get("spec").cloned().unwrap_or(Value::Null));
        apps.push(Value::Object(app));
    }
    Ok(apps)
}

/// The parameter sets of one generator.
fn generate<'a>(
    g: &Value,
    checkout: &dyn Fn(&str) -> Option<Checkout<'a>>,
    go: Mode,
    depth: usize,
) -> Result<Vec<Params>, Refusal> {
    if g.get("selector").is_some() {
        return Err("a generator selector is not evaluated".into());
    }
    if let Some(list) = g.get("list") {
        return list_params(list);
    }
    if let Some(git) = g.get("git") {
        return git_params(git, checkout);
    }
    if let Some(m) = g.get("matrix") {
        let children: Vec<&Value> = m.get("generators").and_then(Value::as_array).into_iter().flatten().collect();
        if children.len() != 2 || depth > 0 {
            return Err("a matrix generator is expanded only with two generators, not nested".into());
        }
        let left = generate(children[0], checkout, go, depth + 1)?;
        let mut out = Vec::new();
        for l in &left {
            // The second generator may use the first's parameters (a git path from a list element).
            let mut right_gen = children[1].clone();
            render_value(&mut right_gen, l, go)?;
            for r in generate(&right_gen, checkout, go, depth + 1)? {
                out.push(l.merged(&r));
            }
        }
        return Ok(out);
    }
    let kind = g.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default();
    Err(format!("its `{kind}` generator needs the cluster or a service edgecheck does not reach"))
}

fn list_params(list: &Value) -> Result<Vec<Params>, Refusal> {
    let mut elements: Vec<Value> =
        list.get("elements").and_then(Value::as_array).map(<[_]>::to_vec).unwrap_or_default();
    if let Some(text) = list.get("elementsYaml").and_then(Value::as_str) {
        match edgecheck_load::yaml::parse_single(text) {
            Ok(Some(d)) => elements.extend(d.value.as_array().map(<[_]>::to_vec).unwrap_or_default()),
            Ok(None) => {}
            Err(e) => return Err(format!("its elementsYaml is not YAML: {}", e.message)),
        }
    }
    Ok(elements.iter().map(object_params).collect())
}

/// A list element's or a config file's keys: flattened with dots for fasttemplate, as they are for Go.
fn object_params(v: &Value) -> Params {
    let mut p = Params::default();
    if let Some(m) = v.as_object() {
        p.tree = m.clone();
        let mut flat = Vec::new();
        flatten("", v, &mut flat);
        p.flat = flat.into_iter().collect();
    }
    p
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(Str, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
                flatten(&key, x, out);
            }
        }
        other if !prefix.is_empty() => {
            out.push((prefix.into(), other.clone()));
        }
        _ => {}
    }
}

/// Argo CD's `basenameNormalized`: lower case, characters a name cannot hold replaced by `-`.
fn normalized(s: &str) -> String {
    crate::gotemplate::normalize(s)
}

/// The parameters a git generator gives a directory (`dir`) and, for the files generator, a file in it.
fn path_params(dir: &str, file: Option<&str>) -> Params {
    let mut p = Params::default();
    let segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    let base = segments.last().copied().unwrap_or("");
    p.flat.insert("path".into(), dir.into());
    p.flat.insert("path.basename".into(), base.into());
    p.flat.insert("path.basenameNormalized".into(), normalized(base).into());
    for (i, s) in segments.iter().enumerate() {
        p.flat.insert(format!("path[{i}]").into(), (*s).into());
    }
    let mut tree = Map::new();
    tree.insert("path".into(), dir.into());
    tree.insert("basename".into(), base.into());
    tree.insert("basenameNormalized".into(), normalized(base).into());
    tree.insert("segments".into(), Value::Array(segments.iter().map(|s| Value::from(*s)).collect()));
    if let Some(f) = file {
        p.flat.insert("path.filename".into(), f.into());
        p.flat.insert("path.filenameNormalized".into(), normalized(f).into());
        tree.insert("filename".into(), f.into());
        tree.insert("filenameNormalized".into(), normalized(f).into());
    }
    p.tree.insert("path".into(), Value::Object(tree));
    p
}

fn git_params<'a>(git: &Value, checkout: &dyn Fn(&str) -> Option<Checkout<'a>>) -> Result<Vec<Params>, Refusal> {
    let url = git.get("repoURL").and_then(Value::as_str).unwrap_or("");
    let repo = checkout(url).ok_or_else(|| {
        format!("its git generator reads {}, which is not a linted checkout", edgecheck_core::redact::credentials(url))
    })?;
    let mut out = Vec::new();
    if let Some(dirs) = git.get("directories").and_then(Value::as_array) {
        let pattern = |d: &Value| d.get("path").and_then(Value::as_str).map(str::to_string);
        let include: Vec<String> = dirs
            .iter()
            .filter(|d| d.get("exclude").and_then(Value::as_bool) != Some(true))
            .filter_map(pattern)
            .collect();
        let exclude: Vec<String> = dirs
            .iter()
            .filter(|d| d.get("exclude").and_then(Value::as_bool) == Some(true))
            .filter_map(pattern)
            .collect();
        for dir in repo.dirs.iter().filter(|d| !d.is_empty()) {
            if include.iter().any(|p| crate::discover::path_glob(p, dir))
                && !exclude.iter().any(|p| crate::discover::path_glob(p, dir))
            {
                out.push(path_params(dir, None));
            }
        }
    }
    for f in git.get("files").and_then(Value::as_array).into_iter().flatten() {
        let Some(pattern) = f.get("path").and_then(Value::as_str) else { continue };
        for file in repo.files.iter().filter(|file| crate::discover::path_glob(pattern, file)) {
            let (dir, name) = file.rsplit_once('/').unwrap_or(("", file));
            let text = (repo.read)(file).ok_or_else(|| format!("its git files generator cannot read `{file}`"))?;
            let doc = match edgecheck_load::yaml::parse_single(&text) {
                Ok(Some(d)) => d.value,
                Ok(None) => continue,
                Err(e) => {
                    return Err(format!("`{file}` (a git files generator's config) is not YAML or JSON: {}", e.message))
                }
            };
            // A file holding a list makes one parameter set per element.
            let items = match doc {
                Value::Array(a) => a.into_vec(),
                other => vec![other],
            };
            for item in &items {
                out.push(object_params(item).merged(&path_params(dir, Some(name))));
            }
        }
    }
    Ok(out)
}

/// Renders every string of `v` (keys too, as Argo CD renders the template's JSON text).
fn render_value(v: &mut Value, p: &Params, go: Mode) -> Result<(), Refusal> {
    let root = matches!(go, Mode::Go { .. }).then(|| Value::Object(p.tree.clone()));
    let go = match (go, &root) {
        (Mode::Go { strict }, Some(root)) => Some((root, strict)),
        _ => None,
    };
    render_in(v, p, go)
}

/// How the template's strings are rendered: fasttemplate, or Go templates (`missingkey=error` when `strict`).
#[derive(Debug, Clone, Copy)]
enum Mode {
    Fast,
    Go { strict: bool },
}

/// Whether `goTemplateOptions` ask for `missingkey=error`; an option edgecheck does not know is refused.
fn go_options(spec: &Value) -> Result<bool, Refusal> {
    let mut strict = false;
    for o in spec.get("goTemplateOptions").and_then(Value::as_array).into_iter().flatten() {
        match o.as_str() {
            Some("missingkey=error") => strict = true,
            Some("missingkey=default" | "missingkey=invalid" | "missingkey=zero") => strict = false,
            _ => return Err(format!("its goTemplateOptions `{o}` is not evaluated")),
        }
    }
    Ok(strict)
}

/// [`render_value`] with the Go templates' data and strictness, when they are Go templates.
fn render_in(v: &mut Value, p: &Params, go: Option<(&Value, bool)>) -> Result<(), Refusal> {
    match v {
        Value::String(s) => *s = render_str(s, p, go)?.into(),
        Value::Array(a) => {
            for x in a {
                render_in(x, p, go)?;
            }
        }
        Value::Object(m) => {
            let mut entries = Vec::with_capacity(m.len());
            for (k, mut x) in std::mem::take(m) {
                render_in(&mut x, p, go)?;
                entries.push((render_str(&k, p, go)?.into(), x));
            }
            *m = Map::from_entries(entries);
        }
        _ => {}
    }
    Ok(())
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `{{ … }}` replaced: a fasttemplate name from the flat parameters (an unknown one left as written, as
/// Argo CD leaves it), or, with `go`, the string rendered as a Go template over the parameter tree
/// ([`crate::gotemplate`]).
fn render_str(s: &str, p: &Params, go: Option<(&Value, bool)>) -> Result<String, Refusal> {
    if !s.contains("{{") {
        return Ok(s.to_string());
    }
    if let Some((root, strict)) = go {
        return crate::gotemplate::render(s, root, strict);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(j) = after.find("}}") else {
            out.push_str(&rest[i..]);
            return Ok(out);
        };
        let inner = after[..j].trim().trim_start_matches('-').trim_end_matches('-').trim();
        match p.flat.get(inner) {
            Some(v) => out.push_str(&scalar(v)),
            None => {
                out.push_str("{{");
                out.push_str(&after[..j]);
                out.push_str("}}");
            }
        }
        rest = &after[j + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgecheck_core::json;
    use edgecheck_core::pathset::PathSet;

    fn tree() -> (PathSet, PathSet) {
        let dirs: PathSet =
            ["apps", "apps/shop", "apps/blog_v2", "apps/legacy", "config", "config/prod"].into_iter().collect();
        let files: PathSet = ["config/prod/config.json", "apps/shop/kustomization.yaml"].into_iter().collect();
        (dirs, files)
    }

    fn run(appset: Value) -> Result<Vec<Value>, Refusal> {
        let (dirs, files) = tree();
        let read = |f: &str| {
            (f == "config/prod/config.json")
                .then(|| r#"{"cluster": {"name": "prod", "address": "https://prod"}}"#.to_string())
        };
        let checkout = |url: &str| {
            (url == "https://git.example/platform").then(|| Checkout {
                dirs: &dirs,
                files: &files,
                read: Box::new(read),
            })
        };
        expand(&appset, Some("argocd"), &checkout)
    }

    fn names(apps: &[Value]) -> Vec<String> {
        apps.iter().map(|a| a["metadata"]["name"].as_str().unwrap_or("").to_string()).collect()
    }

    #[test]
    fn git_directories_with_fasttemplate_and_exclusions() {
        let apps = run(json!({"spec": {
            "generators": [{"git": {"repoURL": "https://git.example/platform", "revision": "HEAD",
                "directories": [{"path": "apps/*"}, {"path": "apps/legacy", "exclude": true}]}}],
            "template": {"metadata": {"name": "{{path.basename}}"}, "spec": {
                "source": {"repoURL": "https://git.example/platform", "path": "{{path}}"},
                "destination": {"namespace": "{{ path.basenameNormalized }}", "server": "https://kubernetes.default.svc"}}}}}))
        .expect("expanded");
        assert_eq!(names(&apps), ["blog_v2", "shop"]);
        assert_eq!(apps[0]["spec"]["destination"]["namespace"], "blog-v2");
        assert_eq!(apps[1]["spec"]["source"]["path"], "apps/shop");
        assert_eq!(apps[1]["metadata"]["namespace"], "argocd");
        assert_eq!(apps[1]["kind"], "Application");
    }

    #[test]
    fn go_templates_read_the_parameter_tree() {
        let apps = run(json!({"spec": {"goTemplate": true,
            "generators": [{"git": {"repoURL": "https://git.example/platform", "files": [{"path": "config/**/config.json"}]}}],
            "template": {"metadata": {"name": "{{.cluster.name}}-{{index .path.segments 1}}"}, "spec": {
                "source": {"repoURL": "https://git.example/platform", "path": "{{.path.path}}"},
                "destination": {"server": "{{.cluster.address}}", "namespace": "x"}}}}}))
        .expect("expanded");
        assert_eq!(names(&apps), ["prod-prod"]);
        assert_eq!(apps[0]["spec"]["destination"]["server"], "https://prod");
        assert_eq!(apps[0]["spec"]["source"]["path"], "config/prod");
    }

    #[test]
    fn list_and_matrix() {
        let apps = run(json!({"spec": {
            "generators": [{"matrix": {"generators": [
                {"list": {"elements": [{"env": "dev"}, {"env": "prod"}]}},
                {"list": {"elementsYaml": "- app: shop\n- app: blog\n"}}]}}],
            "template": {"metadata": {"name": "{{app}}-{{env}}"}, "spec": {"destination": {"namespace": "{{unknown}}"}}}}}))
        .expect("expanded");
        assert_eq!(names(&apps), ["shop-dev", "blog-dev", "shop-prod", "blog-prod"]);
        // An unknown fasttemplate name is left as written, as Argo CD leaves it.
        assert_eq!(apps[0]["spec"]["destination"]["namespace"], "{{unknown}}");
    }

    #[test]
    fn go_templates_with_sprig_functions() {
        let apps = run(json!({"spec": {"goTemplate": true, "goTemplateOptions": ["missingkey=error"],
            "generators": [{"list": {"elements": [{"name": "argocd", "serverSideApply": true}, {"name": "loki", "namespace": "monitoring"}]}}],
            "template": {"metadata": {"name": "{{ .name }}"}, "spec": {
                "source": {"repoURL": "https://git.example/platform", "path": "k8s-apps/{{ .name }}"},
                "destination": {"name": "in-cluster", "namespace": "{{ default .name (dig \"namespace\" \"\" .) }}"},
                "syncPolicy": {"syncOptions": ["{{ printf \"%s=%s\" \"ServerSideApply\" (dig \"serverSideApply\" \"false\" . | toString) }}"]}}}}}))
        .expect("expanded");
        assert_eq!(names(&apps), ["argocd", "loki"]);
        assert_eq!(apps[0]["spec"]["destination"]["namespace"], "argocd");
        assert_eq!(apps[1]["spec"]["destination"]["namespace"], "monitoring");
        assert_eq!(apps[0]["spec"]["syncPolicy"]["syncOptions"][0], "ServerSideApply=true");
        assert_eq!(apps[1]["spec"]["syncPolicy"]["syncOptions"][0], "ServerSideApply=false");
        assert_eq!(apps[1]["spec"]["source"]["path"], "k8s-apps/loki");
    }

    #[test]
    fn what_needs_the_cluster_or_an_unknown_function_is_refused() {
        let t = json!({"metadata": {"name": "x"}, "spec": {}});
        let refused = |spec: Value| run(json!({"spec": spec})).expect_err("refused");
        assert!(refused(json!({"generators": [{"clusters": {}}], "template": t})).contains("`clusters` generator"));
        assert!(refused(json!({"generators": [{"git": {"repoURL": "https://other.example/x", "directories": [{"path": "*"}]}}], "template": t}))
            .contains("not a linted checkout"));
        let go = json!({"metadata": {"name": "{{.env | sha1sum}}"}, "spec": {}});
        assert!(refused(
            json!({"goTemplate": true, "generators": [{"list": {"elements": [{"env": "a"}]}}], "template": go})
        )
        .contains("Go template function"));
        assert!(refused(json!({"generators": [], "template": t, "templatePatch": "x"})).contains("templatePatch"));
    }
}
