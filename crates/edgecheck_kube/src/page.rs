//! One page of a list answer, parsed in one pass: each item is handed over as it is parsed, so a
//! page is never held as values besides its bytes, and a Secret is summarised (and its values dropped)
//! before the next item is read.

use std::fmt;

use edgecheck_core::Value;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Calls `on_item` with every item of the list in `body`; the continue token, if any. `Err`: the body
/// is not a list (malformed, wrong types, not JSON) or `on_item` refused an item.
#[cfg(test)]
pub(crate) fn parse(
    body: &[u8],
    on_item: &mut dyn FnMut(Value) -> Result<(), String>,
) -> Result<Option<String>, String> {
    parse_page(body, on_item).map(|m| m.continue_)
}

/// What a list page's `metadata` says: the continue token and the list's `resourceVersion` (where a
/// watch starts).
#[derive(Debug, Default)]
pub(crate) struct PageMeta {
    pub(crate) continue_: Option<String>,
    pub(crate) resource_version: Option<String>,
}

/// [`parse`], with the list's `resourceVersion` too.
pub(crate) fn parse_page(
    body: &[u8],
    on_item: &mut dyn FnMut(Value) -> Result<(), String>,
) -> Result<PageMeta, String> {
    let mut refused: Option<String> = None;
    let result = {
        // What `on_item` refuses is reported as it said it, not as a JSON error at a position.
        let mut checked = |v: Value| {
            on_item(v).map_err(|e| {
                refused = Some(e);
                String::from("refused")
            })
        };
        let mut de = serde_json::Deserializer::from_slice(body);
        ListSeed { on_item: &mut checked }.deserialize(&mut de).and_then(|t| de.end().map(|()| t))
    };
    if let Some(e) = refused {
        return Err(e);
    }
    match result.map_err(|e| describe(&e))? {
        (_, false) => Err("the answer is not a list (no items)".into()),
        (meta, true) => Ok(meta),
    }
}

fn describe(e: &serde_json::Error) -> String {
    // Without the input (a value could be a secret): the category and the position.
    let what = match e.classify() {
        serde_json::error::Category::Io => "cannot read the list",
        serde_json::error::Category::Syntax => "the list is not JSON (malformed, or another encoding such as protobuf)",
        serde_json::error::Category::Data => "the list has unexpected types",
        serde_json::error::Category::Eof => "the list is truncated",
    };
    let msg = e.to_string();
    let detail = match msg.split_once(" at line ") {
        Some((d, _)) if e.classify() == serde_json::error::Category::Data => format!("{}, ", without_values(d)),
        _ => String::new(),
    };
    format!("{what} ({detail}line {} column {})", e.line(), e.column())
}

/// serde's message with every quoted value (`"..."`, `` `...` ``) left out: the types stay.
fn without_values(msg: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in msg.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '`' => {
                quote = Some(c);
                out.truncate(out.trim_end().len());
            }
            None => out.push(c),
        }
    }
    out
}

struct ListSeed<'a> {
    on_item: &'a mut dyn FnMut(Value) -> Result<(), String>,
}

impl<'de> DeserializeSeed<'de> for ListSeed<'_> {
    type Value = (PageMeta, bool);
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_> {
    /// The list's metadata, and whether there were items.
    type Value = (PageMeta, bool);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut token = PageMeta::default();
        let mut items = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "items" => {
                    map.next_value_seed(ItemsSeed { on_item: &mut *self.on_item })?;
                    items = true;
                }
                "metadata" => {
                    let m = map.next_value::<ListMeta>()?;
                    token = PageMeta { continue_: m.continue_, resource_version: m.resource_version };
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((token, items))
    }
}

#[derive(serde::Deserialize)]
struct ListMeta {
    #[serde(rename = "continue")]
    continue_: Option<String>,
    #[serde(rename = "resourceVersion")]
    resource_version: Option<String>,
}

struct ItemsSeed<'a> {
    on_item: &'a mut dyn FnMut(Value) -> Result<(), String>,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of items")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(()) // `items: null`: an empty list
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<Value>()? {
            (self.on_item)(item).map_err(de::Error::custom)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(body: &str) -> (Result<Option<String>, String>, usize) {
        let mut n = 0;
        let r = parse(body.as_bytes(), &mut |_| {
            n += 1;
            Ok(())
        });
        (r, n)
    }

    #[test]
    fn lists_and_not_lists() {
        assert_eq!(
            items(r#"{"kind":"ServiceList","metadata":{"continue":"abc"},"items":[{},{}]}"#),
            (Ok(Some("abc".into())), 2)
        );
        assert_eq!(items(r#"{"items":null,"metadata":{}}"#), (Ok(None), 0));
        let (r, _) = items(r#"{"items":"s3cr3t"}"#);
        let e = r.unwrap_err();
        assert_eq!(
            e,
            "the list has unexpected types (invalid type: string, expected a sequence of items, line 1 column 17)"
        );
        assert_eq!(without_values(r#"invalid type: string "a\"b", expected x"#), "invalid type: string, expected x");
        assert!(!e.contains("s3cr3t"), "{e}");
        let (r, _) = items("\u{8}\u{1}k8s\0garbage");
        assert!(r.unwrap_err().contains("not JSON"));
        let (r, _) = items(r#"{"kind":"Status"}"#);
        assert_eq!(r.unwrap_err(), "the answer is not a list (no items)");
        let mut n = 0;
        let r = parse(br#"{"items":[{},{},{}]}"#, &mut |_| {
            n += 1;
            if n > 1 {
                Err("too many".into())
            } else {
                Ok(())
            }
        });
        assert_eq!((r, n), (Err("too many".into()), 2));
        let (r, n) = items(r#"{"items":[{},{}"#);
        assert!(r.unwrap_err().starts_with("the list is truncated"));
        assert_eq!(n, 2);
    }
}
