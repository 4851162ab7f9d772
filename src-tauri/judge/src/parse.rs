//! Turning a model's reply into a validated `Verdict`: find the JSON object in the text
//! (code fences, prose around it, trailing commas), normalise common spelling variants,
//! deserialise into the task's `Verdict` payload, then check it against the task
//! (`validate`). Errors are short sentences fit to show the judge in the repair request
//! and the user in a failed result. Pure: no I/O, no retries.

use serde_json::{Map, Value};

use super::task::{Task, TaskKind, Verdict};
use super::validate;
use ragnosis_types::item::Label;

/// Parses and validates a reply to `task`. Every JSON value found in the reply is tried
/// in order (objects first); the first that fits the task wins.
pub fn parse_verdict(task: &Task, reply: &str) -> Result<Verdict, String> {
    let found = find_json(reply)?;
    let mut first_error = None;
    for value in found.values {
        match verdict_from(task, value) {
            Ok(verdict) => return Ok(verdict),
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    Err(match (found.truncated, first_error, found.syntax_error) {
        (true, _, _) => TRUNCATED.into(),
        (false, Some(e), _) => e,
        (false, None, Some(e)) => format!("the reply is not valid JSON ({e})"),
        (false, None, None) => "the reply contains no JSON object".into(),
    })
}

const TRUNCATED: &str = "the JSON object is incomplete (the reply may have been cut off)";

fn verdict_from(task: &Task, value: Value) -> Result<Verdict, String> {
    let kind = task.kind();
    let mut payload = Value::Object(into_object(kind, value)?);
    normalise(kind, &mut payload);
    validate::validate(task, from_payload(kind, payload)?)
}

/// The verdict's payload as the prompts ask for it: the `Verdict` JSON without its tag.
pub fn payload_json(verdict: &Verdict) -> Value {
    let mut value = serde_json::to_value(verdict).expect("verdicts always serialise");
    if let Value::Object(map) = &mut value {
        map.remove("verdict");
    }
    value
}

/// Deserialises a payload (the shape the prompts ask for) into the `Verdict` of `kind`.
fn from_payload(kind: TaskKind, payload: Value) -> Result<Verdict, String> {
    let Value::Object(mut map) = payload else {
        return Err("the reply is not a JSON object".into());
    };
    map.insert("verdict".into(), Value::String(kind.as_str().into()));
    serde_json::from_value(Value::Object(map))
        .map_err(|e| format!("the JSON does not have the required shape ({e})"))
}

/// The JSON objects a reply holds (a bundle's reply is one, a field per task); empty
/// when it holds none that parse.
pub fn json_objects(reply: &str) -> Vec<Value> {
    find_json(reply)
        .map(|found| found.values.into_iter().filter(Value::is_object).collect())
        .unwrap_or_default()
}

/// The JSON values a reply holds, and what went wrong with the rest.
struct Found {
    values: Vec<Value>,
    /// Some bracket opened and never closed: the reply was probably cut off.
    truncated: bool,
    /// The first balanced span that was not JSON.
    syntax_error: Option<String>,
}

fn find_json(text: &str) -> Result<Found, String> {
    // Reasoning models served locally often think aloud first; that text may hold
    // braces and draft JSON that are not the answer.
    let text = match text.rfind("</think>") {
        Some(end) => &text[end + "</think>".len()..],
        None => text,
    };
    if text.trim().is_empty() {
        return Err("the reply is empty".into());
    }
    if text.len() > MAX_REPLY {
        return Err(format!(
            "the reply is {} KB long, far more than a verdict (a few KB): the model did not follow the prompt",
            text.len() / 1024
        ));
    }
    let mut regions = fenced_blocks(text);
    regions.push(text);
    let mut found = Found {
        values: Vec::new(),
        truncated: false,
        syntax_error: None,
    };
    for opener in ['{', '['] {
        for region in &regions {
            let (spans, unclosed) = top_level_spans(region, opener);
            found.truncated |= unclosed && opener == '{';
            for span in spans {
                match parse_lenient(span) {
                    Ok(value) => found.values.push(value),
                    Err(e) => found.syntax_error = found.syntax_error.take().or(Some(e)),
                }
            }
        }
    }
    Ok(found)
}

/// The contents of ``` fenced blocks, in order.
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // Skip the info string (`json`) up to the end of the line.
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        let Some(close) = body.find("```") else { break };
        out.push(&body[..close]);
        rest = &body[close + 3..];
    }
    out
}

/// How many openers that never close are stepped over before the rest of a reply is
/// given up on. Each costs a scan to the end of the text, so without a limit a long reply
/// of stray brackets took time growing with its length squared (seconds for 100 KB).
const MAX_UNCLOSED: usize = 16;

/// The longest reply searched for a verdict. A verdict is a few KB (the claims of a
/// 20,000-character answer, some tens of KB); a reply far longer is a model that did not
/// follow the prompt, and searching it would take seconds.
const MAX_REPLY: usize = 256 * 1024;

/// Balanced spans starting with `opener`, skipping brackets inside strings. A stray
/// opener in prose that never closes does not hide a later object: scanning resumes
/// after it (up to `MAX_UNCLOSED` times). The flag says whether some span was still
/// open at the end of the text.
fn top_level_spans(text: &str, opener: char) -> (Vec<&str>, bool) {
    let mut spans = Vec::new();
    let mut unclosed = 0;
    let mut from = 0;
    while let Some(offset) = text[from..].find(opener) {
        let start = from + offset;
        match balanced_end(&text[start..]) {
            Some(len) => {
                spans.push(&text[start..start + len]);
                from = start + len;
            }
            None => {
                unclosed += 1;
                if unclosed == MAX_UNCLOSED {
                    break;
                }
                from = start + opener.len_utf8();
            }
        }
    }
    (spans, unclosed > 0)
}

/// The byte length of the balanced JSON value `text` starts with, if it closes.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn parse_lenient(span: &str) -> Result<Value, String> {
    serde_json::from_str(span).or_else(|first| {
        serde_json::from_str(&remove_trailing_commas(span)).map_err(|_| first.to_string())
    })
}

/// Drops commas that directly precede `}` or `]` (outside strings).
fn remove_trailing_commas(span: &str) -> String {
    let chars: Vec<char> = span.chars().collect();
    let mut out = String::with_capacity(span.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The single list field of kinds whose reply is one list, so a bare array can stand for
/// the whole object.
fn list_field(kind: TaskKind) -> Option<&'static str> {
    match kind {
        TaskKind::Aspects | TaskKind::Coverage => Some("aspects"),
        TaskKind::ChunkRelevance => Some("chunks"),
        TaskKind::Claims => Some("claims"),
        TaskKind::ClaimLabels => Some("labels"),
        TaskKind::AnswerReview
        | TaskKind::Grounding
        | TaskKind::Reasoning
        | TaskKind::Scorecard
        | TaskKind::Insights
        | TaskKind::DraftQuestion
        | TaskKind::DraftAnswer
        | TaskKind::Criterion
        | TaskKind::Advice => None,
    }
}

fn into_object(kind: TaskKind, value: Value) -> Result<Map<String, Value>, String> {
    match (value, list_field(kind)) {
        (Value::Object(map), _) => Ok(map),
        (Value::Array(items), Some(field)) => {
            Ok(Map::from_iter([(field.to_string(), Value::Array(items))]))
        }
        _ => Err("the reply is not a JSON object".into()),
    }
}

/// Fixes spelling variants a model commonly produces, before strict deserialisation.
fn normalise(kind: TaskKind, payload: &mut Value) {
    match kind {
        TaskKind::ChunkRelevance => {
            // A missing index means "in order".
            if let Some(Value::Array(chunks)) = payload.get_mut("chunks") {
                for (i, chunk) in chunks.iter_mut().enumerate() {
                    if let Value::Object(c) = chunk {
                        c.entry("index").or_insert(Value::from(i));
                    }
                }
            }
        }
        TaskKind::Grounding => {
            for claim in array_items(payload, "claims") {
                snake_case_field(claim, "support");
            }
            for contradiction in array_items(payload, "contradictions") {
                snake_case_field(contradiction, "kind");
                snake_case_field(contradiction, "severity");
            }
        }
        TaskKind::Insights => {
            for action in array_items(payload, "actions") {
                snake_case_field(action, "impact");
            }
        }
        TaskKind::Scorecard => {
            for score in array_items(payload, "scores") {
                snake_case_field(score, "criterion");
            }
            for check in array_items(payload, "failures") {
                snake_case_field(check, "category");
            }
        }
        TaskKind::Criterion => {
            if let Some(score) = payload.get_mut("score") {
                if let Some(read) = criterion_score(score) {
                    *score = read;
                }
            }
        }
        TaskKind::ClaimLabels => {
            for row in array_items(payload, "labels") {
                if let Value::Array(labels) = row {
                    for label in labels.iter_mut() {
                        let parsed = label.as_str().and_then(Label::parse);
                        if let Some(parsed) = parsed {
                            *label = serde_json::to_value(parsed).expect("labels serialise");
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// A criterion score written as a word or a string: "pass" / "fail", yes / no, true /
/// false, "4", "4/5" — as a number the scale can check. `None` leaves it as it is.
fn criterion_score(score: &Value) -> Option<Value> {
    let number = |x: f64| serde_json::Number::from_f64(x).map(Value::Number);
    match score {
        Value::Bool(b) => number(if *b { 1.0 } else { 0.0 }),
        Value::String(s) => {
            let s = s.trim().to_ascii_lowercase();
            match s.as_str() {
                "pass" | "passed" | "yes" | "true" | "met" => number(1.0),
                "fail" | "failed" | "no" | "false" | "not met" => number(0.0),
                _ => {
                    let head = s.split('/').next().unwrap_or("").trim();
                    head.parse::<f64>().ok().and_then(number)
                }
            }
        }
        _ => None,
    }
}

fn array_items<'a>(payload: &'a mut Value, field: &str) -> impl Iterator<Item = &'a mut Value> {
    payload
        .get_mut(field)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

fn snake_case_field(object: &mut Value, field: &str) {
    if let Some(Value::String(s)) = object.get_mut(field) {
        *s = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
