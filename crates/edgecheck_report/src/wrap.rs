//! Wrapping text to the terminal's width: at spaces, with a hanging indent; a word longer than a line
//! (a URL) is never broken.

/// The number of columns `s` takes (characters; ANSI colour sequences take none).
pub(crate) fn columns(s: &str) -> usize {
    let mut n = 0;
    let mut in_escape = false;
    for c in s.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => n += 1,
        }
    }
    n
}

/// `first` (already painted) followed by `text`, wrapped at `width`; continuation lines start with
/// `indent` spaces. Every line ends with a newline.
pub(crate) fn wrapped(first: &str, text: &str, indent: usize, width: usize) -> String {
    wrapped_under(first, &" ".repeat(indent), text, width)
}

/// As [`wrapped`], continuation lines starting with `cont` (a tree's bars). Runs of spaces inside a line
/// are kept; the spaces where a line breaks are dropped.
pub(crate) fn wrapped_under(first: &str, cont: &str, text: &str, width: usize) -> String {
    let indent = columns(cont);
    let mut out = String::new();
    let mut line = first.to_string();
    let mut used = columns(first);
    let mut fresh = true; // nothing of `text` on this line yet
    for (pi, para) in text.split('\n').enumerate() {
        if pi > 0 {
            out.push_str(line.trim_end());
            out.push('\n');
            line = cont.to_string();
            used = indent;
            fresh = true;
        }
        let mut rest = para;
        while !rest.is_empty() {
            let gap = rest.len() - rest.trim_start_matches(' ').len();
            rest = &rest[gap..];
            let end = rest.find(' ').unwrap_or(rest.len());
            let (word, tail) = rest.split_at(end);
            rest = tail;
            if word.is_empty() {
                break;
            }
            let w = columns(word);
            let sep = if fresh { 0 } else { gap };
            if !fresh && used + sep + w > width {
                out.push_str(line.trim_end());
                out.push('\n');
                line = cont.to_string();
                used = indent;
            } else {
                line.push_str(&" ".repeat(sep));
                used += sep;
            }
            line.push_str(word);
            used += w;
            fresh = false;
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// `s` cut to `width` columns, with `…` when cut.
pub(crate) fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
    t.push('…');
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_with_a_hanging_indent() {
        let out = wrapped("  fix: ", "add a listener on port 443 with protocol HTTPS to the Gateway", 4, 30);
        assert_eq!(out, "  fix: add a listener on port\n    443 with protocol HTTPS to\n    the Gateway\n");
        assert!(out.lines().all(|l| l.chars().count() <= 30));
        let long = wrapped("  ", "see https://example.com/a/very/long/path/that/does/not/fit now", 4, 20);
        assert_eq!(long, "  see\n    https://example.com/a/very/long/path/that/does/not/fit\n    now\n");
        assert_eq!(columns("\x1b[31merror\x1b[0m"), 5);
        assert_eq!(wrapped("", "a  b ◀ c", 0, 80), "a  b ◀ c\n", "runs of spaces inside a line stay");
        assert_eq!(truncate("abcdef", 4), "abc…");
    }
}
