//! The simulator's own surface (HTTP control routes, the binary) and the judge layer's
//! connection check and full protocol through it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use ragnosis_core::judge::connect::{discover_models, test_connection};
use ragnosis_core::judge::task::TaskKind;
use ragnosis_core::judge::{CallContext, Judge};
use serde_json::Value;

use super::*;

/// A minimal HTTP/1.1 exchange, so these tests need no HTTP client of their own.
fn http(sim: &SimHandle, method: &str, path: &str, body: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(sim.addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        sim.addr,
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let json = response
        .split_once("\r\n\r\n")
        .map_or(Value::Null, |(_, b)| {
            serde_json::from_str(b).unwrap_or(Value::Null)
        });
    (status, json)
}

#[test]
fn control_routes_set_faults_report_stats_and_reset() {
    let sim = start_sim();
    let (status, _) = http(
        &sim,
        "POST",
        "/_sim/faults",
        r#"{"next": [{"kind": "status", "status": 503}]}"#,
    );
    assert_eq!(status, 200);
    let (status, _) = http(
        &sim,
        "POST",
        "/v1/chat/completions",
        r#"{"model": "m", "messages": []}"#,
    );
    assert_eq!(
        status, 503,
        "the configured fault hits the next chat request"
    );
    let (_, stats) = http(&sim, "GET", "/_sim/stats", "");
    assert_eq!(stats["calls"], 1);
    assert_eq!(stats["key_leaks"], 0);
    let (status, _) = http(&sim, "POST", "/_sim/faults", "not json");
    assert_eq!(status, 400);
    http(&sim, "POST", "/_sim/reset", "");
    assert_eq!(sim.stats().calls, 0);
}

#[test]
fn the_binary_announces_its_port() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ragnosis-judge-sim"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let port: u16 = line
        .trim()
        .strip_prefix("listening on 127.0.0.1:")
        .expect("announces the address")
        .parse()
        .unwrap();
    assert!(port > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_connection_reports_a_working_profile() {
    let sim = start_sim();
    let report = test_connection(&profile(&sim), None).await;
    assert!(report.ok, "{report:?}");
    assert!(report.structured_output_parsed);
    assert_eq!(
        report.model, "sim-judge-small",
        "the model the server says answered"
    );
    assert_eq!(sim.stats().by_task.get("aspects"), Some(&1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_connection_explains_an_unreachable_server() {
    let sim = start_sim();
    let mut profile = profile(&sim);
    drop(sim);
    profile.timeout_secs = 2;
    let report = test_connection(&profile, None).await;
    assert!(!report.ok);
    assert!(
        report.message.contains("cannot reach"),
        "{}",
        report.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_models_lists_openai_and_ollama_models() {
    let sim = start_sim();
    let models = discover_models(&profile(&sim), None).await.unwrap();
    assert_eq!(models, vec!["sim-judge-large", "sim-judge-small"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_task_kind_is_judged_through_the_simulator() {
    let sim = start_sim();
    let judge = judge(&profile(&sim), None, 1);
    let q = "When did the Golden Gate Bridge open?".to_string();
    let a = "The Golden Gate Bridge opened in 1937 in San Francisco.".to_string();
    let chunks = vec![
        "The Golden Gate Bridge opened to traffic on May 27, 1937.".to_string(),
        "San Francisco is a city in California.".to_string(),
    ];
    let tasks = one_task_of_each_kind(&q, &a, &chunks);
    for task in &tasks {
        let judgement = judge
            .judge(task, &CallContext::default())
            .await
            .unwrap_or_else(|e| panic!("{task:?}: {e}"));
        assert_eq!(judgement.verdict.kind(), task.kind());
        assert_the_simulator_answers_as_its_rules_say(&judgement.verdict);
    }
    let stats = sim.stats();
    assert_eq!(
        stats.by_task.len(),
        TaskKind::ALL.len(),
        "{:?}",
        stats.by_task
    );
    assert_eq!(
        stats.repairs, 0,
        "the prompts' JSON shapes match what the offline judge serialises"
    );
}

/// One task of every kind on the question `q`, its answer `a` and its `chunks`.
fn one_task_of_each_kind(q: &str, a: &str, chunks: &[String]) -> Vec<Task> {
    vec![
        Task::Aspects {
            question: q.to_string(),
        },
        Task::ChunkRelevance {
            question: q.to_string(),
            chunks: chunks.to_vec(),
        },
        Task::Coverage {
            question: q.to_string(),
            aspects: vec!["the opening date".into()],
            chunks: chunks.to_vec(),
        },
        Task::AnswerReview {
            question: q.to_string(),
            answer: a.to_string(),
            aspects: vec!["the opening date".into()],
        },
        Task::Grounding {
            question: q.to_string(),
            answer: a.to_string(),
            chunks: chunks.to_vec(),
        },
        Task::Reasoning {
            question: q.to_string(),
            answer: a.to_string(),
            chunks: chunks.to_vec(),
        },
        Task::Claims {
            question: q.to_string(),
            text: a.to_string(),
        },
        Task::ClaimLabels {
            claims: vec![a.to_string()],
            passages: chunks.to_vec(),
        },
        golden_gate_scorecard(q, chunks),
        clarity_insights(q),
        Task::DraftQuestion {
            chunk: chunks[0].clone(),
        },
        Task::DraftAnswer {
            question: q.to_string(),
            chunk: chunks[0].clone(),
        },
        criterion_task(q, chunks),
        Task::Advice(Box::new(ragnosis_core::judge::task::AdviceTask {
            question: "What should I fix first?".into(),
            facts: vec![format!("Grounding first: [item 3] asks \"{q}\".")],
            items: vec![3],
        })),
    ]
}

/// The scorecard task, with every criterion, the default examples and the taxonomy.
fn golden_gate_scorecard(q: &str, chunks: &[String]) -> Task {
    Task::Scorecard(Box::new(ragnosis_core::judge::task::ScorecardTask {
        question: q.to_string(),
        // Wrong year and no month: correctness below 0.9, so the taxonomy is asked.
        answer: "It opened in 1936.".into(),
        chunks: chunks.to_vec(),
        ground_truth: "It opened on May 27, 1937.".into(),
        structure_note: vec!["A single date.".into()],
        criteria: ragnosis_core::judge::task::Criterion::ALL.to_vec(),
        examples: ragnosis_core::judge::few_shot::default_examples(),
        taxonomy: true,
    }))
}

/// The insights task: one metric with a low item, no baseline.
fn clarity_insights(q: &str) -> Task {
    Task::Insights(Box::new(ragnosis_core::judge::task::InsightsTask {
        metrics: vec![ragnosis_core::judge::task::MetricBrief {
            metric: "ragvue.clarity".into(),
            description: "How clear the answer reads.".into(),
            mean: 0.4,
            n: 2,
            lower_is_better: false,
            low: vec![ragnosis_core::judge::task::ItemBrief {
                question: q.to_string(),
                score: 0.2,
                explanation: "Clarity 0.20: run-on sentence.".into(),
            }],
            high: vec![],
        }],
        baseline: vec![],
    }))
}

/// What the simulator's rules answer: a drafted question ends with '?', an answer that
/// repeats the passage scores 5 on a criterion, a scorecard rates every criterion and
/// checks every category.
fn assert_the_simulator_answers_as_its_rules_say(verdict: &ragnosis_core::judge::Verdict) {
    if let ragnosis_core::judge::Verdict::DraftQuestion { question } = verdict {
        assert!(
            question.ends_with('?'),
            "the simulator drafts a question: {question}"
        );
    }
    if let ragnosis_core::judge::Verdict::Criterion(v) = verdict {
        // The answer repeats the passage's words: the simulator's rule scores it 5.
        assert_eq!(v.score, Some(5.0), "{v:?}");
        assert!(v.reasoning.starts_with("Simulated judge:"), "{v:?}");
    }
    if let ragnosis_core::judge::Verdict::Advice(v) = verdict {
        // The simulator answers with the facts it was given and the items they name.
        assert_eq!(v.items, [3], "{v:?}");
        assert!(v.answer[0].starts_with("Grounding first"), "{v:?}");
    }
    if let ragnosis_core::judge::Verdict::Scorecard(card) = verdict {
        assert_eq!(card.scores.len(), 7, "every criterion asked is rated");
        assert_eq!(card.failures.len(), 10, "every category is checked");
    }
}

/// A criterion in plain words on 1–5 reading the answer and the passages, whose answer
/// is the first passage itself.
fn criterion_task(question: &str, chunks: &[String]) -> Task {
    let def = ragnosis_core::criteria::Definition {
        name: "grounded".into(),
        question: "Does the answer say only what the passages say?".into(),
        scale: ragnosis_core::criteria::Scale::OneToFive,
        reads: vec![
            ragnosis_core::criteria::ReadField::Answer,
            ragnosis_core::criteria::ReadField::Contexts,
        ],
        direction: Default::default(),
        threshold: None,
        anchors: Vec::new(),
        examples: Vec::new(),
        check: None,
        applies_when: None,
    };
    let item = ragnosis_core::item::Item {
        question: question.into(),
        answer: Some(chunks[0].clone()),
        contexts: chunks
            .iter()
            .map(|c| ragnosis_core::item::Context {
                id: None,
                text: c.clone(),
            })
            .collect(),
        ..Default::default()
    };
    Task::Criterion(Box::new(def.task(&item)))
}
