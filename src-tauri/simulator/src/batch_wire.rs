//! The batch services' shapes on the wire: reading a request file or a request list,
//! writing the batch objects (OpenAI `batch`, Anthropic `message_batch`) and the result
//! lines. Pure; `batch_state` holds the state and `batch` serves the routes.
//!
//! OpenAI result lines: `{id, custom_id, response: {status_code, request_id, body},
//! error}` in the output file for answers, in the error file for failed requests (an
//! HTTP status other than 200, or `error.code` `batch_expired` / `batch_cancelled` with
//! no response). Anthropic: `{custom_id, result: {type: succeeded | errored | canceled |
//! expired, message | error}}`.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::answer::Dialect;
use crate::batch_state::{reply_error, Batch, Counts, Outcome, StoredFile};

/// The result lines of an ended batch: OpenAI's output and error files, or Anthropic's
/// one results file (in `output`).
pub struct Lines {
    pub output: Vec<u8>,
    pub errors: Vec<u8>,
    pub counts: Counts,
}

pub fn file_object(id: &str, file: &StoredFile) -> Value {
    json!({
        "id": id,
        "object": "file",
        "bytes": file.bytes.len(),
        "created_at": file.created_at,
        "filename": file.filename,
        "purpose": file.purpose,
    })
}

/// The requests of an OpenAI request file: one JSON object per line with `custom_id`,
/// `method` POST, `url` the batch's endpoint and a `body`. The first bad line makes the
/// whole file invalid, as OpenAI's validation does.
pub fn read_request_file(bytes: &[u8], endpoint: &str) -> Result<Vec<(String, Value)>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the request file is not UTF-8")?;
    let mut requests = Vec::new();
    let mut lines_of: HashMap<String, usize> = HashMap::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let n = i + 1;
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("line {n} is not JSON: {e}"))?;
        let field = |name: &str| v.get(name).and_then(Value::as_str).unwrap_or("");
        let custom_id = field("custom_id").to_string();
        if custom_id.is_empty() {
            return Err(format!("line {n} has no custom_id"));
        }
        if field("method") != "POST" || field("url") != endpoint {
            return Err(format!(
                "line {n} must be a POST to {endpoint} (got {} {})",
                field("method"),
                field("url")
            ));
        }
        let Some(body) = v.get("body").filter(|b| b.is_object()) else {
            return Err(format!("line {n} has no body object"));
        };
        if let Some(first) = lines_of.insert(custom_id.clone(), n) {
            return Err(format!(
                "line {n} repeats the custom_id {custom_id} of line {first}"
            ));
        }
        requests.push((custom_id, body.clone()));
    }
    if requests.is_empty() {
        return Err("the request file holds no request".into());
    }
    Ok(requests)
}

/// The requests of an Anthropic batch: `requests: [{custom_id, params}]`, custom_ids of
/// 1 to 64 letters, digits, `-` or `_`, none twice.
pub fn read_anthropic_requests(create: &Value) -> Result<Vec<(String, Value)>, String> {
    let list = create
        .get("requests")
        .and_then(Value::as_array)
        .filter(|l| !l.is_empty())
        .ok_or("requests must be a non-empty list")?;
    let mut requests = Vec::with_capacity(list.len());
    let mut seen = std::collections::HashSet::new();
    for (i, r) in list.iter().enumerate() {
        let custom_id = r.get("custom_id").and_then(Value::as_str).unwrap_or("");
        let well_formed = (1..=64).contains(&custom_id.len())
            && custom_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !well_formed {
            return Err(format!(
                "requests.{i}.custom_id must be 1-64 letters, digits, - or _"
            ));
        }
        if !seen.insert(custom_id) {
            return Err(format!("requests.{i}.custom_id {custom_id} is not unique"));
        }
        let Some(params) = r.get("params").filter(|p| p.is_object()) else {
            return Err(format!("requests.{i} has no params object"));
        };
        requests.push((custom_id.to_string(), params.clone()));
    }
    Ok(requests)
}

/// How an ended batch is named: OpenAI `failed`, `cancelled`, `expired` (some requests
/// never ran) or `completed`; Anthropic always `ended`.
pub fn end_status(batch: &Batch) -> &'static str {
    if batch.dialect == Dialect::Anthropic {
        return "ended";
    }
    let any = |want: &Outcome| batch.outcomes.iter().any(|o| o.as_ref() == Some(want));
    if batch.invalid.is_some() {
        "failed"
    } else if batch.cancel_requested {
        "cancelled"
    } else if any(&Outcome::Expired) {
        "expired"
    } else {
        "completed"
    }
}

/// The result lines of an ended batch, in request order.
pub fn result_lines(batch: &Batch) -> Lines {
    let mut lines = Lines {
        output: Vec::new(),
        errors: Vec::new(),
        counts: Counts {
            total: batch.custom_ids.len(),
            ..Counts::default()
        },
    };
    if batch.invalid.is_some() {
        return lines;
    }
    for (i, (custom_id, outcome)) in batch.custom_ids.iter().zip(&batch.outcomes).enumerate() {
        let outcome = outcome.clone().unwrap_or(Outcome::Expired);
        match &outcome {
            Outcome::Replied { status: 200, .. } => lines.counts.succeeded += 1,
            Outcome::Replied { .. } | Outcome::Failed => lines.counts.errored += 1,
            Outcome::Expired => lines.counts.expired += 1,
            Outcome::Cancelled => lines.counts.cancelled += 1,
        }
        if outcome == Outcome::Expired && batch.omit_expired {
            continue;
        }
        let (line, ok) = match batch.dialect {
            Dialect::OpenAi => openai_line(i, custom_id, &outcome),
            Dialect::Anthropic => (anthropic_line(custom_id, &outcome), true),
        };
        let file = if ok {
            &mut lines.output
        } else {
            &mut lines.errors
        };
        file.extend_from_slice(line.to_string().as_bytes());
        file.push(b'\n');
    }
    lines
}

/// One OpenAI result line, and whether it belongs in the output file (else the error
/// file).
fn openai_line(i: usize, custom_id: &str, outcome: &Outcome) -> (Value, bool) {
    let id = format!("batch_req_sim{i:06}");
    let response = |status: u16, body: &Value| json!({"status_code": status, "request_id": format!("req_sim{i:06}"), "body": body});
    match outcome {
        Outcome::Replied { status, body } => (
            json!({"id": id, "custom_id": custom_id, "response": response(*status, body), "error": null}),
            *status == 200,
        ),
        Outcome::Failed => {
            let body = json!({"error": {"message": "simulated failure of a batch request", "type": "server_error"}});
            (
                json!({"id": id, "custom_id": custom_id, "response": response(500, &body), "error": null}),
                false,
            )
        }
        Outcome::Expired | Outcome::Cancelled => {
            let (code, message) = if *outcome == Outcome::Expired {
                (
                    "batch_expired",
                    "This request could not be executed before the completion window expired.",
                )
            } else {
                (
                    "batch_cancelled",
                    "This request was not executed because the batch was cancelled.",
                )
            };
            (
                json!({"id": id, "custom_id": custom_id, "response": null, "error": {"code": code, "message": message}}),
                false,
            )
        }
    }
}

fn anthropic_line(custom_id: &str, outcome: &Outcome) -> Value {
    let errored = |message: String| json!({"type": "errored", "error": {"type": "error", "error": {"type": "api_error", "message": message}}});
    let result = match outcome {
        Outcome::Replied { status: 200, body } => json!({"type": "succeeded", "message": body}),
        Outcome::Replied { status, body } => {
            errored(format!("HTTP {status}: {}", reply_error(body)))
        }
        Outcome::Failed => errored("simulated failure of a batch request".into()),
        Outcome::Expired => json!({"type": "expired"}),
        Outcome::Cancelled => json!({"type": "canceled"}),
    };
    json!({"custom_id": custom_id, "result": result})
}

/// Counts while a batch runs: what has been answered so far.
fn running_counts(batch: &Batch) -> Counts {
    let done = batch
        .outcomes
        .iter()
        .filter(|o| matches!(o, Some(Outcome::Replied { .. })))
        .count();
    Counts {
        total: batch.custom_ids.len(),
        succeeded: done,
        ..Counts::default()
    }
}

/// An OpenAI `batch` object. `state` is the status of a running batch; empty once it
/// ended (the status is then the ending's).
pub fn openai_object(id: &str, batch: &Batch, state: &str) -> Value {
    let ended = batch.ended.as_ref().filter(|_| state.is_empty());
    let status = ended.map_or(state, |e| e.status);
    let counts = ended.map_or_else(|| running_counts(batch), |e| e.counts);
    let at = |wanted: &str| ended.filter(|e| e.status == wanted).map(|e| e.at);
    let errors = batch.invalid.as_ref().map(|message| {
        json!({"object": "list", "data": [{"code": "invalid_request", "message": message, "param": null, "line": null}]})
    });
    json!({
        "id": id,
        "object": "batch",
        "endpoint": batch.endpoint,
        "errors": errors,
        "input_file_id": batch.input_file_id,
        "completion_window": "24h",
        "status": status,
        "output_file_id": ended.and_then(|e| e.output_file_id.clone()),
        "error_file_id": ended.and_then(|e| e.error_file_id.clone()),
        "created_at": batch.created_at,
        "in_progress_at": batch.created_at,
        "expires_at": batch.created_at + 24 * 3600,
        "completed_at": at("completed"),
        "failed_at": at("failed"),
        "expired_at": at("expired"),
        "cancelled_at": at("cancelled"),
        "request_counts": {
            "total": counts.total,
            "completed": counts.succeeded,
            "failed": counts.errored + counts.expired + counts.cancelled,
        },
        "metadata": null,
    })
}

/// An Anthropic `message_batch` object; `results_url` is on `host`, set once it ended.
pub fn anthropic_object(id: &str, batch: &Batch, state: &str, host: &str) -> Value {
    let ended = batch.ended.as_ref().filter(|_| state.is_empty());
    let status = match (ended, state) {
        (Some(_), _) => "ended",
        (None, "cancelling") => "canceling",
        _ => "in_progress",
    };
    let counts = ended.map_or_else(|| running_counts(batch), |e| e.counts);
    let processing = if ended.is_some() {
        0
    } else {
        counts.total - counts.succeeded
    };
    let time = |secs: i64| {
        chrono::DateTime::from_timestamp(secs, 0)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    };
    json!({
        "id": id,
        "type": "message_batch",
        "processing_status": status,
        "request_counts": {
            "processing": processing,
            "succeeded": counts.succeeded,
            "errored": counts.errored,
            "canceled": counts.cancelled,
            "expired": counts.expired,
        },
        "created_at": time(batch.created_at),
        "expires_at": time(batch.created_at + 24 * 3600),
        "ended_at": ended.and_then(|e| time(e.at)),
        "cancel_initiated_at": None::<String>,
        "archived_at": None::<String>,
        "results_url": ended.map(|_| format!("http://{host}/v1/messages/batches/{id}/results")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_file_with_a_repeated_custom_id_or_a_wrong_url_is_invalid() {
        let line = |id: &str, url: &str| {
            json!({"custom_id": id, "method": "POST", "url": url, "body": {"model": "m"}})
                .to_string()
        };
        let good = format!(
            "{}\n{}\n",
            line("a", "/v1/chat/completions"),
            line("b", "/v1/chat/completions")
        );
        assert_eq!(
            read_request_file(good.as_bytes(), "/v1/chat/completions")
                .unwrap()
                .len(),
            2
        );
        let repeated = format!(
            "{}\n{}\n",
            line("a", "/v1/chat/completions"),
            line("a", "/v1/chat/completions")
        );
        let e = read_request_file(repeated.as_bytes(), "/v1/chat/completions").unwrap_err();
        assert!(e.contains("repeats"), "{e}");
        let wrong = line("a", "/v1/embeddings");
        assert!(read_request_file(wrong.as_bytes(), "/v1/chat/completions").is_err());
    }

    #[test]
    fn anthropic_custom_ids_are_checked_like_the_real_service() {
        let ok = json!({"requests": [{"custom_id": "abc-1_2", "params": {}}]});
        assert_eq!(read_anthropic_requests(&ok).unwrap().len(), 1);
        for bad in ["", "has space", &"x".repeat(65)] {
            let create = json!({"requests": [{"custom_id": bad, "params": {}}]});
            assert!(read_anthropic_requests(&create).is_err(), "{bad:?}");
        }
    }
}
