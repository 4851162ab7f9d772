//! promptfoo results (`promptfoo eval -o results.json`).
//!
//! Owns: reading `vars`, `response` and the grading as an item and prior scores. Must
//! not: map fields.

use serde_json::{json, Map, Value};

use super::super::aliases::{classify, Canon};
use super::super::values::number;
use super::Notes;

// long: one dialect: each of promptfoo's fields mapped in turn from the same record
/// promptfoo: the question, contexts and reference are test variables whose names the
/// user chose; the answer is the provider's output.
pub(super) fn promptfoo(record: &mut Map<String, Value>, notes: &mut Notes) {
    let mut vars = match record.remove("vars") {
        Some(Value::Object(vars)) => vars,
        _ => Map::new(),
    };
    for (canon, key) in [
        (Canon::Question, "question"),
        (Canon::Contexts, "retrieved_contexts"),
        (Canon::GroundTruth, "ground_truth"),
    ] {
        let mut candidates: Vec<(usize, String)> = vars
            .keys()
            .filter_map(|k| {
                classify(k)
                    .filter(|a| a.canon == canon)
                    .map(|a| (a.index, k.clone()))
            })
            .collect();
        candidates.sort();
        let chosen = match candidates.first() {
            Some((_, k)) => Some(k.clone()),
            // One text variable and no question-like name: that variable is the question.
            None if canon == Canon::Question => {
                let texts: Vec<&String> = vars
                    .iter()
                    .filter(|(_, v)| v.is_string())
                    .map(|(k, _)| k)
                    .collect();
                // Several: the first, said in the choices (vars keep their file order).
                texts.first().map(|k| k.to_string())
            }
            None => None,
        };
        let Some(chosen) = chosen else { continue };
        let path = format!("vars.{chosen}");
        notes.source(canon.name(), &path);
        let alternatives: Vec<String> = candidates
            .iter()
            .filter(|(_, k)| *k != chosen)
            .map(|(_, k)| format!("vars.{k}"))
            .collect();
        if candidates.len() != 1 {
            let texts = vars.values().filter(|v| v.is_string()).count();
            let why = if candidates.is_empty() && texts == 1 {
                "no variable is named like a question; it is the only text variable".to_string()
            } else if candidates.is_empty() {
                format!("no variable is named like a question; the first of the {texts} text variables was taken (choose another with the mapping editor or --map question=vars.NAME)")
            } else {
                format!(
                    "several variables are named like a {}; the most specific name wins (choose another with the mapping editor or --map {}=vars.NAME)",
                    canon.name(),
                    canon.name()
                )
            };
            notes.choose(canon.name(), &path, alternatives, &why);
        }
        if let Some(mut v) = vars.remove(&chosen) {
            if canon == Canon::Contexts {
                split_passages(&mut v, &path, notes);
            }
            record.insert(key.into(), v);
        }
    }
    if !vars.is_empty() {
        record.insert("vars".into(), Value::Object(vars));
    }
    match record.remove("response") {
        Some(Value::Object(mut response)) => {
            if let Some(output) = response.remove("output") {
                let text = match output {
                    Value::String(s) => Value::String(s),
                    Value::Null => Value::Null,
                    other => Value::String(other.to_string()),
                };
                record.insert("answer".into(), text);
                notes.source("answer", "response.output");
            }
            if let Some(usage) = response.remove("tokenUsage") {
                record.insert("token_usage".into(), usage);
            }
        }
        Some(other) => {
            record.insert("provider_response".into(), other);
        }
        None => {}
    }
    // `prompt` would read as a question alias: it is the rendered template.
    if let Some(prompt) = record.remove("prompt") {
        let label = prompt.get("label").cloned().unwrap_or(prompt);
        record.insert("prompt_label".into(), label);
    }
    record.remove("testCase");
    if let Some(Value::Object(named)) = record.remove("namedScores") {
        for (name, score) in named {
            if let Some(s) = number(&score) {
                notes.prior(record, &name, "namedScores", json!({ "score": s }));
            }
        }
    }
    grading(record, notes);
    record.remove("score");
    if !record.contains_key("id") {
        if let (Some(t), Some(p)) = (record.get("testIdx"), record.get("promptIdx")) {
            record.insert("id".into(), json!(format!("test {t} prompt {p}")));
        }
    }
}

/// The row's grading as the prior score `assertions`. A row that failed with an error
/// (the provider failed, or an assertion threw) has no score from the tool: the error is
/// kept, never a 0. Latency and cost assertions say nothing of the answer's quality: a
/// grading made only of them is not read.
fn grading(record: &mut Map<String, Value>, notes: &mut Notes) {
    let grading = record.remove("gradingResult");
    let error = record
        .get("error")
        .and_then(Value::as_str)
        .filter(|e| !e.trim().is_empty())
        .map(str::to_string);
    if let Some(error) = error {
        let first_line = error.lines().next().unwrap_or_default().to_string();
        let source = if grading.is_none() {
            "the provider failed"
        } else {
            "an assertion failed to run"
        };
        let prior =
            json!({ "error": format!("promptfoo recorded no score ({source}): {first_line}") });
        notes.prior(record, "assertions", "error", prior);
        notes.choose(
            "prior_scores",
            "error",
            vec!["gradingResult.score".into()],
            "a row promptfoo could not grade is an error in the source tool, not a score of 0; the row is still an item",
        );
        return;
    }
    let components = grading
        .as_ref()
        .and_then(|g| g.get("componentResults"))
        .and_then(Value::as_array);
    let only_operational = components.is_some_and(|c| {
        !c.is_empty()
            && c.iter().all(|r| {
                let kind = r.pointer("/assertion/type").and_then(Value::as_str);
                matches!(kind, Some("latency" | "cost"))
            })
    });
    if only_operational {
        return;
    }
    let score = grading
        .as_ref()
        .and_then(|g| g.get("score"))
        .or_else(|| record.get("score"))
        .and_then(number);
    let pass = grading
        .as_ref()
        .and_then(|g| g.get("pass"))
        .or_else(|| record.get("success"))
        .and_then(Value::as_bool);
    if score.is_none() && pass.is_none() {
        return;
    }
    let mut prior = json!({});
    if let Some(s) = score {
        prior["score"] = json!(s);
    }
    if let Some(p) = pass {
        prior["label"] = json!(if p { "pass" } else { "fail" });
    }
    if let Some(reason) = grading
        .as_ref()
        .and_then(|g| g.get("reason"))
        .filter(|r| r.is_string())
    {
        prior["explanation"] = reason.clone();
    }
    notes.prior(record, "assertions", "gradingResult", prior);
}

/// A context variable holding several passages in one string: one context per passage
/// (separated by blank lines, or one `- ` bullet per line), said in the choices.
fn split_passages(value: &mut Value, path: &str, notes: &mut Notes) {
    let Value::String(text) = value else { return };
    let mut parts: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() < 2 {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() > 1 && lines.iter().all(|l| l.starts_with("- ")) {
            parts = lines.iter().map(|l| l[2..].trim()).collect();
        }
    }
    if parts.len() < 2 {
        return;
    }
    notes.choose(
        "contexts",
        path,
        Vec::new(),
        "the variable holds several passages in one text; each passage (separated by a blank line, or a `- ` bullet) is one context",
    );
    *value = Value::Array(parts.into_iter().map(|p| Value::String(p.into())).collect());
}
