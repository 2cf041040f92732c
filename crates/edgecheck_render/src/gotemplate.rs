//! Go `text/template` over one string, as an ApplicationSet with `goTemplate: true` renders each string of its
//! template: text and actions (`{{ }}`, trim markers `{{-` and `-}}`, comments), pipelines (`a | b`,
//! parentheses, string, number and boolean literals, `.field.path` and `$`), `if` / `else if` / `else` /
//! `end`, Go's builtins (`eq`, `ne`, `lt`, `le`, `gt`, `ge`, `and`, `or`, `not`, `len`, `index`, `print`,
//! `printf`) and the Sprig and Argo CD functions ApplicationSets use (`default`, `dig`, `ternary`,
//! `toString`, `lower`, `upper`, `trim`, `replace`, `quote`, `join`, `normalize`, ...; [`call`]). Anything
//! else (`range`, `with`, variables, another function), and anything whose result would depend on Go's types
//! in a way edgecheck cannot reproduce (numbers compared or formatted with `%d`, a function given a value of
//! the wrong type, a missing value printed), is refused with the reason, never guessed: a wrong rendering is
//! worse than none. Parameters reach Argo CD's templates through JSON, so their numbers are `float64`.

use edgecheck_core::{Map, Value};

/// Why a string is not rendered.
pub type Refusal = String;

/// Nesting of `if` and of parentheses beyond this is refused (a hostile template would otherwise exhaust the
/// stack).
const MAX_DEPTH: usize = 64;

/// A rendered string, or any string a function makes, longer than this is refused.
const MAX_LEN: usize = 1 << 20;

/// Renders `text` with `dot` as the data (`.` and `$`). `strict` is `missingkey=error`: a lookup of a key
/// the parameters do not have is refused, as Argo CD fails it; otherwise it is Go's nil.
pub fn render(text: &str, dot: &Value, strict: bool) -> Result<String, Refusal> {
    let items = lex(text)?;
    let mut pos = 0;
    let (nodes, end) = parse(&items, &mut pos, 0)?;
    if end.is_some() {
        return Err("its template has an `else` or `end` without an `if`".into());
    }
    let mut out = String::new();
    exec(&nodes, &Cx { dot, strict }, &mut out)?;
    Ok(out)
}

/// The data and the options of one rendering.
struct Cx<'a> {
    dot: &'a Value,
    strict: bool,
}

/// Go's template whitespace: what trim markers remove.
fn go_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Text and actions, trim markers applied.
enum Item {
    Text(String),
    Action(Vec<Tok>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Num(Value),
    Word(String),
    /// `.a.b` (`.` alone is empty).
    Field(Vec<String>),
    LParen,
    RParen,
    Pipe,
}

fn lex(text: &str) -> Result<Vec<Item>, Refusal> {
    let mut items = Vec::new();
    let mut rest = text;
    let mut trim_next = false;
    while let Some(i) = rest.find("{{") {
        let mut before = &rest[..i];
        if trim_next {
            before = before.trim_start_matches(go_space);
        }
        let after = &rest[i + 2..];
        let (after, trim_before) = match after.strip_prefix('-') {
            Some(a) if a.starts_with(go_space) => (a.trim_start_matches(go_space), true),
            _ => (after, false),
        };
        if trim_before {
            before = before.trim_end_matches(go_space);
        }
        if !before.is_empty() {
            items.push(Item::Text(before.to_string()));
        }
        let close = find_close(after).ok_or("its template has a `{{` without `}}`")?;
        let mut inner = &after[..close];
        trim_next = false;
        if let Some(x) = inner.strip_suffix('-') {
            if x.ends_with(go_space) {
                inner = x;
                trim_next = true;
            }
        }
        // A comment starts right after `{{` (or `{{- `) and ends right before `}}` (or ` -}}`), as Go's parser
        // requires.
        if inner.starts_with("/*") {
            if !inner.trim_end_matches(go_space).ends_with("*/") {
                return Err("its template has a comment that does not end before `}}`".into());
            }
        } else {
            let inner = inner.trim_matches(go_space);
            if inner.starts_with("/*") {
                return Err("its template has a comment Go does not accept (space after `{{`)".into());
            }
            items.push(Item::Action(tokens(inner)?));
        }
        rest = &after[close + 2..];
    }
    let rest = if trim_next { rest.trim_start_matches(go_space) } else { rest };
    if !rest.is_empty() {
        items.push(Item::Text(rest.to_string()));
    }
    Ok(items)
}

/// The `}}` that closes an action, skipping quoted strings.
fn find_close(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'`' => {
                i += 1;
                while i < b.len() && b[i] != b'`' {
                    i += 1;
                }
            }
            b'}' if b.get(i + 1) == Some(&b'}') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn tokens(s: &str) -> Result<Vec<Tok>, Refusal> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        match c {
            _ if c.is_whitespace() => i += 1,
            '(' => {
                out.push(Tok::LParen);
                i += 1;
            }
            ')' => {
                out.push(Tok::RParen);
                i += 1;
                if chars.get(i) == Some(&'.') {
                    return Err(format!("its template's `{s}` reads a field of a parenthesised value"));
                }
            }
            '|' => {
                out.push(Tok::Pipe);
                i += 1;
            }
            '"' => {
                let mut v = String::new();
                i += 1;
                loop {
                    let unterminated = || format!("its template's `{s}` has an unterminated string");
                    match chars.get(i) {
                        None => return Err(unterminated()),
                        Some('"') => break,
                        Some('\\') => {
                            i += 1;
                            let e = *chars.get(i).ok_or_else(unterminated)?;
                            let simple = match e {
                                'n' => Some('\n'),
                                't' => Some('\t'),
                                'r' => Some('\r'),
                                '\\' => Some('\\'),
                                '"' => Some('"'),
                                '\'' => Some('\''),
                                'a' => Some('\u{7}'),
                                'b' => Some('\u{8}'),
                                'f' => Some('\u{c}'),
                                'v' => Some('\u{b}'),
                                _ => None,
                            };
                            match (simple, e) {
                                (Some(c), _) => v.push(c),
                                (None, 'x' | 'u') => {
                                    let n = if e == 'x' { 2 } else { 4 };
                                    let hex: String =
                                        chars.get(i + 1..i + 1 + n).ok_or_else(unterminated)?.iter().collect();
                                    let c = u32::from_str_radix(&hex, 16)
                                        .ok()
                                        .filter(|c| e == 'u' || *c < 0x80)
                                        .and_then(char::from_u32)
                                        .ok_or_else(|| {
                                            format!("its template's `{s}` has an escape edgecheck does not read")
                                        })?;
                                    v.push(c);
                                    i += n;
                                }
                                _ => return Err(format!("its template's `{s}` has an escape edgecheck does not read")),
                            }
                        }
                        Some(&x) => v.push(x),
                    }
                    i += 1;
                }
                i += 1;
                out.push(Tok::Str(v));
            }
            '`' => {
                let start = i + 1;
                let end = chars[start..].iter().position(|&x| x == '`').map(|p| start + p);
                let end = end.ok_or_else(|| format!("its template's `{s}` has an unterminated string"))?;
                out.push(Tok::Str(chars[start..end].iter().collect()));
                i = end + 1;
            }
            '.' | '$' => {
                let start = i;
                i += 1;
                while i < chars.len() && (word(chars[i]) || chars[i] == '.') {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                let path = text.strip_prefix('$').unwrap_or(&text);
                if c == '$' && !(path.is_empty() || path.starts_with('.')) {
                    return Err(format!("its template uses the variable `{text}`, which edgecheck does not evaluate"));
                }
                let segments: Vec<&str> = path.split('.').skip(1).collect();
                // `.` alone, else `.a.b` with names (not `.5`, not `.a..b`).
                let whole = path == "."
                    || path.is_empty()
                    || segments.iter().all(|p| p.starts_with(|c: char| c.is_alphabetic() || c == '_'));
                if !whole {
                    return Err(format!("its template's `{text}` is not a field edgecheck reads"));
                }
                out.push(Tok::Field(segments.into_iter().filter(|p| !p.is_empty()).map(str::to_string).collect()));
            }
            _ if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) => {
                let start = i;
                i += 1;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                let bad = || format!("its template's `{s}` has a number edgecheck does not read");
                out.push(if text.contains('.') {
                    Tok::Num(Value::Number(
                        text.parse::<f64>().ok().and_then(serde_json::Number::from_f64).ok_or_else(bad)?,
                    ))
                } else {
                    Tok::Num(Value::from(text.parse::<i64>().map_err(|_| bad())?))
                });
            }
            _ if word(c) => {
                let start = i;
                while i < chars.len() && word(chars[i]) {
                    i += 1;
                }
                if chars.get(i) == Some(&'.') {
                    return Err(format!("its template's `{s}` reads a field of a function"));
                }
                out.push(Tok::Word(chars[start..i].iter().collect()));
            }
            _ => return Err(format!("its template's `{s}` is not evaluated (`{c}`)")),
        }
    }
    Ok(out)
}

/// A parsed template.
enum Node {
    Text(String),
    Action(Pipe),
    /// `if` branches (condition, body) in order, then the `else` body.
    If(Vec<(Pipe, Vec<Node>)>, Vec<Node>),
}

type Pipe = Vec<Cmd>;

/// A command: a function and its arguments, or one operand.
struct Cmd(Vec<Arg>);

enum Arg {
    Func(String),
    Field(Vec<String>),
    Lit(Value),
    Sub(Pipe),
}

/// How a body ended: `{{else}}`, `{{else if …}}` (its condition) or `{{end}}`.
enum End {
    Else(Option<Pipe>),
    End,
}

fn parse(items: &[Item], pos: &mut usize, depth: usize) -> Result<(Vec<Node>, Option<End>), Refusal> {
    if depth > MAX_DEPTH {
        return Err(format!("its template nests `if` more than {MAX_DEPTH} deep"));
    }
    let mut nodes = Vec::new();
    while *pos < items.len() {
        let item = &items[*pos];
        *pos += 1;
        let toks = match item {
            Item::Text(t) => {
                nodes.push(Node::Text(t.clone()));
                continue;
            }
            Item::Action(toks) => toks,
        };
        match toks.first() {
            Some(Tok::Word(w)) if w == "end" => return Ok((nodes, Some(End::End))),
            Some(Tok::Word(w)) if w == "else" => {
                let cond = match toks.get(1) {
                    Some(Tok::Word(x)) if x == "if" => Some(pipe(&toks[2..])?),
                    None => None,
                    Some(_) => return Err("its template's `else` is followed by something other than `if`".into()),
                };
                return Ok((nodes, Some(End::Else(cond))));
            }
            Some(Tok::Word(w)) if w == "if" => {
                let mut branches = Vec::new();
                let mut cond = pipe(&toks[1..])?;
                let otherwise = loop {
                    let (body, end) = parse(items, pos, depth + 1)?;
                    branches.push((cond, body));
                    match end {
                        Some(End::End) => break Vec::new(),
                        Some(End::Else(Some(next))) => cond = next,
                        Some(End::Else(None)) => match parse(items, pos, depth + 1)? {
                            (body, Some(End::End)) => break body,
                            _ => return Err("its template's `if` has no `end` after its `else`".into()),
                        },
                        None => return Err("its template's `if` has no `end`".into()),
                    }
                };
                nodes.push(Node::If(branches, otherwise));
            }
            Some(Tok::Word(w)) if matches!(w.as_str(), "range" | "with" | "define" | "template" | "block") => {
                return Err(format!("its template uses `{w}`, which edgecheck does not evaluate"));
            }
            _ => nodes.push(Node::Action(pipe(toks)?)),
        }
    }
    Ok((nodes, None))
}

fn pipe(toks: &[Tok]) -> Result<Pipe, Refusal> {
    let mut open = 0usize;
    for t in toks {
        match t {
            Tok::LParen => open += 1,
            Tok::RParen => open = open.saturating_sub(1),
            _ => {}
        }
        if open > MAX_DEPTH {
            return Err(format!("its template nests parentheses more than {MAX_DEPTH} deep"));
        }
    }
    let mut cmds = Vec::new();
    let mut args = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Pipe => {
                if args.is_empty() {
                    return Err("its template has an empty command in a pipeline".into());
                }
                cmds.push(Cmd(std::mem::take(&mut args)));
            }
            Tok::LParen => {
                let mut depth = 1;
                let start = i + 1;
                while depth > 0 {
                    i += 1;
                    match toks.get(i) {
                        Some(Tok::LParen) => depth += 1,
                        Some(Tok::RParen) => depth -= 1,
                        Some(_) => {}
                        None => return Err("its template has an unclosed `(`".into()),
                    }
                }
                args.push(Arg::Sub(pipe(&toks[start..i])?));
            }
            Tok::RParen => return Err("its template has an unmatched `)`".into()),
            Tok::Str(s) => args.push(Arg::Lit(Value::from(s.as_str()))),
            Tok::Num(v) => args.push(Arg::Lit(v.clone())),
            Tok::Field(path) => args.push(Arg::Field(path.clone())),
            Tok::Word(w) => args.push(match w.as_str() {
                "true" => Arg::Lit(Value::Bool(true)),
                "false" => Arg::Lit(Value::Bool(false)),
                "nil" => Arg::Lit(Value::Null),
                _ => Arg::Func(w.clone()),
            }),
        }
        i += 1;
    }
    if args.is_empty() {
        return Err("its template has an empty action".into());
    }
    cmds.push(Cmd(args));
    Ok(cmds)
}

fn exec(nodes: &[Node], cx: &Cx<'_>, out: &mut String) -> Result<(), Refusal> {
    for n in nodes {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Action(p) => {
                let v = eval(p, cx)?;
                if v.is_null() {
                    return Err("its template prints a parameter no generator sets".into());
                }
                out.push_str(&text(&v)?);
            }
            Node::If(branches, otherwise) => {
                let mut taken = false;
                for (cond, body) in branches {
                    if truthy(&eval(cond, cx)?) {
                        exec(body, cx, out)?;
                        taken = true;
                        break;
                    }
                }
                if !taken {
                    exec(otherwise, cx, out)?;
                }
            }
        }
        if out.len() > MAX_LEN {
            return Err("its template renders a string longer than edgecheck reads".into());
        }
    }
    Ok(())
}

fn eval(p: &Pipe, cx: &Cx<'_>) -> Result<Value, Refusal> {
    let mut prev: Option<Value> = None;
    for Cmd(args) in p {
        let v = match &args[0] {
            Arg::Func(name) => {
                let mut values = Vec::with_capacity(args.len());
                for a in &args[1..] {
                    values.push(operand(a, cx)?);
                }
                values.extend(prev.take());
                let v = call(name, values)?;
                if v.as_str().is_some_and(|s| s.len() > MAX_LEN) {
                    return Err(format!("its template's `{name}` makes a string longer than edgecheck reads"));
                }
                v
            }
            first => {
                if args.len() > 1 || prev.is_some() {
                    return Err("its template gives arguments to a value that is not a function".into());
                }
                operand(first, cx)?
            }
        };
        prev = Some(v);
    }
    Ok(prev.unwrap_or(Value::Null))
}

fn operand(a: &Arg, cx: &Cx<'_>) -> Result<Value, Refusal> {
    match a {
        Arg::Lit(v) => Ok(v.clone()),
        Arg::Sub(p) => eval(p, cx),
        Arg::Field(path) => {
            let mut cur = cx.dot;
            for k in path {
                cur = match cur {
                    Value::Object(m) => match m.get(k) {
                        Some(v) => v,
                        None if cx.strict => {
                            return Err(format!("its template names `.{}`, which no generator sets", path.join(".")))
                        }
                        None => return Ok(Value::Null),
                    },
                    Value::Null if !cx.strict => return Ok(Value::Null),
                    _ => return Err(format!("its template reads `.{}` of a value that has no fields", path.join("."))),
                };
            }
            Ok(cur.clone())
        }
        Arg::Func(name) => call(name, Vec::new()),
    }
}

/// `fmt.Sprint` of a value as Go holds it: strings as they are, numbers as the `float64` JSON gives (refused
/// where Go would switch to exponent form), lists as `[a b]`, maps as `map[k:v]` by key; nil is refused.
fn text(v: &Value) -> Result<String, Refusal> {
    Ok(match v {
        Value::Null => return Err("its template prints a value that is not set".into()),
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if !f.is_finite() || (f != 0.0 && !(1e-4..1e6).contains(&f.abs())) {
                return Err(format!(
                    "its template prints the number {n}, which Go writes in a form edgecheck does not"
                ));
            }
            if f.fract() == 0.0 {
                format!("{}", f as i64)
            } else {
                format!("{f}")
            }
        }
        Value::Array(a) => format!("[{}]", a.iter().map(text).collect::<Result<Vec<_>, _>>()?.join(" ")),
        Value::Object(m) => {
            let mut entries: Vec<(&str, &Value)> = m.iter().map(|(k, x)| (k.as_str(), x)).collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let parts: Vec<String> =
                entries.into_iter().map(|(k, x)| Ok(format!("{k}:{}", text(x)?))).collect::<Result<_, Refusal>>()?;
            format!("map[{}]", parts.join(" "))
        }
    })
}

/// Go's truth: false, 0, nil and empty strings, lists and maps are false.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// Go's `eq` of two basic values of one kind; numbers are refused (a parameter's `float64` against a
/// literal's `int` is an error in Go), as are nil, lists and maps.
fn equal(a: &Value, b: &Value) -> Result<bool, Refusal> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x == y),
        (Value::Bool(x), Value::Bool(y)) => Ok(x == y),
        (Value::String(_) | Value::Bool(_), Value::String(_) | Value::Bool(_)) => {
            Err("its template compares a string with a boolean".into())
        }
        _ => Err("its template compares numbers, lists, maps or unset values, which edgecheck does not".into()),
    }
}

fn string<'v>(name: &str, v: &'v Value) -> Result<&'v str, Refusal> {
    v.as_str().ok_or_else(|| format!("its template gives `{name}` a value that is not a string"))
}

/// An ASCII string: what edgecheck changes the case of, and quotes, exactly as Go does.
fn ascii<'v>(name: &str, v: &'v Value) -> Result<&'v str, Refusal> {
    let s = string(name, v)?;
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        Ok(s)
    } else {
        Err(format!("its template gives `{name}` a string with characters edgecheck does not treat as Go does"))
    }
}

fn arity(name: &str, args: &[Value], n: usize) -> Result<(), Refusal> {
    if args.len() == n {
        Ok(())
    } else {
        Err(format!("its template calls `{name}` with {} arguments, not {n}", args.len()))
    }
}

/// A function of Go templates, Sprig or Argo CD.
fn call(name: &str, mut args: Vec<Value>) -> Result<Value, Refusal> {
    Ok(match name {
        "eq" => {
            if args.len() < 2 {
                return Err("its template calls `eq` with fewer than two arguments".into());
            }
            let mut any = false;
            for x in &args[1..] {
                any |= equal(&args[0], x)?;
            }
            Value::Bool(any)
        }
        "ne" => {
            arity(name, &args, 2)?;
            Value::Bool(!equal(&args[0], &args[1])?)
        }
        "lt" | "le" | "gt" | "ge" => {
            arity(name, &args, 2)?;
            let (Value::String(a), Value::String(b)) = (&args[0], &args[1]) else {
                return Err(format!("its template's `{name}` compares values other than strings"));
            };
            let o = a.cmp(b);
            Value::Bool(match name {
                "lt" => o.is_lt(),
                "le" => o.is_le(),
                "gt" => o.is_gt(),
                _ => o.is_ge(),
            })
        }
        "and" | "or" => {
            if args.is_empty() {
                return Err(format!("its template calls `{name}` without arguments"));
            }
            let stop = args.iter().position(|v| truthy(v) == (name == "or"));
            args.swap_remove(stop.unwrap_or(args.len() - 1))
        }
        "not" => {
            arity(name, &args, 1)?;
            Value::Bool(!truthy(&args[0]))
        }
        "len" => {
            arity(name, &args, 1)?;
            let n = match &args[0] {
                Value::String(x) => x.len(),
                Value::Array(a) => a.len(),
                Value::Object(m) => m.len(),
                _ => return Err("its template takes `len` of a value that has none".into()),
            };
            Value::from(n as i64)
        }
        "index" => {
            let (first, keys) = args.split_first().ok_or("its template calls `index` without arguments")?;
            let mut cur = first.clone();
            for k in keys {
                cur = match (&cur, k) {
                    (Value::Array(a), Value::Number(n)) => {
                        let i = n.as_u64().ok_or("its template's `index` is not a whole number")?;
                        a.get(i as usize).cloned().ok_or("its template's `index` is out of range")?
                    }
                    (Value::Object(m), Value::String(key)) => m.get(key).cloned().unwrap_or(Value::Null),
                    _ => return Err("its template indexes a value that cannot be indexed so".into()),
                };
            }
            cur
        }
        "print" => {
            // `fmt.Sprint`: a space between two operands when neither is a string.
            let mut out = String::new();
            for (i, v) in args.iter().enumerate() {
                if i > 0 && !args[i - 1].is_string() && !v.is_string() {
                    out.push(' ');
                }
                out.push_str(&text(v)?);
            }
            Value::from(out)
        }
        "printf" => {
            let (format, rest) = args.split_first().ok_or("its template calls `printf` without a format")?;
            Value::from(printf(string(name, format)?, rest)?)
        }
        "toString" => {
            arity(name, &args, 1)?;
            Value::from(text(&args[0])?)
        }
        "default" => {
            if args.is_empty() || args.len() > 2 {
                return Err(format!("its template calls `default` with {} arguments", args.len()));
            }
            let given = if args.len() == 2 { args.pop() } else { None };
            let fallback = args.pop().unwrap_or(Value::Null);
            match given {
                Some(g) if truthy(&g) => g,
                _ => fallback,
            }
        }
        "empty" => {
            arity(name, &args, 1)?;
            Value::Bool(!truthy(&args[0]))
        }
        "coalesce" => args.into_iter().find(truthy).unwrap_or(Value::Null),
        "ternary" => {
            arity(name, &args, 3)?;
            let Value::Bool(cond) = args[2] else {
                return Err("its template's `ternary` condition is not a boolean".into());
            };
            args.swap_remove(if cond { 0 } else { 1 })
        }
        "dig" => {
            if args.len() < 3 {
                return Err("its template calls `dig` without keys, a default and a map".into());
            }
            let dict = args.pop().unwrap_or(Value::Null);
            let fallback = args.pop().unwrap_or(Value::Null);
            let mut cur = &dict;
            for k in &args {
                let key = string(name, k)?;
                let Value::Object(m) = cur else {
                    return Err("its template's `dig` walks through a value that is not a map".into());
                };
                match m.get(key) {
                    Some(v) => cur = v,
                    None => return Ok(fallback),
                }
            }
            cur.clone()
        }
        "hasKey" => {
            arity(name, &args, 2)?;
            let Value::Object(m) = &args[0] else {
                return Err("its template's `hasKey` is given a value that is not a map".into());
            };
            Value::Bool(m.contains_key(string(name, &args[1])?))
        }
        "lower" | "upper" | "quote" => {
            arity(name, &args, 1)?;
            let x = ascii(name, &args[0])?;
            Value::from(match name {
                "lower" => x.to_ascii_lowercase(),
                "upper" => x.to_ascii_uppercase(),
                _ => format!("\"{}\"", x.replace('\\', "\\\\").replace('"', "\\\"")),
            })
        }
        "trim" | "squote" | "normalize" => {
            arity(name, &args, 1)?;
            let x = string(name, &args[0])?;
            Value::from(match name {
                "trim" => x.trim_matches(|c: char| c.is_ascii_whitespace()).to_string(),
                "squote" => format!("'{x}'"),
                _ => normalize(x),
            })
        }
        "trimPrefix" | "trimSuffix" | "hasPrefix" | "hasSuffix" | "contains" => {
            arity(name, &args, 2)?;
            let (a, x) = (string(name, &args[0])?, string(name, &args[1])?);
            match name {
                "trimPrefix" => Value::from(x.strip_prefix(a).unwrap_or(x)),
                "trimSuffix" => Value::from(x.strip_suffix(a).unwrap_or(x)),
                "hasPrefix" => Value::Bool(x.starts_with(a)),
                "hasSuffix" => Value::Bool(x.ends_with(a)),
                _ => Value::Bool(x.contains(a)),
            }
        }
        "replace" => {
            arity(name, &args, 3)?;
            let (old, new, x) = (string(name, &args[0])?, string(name, &args[1])?, string(name, &args[2])?);
            if old.is_empty() {
                return Err("its template's `replace` replaces the empty string".into());
            }
            Value::from(x.replace(old, new))
        }
        "trunc" => {
            arity(name, &args, 2)?;
            let n = args[0].as_i64().ok_or("its template's `trunc` length is not a whole number")?;
            let x = string(name, &args[1])?;
            let len = x.len() as i64;
            // Sprig cuts bytes: a cut inside a character is refused.
            let (from, to) = if n >= 0 { (0, n.min(len)) } else { ((len + n).max(0), len) };
            let kept = x.get(from as usize..to as usize).ok_or("its template's `trunc` cuts inside a character")?;
            Value::from(kept)
        }
        "join" => {
            arity(name, &args, 2)?;
            let sep = string(name, &args[0])?;
            let items = args[1].as_array().ok_or("its template joins a value that is not a list")?;
            // Sprig's `join` leaves out nil items.
            let parts: Vec<String> = items.iter().filter(|v| !v.is_null()).map(text).collect::<Result<_, _>>()?;
            Value::from(parts.join(sep))
        }
        "splitList" => {
            arity(name, &args, 2)?;
            let sep = string(name, &args[0])?;
            if sep.is_empty() {
                return Err("its template's `splitList` splits by the empty string".into());
            }
            Value::Array(string(name, &args[1])?.split(sep).map(Value::from).collect())
        }
        "list" => Value::from(args),
        "first" | "last" => {
            arity(name, &args, 1)?;
            let items = args[0]
                .as_array()
                .ok_or_else(|| format!("its template takes `{name}` of a value that is not a list"))?;
            let item = if name == "first" { items.first() } else { items.last() };
            item.cloned().unwrap_or(Value::Null)
        }
        "int" | "atoi" => {
            arity(name, &args, 1)?;
            let n = match &args[0] {
                Value::Number(n) => n.as_f64().map(|f| f.trunc() as i64),
                Value::String(x) => x.parse::<i64>().ok(),
                Value::Bool(b) => Some(i64::from(*b)),
                _ => None,
            };
            Value::from(n.ok_or_else(|| format!("its template's `{name}` reads a value edgecheck does not convert"))?)
        }
        "dict" => {
            if !args.len().is_multiple_of(2) {
                return Err("its template calls `dict` with an odd number of arguments".into());
            }
            let mut m = Map::new();
            for pair in args.chunks(2) {
                m.insert(string(name, &pair[0])?.into(), pair[1].clone());
            }
            Value::Object(m)
        }
        _ => return Err(format!("its template uses `{name}`, a Go template function edgecheck does not evaluate")),
    })
}

/// Argo CD's `normalize` (its `SanitizeName`): lower case, what a name cannot hold replaced by `-`, at most
/// 253 bytes, then `-` and `.` trimmed from both ends.
pub fn normalize(s: &str) -> String {
    let mut out: String = s
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.' { c } else { '-' })
        .collect();
    out.truncate(253);
    out.trim_matches(|c| c == '-' || c == '.').to_string()
}

/// `fmt.Sprintf` for the verbs templates use where Go's result does not depend on a number's type: `%s` and
/// `%q` of strings, `%v` of anything [`text`] prints, `%t` of booleans, `%%`.
fn printf(format: &str, args: &[Value]) -> Result<String, Refusal> {
    let mut out = String::new();
    let mut next = args.iter();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let verb = chars.next().ok_or("its template's printf format ends with `%`")?;
        if verb == '%' {
            out.push('%');
            continue;
        }
        let arg = next.next().ok_or("its template's printf has fewer arguments than verbs")?;
        match (verb, arg) {
            ('s', Value::String(x)) => out.push_str(x),
            ('v', v) => out.push_str(&text(v)?),
            ('t', Value::Bool(b)) => out.push_str(&b.to_string()),
            ('q', v @ Value::String(_)) => {
                let x = ascii("printf", v)?;
                out.push('"');
                out.push_str(&x.replace('\\', "\\\\").replace('"', "\\\""));
                out.push('"');
            }
            _ => {
                return Err(format!(
                    "its template's printf uses `%{verb}` with a value edgecheck does not format as Go does"
                ))
            }
        }
    }
    if next.next().is_some() {
        return Err("its template's printf has more arguments than verbs".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::render;
    use edgecheck_core::json;

    fn data() -> edgecheck_core::Value {
        json!({"name": "pocket-id", "serverSideDiff": true, "n": 3, "big": 12345678, "s": "text",
            "path": {"basename": "Web_App", "segments": ["apps", "web"]}, "tags": ["a", "b"], "holes": ["a", null, "b"]})
    }

    fn r(t: &str) -> Result<String, String> {
        render(t, &data(), false)
    }

    #[test]
    fn fields_pipelines_and_the_functions_application_sets_use() {
        assert_eq!(r("{{ .name }}").unwrap(), "pocket-id");
        assert_eq!(
            r(r#"{{ printf "%s=%s" "ServerSideDiff" (dig "serverSideDiff" "false" . | toString) }}"#).unwrap(),
            "ServerSideDiff=true"
        );
        assert_eq!(
            r(r#"{{ printf "%s=%s" "ServerSideApply" (dig "serverSideApply" "false" . | toString) }}"#).unwrap(),
            "ServerSideApply=false"
        );
        assert_eq!(r(r#"{{ default .name (dig "namespace" "" .) }}"#).unwrap(), "pocket-id");
        assert_eq!(
            r(r#"{{ ternary ".spec.replicas" ".nonexistent" (eq (dig "scaleToZero" "false" . | toString) "true") }}"#)
                .unwrap(),
            ".nonexistent"
        );
        assert_eq!(r("{{ .path.basename | lower }}-{{ index .path.segments 1 | upper }}").unwrap(), "web_app-WEB");
        assert_eq!(r("{{ .path.basename | normalize }}").unwrap(), "web-app");
        assert_eq!(r(r#"{{ "-A_b." | normalize }}"#).unwrap(), "a-b");
        assert_eq!(r(r#"{{ .name | replace "-" "." | quote }}"#).unwrap(), r#""pocket.id""#);
        assert_eq!(
            r(r#"{{ join "," .tags }} {{ len .tags }} {{ trunc 3 .name }} {{ trimPrefix "pocket-" .name }}"#).unwrap(),
            "a,b 2 poc id"
        );
        assert_eq!(r(r#"{{ join "," .holes }} {{ .n }} {{ print 1 2 }} {{ print "a" 1 }}"#).unwrap(), "a,b 3 1 2 a1");
        assert_eq!(
            r(r#"{{ .missing | default "x" }} {{ if .missing }}set{{ else }}unset{{ end }}"#).unwrap(),
            "x unset"
        );
        assert_eq!(r(r#"{{ "a\x41\n" | trim }}"#).unwrap(), "aA");
    }

    #[test]
    fn conditions_and_trim_markers() {
        assert_eq!(r("a {{- if .serverSideDiff }} yes {{- else }} no {{- end }} b").unwrap(), "a yes b");
        assert_eq!(r(r#"{{ if eq .name "x" }}1{{ else if hasKey . "n" }}2{{ else }}3{{ end }}"#).unwrap(), "2");
        assert_eq!(r("{{/* a comment */}}{{ $.name }}").unwrap(), "pocket-id");
        assert_eq!(r("{{ if not .missing }}none{{ end }}").unwrap(), "none");
        // Only Go's whitespace is trimmed: a no-break space stays.
        assert_eq!(r("x\u{a0} {{- .s }}").unwrap(), "x\u{a0}text");
    }

    #[test]
    fn what_go_would_do_differently_or_fail_on_is_refused() {
        let refused = |t: &str, why: &str| {
            let e = r(t).expect_err(t);
            assert!(e.contains(why), "{t}: {e}");
        };
        refused("{{ .missing }}", "no generator sets");
        refused("{{ .name | sha1sum }}", "`sha1sum`");
        refused("{{ range .tags }}{{ . }}{{ end }}", "`range`");
        refused("{{ $x := .name }}", "variable");
        refused("{{ if .name }}x", "no `end`");
        refused("{{ end }}", "without an `if`");
        // Types Go checks: a number where a string goes, a non-boolean condition, a comparison with a number.
        refused("{{ lower .n }}", "not a string");
        refused(r#"{{ ternary "a" "b" "yes" }}"#, "not a boolean");
        refused("{{ if gt .n 2 }}x{{ end }}", "other than strings");
        refused("{{ eq .n 3 }}", "compares numbers");
        refused(r#"{{ printf "%d" .n }}"#, "%d");
        refused(r#"{{ printf "a" "b" }}"#, "more arguments");
        refused("{{ .big }}", "12345678");
        refused("{{ .s.x }}", "no fields");
        refused("{{ toString .missing }}", "not set");
        refused(r#"{{ upper "straße" }}"#, "characters");
        refused(r#"{{ trunc 1 "é" }}"#, "inside a character");
        refused(r#"{{ default "a" "b" "c" }}"#, "3 arguments");
        refused(r#"{{ "\q" }}"#, "escape");
        refused("{{ .5 }}", "not a field");
        refused("{{ lower.s }}", "field of a function");
        refused("{{ /* spaced */ }}", "comment");
    }

    #[test]
    fn missingkey_error_refuses_every_missing_lookup() {
        assert!(render(r#"{{ .missing | default "x" }}"#, &data(), true).unwrap_err().contains("`.missing`"));
        assert_eq!(render("{{ .name }}", &data(), true).unwrap(), "pocket-id");
    }

    #[test]
    fn hostile_templates_are_bounded() {
        let deep = format!("{}x{}", "{{ if 1 }}".repeat(2000), "{{ end }}".repeat(2000));
        assert!(r(&deep).unwrap_err().contains("nests"));
        let parens = format!("{{{{ {}1{} }}}}", "(".repeat(2000), ")".repeat(2000));
        assert!(r(&parens).unwrap_err().contains("nests"));
        let mut grow = String::from(r#""aaaaaaaaaaaaaaaa""#);
        for _ in 0..8 {
            grow = format!(r#"(replace "a" "aaaaaaaaaaaaaaaa" {grow})"#);
        }
        assert!(r(&format!("{{{{ {grow} }}}}")).unwrap_err().contains("longer"));
    }
}
