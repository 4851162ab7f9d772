//! The simulator's batch services over real HTTP, as a client sees them: OpenAI's file
//! upload, batch create, status, output and error files, cancel; Anthropic's Message
//! Batches; and the rules that hold a batch in progress, fail or expire its requests.

use std::time::Duration;

use ragnosis_core::judge::parse::parse_verdict;
use ragnosis_core::judge::prompt::render;
use ragnosis_core::judge::Task;
use ragnosis_judge_sim::{BatchRules, FaultRules, SimConfig, SimHandle, Simulator};
use serde_json::{json, Value};

fn task(i: usize) -> Task {
    Task::Claims {
        question: "What happened?".into(),
        text: format!("Shipment {i} left Rotterdam on Monday. It reached Oslo on Friday."),
    }
}

fn chat_body(i: usize) -> Value {
    json!({"model": "sim-judge-small", "temperature": 0.0, "messages": render(&task(i))})
}

fn sim_with(rules: BatchRules) -> SimHandle {
    Simulator::start(SimConfig {
        faults: FaultRules {
            batch: rules,
            ..FaultRules::default()
        },
        ..SimConfig::default()
    })
    .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn upload(client: &reqwest::Client, sim: &SimHandle, jsonl: &str) -> String {
    let body = format!(
        "--B0\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--B0\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.jsonl\"\r\n\r\n{jsonl}\r\n--B0--\r\n"
    );
    let file: Value = client
        .post(format!("{}/files", sim.base_url()))
        .header("content-type", "multipart/form-data; boundary=B0")
        .body(body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    file["id"].as_str().expect("a file id").to_string()
}

fn request_file(n: usize) -> String {
    (0..n)
        .map(|i| {
            json!({"custom_id": format!("req-{i}"), "method": "POST", "url": "/v1/chat/completions", "body": chat_body(i)})
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

async fn create_openai(client: &reqwest::Client, sim: &SimHandle, n: usize) -> String {
    let file = upload(client, sim, &request_file(n)).await;
    let batch: Value = client
        .post(format!("{}/batches", sim.base_url()))
        .json(&json!({"input_file_id": file, "endpoint": "/v1/chat/completions", "completion_window": "24h"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    batch["id"].as_str().expect("a batch id").to_string()
}

async fn get(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

/// Polls until the batch leaves the running states; returns the statuses seen.
async fn poll_openai(client: &reqwest::Client, sim: &SimHandle, id: &str) -> (Value, Vec<String>) {
    let mut seen = Vec::new();
    for _ in 0..200 {
        let batch = get(client, format!("{}/batches/{id}", sim.base_url())).await;
        let status = batch["status"].as_str().unwrap().to_string();
        seen.push(status.clone());
        if !["validating", "in_progress", "finalizing", "cancelling"].contains(&status.as_str()) {
            return (batch, seen);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the batch never ended: {seen:?}");
}

async fn lines(client: &reqwest::Client, sim: &SimHandle, file: &Value) -> Vec<Value> {
    let Some(id) = file.as_str() else {
        return Vec::new();
    };
    let text = client
        .get(format!("{}/files/{id}/content", sim.base_url()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn an_openai_batch_answers_every_request_as_the_live_endpoint_does_after_its_polls() {
    let sim = sim_with(BatchRules {
        polls_in_progress: 3,
        ..BatchRules::default()
    });
    runtime().block_on(async {
        let client = reqwest::Client::new();
        let id = create_openai(&client, &sim, 3).await;
        let (batch, seen) = poll_openai(&client, &sim, &id).await;
        assert_eq!(batch["status"], "completed", "{batch}");
        // Three polls are held in progress; later ones end the batch once its requests
        // are answered, which on a busy machine may take a poll more.
        assert!(
            seen.len() >= 4
                && seen[..seen.len() - 1]
                    .iter()
                    .all(|s| s == "validating" || s == "in_progress"),
            "three polls or more in progress, then the end: {seen:?}"
        );
        assert_eq!(
            batch["request_counts"],
            json!({"total": 3, "completed": 3, "failed": 0})
        );
        assert!(batch["error_file_id"].is_null(), "no request failed");
        let output = lines(&client, &sim, &batch["output_file_id"]).await;
        assert_eq!(output.len(), 3);
        for line in &output {
            let i: usize = line["custom_id"].as_str().unwrap()[4..].parse().unwrap();
            assert_eq!(line["response"]["status_code"], 200);
            let content = line["response"]["body"]["choices"][0]["message"]["content"]
                .as_str()
                .unwrap();
            assert!(
                parse_verdict(&task(i), content).is_ok(),
                "a batch answer is a judge verdict: {content}"
            );
        }
        let stats = sim.stats();
        assert_eq!(
            (
                stats.calls,
                stats.batch_requests,
                stats.by_task.get("claims").copied()
            ),
            (0, 3, Some(3)),
            "batch requests are answered by the judge but are not live calls"
        );
    });
}

#[test]
fn failed_and_expired_requests_go_to_the_error_file_or_are_left_out() {
    for omit in [false, true] {
        let sim = sim_with(BatchRules {
            fail_first: 1,
            expire_last: 2,
            omit_expired: omit,
            ..BatchRules::default()
        });
        runtime().block_on(async {
            let client = reqwest::Client::new();
            let id = create_openai(&client, &sim, 5).await;
            let (batch, _) = poll_openai(&client, &sim, &id).await;
            assert_eq!(batch["status"], "expired", "{batch}");
            assert_eq!(
                batch["request_counts"],
                json!({"total": 5, "completed": 2, "failed": 3})
            );
            let output = lines(&client, &sim, &batch["output_file_id"]).await;
            let errors = lines(&client, &sim, &batch["error_file_id"]).await;
            let ids = |l: &[Value]| -> Vec<String> {
                l.iter()
                    .map(|x| x["custom_id"].as_str().unwrap().to_string())
                    .collect()
            };
            assert_eq!(ids(&output), ["req-1", "req-2"]);
            let failed = errors.iter().find(|l| l["custom_id"] == "req-0").unwrap();
            assert_eq!(failed["response"]["status_code"], 500);
            let expired: Vec<&Value> = errors
                .iter()
                .filter(|l| l["error"]["code"] == "batch_expired")
                .collect();
            assert_eq!(
                expired.len(),
                if omit { 0 } else { 2 },
                "omit_expired leaves them out: {errors:?}"
            );
        });
    }
}

#[test]
fn a_held_batch_can_be_cancelled_and_its_requests_come_back_cancelled() {
    let sim = sim_with(BatchRules {
        polls_in_progress: 1_000_000,
        ..BatchRules::default()
    });
    runtime().block_on(async {
        let client = reqwest::Client::new();
        let id = create_openai(&client, &sim, 2).await;
        let running = get(&client, format!("{}/batches/{id}", sim.base_url())).await;
        assert_eq!(running["status"], "validating");
        let cancelling: Value = client
            .post(format!("{}/batches/{id}/cancel", sim.base_url()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(cancelling["status"], "cancelling");
        let (batch, _) = poll_openai(&client, &sim, &id).await;
        assert_eq!(batch["status"], "cancelled");
        let errors = lines(&client, &sim, &batch["error_file_id"]).await;
        assert!(
            errors.len() == 2
                && errors
                    .iter()
                    .all(|l| l["error"]["code"] == "batch_cancelled"),
            "{errors:?}"
        );
        assert_eq!(sim.stats().batch_cancels, 1);
    });
}

#[test]
fn a_batch_that_fails_validation_or_repeats_a_request_is_seen() {
    let sim = sim_with(BatchRules::default());
    runtime().block_on(async {
        let client = reqwest::Client::new();
        create_openai(&client, &sim, 2).await;
        let again = create_openai(&client, &sim, 2).await;
        assert_eq!(
            sim.stats().batch_repeats,
            2,
            "the second batch repeats both custom_ids"
        );
        poll_openai(&client, &sim, &again).await;
        sim.set_faults(FaultRules {
            batch: BatchRules {
                fail_batch: true,
                ..BatchRules::default()
            },
            ..FaultRules::default()
        });
        let failing = create_openai(&client, &sim, 1).await;
        let (batch, _) = poll_openai(&client, &sim, &failing).await;
        assert_eq!(batch["status"], "failed");
        assert!(batch["errors"]["data"][0]["message"].is_string(), "{batch}");
        assert!(batch["output_file_id"].is_null());
    });
}

#[test]
fn anthropic_message_batches_report_each_result_by_type() {
    let sim = sim_with(BatchRules {
        polls_in_progress: 1,
        fail_first: 1,
        expire_last: 1,
        ..BatchRules::default()
    });
    runtime().block_on(async {
        let client = reqwest::Client::new();
        let requests: Vec<Value> = (0..3)
            .map(|i| {
                let messages = render(&task(i));
                json!({"custom_id": format!("r{i}"), "params": {
                    "model": "claude-sim", "max_tokens": 1024, "system": messages[0].content,
                    "messages": [{"role": "user", "content": messages[1].content}]}})
            })
            .collect();
        let created: Value = client
            .post(format!("{}/v1/messages/batches", sim.root_url()))
            .json(&json!({ "requests": requests }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(created["processing_status"], "in_progress");
        let id = created["id"].as_str().unwrap();
        let mut batch = Value::Null;
        for _ in 0..200 {
            batch = get(
                &client,
                format!("{}/v1/messages/batches/{id}", sim.root_url()),
            )
            .await;
            if batch["processing_status"] == "ended" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(batch["processing_status"], "ended", "{batch}");
        assert_eq!(
            batch["request_counts"],
            json!({"processing": 0, "succeeded": 1, "errored": 1, "canceled": 0, "expired": 1})
        );
        let url = batch["results_url"]
            .as_str()
            .expect("a results URL once ended");
        let text = client.get(url).send().await.unwrap().text().await.unwrap();
        let types: Vec<(String, String)> = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|l| {
                (
                    l["custom_id"].as_str().unwrap().to_string(),
                    l["result"]["type"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            types,
            [
                ("r0".to_string(), "errored".to_string()),
                ("r1".into(), "succeeded".into()),
                ("r2".into(), "expired".into())
            ]
        );
    });
}
