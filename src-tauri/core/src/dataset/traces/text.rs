//! Text inside spans' inputs and outputs: the question a person typed, the answer they
//! read, retrieved documents; strings holding JSON decoded on the way.
//!
//! Owns: those unwrapping rules. Must not: decide which span holds which field.

use serde_json::{Map, Value};

use super::super::values::number;
use super::Document;

/// Documents under `prefix`: an array value (or a JSON string holding one), or keys
/// exploded as `prefix.N.document.field` / `prefix.N.field`.
pub(super) fn documents_at(attributes: &Map<String, Value>, prefix: &str) -> Vec<Document> {
    match attributes.get(prefix) {
        Some(Value::Array(_)) => return documents_in(&attributes[prefix]),
        Some(Value::String(s)) => {
            if let Ok(value) = serde_json::from_str::<Value>(s) {
                return documents_in(&value);
            }
        }
        _ => {}
    }
    let mut docs = Vec::new();
    for n in 0.. {
        let get = |field: &str| {
            attributes
                .get(&format!("{prefix}.{n}.document.{field}"))
                .or_else(|| attributes.get(&format!("{prefix}.{n}.{field}")))
        };
        let id = get("id").and_then(as_text);
        let content = get("content").or_else(|| get("text")).and_then(as_text);
        let score = get("score").and_then(number);
        if id.is_none() && content.is_none() && score.is_none() {
            break;
        }
        docs.push((id, content, score));
    }
    docs
}

/// Documents in a JSON value: a list of document objects (or of strings), directly or
/// under `documents`.
pub(super) fn documents_in(value: &Value) -> Vec<Document> {
    let list = match value {
        Value::Array(list) => list,
        Value::Object(map) => match map.get("documents").or_else(|| map.get("output")) {
            Some(inner) => return documents_in(inner),
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    list.iter()
        .filter_map(|doc| match doc {
            Value::String(s) => Some((None, Some(s.clone()), None)),
            Value::Object(d) => {
                let d = d.get("document").and_then(Value::as_object).unwrap_or(d);
                let meta = d.get("metadata").and_then(Value::as_object);
                fn present<'m>(m: &'m Map<String, Value>, k: &str) -> Option<&'m Value> {
                    m.get(k).filter(|v| !v.is_null())
                }
                let pick = |keys: &[&str]| {
                    keys.iter()
                        .find_map(|k| present(d, k).or_else(|| meta.and_then(|m| present(m, k))))
                };
                let content = first_text(d, &["page_content", "pageContent", "content", "text"]);
                let id = pick(&["id", "doc_id", "document_id"]).and_then(as_text);
                let score = pick(&["score", "relevance_score"]).and_then(number);
                (id.is_some() || content.is_some()).then_some((id, content, score))
            }
            _ => None,
        })
        .collect()
}

pub(super) fn first_text(map: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| map.get(*k).and_then(as_text))
}

pub(super) fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
