//! Placeholders: values that a later step substitutes (docs/design.md, "Placeholders"). A name,
//! namespace, class or host holding one is unresolved: references are never resolved through it, objects
//! are never merged by it, and it is never reported missing or malformed. The one predicate.

use crate::value::Value;

/// Whether `s` holds a placeholder: Flux `postBuild` and envsubst variables (`${DOMAIN}`, `$DOMAIN`),
/// template directives (`{{ .Values.host }}`), token-replace markers (`__HOST__`, `#{host}#`,
/// `{GATEWAY_CLASS_NAME}`), documentation stand-ins (`<your-domain>`, `...base64 encoded data...`).
pub fn unresolved(s: &str) -> bool {
    let b = s.as_bytes();
    if s.contains("${") || s.contains("{{") || s.contains("#{") {
        return true;
    }
    // Secret references a tool resolves before applying: vals (`ref+op://vault/item/field`,
    // `ref+vault://…`, `ref+awssecrets://…`) and 1Password's `op inject` (`op://vault/item/field`).
    if s.starts_with("op://")
        || s.strip_prefix("ref+").is_some_and(|r| {
            r.split_once("://")
                .is_some_and(|(scheme, _)| !scheme.is_empty() && scheme.bytes().all(|c| c.is_ascii_alphanumeric()))
        })
    {
        return true;
    }
    // `{NAME}`: an identifier in single braces.
    if s.split('{').skip(1).any(|part| {
        part.split_once('}').is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
        })
    }) {
        return true;
    }
    if b.windows(2).any(|w| w[0] == b'$' && (w[1].is_ascii_alphabetic() || w[1] == b'_')) {
        return true;
    }
    if let Some(i) = s.find('<') {
        if s[i..].contains('>') {
            return true;
        }
    }
    // Prose where data should be: `...base64 encoded data...`, `<...>` handled above.
    if s.starts_with("...") && s.ends_with("...") && s.len() > 6 {
        return true;
    }
    // `__NAME__`: upper-case letters, digits and underscores between double underscores.
    s.split("__").enumerate().any(|(i, part)| {
        i % 2 == 1
            && !part.is_empty()
            && part.bytes().any(|c| c.is_ascii_uppercase())
            && part.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
            && s.matches("__").count() >= 2
    })
}

/// Whether a name reads as a documentation stand-in left in place: a word of it is `your` (`your-tls-secret`,
/// `yourdomain-tls`), or it says to replace it (`changeme`, `change-me`, `replace-me`, `placeholder`,
/// `fixme`, `xxx`). Unlike [`unresolved`], such a name is a valid name and is resolved as one: a
/// check may only add that nothing creates it *and* it looks copied from documentation.
pub fn stand_in_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let joined = words.concat();
    words.iter().any(|w| {
        matches!(*w, "your" | "yours" | "placeholder" | "fixme" | "changeme" | "replaceme")
            || w.starts_with("your") && w.len() > 4 && matches!(&w[4..], "domain" | "secret" | "cert" | "host" | "tls")
            || (w.len() >= 3 && w.bytes().all(|c| c == b'x'))
    }) || joined.contains("changeme")
        || joined.contains("replaceme")
}

/// The placeholder an unquoted `{NAME}` parsed to: YAML reads `key: {GATEWAY_CLASS_NAME}` as a flow
/// mapping with one key and a null value. `Some("{NAME}")` for such a mapping whose key is a
/// placeholder-shaped identifier (upper case, digits, `_`), else `None`.
pub fn flow_map_placeholder(v: &Value) -> Option<String> {
    let m = v.as_object()?;
    let (k, val) = m.iter().next()?;
    let ident = !k.is_empty()
        && k.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && k.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_');
    (m.len() == 1 && val.is_null() && ident).then(|| format!("{{{k}}}"))
}

/// Turns every [`flow_map_placeholder`] in `v` back into the string it was written as, so that a view
/// expecting a string reads the placeholder (and knows it for one) instead of failing on a mapping.
pub fn restore_flow_maps(v: &mut Value) {
    if let Some(s) = flow_map_placeholder(v) {
        *v = Value::from(s);
        return;
    }
    match v {
        Value::Object(m) => m.values_mut().for_each(restore_flow_maps),
        Value::Array(a) => a.iter_mut().for_each(restore_flow_maps),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_in_names_from_documentation() {
        for n in [
            "your-tls-secret",
            "yourdomain-tls",
            "YOUR_SECRET",
            "changeme",
            "change-me-tls",
            "replace-me",
            "tls-xxx",
            "placeholder-cert",
            "fixme-secret",
        ] {
            assert!(stand_in_name(n), "{n}");
        }
        // Real names that merely contain the letters.
        for n in [
            "web-tls",
            "yourls-tls",
            "tls-secret",
            "my-app-tls",
            "example-com-tls",
            "xx-tls",
            "nextcloud-tls",
            "mailbox-tls",
            "todo-tls",
            "todomvc-tls",
        ] {
            assert!(!stand_in_name(n), "{n}");
        }
    }

    #[test]
    fn placeholders_in_every_spelling() {
        for s in [
            "app.${SECRET_DOMAIN}",
            "${NAMESPACE}",
            "www.$DOMAIN_NAME",
            "{{ .Values.host }}",
            "__INGRESS_HOST__",
            "registry.<your domain>",
            "#{host}#.example.com",
            "{GATEWAY_CLASS_NAME}",
            "shop.{domain}",
            "...base64 encoded data...",
            "ref+op://Home-Lab/1password/OP_CONNECT_TOKEN",
            "ref+vault://secret/data/app#/password",
            "op://vault/item/field",
        ] {
            assert!(unresolved(s), "{s}");
        }
        for s in [
            "eg",
            "shop.example.com",
            "my__app",
            "a_b",
            "cost$",
            "web-{",
            "...",
            "ref+",
            "https://op.example.com",
            "ref+://x",
        ] {
            assert!(!unresolved(s), "{s}");
        }
    }

    #[test]
    fn flow_maps_of_one_upper_case_key_are_placeholders() {
        let mut v = crate::json!({"spec": {"gatewayClassName": {"GATEWAY_CLASS_NAME": null},
            "labels": {"app": null}, "two": {"A": null, "B": null}, "valued": {"X": 1}}});
        restore_flow_maps(&mut v);
        assert_eq!(v["spec"]["gatewayClassName"], "{GATEWAY_CLASS_NAME}");
        // Near misses: a lower-case key, two keys, a value.
        assert_eq!(v["spec"]["labels"], crate::json!({"app": null}));
        assert!(v["spec"]["two"].is_object());
        assert!(v["spec"]["valued"].is_object());
    }
}
