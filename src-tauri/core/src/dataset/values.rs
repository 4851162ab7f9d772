//! Converting one source value into the type its canonical field needs: text, a list of
//! strings, contexts, RAGChecker claims and labels.
//!
//! Owns: the type rules of DATA.md (blank is absent, numbers/booleans become text with a
//! warning, objects/arrays where text is expected are errors naming the field). Must
//! not: decide which alias wins or where unknown fields go (`mapping` does).
//! Errors are the user-facing reason for rejecting the record.

use serde_json::{Map, Value};

use crate::item::{Context, Label};

/// "a number", "an array": how a JSON value's type reads in a message.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// Whether a value counts as not given at all.
pub(crate) fn is_absent(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => is_blank(s),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Text from a scalar; `None` when blank. `field` names the value in messages.
///
/// One rule for every field (DATA.md): a number or boolean where text is expected is
/// converted and reported as a warning — an id (`gold_id: 17`) as much as an answer
/// (`ground_truth: 5`). A list reports it once, not once per entry.
/// A score or count as a number: a JSON number, a boolean (1 / 0) or numeric text
/// ("0.5", "NaN" as pandas writes a missing score); anything else is not a number.
pub(crate) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

pub(crate) fn text(
    field: &str,
    v: Value,
    warnings: &mut Vec<String>,
) -> Result<Option<String>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok((!is_blank(&s)).then_some(s)),
        Value::Number(_) | Value::Bool(_) => {
            warnings.push(format!("`{field}` is {}; converted to text", type_name(&v)));
            Ok(Some(scalar_to_string(v)))
        }
        Value::Array(_) | Value::Object(_) => {
            Err(format!("`{field}` is {}; expected text", type_name(&v)))
        }
    }
}

fn scalar_to_string(v: Value) -> String {
    match v {
        Value::String(s) => s,
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// A list of strings (ids, aspects, reference contexts). A lone string is a one-item
/// list; blank entries are skipped; a list of lists of text is read as one list. Entries may be `{text}` objects (reference contexts)
/// or `{id}` / `{doc_id}` objects (id lists).
pub(crate) fn string_list(
    field: &str,
    v: Value,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>, String> {
    let listed = matches!(v, Value::Array(_));
    let elements = match v {
        Value::Array(a) => a,
        scalar @ (Value::String(_) | Value::Number(_) | Value::Bool(_)) => vec![scalar],
        Value::Null => return Ok(Vec::new()),
        Value::Object(_) => {
            return Err(format!("`{field}` is an object; expected a list of text"));
        }
    };
    let mut out = Vec::with_capacity(elements.len());
    let mut converted = Vec::new();
    let label = |i: usize| {
        if listed {
            format!("{field}[{i}]")
        } else {
            field.to_string()
        }
    };
    for (i, element) in elements.into_iter().enumerate() {
        let piece = match element {
            Value::String(s) => (!is_blank(&s)).then_some(s),
            // Groups of text, one level deep (AutoRAG's `retrieval_gt`: the passages
            // that answer each part of the question): read in order, one list.
            Value::Array(group) if group.iter().all(Value::is_string) => {
                out.extend(group.into_iter().filter_map(|g| match g {
                    Value::String(s) if !is_blank(&s) => Some(s),
                    _ => None,
                }));
                continue;
            }
            Value::Object(mut o) => {
                // `{text}` for reference contexts, `{id}` / `{doc_id}` for id lists.
                let inner = take_text_key(&mut o)
                    .or_else(|| ["id", "doc_id"].iter().find_map(|k| o.shift_remove(*k)))
                    .ok_or_else(|| format!("`{field}[{i}]` is an object without text or id"))?;
                text(&label(i), inner, &mut converted)?
            }
            other => text(&label(i), other, &mut converted)?,
        };
        out.extend(piece);
    }
    warn_once(field, converted, warnings);
    Ok(out)
}

/// One warning for a list whose entries were converted.
fn warn_once(field: &str, converted: Vec<String>, warnings: &mut Vec<String>) {
    match converted.len() {
        0 => {}
        1 => warnings.extend(converted),
        n => warnings.push(format!(
            "`{field}` has {n} entries that are numbers or booleans; converted to text"
        )),
    }
}

/// Removes and returns the chunk text of a `{text|content|page_content}` object.
/// The keys a passage object keeps its text under, in the order looked for.
const TEXT_KEYS: [&str; 3] = ["text", "content", "page_content"];

fn take_text_key(o: &mut Map<String, Value>) -> Option<Value> {
    TEXT_KEYS.iter().find_map(|k| o.shift_remove(*k))
}

/// Retrieved chunks, with keys other than id/text returned per chunk so they are kept.
pub(crate) struct Chunks {
    pub contexts: Vec<Context>,
    /// Same length as `contexts` when any chunk had extra keys, else empty.
    pub extras: Vec<Value>,
}

pub(crate) fn contexts(
    field: &str,
    v: Value,
    max_contexts: usize,
    warnings: &mut Vec<String>,
) -> Result<Chunks, String> {
    let (elements, listed) = match v {
        Value::Array(a) => (a, true),
        other => (vec![other], false),
    };
    if elements.len() > max_contexts {
        return Err(format!(
            "`{field}` holds {} contexts, over the limit of {max_contexts} per item",
            elements.len()
        ));
    }
    let mut chunks = Chunks {
        contexts: Vec::with_capacity(elements.len()),
        extras: Vec::new(),
    };
    let mut converted = Vec::new();
    for (i, element) in elements.into_iter().enumerate() {
        let (id, text_value, extra) = match element {
            Value::Object(o) if keyed_passage(&o) => unkey_passage(o),
            Value::Object(mut o) => {
                let id = ["doc_id", "id"].iter().find_map(|k| o.shift_remove(*k));
                let Some(text_value) = take_text_key(&mut o) else {
                    return Err(format!(
                        "`{field}[{i}]` has no text (expected text, content or page_content)"
                    ));
                };
                let id = match id {
                    Some(Value::String(s)) => (!is_blank(&s)).then_some(s),
                    Some(v) => text(&format!("{field}[{i}].id"), v, &mut converted)?,
                    None => None,
                };
                (id, text_value, (!o.is_empty()).then_some(Value::Object(o)))
            }
            Value::Array(_) => {
                return Err(format!(
                    "`{field}[{i}]` is an array; expected text or {{id, text}}"
                ));
            }
            other => (None, other, None),
        };
        let chunk_text = match text_value {
            // The common case, without building a field label.
            Value::String(s) if !is_blank(&s) => Some(s),
            other => {
                let label = if listed {
                    format!("{field}[{i}]")
                } else {
                    field.to_string()
                };
                let text = text(&label, other, &mut converted)?;
                if text.is_none() {
                    warnings.push(format!("`{label}` is empty and was skipped"));
                }
                text
            }
        };
        let Some(text) = chunk_text else { continue };
        if let Some(extra) = extra {
            chunks.extras.resize(chunks.contexts.len(), Value::Null);
            chunks.extras.push(extra);
        } else if !chunks.extras.is_empty() {
            chunks.extras.push(Value::Null);
        }
        chunks.contexts.push(Context { id, text });
    }
    warn_once(field, converted, warnings);
    Ok(chunks)
}

/// A passage keyed by its id: one entry whose value is text or an object with text.
fn keyed_passage(o: &Map<String, Value>) -> bool {
    if o.len() != 1 {
        return false;
    }
    match o.values().next() {
        Some(Value::String(_)) => !o.keys().any(|k| TEXT_KEYS.contains(&k.as_str())),
        Some(Value::Object(inner)) => inner.keys().any(|k| TEXT_KEYS.contains(&k.as_str())),
        _ => false,
    }
}

/// promptflow's `{"[doc1]": {"title": …, "content": …}}`: the key is the id the answer
/// cites; (id, text, the other keys).
fn unkey_passage(o: Map<String, Value>) -> (Option<String>, Value, Option<Value>) {
    let (key, inner) = o.into_iter().next().expect("one entry");
    let (text_value, extra) = match inner {
        Value::Object(mut inner) => {
            let text = take_text_key(&mut inner).expect("checked by keyed_passage");
            (text, (!inner.is_empty()).then_some(Value::Object(inner)))
        }
        text => (text, None),
    };
    (Some(key), text_value, extra)
}

/// RAGChecker claims: each a string or a `[subject, relation, object]` triplet.
pub(crate) fn claims(field: &str, v: Value) -> Result<Vec<String>, String> {
    let Value::Array(elements) = v else {
        return Err(format!(
            "`{field}` is {}; expected a list of claims",
            type_name(&v)
        ));
    };
    elements
        .into_iter()
        .enumerate()
        .map(|(i, claim)| match claim {
            Value::String(s) => Ok(s),
            Value::Array(parts) => {
                let mut joined = String::new();
                for part in parts {
                    let part = match part {
                        Value::String(s) => s,
                        p @ (Value::Number(_) | Value::Bool(_)) => scalar_to_string(p),
                        Value::Null => continue,
                        other => {
                            return Err(format!(
                                "`{field}[{i}]` holds {}; expected text parts",
                                type_name(&other)
                            ))
                        }
                    };
                    if !joined.is_empty() {
                        joined.push(' ');
                    }
                    joined.push_str(&part);
                }
                Ok(joined)
            }
            other => Err(format!(
                "`{field}[{i}]` is {}; expected a claim (text or [subject, relation, object])",
                type_name(&other)
            )),
        })
        .collect()
}

/// A list of entailment labels (`answer2response`, `response2answer`).
pub(crate) fn labels(field: &str, v: Value) -> Result<Vec<Label>, String> {
    let Value::Array(elements) = v else {
        return Err(format!(
            "`{field}` is {}; expected a list of labels",
            type_name(&v)
        ));
    };
    elements
        .into_iter()
        .enumerate()
        .map(|(i, l)| label(&format!("{field}[{i}]"), l))
        .collect()
}

/// A list of label lists (`retrieved2response`, `retrieved2answer`).
pub(crate) fn label_matrix(field: &str, v: Value) -> Result<Vec<Vec<Label>>, String> {
    let Value::Array(rows) = v else {
        return Err(format!(
            "`{field}` is {}; expected a list of label lists",
            type_name(&v)
        ));
    };
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| labels(&format!("{field}[{i}]"), row))
        .collect()
}

fn label(field: &str, v: Value) -> Result<Label, String> {
    match &v {
        Value::String(s) => Label::parse(s).ok_or_else(|| {
            format!("`{field}` has an unknown label {v} (expected Entailment, Neutral or Contradiction)")
        }),
        other => Err(format!("`{field}` is {}; expected a label", type_name(other))),
    }
}

/// The whitespace-token count of `text` when it is over `budget`.
pub(crate) fn tokens_over(text: &str, budget: usize) -> Option<usize> {
    // Every token is at least one byte, so a short text cannot be over budget.
    if text.len() <= budget {
        return None;
    }
    let count = text.split_whitespace().count();
    (count > budget).then_some(count)
}
