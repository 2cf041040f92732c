//! Go `text/template` over one string, as an ApplicationSet with `goTemplate: true` renders each string of its
//! template: text and actions (`{{ }}`, trim markers `{{-` and `-}}`, comments), pipelines (`a | b`,
//! parentheses, string, number and boolean literals, `.field.path` and `$`), `if` / `else if` / `else` /
//! `end`, Go's builtins (`eq`, `ne`, `lt`, `le`, `gt`, `ge`, `and`, `or`, `not`, `len`, `index`, `print`,
//! `printf`) and the Sprig and Argo CD functions ApplicationSets use (`default`, `dig`, `ternary`,
//! `toString`, `lower`, `upper`, `trim`, `replace`, `quote`, `join`, `normalize`, ...; [`call`]). Anything
//! else (`range`, `with`, variables, another function) is refused with its name, never guessed.

use edgecheck_core::{Map, Value};

/// Why a string is not rendered.
pub type Refusal = String;

/// Renders `text` with `dot` as the data (`.` and `$`).
pub fn render(text: &str, dot: &Value) -> Result<String, Refusal> {
    let items = lex(text)?;
    let mut pos = 0;
    let (nodes, end) = parse(&items, &mut pos)?;
    if end.is_some() {
        return Err("its template has an `else` or `end` without an `if`".into());
    }
    let mut out = String::new();
    exec(&nodes, dot, &mut out)?;
    Ok(out)
}

/// Text and actions, trim markers applied.
enum Item {
    Text(String),
    Action(Vec<Tok>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Num(f64, bool),
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
            before = before.trim_start();
        }
        let after = &rest[i + 2..];
        let (after, trim_before) = match after.strip_prefix('-') {
            Some(a) if a.starts_with(|c: char| c.is_whitespace()) => (a, true),
            _ => (after, false),
        };
        if trim_before {
            before = before.trim_end();
        }
        if !before.is_empty() {
            items.push(Item::Text(before.to_string()));
        }
        let close = find_close(after).ok_or("its template has a `{{` without `}}`")?;
        let mut inner = &after[..close];
        trim_next = false;
        if let Some(x) = inner.strip_suffix('-') {
            if x.ends_with(|c: char| c.is_whitespace()) {
                inner = x;
                trim_next = true;
            }
        }
        let inner = inner.trim();
        if !(inner.starts_with("/*") && inner.ends_with("*/")) {
            items.push(Item::Action(tokens(inner)?));
        }
        rest = &after[close + 2..];
    }
    let rest = if trim_next { rest.trim_start() } else { rest };
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
                    match chars.get(i) {
                        None => return Err(format!("its template's `{s}` has an unterminated string")),
                        Some('"') => break,
                        Some('\\') => {
                            i += 1;
                            match chars.get(i) {
                                Some('n') => v.push('\n'),
                                Some('t') => v.push('\t'),
                                Some(&x) => v.push(x),
                                None => return Err(format!("its template's `{s}` has an unterminated string")),
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
                out.push(Tok::Field(path.split('.').filter(|p| !p.is_empty()).map(str::to_string).collect()));
            }
            _ if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) => {
                let start = i;
                i += 1;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                let n: f64 = text.parse().map_err(|_| format!("its template's `{s}` has a number it cannot read"))?;
                out.push(Tok::Num(n, !text.contains('.')));
            }
            _ if word(c) => {
                let start = i;
                while i < chars.len() && word(chars[i]) {
                    i += 1;
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

fn parse(items: &[Item], pos: &mut usize) -> Result<(Vec<Node>, Option<End>), Refusal> {
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
                    let (body, end) = parse(items, pos)?;
                    branches.push((cond, body));
                    match end {
                        Some(End::End) => break Vec::new(),
                        Some(End::Else(Some(next))) => cond = next,
                        Some(End::Else(None)) => match parse(items, pos)? {
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
            Tok::Num(n, integer) => args.push(Arg::Lit(if *integer {
                Value::from(*n as i64)
            } else {
                serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number)
            })),
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

fn exec(nodes: &[Node], dot: &Value, out: &mut String) -> Result<(), Refusal> {
    for n in nodes {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Action(p) => out.push_str(&print(&eval(p, dot)?)?),
            Node::If(branches, otherwise) => {
                let mut taken = false;
                for (cond, body) in branches {
                    if truthy(&eval(cond, dot)?) {
                        exec(body, dot, out)?;
                        taken = true;
                        break;
                    }
                }
                if !taken {
                    exec(otherwise, dot, out)?;
                }
            }
        }
    }
    Ok(())
}

fn eval(p: &Pipe, dot: &Value) -> Result<Value, Refusal> {
    let mut prev: Option<Value> = None;
    for Cmd(args) in p {
        let v = match &args[0] {
            Arg::Func(name) => {
                let mut values = Vec::with_capacity(args.len());
                for a in &args[1..] {
                    values.push(operand(a, dot)?);
                }
                values.extend(prev.take());
                call(name, values)?
            }
            first => {
                if args.len() > 1 || prev.is_some() {
                    return Err("its template gives arguments to a value that is not a function".into());
                }
                operand(first, dot)?
            }
        };
        prev = Some(v);
    }
    Ok(prev.unwrap_or(Value::Null))
}

fn operand(a: &Arg, dot: &Value) -> Result<Value, Refusal> {
    match a {
        Arg::Lit(v) => Ok(v.clone()),
        Arg::Sub(p) => eval(p, dot),
        Arg::Field(path) => {
            let mut cur = dot;
            for k in path {
                match cur.get(k.as_str()) {
                    Some(v) => cur = v,
                    None => return Ok(Value::Null),
                }
            }
            Ok(cur.clone())
        }
        Arg::Func(name) => call(name, Vec::new()),
    }
}

/// As Go prints a value in an action; a missing one (`<no value>`) is refused, as a name no generator sets.
fn print(v: &Value) -> Result<String, Refusal> {
    match v {
        Value::Null => Err("its template names a parameter no generator sets".into()),
        other => Ok(text(other)),
    }
}

/// `fmt.Sprint` of a value: strings as they are, lists as `[a b]`, maps as `map[k:v]`.
fn text(v: &Value) -> String {
    match v {
        Value::Null => "<no value>".into(),
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(a) => format!("[{}]", a.iter().map(text).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let mut entries: Vec<String> = m.iter().map(|(k, x)| format!("{k}:{}", text(x))).collect();
            entries.sort();
            format!("map[{}]", entries.join(" "))
        }
    }
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

fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn order(a: &Value, b: &Value) -> Result<std::cmp::Ordering, Refusal> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.as_f64().partial_cmp(&y.as_f64()).ok_or_else(|| "its template compares numbers it cannot".into())
        }
        (Value::String(x), Value::String(y)) => Ok(x.cmp(y)),
        _ => Err("its template compares values of different types".into()),
    }
}

fn string(v: &Value) -> String {
    text(v)
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
    let s = |v: &Value| string(v);
    Ok(match name {
        "eq" => {
            let (first, rest) = args.split_first().ok_or("its template calls `eq` without arguments")?;
            Value::Bool(rest.iter().any(|x| equal(first, x)))
        }
        "ne" => {
            arity(name, &args, 2)?;
            Value::Bool(!equal(&args[0], &args[1]))
        }
        "lt" | "le" | "gt" | "ge" => {
            arity(name, &args, 2)?;
            let o = order(&args[0], &args[1])?;
            Value::Bool(match name {
                "lt" => o.is_lt(),
                "le" => o.is_le(),
                "gt" => o.is_gt(),
                _ => o.is_ge(),
            })
        }
        "and" => args.iter().find(|v| !truthy(v)).or(args.last()).cloned().unwrap_or(Value::Null),
        "or" => args.iter().find(|v| truthy(v)).or(args.last()).cloned().unwrap_or(Value::Null),
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
        "print" => Value::from(args.iter().map(text).collect::<String>()),
        "printf" => {
            let (format, rest) = args.split_first().ok_or("its template calls `printf` without a format")?;
            Value::from(printf(&s(format), rest)?)
        }
        "toString" => {
            arity(name, &args, 1)?;
            Value::from(s(&args[0]))
        }
        "default" => {
            let given = if args.len() == 2 { args.pop() } else { None };
            let fallback = args.pop().ok_or("its template calls `default` without arguments")?;
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
            let cond = args.pop().unwrap_or(Value::Null);
            let no = args.pop().unwrap_or(Value::Null);
            let yes = args.pop().unwrap_or(Value::Null);
            if truthy(&cond) {
                yes
            } else {
                no
            }
        }
        "dig" => {
            if args.len() < 3 {
                return Err("its template calls `dig` without keys, a default and a map".into());
            }
            let dict = args.pop().unwrap_or(Value::Null);
            let fallback = args.pop().unwrap_or(Value::Null);
            let mut cur = &dict;
            for k in &args {
                match cur.get(s(k).as_str()) {
                    Some(v) => cur = v,
                    None => return Ok(fallback),
                }
            }
            cur.clone()
        }
        "hasKey" => {
            arity(name, &args, 2)?;
            Value::Bool(args[0].get(s(&args[1]).as_str()).is_some())
        }
        "lower" | "upper" | "trim" | "quote" | "squote" | "normalize" => {
            arity(name, &args, 1)?;
            let x = s(&args[0]);
            Value::from(match name {
                "lower" => x.to_lowercase(),
                "upper" => x.to_uppercase(),
                "trim" => x.trim().to_string(),
                "quote" => serde_json::to_string(&x).unwrap_or_default(),
                "squote" => format!("'{x}'"),
                _ => normalize(&x),
            })
        }
        "trimPrefix" | "trimSuffix" | "hasPrefix" | "hasSuffix" | "contains" => {
            arity(name, &args, 2)?;
            let (a, x) = (s(&args[0]), s(&args[1]));
            match name {
                "trimPrefix" => Value::from(x.strip_prefix(a.as_str()).unwrap_or(&x)),
                "trimSuffix" => Value::from(x.strip_suffix(a.as_str()).unwrap_or(&x)),
                "hasPrefix" => Value::Bool(x.starts_with(a.as_str())),
                "hasSuffix" => Value::Bool(x.ends_with(a.as_str())),
                _ => Value::Bool(x.contains(a.as_str())),
            }
        }
        "replace" => {
            arity(name, &args, 3)?;
            Value::from(s(&args[2]).replace(s(&args[0]).as_str(), s(&args[1]).as_str()))
        }
        "trunc" => {
            arity(name, &args, 2)?;
            let n = args[0].as_i64().ok_or("its template's `trunc` length is not a number")?;
            let x: Vec<char> = s(&args[1]).chars().collect();
            let len = x.len() as i64;
            let kept: String = if n >= 0 {
                x[..n.min(len) as usize].iter().collect()
            } else {
                x[(len + n).max(0) as usize..].iter().collect()
            };
            Value::from(kept)
        }
        "join" => {
            arity(name, &args, 2)?;
            let items = args[1].as_array().ok_or("its template joins a value that is not a list")?;
            Value::from(items.iter().map(text).collect::<Vec<_>>().join(s(&args[0]).as_str()))
        }
        "splitList" => {
            arity(name, &args, 2)?;
            let sep = s(&args[0]);
            Value::Array(s(&args[1]).split(sep.as_str()).map(Value::from).collect())
        }
        "list" => Value::Array(args),
        "first" | "last" => {
            arity(name, &args, 1)?;
            let items = args[0]
                .as_array()
                .ok_or_else(|| format!("its template takes `{name}` of a value that is not a list"))?;
            let item = if name == "first" { items.first() } else { items.last() };
            item.cloned().unwrap_or(Value::Null)
        }
        "toJson" => {
            arity(name, &args, 1)?;
            Value::from(serde_json::to_string(&serde_json::Value::from(&args[0])).unwrap_or_default())
        }
        "int" | "atoi" => {
            arity(name, &args, 1)?;
            let n = match &args[0] {
                Value::Number(n) => n.as_f64().unwrap_or(0.0) as i64,
                Value::String(x) => x.trim().parse::<i64>().unwrap_or(0),
                Value::Bool(b) => i64::from(*b),
                _ => 0,
            };
            Value::from(n)
        }
        "dict" => {
            if !args.len().is_multiple_of(2) {
                return Err("its template calls `dict` with an odd number of arguments".into());
            }
            let mut m = Map::new();
            for pair in args.chunks(2) {
                m.insert(s(&pair[0]).into(), pair[1].clone());
            }
            Value::Object(m)
        }
        _ => return Err(format!("its template uses `{name}`, a Go template function edgecheck does not evaluate")),
    })
}

/// Argo CD's `normalize`: lower case, characters a name cannot hold replaced by `-`.
fn normalize(s: &str) -> String {
    s.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '-' })
        .collect()
}

/// `fmt.Sprintf` for the verbs templates use: `%s`, `%v`, `%d`, `%q`, `%t` and `%%`.
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
        match verb {
            's' | 'v' | 't' => out.push_str(&text(arg)),
            'd' => match arg {
                Value::Number(n) if n.as_i64().is_some() => out.push_str(&n.to_string()),
                other => out.push_str(&format!("%!d({})", text(other))),
            },
            'q' => out.push_str(&serde_json::to_string(&text(arg)).unwrap_or_default()),
            _ => return Err(format!("its template's printf uses `%{verb}`, which edgecheck does not evaluate")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::render;
    use edgecheck_core::json;

    fn r(t: &str) -> Result<String, String> {
        render(
            t,
            &json!({"name": "pocket-id", "serverSideDiff": true, "n": 3,
            "path": {"basename": "Web_App", "segments": ["apps", "web"]}, "tags": ["a", "b"]}),
        )
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
        assert_eq!(r(r#"{{ .name | replace "-" "." | quote }}"#).unwrap(), r#""pocket.id""#);
        assert_eq!(
            r(r#"{{ join "," .tags }} {{ len .tags }} {{ trunc 3 .name }} {{ trimPrefix "pocket-" .name }}"#).unwrap(),
            "a,b 2 poc id"
        );
        assert_eq!(r(r#"{{ .missing | default "x" }} {{ if gt .n 2 }}big{{ else }}small{{ end }}"#).unwrap(), "x big");
    }

    #[test]
    fn conditions_and_trim_markers() {
        assert_eq!(r("a {{- if .serverSideDiff }} yes {{- else }} no {{- end }} b").unwrap(), "a yes b");
        assert_eq!(r(r#"{{ if eq .name "x" }}1{{ else if hasKey . "n" }}2{{ else }}3{{ end }}"#).unwrap(), "2");
        assert_eq!(r("{{/* a comment */}}{{ $.name }}").unwrap(), "pocket-id");
        assert_eq!(r("{{ if not .missing }}none{{ end }}").unwrap(), "none");
    }

    #[test]
    fn what_is_not_evaluated_is_refused_by_name() {
        assert!(r("{{ .missing }}").unwrap_err().contains("no generator sets"));
        assert!(r("{{ .name | sha1sum }}").unwrap_err().contains("`sha1sum`"));
        assert!(r("{{ range .tags }}{{ . }}{{ end }}").unwrap_err().contains("`range`"));
        assert!(r("{{ $x := .name }}").unwrap_err().contains("variable"));
        assert!(r("{{ if .name }}x").unwrap_err().contains("no `end`"));
        assert!(r("{{ end }}").unwrap_err().contains("without an `if`"));
    }
}
