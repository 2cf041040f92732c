//! Flux's `postBuild` substitution (kustomize-controller's envsubst): `${VAR}`, `${VAR:=default}`,
//! `${VAR:-default}`, `${VAR=default}`, `${VAR-default}`; `$${VAR}` is a literal `${VAR}` and `$VAR` is left
//! alone (Flux substitutes the braced form only). A variable without a value and without a default
//! becomes empty, as Flux does, unless some source's values cannot be read (a Secret, a ConfigMap the
//! inputs do not hold): then it is left as written, a placeholder the checks do not resolve.

use std::collections::BTreeMap;

/// What substitution knows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    /// Name → value.
    pub values: BTreeMap<String, String>,
    /// Some source's values are unknown: a variable without a value stays unresolved.
    pub incomplete: bool,
}

/// The outcome for one text.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Substituted {
    /// The text with what could be substituted.
    pub text: String,
    /// Variables left unresolved (no value known, some source unreadable).
    pub unresolved: Vec<String>,
}

fn is_name_start(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphabetic()
}

fn is_name(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric()
}

/// Substitutes `text`.
pub fn substitute(text: &str, vars: &Vars) -> Substituted {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut unresolved = Vec::new();
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        // `$${...}`: a literal `${...}`.
        if b.get(i + 1) == Some(&b'$') && b.get(i + 2) == Some(&b'{') {
            out.push_str(&text[last..i]);
            i += 1;
            last = i;
            // Skip past the braces so they are not read again.
            match text[i..].find('}') {
                Some(close) => i += close + 1,
                None => i = b.len(),
            }
            continue;
        }
        if b.get(i + 1) != Some(&b'{') || !b.get(i + 2).is_some_and(|c| is_name_start(*c)) {
            i += 1;
            continue;
        }
        let name_start = i + 2;
        let mut j = name_start;
        while j < b.len() && is_name(b[j]) {
            j += 1;
        }
        let Some(close) = text[j..].find('}').map(|c| j + c) else {
            i += 1;
            continue;
        };
        let name = &text[name_start..j];
        let op = &text[j..close];
        let default = if op.is_empty() {
            None
        } else if let Some(d) = op.strip_prefix(":=").or_else(|| op.strip_prefix(":-")) {
            Some((d, true))
        } else if let Some(d) = op.strip_prefix('=').or_else(|| op.strip_prefix('-')) {
            Some((d, false))
        } else {
            // An operator Flux's envsubst has that is not read here (`^`, `,`, `/`, `:?`): left as written.
            i = close + 1;
            continue;
        };
        out.push_str(&text[last..i]);
        let value = vars.values.get(name);
        match (value, default) {
            // `:=`/`:-` also replace an empty value; `=`/`-` only an unset one.
            (Some(v), Some((d, true))) if v.is_empty() => out.push_str(d),
            (Some(v), _) => out.push_str(v),
            (None, Some((d, _))) => out.push_str(d),
            (None, None) if vars.incomplete => {
                out.push_str(&text[i..=close]);
                unresolved.push(name.to_string());
            }
            (None, None) => {}
        }
        i = close + 1;
        last = i;
    }
    out.push_str(&text[last..]);
    unresolved.sort();
    unresolved.dedup();
    Substituted { text: out, unresolved }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)], incomplete: bool) -> Vars {
        Vars { values: pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), incomplete }
    }

    #[test]
    fn substitutes_as_flux_does() {
        let v = vars(&[("DOMAIN", "example.com"), ("EMPTY", "")], false);
        let s = |t: &str| substitute(t, &v).text;
        assert_eq!(s("host: portal.${DOMAIN}"), "host: portal.example.com");
        assert_eq!(s("${MISSING:=fallback}.${DOMAIN}"), "fallback.example.com");
        assert_eq!(s("${EMPTY:=d}|${EMPTY=d}|${EMPTY:-d}|${EMPTY-d}"), "d||d|");
        // Unset without default: empty, as Flux's non-strict mode.
        assert_eq!(s("a${MISSING}b"), "ab");
        // Escapes and the unbraced form stay.
        assert_eq!(s("echo $${DOMAIN} $DOMAIN $"), "echo ${DOMAIN} $DOMAIN $");
        assert_eq!(s("${DOMAIN^^}"), "${DOMAIN^^}");
        assert_eq!(s("${ not a var}"), "${ not a var}");
        assert_eq!(s("trailing ${DOMAIN"), "trailing ${DOMAIN");
        assert_eq!(s("ünïcode ${DOMAIN} ✓"), "ünïcode example.com ✓");
    }

    #[test]
    fn unknown_sources_leave_variables_unresolved() {
        let v = vars(&[("DOMAIN", "example.com")], true);
        let r = substitute("${SECRET_HOST}.${DOMAIN} ${SECRET_HOST}", &v);
        assert_eq!(r.text, "${SECRET_HOST}.example.com ${SECRET_HOST}");
        assert_eq!(r.unresolved, vec!["SECRET_HOST".to_string()]);
        assert_eq!(substitute("${X:=d}", &v).text, "d");
    }
}
