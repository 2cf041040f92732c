//! Text that reaches a finding or an object summary, made safe to print: credentials in URLs masked, schema
//! errors without the offending value, control characters escaped for terminals and pages.
//!
//! Status messages (Application conditions, `operationState`, termination messages, health messages) are
//! written by controllers that quote what they were given, credentials included: Argo CD's
//! `rpc error: ... https://bot:TOKEN@git.example/...`. Everything that becomes part of a finding passes
//! [`credentials`] in the findings builder, and object summaries pass it where they are made, so no renderer has
//! to remember.

use std::borrow::Cow;

/// `text` with the user-info of every URL in it masked: `https://user:***@host/x`. A user name without a
/// password is kept when it looks like a name (`git@`, `ssh://deploy@`), masked when it looks like a token
/// (`https://ghp_xxx@github.com/`, as GitHub documents for token-only clones).
pub fn credentials(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find("://") {
        let authority_start = i + 3;
        out.push_str(&rest[..authority_start]);
        let after = &rest[authority_start..];
        // The authority ends at the path, query or fragment, or where the URL ends in running text.
        let end = after
            .find(|c: char| {
                matches!(c, '/' | '?' | '#') || c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>')
            })
            .unwrap_or(after.len());
        let authority = &after[..end];
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                let masked = mask_userinfo(userinfo);
                changed |= masked != userinfo;
                out.push_str(&masked);
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

fn mask_userinfo(userinfo: &str) -> String {
    match userinfo.split_once(':') {
        Some((user, _password)) => format!("{}:***", mask_user(user)),
        None => mask_user(userinfo).into_owned(),
    }
}

/// A user name is kept when it reads as one; a long or token-shaped one is a credential.
fn mask_user(user: &str) -> Cow<'_, str> {
    let token_prefix = ["ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "gldt-", "xoxb-", "AKIA"];
    let name_like = user.len() <= 24
        && user.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !token_prefix.iter().any(|p| user.starts_with(p));
    if name_like || user.is_empty() {
        Cow::Borrowed(user)
    } else {
        Cow::Borrowed("***")
    }
}

/// A serde error message without the value that did not fit: `invalid type: integer `8675309`, expected a
/// string` becomes `invalid type: an integer, expected a string`. The field name and the expected type are
/// what a user needs; the value may be a password (an env `value:`, ConfigMap or Secret data).
pub fn schema_message(message: &str) -> String {
    // serde's `Unexpected` spellings: boolean `true`, integer `5`, floating point `1.5`, character `c`,
    // string "…", byte array, unit value, Option value, newtype struct, sequence, map, enum, unit variant, …
    let Some((head, expected)) = message.split_once(", expected ") else {
        return strip_quoted(message);
    };
    let described = if let Some(rest) = head.strip_prefix("invalid type: ") {
        format!("invalid type: {}", unexpected_kind(rest))
    } else if let Some(rest) = head.strip_prefix("invalid value: ") {
        format!("invalid value: {}", unexpected_kind(rest))
    } else if head.starts_with("unknown variant ") {
        "unknown variant".to_string()
    } else if let Some(rest) = head.strip_prefix("invalid length ") {
        format!("invalid length {}", rest.split_whitespace().next().unwrap_or(""))
    } else {
        strip_quoted(head)
    };
    format!("{described}, expected {expected}")
}

fn unexpected_kind(unexpected: &str) -> String {
    for (prefix, name) in [
        ("boolean", "a boolean"),
        ("integer", "an integer"),
        ("floating point", "a number"),
        ("character", "a character"),
        ("string", "a string"),
        ("byte array", "a byte array"),
    ] {
        if unexpected.starts_with(prefix) {
            return name.to_string();
        }
    }
    strip_quoted(unexpected)
}

/// Drops anything between backticks or double quotes (serde quotes values that way).
fn strip_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => {
                out.push('…');
                out.push(q);
                quote = None;
            }
            Some(_) => {}
            None if c == '`' || c == '"' => {
                out.push(c);
                quote = Some(c);
            }
            None => out.push(c),
        }
    }
    if quote.is_some() {
        out.push('…');
    }
    out
}

/// `text` with every control character but newline and tab written as an escape (`\u{1b}`), so that a name
/// or a status message cannot move the cursor, retitle the terminal or clear the screen.
pub fn controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hostile_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_hostile_control(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_hostile_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_override(c)
}

/// Unicode's bidirectional overrides and isolates reorder what a terminal shows (CVE-2021-42574).
fn is_bidi_override(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_in_running_text_lose_their_passwords() {
        assert_eq!(
            credentials("rpc error: failed to fetch https://bot:hunter2@git.example/a.git: 403"),
            "rpc error: failed to fetch https://bot:***@git.example/a.git: 403"
        );
        assert_eq!(credentials("ssh://git:tok@git.example:2222/a"), "ssh://git:***@git.example:2222/a");
        assert_eq!(credentials("two: http://a:b@x and https://c:d@y/"), "two: http://a:***@x and https://c:***@y/");
        assert_eq!(credentials("'https://u:p@h'"), "'https://u:***@h'");
        // A token used as the user name (GitHub's token-only clone URLs) is a credential too.
        assert_eq!(credentials("https://ghp_abcdef0123456789abcdef@github.com/a"), "https://***@github.com/a");
        assert_eq!(
            credentials("https://0123456789abcdef0123456789abcdef@h/"),
            "https://***@h/",
            "a long random user is a token"
        );
        // Names stay.
        assert_eq!(credentials("ssh://git@host/x"), "ssh://git@host/x");
        assert_eq!(credentials("git@github.com:acme/x.git"), "git@github.com:acme/x.git");
        assert_eq!(credentials("https://github.com/a@b"), "https://github.com/a@b");
        assert!(matches!(credentials("no url here"), Cow::Borrowed(_)));
    }

    #[test]
    fn schema_messages_name_the_type_not_the_value() {
        assert_eq!(
            schema_message("invalid type: integer `8675309123456`, expected a string"),
            "invalid type: an integer, expected a string"
        );
        assert_eq!(
            schema_message("invalid type: string \"hunter2\", expected a sequence"),
            "invalid type: a string, expected a sequence"
        );
        assert_eq!(
            schema_message("invalid type: floating point `3.14`, expected a string"),
            "invalid type: a number, expected a string"
        );
        assert_eq!(schema_message("invalid type: map, expected a string"), "invalid type: map, expected a string");
        assert_eq!(
            schema_message("unknown variant `hunter2`, expected one of `TCP`, `UDP`"),
            "unknown variant, expected one of `TCP`, `UDP`"
        );
        assert!(!schema_message("invalid value: string \"s3cr3t\", expected x").contains("s3cr3t"));
        assert!(!schema_message("some other error with `s3cr3t` in it").contains("s3cr3t"));
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(controls("a\u{1b}]0;pwned\u{7}\u{1b}[2Jb"), "a\\u{1b}]0;pwned\\u{7}\\u{1b}[2Jb");
        assert_eq!(controls("line\nnext\tcol"), "line\nnext\tcol");
        assert_eq!(controls("evil\u{202e}txt"), "evil\\u{202e}txt");
        assert!(matches!(controls("plain"), Cow::Borrowed(_)));
    }
}
