//! ALCE-style citation files (ALCE prompts and outputs, Citekit): `docs` are the
//! passages the answer cites as `[n]`, the n-th document (1-based), so each becomes a
//! context whose id is its position; a model's `output` beside a reference `answer` is
//! the answer, and the `answer` the ground truth; ALCE's `citation_recall` and
//! `citation_precision` are prior scores.
//!
//! Owns: those readings. Must not: map fields.

use serde_json::{json, Map, Value};

use super::super::values::number;
use super::Notes;

/// ALCE's own metrics, kept as prior scores (0–1).
const ALCE_METRICS: [&str; 2] = ["citation_recall", "citation_precision"];

pub(super) fn citations(record: &mut Map<String, Value>, notes: &mut Notes) {
    if let Some(Value::Array(docs)) = record.remove("docs") {
        let contexts: Vec<Value> = docs
            .into_iter()
            .enumerate()
            .filter_map(|(i, doc)| {
                passage(doc).map(|text| json!({"id": (i + 1).to_string(), "text": text}))
            })
            .collect();
        record.insert("retrieved_contexts".into(), Value::Array(contexts));
        notes.source(
            "contexts",
            "docs (title, newline, text; id = its [n], 1-based)",
        );
    }
    let has_output = record.get("output").is_some_and(|o| o.is_string());
    if has_output && record.contains_key("answer") {
        let reference = record.remove("answer").expect("checked above");
        let output = record.remove("output").expect("checked above");
        record.insert("ground_truth".into(), reference);
        record.insert("answer".into(), output);
        notes.source("answer", "output");
        notes.source("ground_truth", "answer");
        notes.choose(
            "answer",
            "output",
            vec!["answer".into()],
            "ALCE writes the model's answer as `output` and the reference as `answer`: `answer` is read as the ground truth",
        );
    }
    for name in ALCE_METRICS {
        if let Some(score) = record.remove(name).as_ref().and_then(number) {
            notes.prior(record, name, "ALCE", json!({ "score": score }));
        }
    }
}

/// A document as context text: `{title, text}` as the title, a newline and the text; a
/// string ALCE's prompt already rendered (`Document [1](Title): text`) split the same way.
fn passage(doc: Value) -> Option<String> {
    match doc {
        Value::Object(d) => {
            let field = |k: &str| d.get(k).and_then(Value::as_str).map(str::trim);
            let text = field("text").or_else(|| field("content"))?;
            Some(match field("title").filter(|t| !t.is_empty()) {
                Some(title) => format!("{title}\n{text}"),
                None => text.to_string(),
            })
        }
        Value::String(s) => Some(match rendered(&s) {
            Some((title, text)) => format!("{title}\n{text}"),
            None => s,
        }),
        _ => None,
    }
}

/// (title, text) of `Document [n](Title): text` (also `(Title: T)`), or `None`.
fn rendered(s: &str) -> Option<(&str, &str)> {
    let rest = s.trim_start().strip_prefix("Document [")?;
    let (number, rest) = rest.split_once("](")?;
    if !number.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (title, text) = rest.split_once("): ")?;
    let title = title.strip_prefix("Title: ").unwrap_or(title);
    Some((title.trim(), text.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_document_is_split_into_title_and_text() {
        assert_eq!(
            rendered("Document [2](Title: Nile): The Nile is long."),
            Some(("Nile", "The Nile is long."))
        );
        assert_eq!(
            rendered("Document [1](Argentina–Brazil): \"Football\" text"),
            Some(("Argentina–Brazil", "\"Football\" text"))
        );
        assert_eq!(rendered("Documents [x](a): b"), None);
    }

    #[test]
    fn output_is_the_answer_and_answer_the_reference() {
        let Value::Object(mut r) = json!({"question": "q", "answer": "ref [1]", "output": "model [2]",
            "docs": [{"title": "T", "text": "one"}, {"title": "U", "text": "two"}], "citation_recall": 0.5})
        else {
            unreachable!()
        };
        let mut notes = Notes::default();
        citations(&mut r, &mut notes);
        assert_eq!(r["answer"], json!("model [2]"));
        assert_eq!(r["ground_truth"], json!("ref [1]"));
        assert_eq!(
            r["retrieved_contexts"][1],
            json!({"id": "2", "text": "U\ntwo"})
        );
        assert_eq!(
            r["metadata"]["prior_scores"]["citation_recall"]["score"],
            json!(0.5)
        );
    }
}
