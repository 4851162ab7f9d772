//! OpenAI Evals run logs (`oaieval … --record_path`): a `spec` line, then one event per
//! line (`{run_id, event_id, sample_id, type, data}`), then a `final_report` line. A
//! `sampling` event is an item: the prompt's last user turn is the question (the chat
//! unfolding reads it), `data.sampled` the model's answer, the sample id its id. The
//! service behind these logs closes on 2026-11-30 and its users are moving their data.
//!
//! Owns: recognising the log and reshaping its events. Must not: join events across
//! lines (a `match` event's verdict stays a skipped line that says so).

use serde_json::{Map, Value};

use super::Notes;

/// Whether the first record of a file is an OpenAI Evals log line.
pub(crate) fn is_log(keys: &std::collections::BTreeSet<&str>) -> bool {
    (keys.len() == 1 && keys.contains("spec"))
        || ["run_id", "event_id", "sample_id", "type", "data"]
            .iter()
            .all(|k| keys.contains(k))
}

/// Why a line of the log is not an item, when it is not one.
pub(crate) fn not_an_item(record: &Map<String, Value>) -> Option<String> {
    if record.contains_key("spec") {
        return Some("the run's spec line (which eval, which model): not an item".into());
    }
    if record.contains_key("final_report") {
        return Some("the run's final report (its aggregate scores): not an item".into());
    }
    match record.get("type").and_then(Value::as_str) {
        Some("sampling") | None => None,
        Some(kind) => Some(format!(
            "a `{kind}` event of sample {}: its verdict is kept in the log, not joined to the sample's item",
            record
                .get("sample_id")
                .and_then(Value::as_str)
                .unwrap_or("?")
        )),
    }
}

/// A `sampling` event in canonical names.
pub(crate) fn sampling(record: &mut Map<String, Value>, notes: &mut Notes) {
    let Some(Value::Object(mut data)) = record.remove("data") else {
        return;
    };
    if let Some(prompt) = data.remove("prompt") {
        record.insert("input".into(), prompt);
        notes.source("question", "data.prompt");
    }
    let answer = match data.remove("sampled") {
        Some(Value::Array(sampled)) => sampled.into_iter().find(Value::is_string),
        Some(text @ Value::String(_)) => Some(text),
        _ => None,
    };
    if let Some(answer) = answer {
        record.insert("answer".into(), answer);
        notes.source("answer", "data.sampled[0]");
    }
    if let Some(sample) = record.remove("sample_id") {
        record.insert("id".into(), sample);
    }
    if !data.is_empty() {
        record.insert("data".into(), Value::Object(data));
    }
}
