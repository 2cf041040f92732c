use edgecheck_core::placeholder::unresolved;
use edgecheck_core::{Findings, Layer, Severity, ValueRef};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An object of a kind edgecheck understands with a field of the wrong type (a port written as a
    /// list, `hosts` as a string, `spec` as a number).
    ///
    /// ## Why it matters
    /// The API server rejects the object, or the controller ignores it; edgecheck cannot follow its
    /// references either, so the checks that need it see nothing.
    ///
    /// ## Example
    /// ```yaml
    /// spec:
    ///   tls:
    ///     hosts: shop.example.com   # must be a list
    /// ```
    ///
    /// A placeholder where the value goes (`port: ${DRAGONFLY_PORT:=6379}`, substituted as text before the
    /// YAML is read, as Flux `postBuild` and envsubst do) is not judged: it is the right type once filled in.
    ///
    /// ## How to fix
    /// Write the field with the type the API reference gives (`kubectl explain ingress.spec.tls`).
    pub(crate) struct ObjectSchemaInvalid {
        code: "LOD006", name: "object-schema-invalid", layer: Layer::Input, severity: Severity::Warning,
    }
}

impl ObjectSchemaInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, err) in &cx.graph.view_errors {
            let o = cx.graph.obj(*id);
            let path = if err.path == "." { "" } else { err.path.as_str() };
            if field(o.value.root(), path).and_then(ValueRef::as_str).is_some_and(|s| unresolved(s.trim())) {
                continue;
            }
            out.at(o, path)
                .message(format!(
                    "{} does not match the schema of its kind: `{}`: {}",
                    o.to_ref(),
                    err.path,
                    err.message
                ))
                .evidence(format!("{}: {}", err.path, err.message))
                .fix(format!(
                    "write the field with the type `kubectl explain {}` gives",
                    o.kind.kind.to_ascii_lowercase()
                ))
                .emit();
        }
    }
}

/// The value at a view error's path (`spec.ports[0].port`); `None` when a key holds a dot or the path is not
/// there.
fn field<'v>(v: ValueRef<'v>, path: &str) -> Option<ValueRef<'v>> {
    let mut cur = v;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            cur = cur.get(key)?;
        }
        while let Some((index, after)) = rest.split_once(']') {
            cur = cur.get(index.parse::<usize>().ok()?)?;
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::field;
    use edgecheck_core::json;

    #[test]
    fn the_value_at_a_view_errors_path() {
        let d = edgecheck_core::Doc::from(json!({"spec": {"ports": [{"port": "x"}, {"port": [[1, 2]]}]}}));
        let v = d.root();
        assert_eq!(field(v, "spec.ports[0].port").and_then(|v| v.as_str()), Some("x"));
        assert_eq!(field(v, "spec.ports[1].port[0][1]").and_then(|v| v.as_i64()), Some(2));
        assert!(field(v, "spec.ports[2].port").is_none());
        assert!(field(v, "spec.hosts").is_none());
    }
}
