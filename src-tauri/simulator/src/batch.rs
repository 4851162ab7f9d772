//! The batch services: OpenAI's Batch API (a JSONL request file uploaded to `/v1/files`,
//! `/v1/batches` to create, poll and cancel, the output and error files read back from
//! `/v1/files/{id}/content`; Azure OpenAI's same routes under `/openai/`) and Anthropic's
//! Message Batches (`/v1/messages/batches`, its results as JSONL at `results_url`).
//!
//! Each request of a batch is answered in the background, once, by the same code as a
//! live chat request (`chat::chat_inner`), so batch answers are the live answers and
//! the chat fault rules reach them too. `BatchRules` add what only batches do: a batch
//! stays in progress for some status polls, its first requests fail, its last expire, the
//! whole batch fails. Results are written when a poll finds the batch ended.
//!
//! Owns: files, batches and their wire shapes (`batch_wire`). Must not: judge anything
//! itself.

use std::sync::Arc;

use http_body_util::BodyExt;
use hyper::{HeaderMap, StatusCode};
use serde_json::Value;

use crate::answer::Dialect;
use crate::batch_state::{now, Batch, Batches, Ended, Outcome};
use crate::batch_wire;
use crate::chat;
use crate::faults::BatchRules;
use crate::shared::{error, ok_json, Reply, Shared};

/// The reply for a batch route, or None when the path is not one.
pub fn route(
    shared: &Arc<Shared>,
    method: &str,
    path: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Option<Reply> {
    // Azure OpenAI serves the OpenAI routes under /openai/ (its api-version is a query).
    let openai = path
        .strip_prefix("/v1/")
        .or_else(|| path.strip_prefix("/openai/"));
    let segments: Vec<&str> = openai.map_or(Vec::new(), |p| p.split('/').collect());
    // Anthropic's results URL names the host the client reached.
    let host = headers
        .get("host")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1");
    let reply = match (method, segments.as_slice()) {
        ("POST", ["files"]) => upload(shared, headers, body),
        ("GET", ["files", id, "content"]) => file_content(shared, id),
        ("POST", ["batches"]) => create_openai(shared, body),
        ("GET", ["batches", id]) => status(shared, id, Dialect::OpenAi, host),
        ("POST", ["batches", id, "cancel"]) => cancel(shared, id, Dialect::OpenAi, host),
        ("POST", ["messages", "batches"]) => create_anthropic(shared, body, host),
        ("GET", ["messages", "batches", id]) => status(shared, id, Dialect::Anthropic, host),
        ("GET", ["messages", "batches", id, "results"]) => anthropic_results(shared, id),
        ("POST", ["messages", "batches", id, "cancel"]) => {
            cancel(shared, id, Dialect::Anthropic, host)
        }
        _ => return None,
    };
    Some(reply)
}

fn batches(shared: &Shared) -> std::sync::MutexGuard<'_, Batches> {
    shared.batches.lock().unwrap_or_else(|p| p.into_inner())
}

fn rules(shared: &Shared) -> BatchRules {
    shared
        .faults
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .batch
        .clone()
}

fn upload(shared: &Shared, headers: &HeaderMap, body: &[u8]) -> Reply {
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let parts = match crate::multipart::parse(content_type, body) {
        Ok(parts) => parts,
        Err(e) => return error(StatusCode::BAD_REQUEST, &e),
    };
    let field = |name: &str| parts.iter().find(|p| p.name == name);
    let Some(file) = field("file") else {
        return error(StatusCode::BAD_REQUEST, "the upload has no 'file' part");
    };
    let purpose = field("purpose")
        .map(|p| String::from_utf8_lossy(&p.bytes).into_owned())
        .unwrap_or_default();
    if purpose != "batch" {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("purpose must be 'batch' (got '{purpose}')"),
        );
    }
    shared.stats().files_uploaded += 1;
    let filename = file
        .filename
        .clone()
        .unwrap_or_else(|| "upload.jsonl".into());
    let mut all = batches(shared);
    let id = all.store_file(&filename, &purpose, file.bytes.clone());
    ok_json(&batch_wire::file_object(&id, &all.files[&id]))
}

fn file_content(shared: &Shared, id: &str) -> Reply {
    match batches(shared).files.get(id) {
        Some(file) => {
            let mut reply = Reply::new(file.bytes.clone().into());
            reply.headers_mut().insert(
                "content-type",
                "application/octet-stream".parse().expect("static header"),
            );
            reply
        }
        None => error(StatusCode::NOT_FOUND, &format!("no file {id}")),
    }
}

/// One request of a new batch: its custom_id and chat body.
type Request = (String, Value);

fn create_openai(shared: &Arc<Shared>, body: &[u8]) -> Reply {
    let Ok(create) = serde_json::from_slice::<Value>(body) else {
        return error(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    let text = |field: &str| create.get(field).and_then(Value::as_str).unwrap_or("");
    let (file_id, endpoint) = (
        text("input_file_id").to_string(),
        text("endpoint").to_string(),
    );
    if !matches!(
        endpoint.as_str(),
        "/v1/chat/completions" | "/chat/completions"
    ) {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("endpoint must be /v1/chat/completions (got '{endpoint}')"),
        );
    }
    if text("completion_window") != "24h" {
        return error(StatusCode::BAD_REQUEST, "completion_window must be '24h'");
    }
    let Some(bytes) = batches(shared).files.get(&file_id).map(|f| f.bytes.clone()) else {
        return error(StatusCode::BAD_REQUEST, &format!("no file {file_id}"));
    };
    let (requests, invalid) = match batch_wire::read_request_file(&bytes, &endpoint) {
        Ok(requests) => (requests, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    let id = start(
        shared,
        Dialect::OpenAi,
        Some(file_id),
        endpoint,
        requests,
        invalid,
    );
    let all = batches(shared);
    ok_json(&batch_wire::openai_object(
        &id,
        &all.batches[&id],
        "validating",
    ))
}

fn create_anthropic(shared: &Arc<Shared>, body: &[u8], host: &str) -> Reply {
    let Ok(create) = serde_json::from_slice::<Value>(body) else {
        return error(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    let requests = match batch_wire::read_anthropic_requests(&create) {
        Ok(requests) => requests,
        // Anthropic checks the request list when the batch is created.
        Err(why) => return error(StatusCode::BAD_REQUEST, &why),
    };
    let id = start(
        shared,
        Dialect::Anthropic,
        None,
        String::new(),
        requests,
        None,
    );
    let all = batches(shared);
    ok_json(&batch_wire::anthropic_object(
        &id,
        &all.batches[&id],
        "in_progress",
        host,
    ))
}

/// Stores a new batch and starts answering its requests in the background.
fn start(
    shared: &Arc<Shared>,
    dialect: Dialect,
    input_file_id: Option<String>,
    endpoint: String,
    requests: Vec<Request>,
    invalid: Option<String>,
) -> String {
    let rules = rules(shared);
    let invalid = invalid.or_else(|| {
        rules
            .fail_batch
            .then(|| "the batch failed validation (simulated)".to_string())
    });
    let n = requests.len();
    let expire_from = n.saturating_sub(rules.expire_last);
    let mut outcomes = vec![None; n];
    let mut to_answer = Vec::new();
    if invalid.is_none() {
        for (i, (_, body)) in requests.iter().enumerate() {
            if i >= expire_from {
                outcomes[i] = Some(Outcome::Expired);
            } else if i < rules.fail_first {
                outcomes[i] = Some(Outcome::Failed);
            } else {
                to_answer.push((i, serde_json::to_vec(body).unwrap_or_default()));
            }
        }
    }
    let mut all = batches(shared);
    let prefix = match dialect {
        Dialect::OpenAi => "batch_sim",
        Dialect::Anthropic => "msgbatch_sim",
    };
    let id = all.id(prefix);
    let mut repeats = 0;
    for (custom_id, _) in &requests {
        repeats += u64::from(!all.seen.insert(custom_id.clone()));
    }
    all.batches.insert(
        id.clone(),
        Batch {
            dialect,
            input_file_id,
            endpoint,
            custom_ids: requests.into_iter().map(|(c, _)| c).collect(),
            outcomes,
            invalid: invalid.clone(),
            omit_expired: rules.omit_expired,
            polls: 0,
            cancel_requested: false,
            created_at: now(),
            ended: None,
        },
    );
    drop(all);
    {
        let mut stats = shared.stats();
        stats.batches_created += 1;
        if invalid.is_none() {
            stats.batch_requests += n as u64;
            stats.batch_repeats += repeats;
        }
    }
    tokio::spawn(answer_all(
        Arc::clone(shared),
        id.clone(),
        dialect,
        to_answer,
    ));
    id
}

/// Answers the requests one by one with the live chat code, once the batch's hold is
/// over: a held batch has processed nothing, so a cancel while held cancels every request
/// however fast this task would otherwise have run. A cancelled or ended batch is left
/// as it is.
async fn answer_all(
    shared: Arc<Shared>,
    id: String,
    dialect: Dialect,
    work: Vec<(usize, Vec<u8>)>,
) {
    for (i, body) in work {
        loop {
            let hold = rules(&shared).polls_in_progress;
            match batches(&shared).batches.get(&id) {
                Some(b) if b.ended.is_some() || b.cancel_requested => return,
                Some(b) if b.polls < hold => {}
                Some(_) => break,
                None => return,
            }
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        let reply = chat::chat_inner(&shared, &body, dialect, None).await;
        let status = reply.status().as_u16();
        let bytes = reply
            .into_body()
            .collect()
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        match batches(&shared).batches.get_mut(&id) {
            Some(batch) if batch.ended.is_none() => {
                batch.outcomes[i] = Some(Outcome::Replied { status, body })
            }
            _ => return,
        }
    }
}

fn status(shared: &Shared, id: &str, dialect: Dialect, host: &str) -> Reply {
    let hold = rules(shared).polls_in_progress;
    shared.stats().batch_polls += 1;
    let mut all = batches(shared);
    let Some(batch) = all.batches.get_mut(id).filter(|b| b.dialect == dialect) else {
        return error(StatusCode::NOT_FOUND, &format!("no batch {id}"));
    };
    batch.polls += 1;
    let state = if batch.ended.is_some() {
        ""
    } else if batch.invalid.is_some() || batch.cancel_requested {
        "end"
    } else if batch.polls <= hold || batch.answered() < batch.outcomes.len() {
        if batch.polls == 1 && dialect == Dialect::OpenAi {
            "validating"
        } else {
            "in_progress"
        }
    } else {
        "end"
    };
    let state = if state == "end" {
        end(&mut all, id);
        ""
    } else {
        state
    };
    let batch = &all.batches[id];
    ok_json(&match dialect {
        Dialect::OpenAi => batch_wire::openai_object(id, batch, state),
        Dialect::Anthropic => batch_wire::anthropic_object(id, batch, state, host),
    })
}

/// Ends a batch: unanswered requests of a cancelled batch are cancelled, and the result
/// files are written.
fn end(all: &mut Batches, id: &str) {
    let Some(batch) = all.batches.get_mut(id) else {
        return;
    };
    if batch.cancel_requested {
        for outcome in batch.outcomes.iter_mut() {
            if !matches!(outcome, Some(Outcome::Replied { .. })) {
                *outcome = Some(Outcome::Cancelled);
            }
        }
    }
    let lines = batch_wire::result_lines(batch);
    let status = batch_wire::end_status(batch);
    let dialect = batch.dialect;
    let mut ended = Ended {
        status,
        at: now(),
        output_file_id: None,
        error_file_id: None,
        counts: lines.counts,
    };
    match dialect {
        Dialect::OpenAi => {
            if !lines.output.is_empty() {
                ended.output_file_id =
                    Some(all.store_file("batch_output.jsonl", "batch_output", lines.output));
            }
            if !lines.errors.is_empty() {
                ended.error_file_id =
                    Some(all.store_file("batch_errors.jsonl", "batch_output", lines.errors));
            }
        }
        // Anthropic serves its results at the batch's results URL.
        Dialect::Anthropic => {
            let file = all.store_file("results.jsonl", "results", lines.output);
            ended.output_file_id = Some(file);
        }
    }
    if let Some(batch) = all.batches.get_mut(id) {
        batch.ended = Some(ended);
    }
}

fn cancel(shared: &Shared, id: &str, dialect: Dialect, host: &str) -> Reply {
    shared.stats().batch_cancels += 1;
    let mut all = batches(shared);
    let Some(batch) = all.batches.get_mut(id).filter(|b| b.dialect == dialect) else {
        return error(StatusCode::NOT_FOUND, &format!("no batch {id}"));
    };
    if batch.ended.is_none() {
        batch.cancel_requested = true;
    }
    let state = if batch.ended.is_some() {
        ""
    } else {
        "cancelling"
    };
    ok_json(&match dialect {
        Dialect::OpenAi => batch_wire::openai_object(id, batch, state),
        Dialect::Anthropic => batch_wire::anthropic_object(id, batch, state, host),
    })
}

fn anthropic_results(shared: &Shared, id: &str) -> Reply {
    let all = batches(shared);
    let file = all
        .batches
        .get(id)
        .filter(|b| b.dialect == Dialect::Anthropic)
        .and_then(|b| b.ended.as_ref())
        .and_then(|e| e.output_file_id.as_ref())
        .and_then(|f| all.files.get(f));
    match file {
        Some(file) => {
            let mut reply = Reply::new(file.bytes.clone().into());
            reply.headers_mut().insert(
                "content-type",
                "application/binary".parse().expect("static header"),
            );
            reply
        }
        None => error(
            StatusCode::NOT_FOUND,
            &format!("batch {id} has no results yet (it has not ended)"),
        ),
    }
}
