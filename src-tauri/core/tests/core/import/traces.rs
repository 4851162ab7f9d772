//! Trace exports: OpenInference spans from Phoenix (nested snake_case) and OTLP
//! (camelCase ids, attribute lists), read one item per trace; and hostile traces.

use std::path::PathBuf;

use ragnosis_core::dataset::Format;
use serde_json::json;

use super::import;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/traces")
            .join(name),
    )
    .expect("fixture present")
}

#[test]
fn a_phoenix_span_export_becomes_one_item_per_trace_in_rank_order() {
    let got = import("phoenix-spans.jsonl", &fixture("phoenix-spans.jsonl"));
    assert_eq!(
        got.report.format,
        Some(Format::Spans {
            dialect: "OpenInference".into(),
            spans: 10,
            traces: 3
        })
    );
    assert_eq!(got.items.len(), 3, "{:?}", got.report.rejected);
    assert_eq!(
        got.report.schema,
        Some(ragnosis_core::dataset::Schema::OpenInference)
    );
    assert_eq!(
        got.report.mapping["question"],
        ["root span input.value"],
        "the report names the span attribute each field came from"
    );
    let by_question = |q: &str| {
        got.items
            .iter()
            .map(|i| &i.item)
            .find(|i| i.question == q)
            .unwrap_or_else(|| panic!("{q} imported"))
    };
    // The root span's input was {"query": ...}: unwrapped to the question.
    let first = by_question("How long is the frame warranty?");
    assert_eq!(
        first.answer.as_deref(),
        Some("The frame is covered for ten years from the purchase date.")
    );
    // The reranker reordered the retriever's two documents: its order wins.
    assert_eq!(first.retrieved_ids, ["warranty.md#0", "faq.txt#2"]);
    assert!(first.contexts[0]
        .text
        .starts_with("Northwind Cycles warrants"));
    assert_eq!(
        first.metadata["llm_tokens"],
        json!({"prompt": 412, "completion": 31})
    );
    assert_eq!(
        first.metadata["prior_scores"]["relevance"]["score"],
        json!(1.0)
    );
    assert_eq!(
        first.id.as_deref(),
        Some("00000000000000000000000000000001")
    );
    // Without a reranker, the retriever's order stands.
    let third = by_question("What does Walk Assist do?");
    assert_eq!(third.retrieved_ids, ["manual.pdf#3", "manual.pdf#1"]);
    assert!(third.metadata.get("prior_scores").is_none());
}

#[test]
fn an_otlp_shaped_export_with_attribute_lists_reads_the_same_trace() {
    let got = import(
        "otlp-openinference-spans.jsonl",
        &fixture("otlp-openinference-spans.jsonl"),
    );
    assert_eq!(got.items.len(), 1, "{:?}", got.report.rejected);
    let item = &got.items[0].item;
    assert_eq!(item.question, "How long is the frame warranty?");
    assert_eq!(item.contexts.len(), 2);
    assert_eq!(item.retrieved_ids, ["warranty.md#0", "faq.txt#2"]);
}

fn span(
    trace: &str,
    id: &str,
    parent: Option<&str>,
    kind: &str,
    attributes: serde_json::Value,
) -> String {
    json!({ "context": {"trace_id": trace, "span_id": id}, "parent_id": parent, "span_kind": kind,
            "start_time": "2026-11-20T10:00:00+00:00",
            "attributes": attributes })
    .to_string()
}

/// Cycles in parent ids, a missing root, 10 000 documents on one span and a line not in
/// UTF-8: each is reported where it is, and the good trace still imports.
#[test]
fn a_hostile_trace_export_is_reported_and_the_rest_imports() {
    let chain = |q: &str| json!({"input": {"value": q}, "output": {"value": "An answer."}});
    let many: Vec<serde_json::Value> = (0..10_000)
        .map(|n| json!({"document": {"id": format!("d{n}"), "content": format!("Passage number {n}.")}}))
        .collect();
    let mut bytes = Vec::new();
    for line in [
        span("good", "g1", None, "CHAIN", chain("What is covered?")),
        // A cycle: a1 -> a2 -> a1, no root.
        span("cycle", "a1", Some("a2"), "CHAIN", chain("Cycle question?")),
        span("cycle", "a2", Some("a1"), "LLM", json!({})),
        // The root was not exported: read from the topmost span present.
        span(
            "orphan",
            "o2",
            Some("o1-missing"),
            "CHAIN",
            chain("Orphan question?"),
        ),
        // Ten thousand documents on one retriever span.
        span("wide", "w1", None, "CHAIN", chain("Wide question?")),
        span(
            "wide",
            "w2",
            Some("w1"),
            "RETRIEVER",
            json!({"retrieval": {"documents": many}}),
        ),
    ] {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(b"{\"context\": {\"trace_id\": \"bad\", \"span_id\": \"\xff\xfe\"}}\n");
    let got = import("hostile-spans.jsonl", &bytes);
    let questions: Vec<&str> = got.items.iter().map(|i| i.item.question.as_str()).collect();
    assert!(questions.contains(&"What is covered?"), "{questions:?}");
    assert!(questions.contains(&"Orphan question?"), "{questions:?}");
    let reasons: Vec<(u64, &str)> = got
        .report
        .rejected
        .iter()
        .map(|r| (r.line, r.reason.as_str()))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|(line, r)| *line == 2 && r.contains("cycle")),
        "{reasons:?}"
    );
    let warned = |line: u64, text: &str| {
        got.report
            .warnings
            .iter()
            .any(|w| w.line == line && w.message.contains(text))
    };
    // Bytes not UTF-8 but Windows-1252 ("ÿþ") are read as such, and the line says so.
    assert!(warned(7, "Windows-1252"), "{:?}", got.report.warnings);
    assert!(
        warned(4, "root span is missing"),
        "{:?}",
        got.report.warnings
    );
    // The wide trace is either imported with its contexts capped or rejected with the
    // reason: never silently cut without a word.
    let wide = got
        .items
        .iter()
        .find(|i| i.item.question == "Wide question?");
    match wide {
        Some(item) => assert!(
            item.item.contexts.len() < 10_000 && got.report.warnings.iter().any(|w| w.line == 5),
            "a capped context list is reported: {:?}",
            got.report.warnings
        ),
        None => assert!(reasons.iter().any(|(line, _)| *line == 5), "{reasons:?}"),
    }
}

#[test]
fn a_token_count_no_model_could_use_is_ignored_and_the_trace_still_imports() {
    // Two model calls of one trace; the fuzzer found that a count of 2^64 in the first
    // overflowed the trace's total. Such a count is taken as not stated.
    let span = |id: &str, prompt: serde_json::Value, completion: serde_json::Value| {
        json!({
            "context": {"trace_id": "00000000000000000000000000000009", "span_id": id},
            "name": "ChatCompletion", "span_kind": "LLM",
            "parent_id": null,
            "start_time": "2026-11-20T10:00:00+00:00", "end_time": "2026-11-20T10:00:01+00:00",
            "attributes": {
                "openinference": {"span": {"kind": "LLM"}},
                "llm": {"token_count": {"prompt": prompt, "completion": completion}},
                "input": {"value": "Weather in Paris?"},
                "output": {"value": "Rainy, 14 °C."}
            }
        })
        .to_string()
    };
    let file = [
        span("0000000900000001", json!(97), json!(18446744073709551616.0)),
        span("0000000900000002", json!(50), json!(-3)),
        span("0000000900000003", json!(10), json!(7)),
    ]
    .join("\n");
    let got = import("spans.jsonl", file.as_bytes());
    assert_eq!(got.items.len(), 1, "{:?}", got.report.rejected);
    assert_eq!(
        got.items[0].item.metadata["llm_tokens"],
        json!({"prompt": 157, "completion": 7})
    );
}
