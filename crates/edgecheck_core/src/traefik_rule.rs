//! Traefik router rules: a parser for the rule language of `IngressRoute` / `IngressRouteTCP` `match`
//! fields (and file / label routers), and a three-valued evaluator that says whether a router claims a
//! request when only its host, path or SNI is known.
//!
//! The language, as Traefik documents it for v2 and v3:
//! - matchers are calls, `Host(`a.com`)`, with arguments in backquotes (raw) or double quotes (Go string
//!   literals, with escapes); single quotes are refused;
//! - `&&` binds tighter than `||`, parentheses group, `!` negates;
//! - v2 matchers take several arguments (`Host(`a`, `b`)`: either one); v3 takes one and combines with `||`;
//! - `HostRegexp`, `PathRegexp`, `HostSNIRegexp` take a Go regexp in v3, and a `{name:pattern}` template in
//!   v2 (`HostRegexp(`{sub:[a-z]+}.a.com`)`); both are understood, see [`Matcher::HostRegexp`];
//! - matcher names are accepted as Traefik does: as documented, all lowercase, all uppercase, or
//!   capitalised (`Host`, `host`, `HOST`, `Pathprefix`);
//! - the default priority of a router is the length of its rule text ([`default_priority`]).
//!
//! Evaluation is three-valued: a rule that also needs a header, a method or the client IP is
//! [`Verdict::Unknown`] unless the known parts already decide it (`Unknown && No` is `No`).

use std::fmt;

/// One matcher call. Arguments are kept as written (after unquoting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matcher {
    /// `Host`: the request host equals one of these (case-insensitive, port and trailing dot ignored).
    /// `*.a.com` matches one label in front of `a.com` (v3.x wildcard), `**.a.com` one or more.
    Host(Vec<String>),
    /// `HostSNI` (TCP routers): the TLS SNI equals one of these; `*` matches any connection, with or
    /// without TLS.
    HostSni(Vec<String>),
    /// `HostRegexp`: a Go regexp (v3, unanchored, matched against the lowercased host) or, when the
    /// matcher has several arguments or an argument holds a `{name}` / `{name:pattern}` template, v2
    /// templates (anchored, case-insensitive, `{name}` standing for one label).
    HostRegexp(Vec<String>),
    /// `HostSNIRegexp`: as [`Matcher::HostRegexp`], against the SNI.
    HostSniRegexp(Vec<String>),
    /// `Path`: the path equals one of these (a v2 template `{id:[0-9]+}` is a pattern).
    Path(Vec<String>),
    /// `PathPrefix`: the path starts with one of these, on any character boundary (`/api` matches
    /// `/api`, `/api/x` and `/apix`), as Traefik documents.
    PathPrefix(Vec<String>),
    /// `PathRegexp`: a Go regexp, unanchored, against the path.
    PathRegexp(Vec<String>),
    /// Any other matcher (`Method`, `Header`, `HeaderRegexp`, `Query`, `QueryRegexp`, `ClientIP`, `ALPN`,
    /// names Traefik does not know): it depends on what a trace does not know, so it is `Unknown`.
    Other {
        /// The matcher name, canonical when Traefik knows it (`method` → `Method`), else as written.
        name: String,
        /// The arguments.
        args: Vec<String>,
    },
}

/// A parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// One matcher.
    Match(Matcher),
    /// `a && b`.
    And(Box<Expr>, Box<Expr>),
    /// `a || b`.
    Or(Box<Expr>, Box<Expr>),
    /// `!a`.
    Not(Box<Expr>),
}

/// Why a rule does not parse, and where (a byte offset into the rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// Byte offset of the fault (the rule's length when the rule ends too early).
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at column {}: {}", self.offset + 1, self.message)
    }
}

impl std::error::Error for RuleError {}

/// What a trace knows of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request<'a> {
    /// The HTTP host (may carry a `:port`), or for TCP the SNI (`""` without TLS).
    pub host: &'a str,
    /// The URL path (a `?query` is ignored); `None` for TCP, or when unknown.
    pub path: Option<&'a str>,
}

/// Three-valued answer: does the rule claim the request?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It does.
    Yes,
    /// It does not.
    No,
    /// It depends on what is not known (headers, method, client IP, a regexp we cannot compile).
    Unknown,
}

impl Verdict {
    fn from_bool(b: bool) -> Verdict {
        if b {
            Verdict::Yes
        } else {
            Verdict::No
        }
    }

    /// Kleene conjunction: `No` wins, then `Unknown`.
    pub fn and(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::No, _) | (_, Verdict::No) => Verdict::No,
            (Verdict::Yes, Verdict::Yes) => Verdict::Yes,
            _ => Verdict::Unknown,
        }
    }

    /// Kleene disjunction: `Yes` wins, then `Unknown`.
    pub fn or(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::Yes, _) | (_, Verdict::Yes) => Verdict::Yes,
            (Verdict::No, Verdict::No) => Verdict::No,
            _ => Verdict::Unknown,
        }
    }
}

/// Negation; `Unknown` stays `Unknown`.
impl std::ops::Not for Verdict {
    type Output = Verdict;

    fn not(self) -> Verdict {
        match self {
            Verdict::Yes => Verdict::No,
            Verdict::No => Verdict::Yes,
            Verdict::Unknown => Verdict::Unknown,
        }
    }
}

/// Traefik's default priority for a router whose `priority` is unset or 0: the length of the rule text,
/// in bytes, as written.
pub fn default_priority(rule: &str) -> usize {
    rule.len()
}

/// Deepest nesting of parentheses and `!` accepted, so that a hostile rule cannot exhaust the stack.
const MAX_DEPTH: usize = 128;

/// Most matchers accepted in one rule: evaluation, display and drop recurse along `&&` / `||` chains.
/// Real rules hold a handful.
const MAX_MATCHERS: usize = 1000;

/// Parses a rule. Never panics; any malformed input is an `Err` with the byte offset of the fault.
pub fn parse(rule: &str) -> Result<Expr, RuleError> {
    let tokens = lex(rule)?;
    if tokens.is_empty() {
        return Err(RuleError { offset: 0, message: "empty rule".into() });
    }
    let mut p = Parser { tokens, pos: 0, end: rule.len(), depth: 0, matchers: 0 };
    let e = p.or()?;
    if let Some(t) = p.peek() {
        return Err(RuleError { offset: t.offset, message: format!("unexpected {} after a complete rule", t.kind) });
    }
    Ok(e)
}

// ---------------------------------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str(String),
    LParen,
    RParen,
    Comma,
    And,
    Or,
    Not,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "name `{s}`"),
            Tok::Str(_) => f.write_str("a quoted value"),
            Tok::LParen => f.write_str("'('"),
            Tok::RParen => f.write_str("')'"),
            Tok::Comma => f.write_str("','"),
            Tok::And => f.write_str("'&&'"),
            Tok::Or => f.write_str("'||'"),
            Tok::Not => f.write_str("'!'"),
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    kind: Tok,
    offset: usize,
}

fn err(offset: usize, message: impl Into<String>) -> RuleError {
    RuleError { offset, message: message.into() }
}

fn lex(rule: &str) -> Result<Vec<Token>, RuleError> {
    let b = rule.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'(' => {
                i += 1;
                Tok::LParen
            }
            b')' => {
                i += 1;
                Tok::RParen
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b'!' => {
                i += 1;
                Tok::Not
            }
            b'&' | b'|' => {
                if b.get(i + 1) == Some(&c) {
                    i += 2;
                    if c == b'&' {
                        Tok::And
                    } else {
                        Tok::Or
                    }
                } else {
                    let op = if c == b'&' { "&&" } else { "||" };
                    return Err(err(i, format!("expected '{op}', found a single '{}'", c as char)));
                }
            }
            b'`' => {
                let Some(len) = b[i + 1..].iter().position(|&x| x == b'`') else {
                    return Err(err(i, "unterminated backquoted value"));
                };
                // Backquote and the content boundaries are ASCII: slicing is on char boundaries.
                let s = rule[i + 1..i + 1 + len].replace('\r', "");
                i += len + 2;
                Tok::Str(s)
            }
            b'"' => {
                let (s, next) = lex_go_string(rule, i)?;
                i = next;
                Tok::Str(s)
            }
            b'\'' => {
                return Err(err(i, "single quotes are not accepted: quote values with backquotes or double quotes"))
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                Tok::Ident(rule[start..i].to_string())
            }
            _ => {
                let ch = rule[i..].chars().next().unwrap_or('?');
                return Err(err(i, format!("unexpected character {ch:?}")));
            }
        };
        out.push(Token { kind, offset: start });
    }
    Ok(out)
}

/// A Go interpreted string literal starting at `start` (a `"`): its value and the offset after it.
fn lex_go_string(rule: &str, start: usize) -> Result<(String, usize), RuleError> {
    let b = rule.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = start + 1;
    loop {
        let Some(&c) = b.get(i) else { return Err(err(start, "unterminated double-quoted value")) };
        match c {
            b'"' => break,
            b'\n' => return Err(err(i, "newline in a double-quoted value")),
            b'\\' => {
                let Some(&e) = b.get(i + 1) else { return Err(err(start, "unterminated double-quoted value")) };
                let simple = match e {
                    b'a' => Some(0x07),
                    b'b' => Some(0x08),
                    b'f' => Some(0x0c),
                    b'n' => Some(b'\n'),
                    b'r' => Some(b'\r'),
                    b't' => Some(b'\t'),
                    b'v' => Some(0x0b),
                    b'\\' => Some(b'\\'),
                    b'"' => Some(b'"'),
                    _ => None,
                };
                if let Some(v) = simple {
                    out.push(v);
                    i += 2;
                    continue;
                }
                let (digits, radix) = match e {
                    b'x' => (2, 16),
                    b'u' => (4, 16),
                    b'U' => (8, 16),
                    b'0'..=b'7' => (3, 8),
                    _ => {
                        let ch = rule[i + 1..].chars().next().unwrap_or('?');
                        return Err(err(i, format!("unknown escape sequence \\{ch} in a double-quoted value")));
                    }
                };
                let from = if radix == 8 { i + 1 } else { i + 2 };
                let Some(text) = rule.get(from..from + digits) else {
                    return Err(err(i, "escape sequence is cut short"));
                };
                let Ok(v) = u32::from_str_radix(text, radix) else {
                    return Err(err(i, format!("invalid escape sequence in a double-quoted value: {text:?}")));
                };
                match e {
                    b'u' | b'U' => {
                        let Some(ch) = char::from_u32(v) else {
                            return Err(err(i, "escape sequence is not a valid Unicode code point"));
                        };
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    _ => {
                        let Ok(byte) = u8::try_from(v) else {
                            return Err(err(i, "octal escape value is above 255"));
                        };
                        out.push(byte);
                    }
                }
                i = from + digits;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    match String::from_utf8(out) {
        Ok(s) => Ok((s, i + 1)),
        Err(_) => Err(err(start, "double-quoted value is not valid UTF-8 after its escapes")),
    }
}

// ---------------------------------------------------------------------------------------------------
// Parser: or := and ('||' and)* ; and := unary ('&&' unary)* ; unary := '!' unary | '(' or ')' | call

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end: usize,
    depth: usize,
    matchers: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn eat(&mut self, kind: &Tok) -> bool {
        if self.peek().map(|t| &t.kind) == Some(kind) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Expr, RuleError> {
        let mut left = self.and()?;
        while self.eat(&Tok::Or) {
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, RuleError> {
        let mut left = self.unary()?;
        while self.eat(&Tok::And) {
            let right = self.unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn deeper(&mut self, offset: usize) -> Result<(), RuleError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(err(offset, format!("rule is nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<Expr, RuleError> {
        let Some(t) = self.next() else {
            return Err(err(self.end, "rule ends where a matcher, '(' or '!' was expected"));
        };
        match t.kind {
            Tok::Not => {
                self.deeper(t.offset)?;
                let inner = self.unary()?;
                self.depth -= 1;
                Ok(Expr::Not(Box::new(inner)))
            }
            Tok::LParen => {
                self.deeper(t.offset)?;
                let inner = self.or()?;
                self.depth -= 1;
                match self.next() {
                    Some(Token { kind: Tok::RParen, .. }) => Ok(inner),
                    Some(u) => Err(err(u.offset, format!("expected ')' or an operator, found {}", u.kind))),
                    None => Err(err(t.offset, "unbalanced '(': no matching ')'")),
                }
            }
            Tok::Ident(name) => self.call(name, t.offset),
            Tok::RParen => Err(err(t.offset, "unexpected ')': a matcher was expected")),
            other => Err(err(t.offset, format!("expected a matcher, '(' or '!', found {other}"))),
        }
    }

    fn call(&mut self, name: String, at: usize) -> Result<Expr, RuleError> {
        self.matchers += 1;
        if self.matchers > MAX_MATCHERS {
            return Err(err(at, format!("rule has more than {MAX_MATCHERS} matchers")));
        }
        let open = match self.next() {
            Some(Token { kind: Tok::LParen, offset }) => offset,
            Some(u) => return Err(err(u.offset, format!("expected '(' after `{name}`, found {}", u.kind))),
            None => return Err(err(self.end, format!("rule ends after `{name}`: expected '('"))),
        };
        let mut args = Vec::new();
        loop {
            match self.next() {
                Some(Token { kind: Tok::RParen, .. }) => break,
                Some(Token { kind: Tok::Str(s), .. }) => args.push(s),
                Some(u) => return Err(err(u.offset, format!("expected a quoted value or ')', found {}", u.kind))),
                None => return Err(err(open, format!("unbalanced '(' of `{name}`: no matching ')'"))),
            }
            match self.next() {
                Some(Token { kind: Tok::RParen, .. }) => break,
                Some(Token { kind: Tok::Comma, .. }) => {}
                Some(u) => return Err(err(u.offset, format!("expected ',' or ')', found {}", u.kind))),
                None => return Err(err(open, format!("unbalanced '(' of `{name}`: no matching ')'"))),
            }
        }
        let m = matcher(name, args).map_err(|m| err(at, m))?;
        Ok(Expr::Match(m))
    }
}

/// The names Traefik knows (v2 and v3, HTTP and TCP).
const KNOWN: &[&str] = &[
    "Host",
    "HostHeader",
    "HostSNI",
    "HostRegexp",
    "HostSNIRegexp",
    "Path",
    "PathPrefix",
    "PathRegexp",
    "Method",
    "Header",
    "HeaderRegexp",
    "Headers",
    "HeadersRegexp",
    "Query",
    "QueryRegexp",
    "ClientIP",
    "ALPN",
];

/// The canonical name for `name` when it is one of Traefik's spellings of a known matcher.
fn canonical(name: &str) -> Option<&'static str> {
    KNOWN.iter().copied().find(|k| {
        let lower = k.to_ascii_lowercase();
        let title: String =
            lower.chars().enumerate().map(|(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c }).collect();
        name == *k || name == lower || name == k.to_ascii_uppercase() || name == title
    })
}

fn matcher(name: String, args: Vec<String>) -> Result<Matcher, String> {
    let Some(canon) = canonical(&name) else { return Ok(Matcher::Other { name, args }) };
    if args.is_empty() {
        return Err(format!("`{canon}` needs at least one value"));
    }
    Ok(match canon {
        "Host" | "HostHeader" => Matcher::Host(args),
        "HostSNI" => Matcher::HostSni(args),
        "HostRegexp" => Matcher::HostRegexp(args),
        "HostSNIRegexp" => Matcher::HostSniRegexp(args),
        "Path" => Matcher::Path(args),
        "PathPrefix" => Matcher::PathPrefix(args),
        "PathRegexp" => Matcher::PathRegexp(args),
        _ => Matcher::Other { name: canon.to_string(), args },
    })
}

// ---------------------------------------------------------------------------------------------------
// Evaluation

/// Lowercases, drops a `:port` (also `[v6]:port`) and one trailing dot.
fn normalize_host(host: &str) -> String {
    let h = host.trim();
    let h = if let Some(rest) = h.strip_prefix('[') {
        rest.split_once(']').map(|(inside, _)| inside).unwrap_or(rest)
    } else if h.matches(':').count() == 1 {
        h.split_once(':').map(|(name, _)| name).unwrap_or(h)
    } else {
        h
    };
    h.strip_suffix('.').unwrap_or(h).to_ascii_lowercase()
}

fn host_matches(pattern: &str, host: &str) -> bool {
    let p = pattern.trim();
    let p = p.strip_suffix('.').unwrap_or(p).to_ascii_lowercase();
    if let Some(parent) = p.strip_prefix("**.") {
        return host.len() > parent.len() + 1 && host.ends_with(&format!(".{parent}"));
    }
    if let Some(parent) = p.strip_prefix("*.") {
        return match host.split_once('.') {
            Some((first, rest)) => !first.is_empty() && rest == parent,
            None => false,
        };
    }
    p == host
}

/// True when `s` holds a gorilla/mux (v2) template group: `{name}` or `{name:pattern}`, as opposed to a
/// regexp quantifier such as `{3}` or `{2,5}`.
fn has_template(s: &str) -> bool {
    let mut rest = s;
    while let Some(i) = rest.find('{') {
        let inner = &rest[i + 1..];
        let name_len = inner.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-').count();
        let starts_alpha = inner.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_');
        if starts_alpha && matches!(inner.as_bytes().get(name_len), Some(b':') | Some(b'}')) {
            return true;
        }
        rest = inner;
    }
    false
}

/// Converts a v2 template to a regexp: literal text escaped, `{name:pattern}` to `(?:pattern)`, `{name}` to
/// `default`. `None` when braces do not balance or a group has no name (Traefik refuses the rule).
fn template_to_regex(t: &str, default: &str, prefix_only: bool, case_insensitive: bool) -> Option<String> {
    let mut out = String::from(if case_insensitive { "(?i)^" } else { "^" });
    let mut literal = String::new();
    let mut chars = t.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                out.push_str(&regex::escape(&literal));
                literal.clear();
                let mut depth = 1usize;
                let mut end = None;
                for (j, d) in chars.by_ref() {
                    match d {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let inner = &t[i + 1..end?];
                let (name, pat) = match inner.split_once(':') {
                    Some((n, p)) => (n, p),
                    None => (inner, default),
                };
                if name.is_empty() || pat.is_empty() {
                    return None;
                }
                out.push_str("(?:");
                out.push_str(pat);
                out.push(')');
            }
            '}' => return None,
            _ => literal.push(c),
        }
    }
    out.push_str(&regex::escape(&literal));
    if !prefix_only {
        out.push('$');
    }
    Some(out)
}

/// Evaluates regexps (v3) or templates (v2) against `subject`; a pattern that does not compile is Unknown.
fn regex_verdict(args: &[String], subject: &str, v2_default: &str, host: bool) -> Verdict {
    let v2 = args.len() > 1 || args.iter().any(|a| has_template(a));
    let mut verdict = Verdict::No;
    for a in args {
        let src = if v2 { template_to_regex(a, v2_default, false, host) } else { Some(a.clone()) };
        let v = match src.map(|s| regex::Regex::new(&s)) {
            Some(Ok(re)) => Verdict::from_bool(re.is_match(subject)),
            _ => Verdict::Unknown,
        };
        verdict = verdict.or(v);
    }
    verdict
}

/// Path or PathPrefix: literal comparison, or a v2 template when the value holds one.
fn path_verdict(args: &[String], path: &str, prefix: bool) -> Verdict {
    let mut verdict = Verdict::No;
    for a in args {
        let literal = if prefix { path.starts_with(a.as_str()) } else { path == a };
        let v = if literal {
            Verdict::Yes
        } else if has_template(a) {
            match template_to_regex(a, "[^/]+", prefix, false).map(|s| regex::Regex::new(&s)) {
                Some(Ok(re)) => Verdict::from_bool(re.is_match(path)),
                _ => Verdict::Unknown,
            }
        } else {
            Verdict::No
        };
        verdict = verdict.or(v);
    }
    verdict
}

impl Matcher {
    /// Whether this matcher alone claims `req`.
    pub fn matches(&self, req: &Request<'_>) -> Verdict {
        let host = normalize_host(req.host);
        let path = req.path.map(|p| p.split_once('?').map(|(p, _)| p).unwrap_or(p));
        match self {
            Matcher::Host(args) => Verdict::from_bool(args.iter().any(|a| host_matches(a, &host))),
            Matcher::HostSni(args) => {
                Verdict::from_bool(args.iter().any(|a| a.trim() == "*" || host_matches(a, &host)))
            }
            Matcher::HostRegexp(args) | Matcher::HostSniRegexp(args) => regex_verdict(args, &host, "[^.]+", true),
            Matcher::Path(args) => path.map_or(Verdict::Unknown, |p| path_verdict(args, p, false)),
            Matcher::PathPrefix(args) => path.map_or(Verdict::Unknown, |p| path_verdict(args, p, true)),
            Matcher::PathRegexp(args) => path.map_or(Verdict::Unknown, |p| regex_verdict(args, p, "[^/]+", false)),
            Matcher::Other { .. } => Verdict::Unknown,
        }
    }

    /// The matcher name as Traefik spells it.
    pub fn name(&self) -> &str {
        match self {
            Matcher::Host(_) => "Host",
            Matcher::HostSni(_) => "HostSNI",
            Matcher::HostRegexp(_) => "HostRegexp",
            Matcher::HostSniRegexp(_) => "HostSNIRegexp",
            Matcher::Path(_) => "Path",
            Matcher::PathPrefix(_) => "PathPrefix",
            Matcher::PathRegexp(_) => "PathRegexp",
            Matcher::Other { name, .. } => name,
        }
    }

    /// The arguments.
    pub fn args(&self) -> &[String] {
        match self {
            Matcher::Host(a)
            | Matcher::HostSni(a)
            | Matcher::HostRegexp(a)
            | Matcher::HostSniRegexp(a)
            | Matcher::Path(a)
            | Matcher::PathPrefix(a)
            | Matcher::PathRegexp(a) => a,
            Matcher::Other { args, .. } => args,
        }
    }
}

impl Expr {
    /// Whether the rule claims `req`, in three-valued logic.
    pub fn matches(&self, req: &Request<'_>) -> Verdict {
        match self {
            Expr::Match(m) => m.matches(req),
            Expr::And(a, b) => {
                let l = a.matches(req);
                if l == Verdict::No {
                    return Verdict::No;
                }
                l.and(b.matches(req))
            }
            Expr::Or(a, b) => {
                let l = a.matches(req);
                if l == Verdict::Yes {
                    return Verdict::Yes;
                }
                l.or(b.matches(req))
            }
            Expr::Not(a) => !a.matches(req),
        }
    }

    /// The host names of `Host` and `HostSNI` matchers, as written, without `*` and `**.` patterns; a
    /// `*.a.com` wildcard is kept (it is a certificate-style name). Deduplicated case-insensitively, in
    /// rule order. Negated matchers count too: this is what the rule names, not what it claims.
    pub fn hosts(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        self.walk(&mut |m| {
            if let Matcher::Host(args) | Matcher::HostSni(args) = m {
                for a in args {
                    let h = a.trim();
                    if h.is_empty() || h == "*" || h.starts_with("**") {
                        continue;
                    }
                    if !out.iter().any(|o| normalize_host(o) == normalize_host(h)) {
                        out.push(h.to_string());
                    }
                }
            }
        });
        out
    }

    /// Traefik's default priority for this rule written canonically (the length of its [`Display`] form).
    /// Traefik counts the text as written: use [`default_priority`] on the original text when you have it.
    pub fn specificity(&self) -> usize {
        self.to_string().len()
    }

    /// Calls `f` on every matcher, left to right.
    pub fn walk(&self, f: &mut impl FnMut(&Matcher)) {
        match self {
            Expr::Match(m) => f(m),
            Expr::And(a, b) | Expr::Or(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Not(a) => a.walk(f),
        }
    }

    fn fmt_prec(&self, f: &mut fmt::Formatter<'_>, parent: u8) -> fmt::Result {
        // Precedence: Or 1, And 2, Not/Match 3.
        let (own, open) = match self {
            Expr::Or(..) => (1, parent > 1),
            Expr::And(..) => (2, parent > 2),
            _ => (3, false),
        };
        if open {
            f.write_str("(")?;
        }
        match self {
            Expr::Match(m) => write!(f, "{m}")?,
            Expr::Or(a, b) => {
                a.fmt_prec(f, own)?;
                f.write_str(" || ")?;
                b.fmt_prec(f, own + 1)?;
            }
            Expr::And(a, b) => {
                a.fmt_prec(f, own)?;
                f.write_str(" && ")?;
                b.fmt_prec(f, own + 1)?;
            }
            Expr::Not(a) => {
                f.write_str("!")?;
                a.fmt_prec(f, 3)?;
            }
        }
        if open {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name())?;
        for (i, a) in self.args().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if a.contains('`') {
                write!(f, "{a:?}")?;
            } else {
                write!(f, "`{a}`")?;
            }
        }
        f.write_str(")")
    }
}

/// The rule written canonically: backquotes, `&&`/`||` with spaces, parentheses only where needed.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_prec(f, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::{No, Unknown, Yes};

    fn http<'a>(host: &'a str, path: &'a str) -> Request<'a> {
        Request { host, path: Some(path) }
    }

    fn tcp(sni: &str) -> Request<'_> {
        Request { host: sni, path: None }
    }

    /// (rule, request, expected verdict)
    #[allow(clippy::type_complexity)]
    fn cases() -> Vec<(&'static str, Request<'static>, Verdict)> {
        vec![
            // plain matchers
            ("Host(`a.com`)", http("a.com", "/"), Yes),
            ("Host(`a.com`)", http("b.com", "/"), No),
            // case, port, trailing dot
            ("Host(`A.Com`)", http("a.COM", "/"), Yes),
            ("Host(`a.com`)", http("a.com:8443", "/"), Yes),
            ("Host(`a.com.`)", http("a.com", "/"), Yes),
            ("Host(`a.com`)", http("A.com.:443", "/"), Yes),
            ("Host(`::1`)", http("[::1]:80", "/"), Yes),
            // v3 wildcard hosts
            ("Host(`*.a.com`)", http("x.a.com", "/"), Yes),
            ("Host(`*.a.com`)", http("x.y.a.com", "/"), No),
            ("Host(`*.a.com`)", http("a.com", "/"), No),
            // precedence: && binds tighter than ||
            ("Host(`a.com`) || Host(`b.com`) && Path(`/x`)", http("a.com", "/y"), Yes),
            ("Host(`a.com`) || Host(`b.com`) && Path(`/x`)", http("b.com", "/y"), No),
            ("(Host(`a.com`) || Host(`b.com`)) && Path(`/x`)", http("a.com", "/y"), No),
            ("(Host(`a.com`) || Host(`b.com`)) && Path(`/x`)", http("b.com", "/x"), Yes),
            // negation
            ("Host(`a.com`) && !PathPrefix(`/admin`)", http("a.com", "/admin/x"), No),
            ("Host(`a.com`) && !PathPrefix(`/admin`)", http("a.com", "/app"), Yes),
            ("!(Host(`a.com`) || Host(`b.com`))", http("c.com", "/"), Yes),
            ("!!Host(`a.com`)", http("a.com", "/"), Yes),
            // v2 multi-argument
            ("Host(`a.com`, `b.com`)", http("b.com", "/"), Yes),
            ("Host(`a.com`, `b.com`)", http("c.com", "/"), No),
            ("Path(`/a`, `/b`)", http("x", "/b"), Yes),
            ("PathPrefix(`/a`, `/b`)", http("x", "/bz"), Yes),
            // Path exact, PathPrefix on any boundary, query ignored
            ("Path(`/products`)", http("x", "/products/"), No),
            ("Path(`/products`)", http("x", "/products?id=1"), Yes),
            ("PathPrefix(`/api`)", http("x", "/api"), Yes),
            ("PathPrefix(`/api`)", http("x", "/api/x"), Yes),
            ("PathPrefix(`/api`)", http("x", "/apix"), Yes),
            ("PathPrefix(`/api`)", http("x", "/ap"), No),
            // v3 regexps (Go syntax, unanchored)
            ("HostRegexp(`^.+\\.example\\.com$`)", http("www.example.com", "/"), Yes),
            ("HostRegexp(`^.+\\.example\\.com$`)", http("example.com", "/"), No),
            ("HostRegexp(`^[a-z]{3}\\.a\\.com$`)", http("WWW.a.com:80", "/"), Yes),
            ("PathRegexp(`\\.(jpeg|jpg|png)$`)", http("x", "/img/a.png"), Yes),
            ("PathRegexp(`^/products/(shoes|socks)/[0-9]+$`)", http("x", "/products/hats/1"), No),
            // v2 templates
            ("HostRegexp(`{sub:[a-z]+}.a.com`)", http("www.a.com", "/"), Yes),
            ("HostRegexp(`{sub:[a-z]+}.a.com`)", http("www.b.a.com", "/"), No),
            ("HostRegexp(`{sub:[a-z]+}.a.com`)", http("wwwxa.com", "/"), No),
            ("HostRegexp(`{host:.+}`)", http("anything.org", "/"), Yes),
            ("HostRegexp(`{sub}.a.com`)", http("x.a.com", "/"), Yes),
            ("HostRegexp(`a.com`, `{sub:[a-z0-9]+}.a.com`)", http("a.com", "/"), Yes),
            ("HostRegexp(`a.com`, `{sub:[a-z0-9]+}.a.com`)", http("aXcom", "/"), No),
            ("HostRegexp(`{id:[0-9]{3}}.a.com`)", http("123.a.com", "/"), Yes),
            ("Path(`/products/{id:[0-9]+}`)", http("x", "/products/42"), Yes),
            ("Path(`/products/{id:[0-9]+}`)", http("x", "/products/42/x"), No),
            ("PathPrefix(`/u/{name}`)", http("x", "/u/bob/avatar"), Yes),
            // quotes
            ("Host(\"a.com\")", http("a.com", "/"), Yes),
            ("HostRegexp(\"^a\\\\.com$\")", http("a.com", "/"), Yes),
            ("HostRegexp(\"^a\\\\.com$\")", http("abcom", "/"), No),
            ("Host(`a.com`)&&Path(\"/x\")", http("a.com", "/x"), Yes),
            ("host(`a.com`) && PATHPREFIX(`/x`) && Pathprefix(`/x`)", http("a.com", "/x"), Yes),
            // Unknown propagation
            ("Method(`GET`)", http("a.com", "/"), Unknown),
            ("Host(`a.com`) && Header(`X-A`, `1`)", http("a.com", "/"), Unknown),
            ("Host(`a.com`) && Header(`X-A`, `1`)", http("b.com", "/"), No),
            ("Header(`X-A`, `1`) && Host(`a.com`)", http("b.com", "/"), No),
            ("ClientIP(`10.0.0.0/8`) || Host(`a.com`)", http("a.com", "/"), Yes),
            ("ClientIP(`10.0.0.0/8`) || Host(`a.com`)", http("b.com", "/"), Unknown),
            ("!Method(`GET`)", http("a.com", "/"), Unknown),
            ("Frobnicate(`x`) || Host(`a.com`)", http("b.com", "/"), Unknown),
            ("HostRegexp(`(unclosed`)", http("a.com", "/"), Unknown),
            // TCP
            ("HostSNI(`*`)", tcp(""), Yes),
            ("HostSNI(`*`)", tcp("db.a.com"), Yes),
            ("HostSNI(`db.a.com`)", tcp("DB.a.com"), Yes),
            ("HostSNI(`db.a.com`)", tcp(""), No),
            ("HostSNI(`db.a.com`) && ALPN(`h2`)", tcp("db.a.com"), Unknown),
            ("HostSNIRegexp(`^.+\\.a\\.com$`)", tcp("db.a.com"), Yes),
            ("HostSNI(`a.com`) && PathPrefix(`/`)", tcp("a.com"), Unknown),
        ]
    }

    #[test]
    fn rule_table() {
        let cases = cases();
        assert!(cases.len() >= 30);
        for (rule, req, want) in cases {
            let e = parse(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
            assert_eq!(e.matches(&req), want, "{rule} on {req:?}");
        }
    }

    fn malformed() -> Vec<(&'static str, usize)> {
        vec![
            ("", 0),
            ("   ", 0),
            ("Host(`a.com`", 4),
            ("(Host(`a.com`)", 0),
            ("Host(`a.com`))", 13),
            ("Host(`a.com)", 5),
            ("Host(\"a.com)", 5),
            ("Host(`a.com`) &&", 16),
            ("Host(`a.com`) ||   ", 19),
            ("&& Host(`a.com`)", 0),
            ("Host(`a.com`) & Path(`/`)", 14),
            ("Host(`a.com`) | Path(`/`)", 14),
            ("Host('a.com')", 5),
            ("Host", 4),
            ("Host a.com", 6),
            ("Host()", 0),
            ("Host(`a`,,`b`)", 9),
            ("Host(`a`) Path(`/`)", 10),
            ("Host(`a`) && ()", 14),
            ("!", 1),
            ("Host(\"a\\qb\")", 7),
            ("Host(`a`) && Path(`/`) é", 23),
            ("Host(a.com)", 6),
        ]
    }

    #[test]
    fn malformed_rules_are_errors_with_offsets() {
        let cases = malformed();
        assert!(cases.len() >= 10);
        for (rule, offset) in cases {
            match parse(rule) {
                Ok(e) => panic!("{rule:?} parsed as {e:?}"),
                Err(e) => assert_eq!(e.offset, offset, "{rule:?}: {e}"),
            }
        }
        let e = parse("Host(`a.com`) &&").unwrap_err();
        assert!(e.to_string().starts_with("at column 17: "), "{e}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}Host(`a`){}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse(&deep).is_err());
        let nots = format!("{}Host(`a`)", "!".repeat(100_000));
        assert!(parse(&nots).is_err());
        let ok = format!("{}Host(`a`){}", "(".repeat(50), ")".repeat(50));
        assert!(parse(&ok).is_ok());
        // A long flat chain is fine up to the matcher limit, an error beyond.
        let long = vec!["Host(`a`)"; 1000].join(" || ");
        assert_eq!(parse(&long).map(|e| e.matches(&http("b", "/"))), Ok(No));
        let longer = vec!["Host(`a`)"; 100_000].join(" && ");
        assert!(parse(&longer).is_err());
    }

    #[test]
    fn prefixes_of_valid_rules_never_panic() {
        let mut n = 0;
        for (rule, _, _) in cases() {
            for (i, _) in rule.char_indices().chain(std::iter::once((rule.len(), ' '))) {
                // Every prefix, and every suffix for good measure.
                for piece in [&rule[..i], &rule[i..]] {
                    if let Ok(e) = parse(piece) {
                        let _ = e.matches(&http("a.com", "/x"));
                        let _ = e.matches(&tcp(""));
                        let _ = e.hosts();
                        let _ = e.specificity();
                    }
                    n += 1;
                }
            }
        }
        assert!(n > 1000, "{n}");
    }

    #[test]
    fn structure_and_precedence() {
        let e = parse("Host(`a`) || Host(`b`) && !Path(`/c`)").unwrap();
        let want = Expr::Or(
            Box::new(Expr::Match(Matcher::Host(vec!["a".into()]))),
            Box::new(Expr::And(
                Box::new(Expr::Match(Matcher::Host(vec!["b".into()]))),
                Box::new(Expr::Not(Box::new(Expr::Match(Matcher::Path(vec!["/c".into()]))))),
            )),
        );
        assert_eq!(e, want);
        let e = parse("method(`GET`) && Foo(`x`, \"y\")").unwrap();
        assert_eq!(
            e,
            Expr::And(
                Box::new(Expr::Match(Matcher::Other { name: "Method".into(), args: vec!["GET".into()] })),
                Box::new(Expr::Match(Matcher::Other { name: "Foo".into(), args: vec!["x".into(), "y".into()] })),
            )
        );
        // Trailing comma, as in Go calls.
        assert_eq!(parse("Host(`a`, `b`,)").unwrap(), Expr::Match(Matcher::Host(vec!["a".into(), "b".into()])));
        // Go escapes in double quotes.
        assert_eq!(
            parse(r#"Header("X", "a\tb\x41\u00e9\101")"#).unwrap(),
            Expr::Match(Matcher::Other { name: "Header".into(), args: vec!["X".into(), "a\tbAéA".into()] })
        );
    }

    #[test]
    fn hosts_are_literal_deduplicated_and_ordered() {
        let e = parse("Host(`b.com`, `a.com`) || HostSNI(`*`) || (Host(`B.com.`) && !Host(`c.com`))").unwrap();
        assert_eq!(e.hosts(), vec!["b.com", "a.com", "c.com"]);
        let e = parse("HostRegexp(`{sub:[a-z]+}.a.com`) || Host(`*.w.com`) || Host(`**.x.com`)").unwrap();
        assert_eq!(e.hosts(), vec!["*.w.com"]);
        assert!(parse("HostSNI(`*`)").unwrap().hosts().is_empty());
    }

    #[test]
    fn specificity_is_rule_length() {
        let rule = "HostRegexp(`[a-z]+\\.traefik\\.com`)";
        assert_eq!(default_priority(rule), 34);
        assert_eq!(parse(rule).unwrap().specificity(), 34);
        assert_eq!(parse("Host(`foobar.traefik.com`)").unwrap().specificity(), 26);
        let rule = "(Host(`a`) || Host(`b`)) && !(Path(`/x`) && Method(`GET`))";
        let e = parse(rule).unwrap();
        assert_eq!(e.to_string(), rule);
        assert_eq!(e.specificity(), rule.len());
        // Canonical form round-trips.
        for (rule, _, _) in cases() {
            let e = parse(rule).unwrap();
            assert_eq!(parse(&e.to_string()).unwrap(), e, "{rule}");
        }
    }

    #[test]
    fn verdict_logic() {
        assert_eq!(Unknown.and(No), No);
        assert_eq!(No.and(Unknown), No);
        assert_eq!(Unknown.and(Yes), Unknown);
        assert_eq!(Unknown.or(Yes), Yes);
        assert_eq!(Yes.or(Unknown), Yes);
        assert_eq!(Unknown.or(No), Unknown);
        assert_eq!(!Unknown, Unknown);
        assert_eq!(!Yes, No);
    }
}
