//! The real files other tools wrote (tests/real, byte for byte as their users committed
//! them; tests/real/README.md says where each keeps its question, answer, contexts and
//! scores). One test per file: what it imports as, or why it cannot be imported.

use std::path::PathBuf;

use ragnosis_core::dataset::{ImportLimits, PRIOR_SCORES_KEY};
use ragnosis_core::item::Item;
use serde_json::Value;

use super::{try_import, Imported};

fn real(path: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/real")
            .join(path),
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn imported(path: &str) -> Imported {
    let name = path.rsplit('/').next().unwrap();
    try_import(name, &real(path), &ImportLimits::default())
        .unwrap_or_else(|e| panic!("{path} imports: {e}"))
}

/// A text the file holds: whole, or (when long) its first 100 and last 40 characters.
enum Text {
    Exact(&'static str),
    Span(&'static str, &'static str),
}
use Text::{Exact, Span};

impl Text {
    fn check(&self, got: &str, what: &str, file: &str) {
        match self {
            Exact(want) => assert_eq!(got, *want, "{file}: {what}"),
            Span(start, end) => assert!(
                got.starts_with(start) && got.ends_with(end),
                "{file}: {what} should run from {start:?} to {end:?}; got {got:?}"
            ),
        }
    }
}

/// A prior score: a number, or the source tool's error (never a 0).
enum Prior {
    Score(f64),
    ToolError,
}
use Prior::{Score, ToolError};

struct Sample {
    /// Position among the imported items.
    index: usize,
    question: Text,
    answer: Option<Text>,
    contexts: usize,
    ground_truth: Option<Text>,
    priors: &'static [(&'static str, Prior)],
}

struct Case {
    file: &'static str,
    items: usize,
    rejected: u64,
    samples: &'static [Sample],
}

/// The files that import: how many items, and two of them field by field (the first and
/// the last; one when the file holds one), with their prior scores.
const CASES: &[Case] = include!("real_cases.rs");
const CASES_BY_SHAPE: &[Case] = include!("real_cases_by_shape.rs");

#[test]
fn every_real_file_that_holds_items_imports_them_with_their_fields() {
    for case in CASES.iter().chain(CASES_BY_SHAPE) {
        let got = imported(case.file);
        assert_eq!(got.items.len(), case.items, "{}: items", case.file);
        assert_eq!(
            got.report.rejected_count, case.rejected,
            "{}: rejected {:?}",
            case.file, got.report.rejected
        );
        for sample in case.samples {
            let item = &got.items[sample.index].item;
            let at = format!("{} item {}", case.file, sample.index);
            sample.question.check(&item.question, "question", &at);
            match (&sample.answer, &item.answer) {
                (Some(want), Some(answer)) => want.check(answer, "answer", &at),
                (None, None) => {}
                (want, got) => panic!("{at}: answer {got:?}, expected one: {}", want.is_some()),
            }
            assert_eq!(item.contexts.len(), sample.contexts, "{at}: contexts");
            match (&sample.ground_truth, &item.ground_truth) {
                (Some(want), Some(gt)) => want.check(gt, "ground truth", &at),
                (None, None) => {}
                (want, got) => panic!(
                    "{at}: ground truth {got:?}, expected one: {}",
                    want.is_some()
                ),
            }
            for (name, want) in sample.priors {
                let prior = prior(item, name);
                match want {
                    Score(score) => assert_eq!(
                        prior["score"].as_f64(),
                        Some(*score),
                        "{at}: prior {name}: {prior}"
                    ),
                    ToolError => assert!(
                        prior.get("score").is_none() && prior["error"].is_string(),
                        "{at}: prior {name} is the tool's error, never a score: {prior}"
                    ),
                }
            }
        }
    }
}

/// Every real file's first two items, to look at by hand (`--ignored --nocapture`).
#[test]
#[ignore]
fn dump_real_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/real");
    let mut files: Vec<PathBuf> = walk(&root);
    files.sort();
    for file in files {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        match try_import(
            "x",
            &std::fs::read(&file).unwrap(),
            &ImportLimits::default(),
        ) {
            Err(e) => println!("== {rel}: ERROR [{}] {e}", e.code()),
            Ok(got) => {
                println!(
                    "== {rel}: {} items, {} rejected {:?}, format {:?}, schema {:?}",
                    got.items.len(),
                    got.report.rejected_count,
                    got.report.rejected.first().map(|r| &r.reason),
                    got.report.format,
                    got.report.schema
                );
                for w in got.report.warnings.iter().take(3) {
                    println!("   warning {w}");
                }
                for c in &got.report.choices {
                    println!("   choice {} <- {}: {}", c.field, c.chosen, c.why);
                }
                for (f, s) in &got.report.mapping {
                    println!("   map {f} <- {s:?}");
                }
                let last = got.items.len().saturating_sub(1);
                for (i, item) in got.items.iter().enumerate() {
                    if i != 0 && i != last {
                        continue;
                    }
                    let it = &item.item;
                    let priors: Vec<(String, Value)> = it
                        .metadata
                        .get(PRIOR_SCORES_KEY)
                        .and_then(Value::as_object)
                        .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                        .unwrap_or_default();
                    println!(
                        "JSON {}",
                        serde_json::json!({"file": rel, "n": got.items.len(), "i": i,
                            "q": it.question, "a": it.answer, "c": it.contexts.len(),
                            "gt": it.ground_truth, "rc": it.reference_contexts.len(), "p": priors,
                            "rejected": got.report.rejected_count})
                    );
                    let mut v = serde_json::to_value(&item.item).unwrap();
                    if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                        m.retain(|k, _| k == PRIOR_SCORES_KEY || k == "group");
                    }
                    let text = v.to_string();
                    println!("   item {}", &text[..text.len().min(1500)]);
                }
            }
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if !(name.ends_with(".SOURCE")
            || name.starts_with("LICENSE")
            || name.starts_with("NOTICE")
            || name == "README.md")
        {
            out.push(path);
        }
    }
    out
}

fn prior<'a>(item: &'a Item, name: &str) -> &'a Value {
    &item.metadata[PRIOR_SCORES_KEY][name]
}

/// The rejection reasons of a file that cannot become items.
fn reasons(path: &str) -> Vec<String> {
    let got = imported(path);
    assert!(got.items.is_empty(), "{path}: {:?}", got.questions());
    got.report
        .rejected
        .iter()
        .map(|r| r.reason.clone())
        .collect()
}

#[test]
fn files_without_prompt_text_are_refused_naming_the_field_and_the_mapping() {
    let otlp = reasons("otel-genai/langwatch-dogfood-claude_code.otlp.json");
    assert_eq!(otlp.len(), 1);
    assert!(
        otlp[0].contains("`attributes.gen_ai.input.messages`")
            && otlp[0].contains("--map question="),
        "{}",
        otlp[0]
    );
    let runs = reasons("langsmith/langsmith-fetch-sample_runs_flat.json");
    assert_eq!(
        runs.len(),
        1,
        "the 4 runs are one trace (by dotted_order): {runs:?}"
    );
    assert!(
        runs[0].contains("`inputs` on the root run") && runs[0].contains("--map question="),
        "{}",
        runs[0]
    );
}

#[test]
fn ragalyst_few_shot_demos_are_refused_as_items_pointing_to_the_few_shot_option() {
    let refused = reasons("ragalyst/ragalyst-answer_correctness.fewshot.json");
    assert_eq!(refused.len(), 8, "one reason per demo");
    assert!(
        refused.iter().all(|r| r.contains("--few-shot FILE")),
        "{refused:?}"
    );
}

#[test]
fn an_empty_promptfoo_stub_says_it_holds_no_results() {
    let got = imported("promptfoo/llm-security-range.promptfoo-results.empty.json");
    assert_eq!((got.items.len(), got.report.items_read), (0, 0));
    assert_eq!(
        got.report.warnings[0].message,
        "0 items: the file holds no results (`results.results` is an empty list)"
    );
}

#[test]
fn promptfoo_rows_that_failed_with_an_assertion_error_are_items_with_that_error() {
    let got = imported("promptfoo/nicheiq.promptfoo-results.json");
    for item in &got.items {
        let assertions = prior(&item.item, "assertions");
        assert!(assertions.get("score").is_none(), "never a 0: {assertions}");
        assert!(
            assertions["error"]
                .as_str()
                .is_some_and(|e| e.contains("an assertion failed to run")),
            "{assertions}"
        );
    }
    assert!(
        got.report.choices.iter().any(|c| c.field == "question"
            && c.chosen == "vars.niche"
            && c.why.contains("first of the 2 text variables")),
        "{:?}",
        got.report.choices
    );
}

#[test]
fn python_nan_tokens_are_missing_values_said_on_their_lines() {
    let got = imported("ragas/veritasrag.ragas_results.json");
    let nan_lines: Vec<u64> = got
        .report
        .warnings
        .iter()
        .filter(|w| w.message.contains("NaN"))
        .map(|w| w.line)
        .collect();
    assert!(!nan_lines.is_empty());
    let text = String::from_utf8(real("ragas/veritasrag.ragas_results.json")).unwrap();
    for line in &nan_lines {
        let held = text.lines().nth(*line as usize - 1).unwrap();
        assert!(held.contains("NaN"), "line {line} holds a NaN: {held}");
    }
}

#[test]
fn vercel_spans_read_each_call_once_and_say_which_were_repeats() {
    let got = imported("vercel-ai-sdk/openinference-vercel-v6-all-spans.json");
    let repeats = got
        .report
        .warnings
        .iter()
        .filter(|w| w.message.contains("repeats the question and answer"))
        .count();
    assert_eq!(
        repeats, 4,
        "generateText twice, generateObject and streamText each have a do* twin"
    );
    let questions = got.questions();
    let unique: std::collections::BTreeSet<_> = questions.iter().collect();
    assert_eq!(unique.len(), questions.len(), "{questions:?}");
}

#[test]
fn a_langsmith_js_patch_without_an_id_is_merged_into_its_run() {
    let got = imported("langsmith/langsmith-sdk-js_wrap_openai_default.post-patch.json");
    assert_eq!(got.report.rejected_count, 0, "{:?}", got.report.rejected);
    let item = &got.items[0].item;
    assert_eq!(item.metadata["spans"], 1, "post and patch are one run");
    assert_eq!(
        item.metadata["llm_tokens"],
        serde_json::json!({"prompt": 9, "completion": 9}),
        "from the patch's outputs.usage_metadata"
    );
}

#[test]
fn a_traced_deepeval_case_takes_contexts_and_answer_from_its_trace() {
    let got = imported("deepeval/deepeval-inspect-test_run_sample.json");
    let item = &got.items[0].item;
    assert_eq!(
        item.answer.as_deref(),
        Some("CECL (Current Expected Credit Losses) forecasting models lifetime credit losses..."),
        "trace.output.answer, not the placeholder actualOutput"
    );
    assert_eq!(
        item.contexts.len(),
        3,
        "trace.retrieverSpans[0].retrievalContext"
    );
    assert_eq!(
        item.metadata["actual_output_placeholder"], "{...}",
        "the placeholder is kept"
    );
}

#[test]
fn alce_docs_are_contexts_cited_by_their_position() {
    let got = imported("alce/citekit-asqa.json");
    let first = &got.items[0].item.contexts[0];
    assert_eq!(first.id.as_deref(), Some("1"));
    assert!(
        first
            .text
            .starts_with("Argentina–Brazil football rivalry\n\"Football Player of the Century\""),
        "{:?}",
        first.text
    );
}

/// A real Langfuse trace download with a scores download beside it (written here in the
/// shape of Langfuse's `GET /api/public/scores`: `{"data": [...], "meta": {...}}`): the
/// trace's scores become its item's prior scores, an entry that is no score is skipped
/// and counted, and a scores file beside anything but Langfuse traces is refused.
#[test]
fn a_langfuse_scores_file_beside_its_trace_gives_the_items_prior_scores() {
    use ragnosis_core::dataset::{read_items_mapped, DatasetError, FieldMap};
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.json");
    std::fs::write(
        &trace,
        real("langfuse/langfuse-llamaindex-2025-06-05.trace.json"),
    )
    .unwrap();
    let scores = dir.path().join("scores.json");
    let body = r#"{"data":[{"id":"s1","traceId":"12ea412956f99347b0503c1144acd0ec","name":"helpfulness","value":0.8,"source":"ANNOTATION","dataType":"NUMERIC","comment":"clear"},{"id":"s3","traceId":"12ea412956f99347b0503c1144acd0ec","name":"verdict","value":0,"stringValue":"correct","source":"ANNOTATION","dataType":"CATEGORICAL"},{"id":"s2","traceId":"12ea412956f99347b0503c1144acd0ec","name":"correct","value":1,"stringValue":"True","source":"EVAL","dataType":"BOOLEAN"},{"unrelated":true}],"meta":{"page":1,"totalItems":4}}"#;
    // Saved with a byte order mark, as a Windows editor does.
    std::fs::write(&scores, format!("\u{feff}{body}")).unwrap();
    let map = FieldMap {
        scores_file: Some(scores.clone()),
        ..FieldMap::default()
    };
    let mut items = Vec::new();
    let report = read_items_mapped(&trace, &ImportLimits::default(), &map, |a| {
        items.push(a.item);
        Ok(())
    })
    .unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(prior(&items[0], "helpfulness")["score"].as_f64(), Some(0.8));
    assert_eq!(prior(&items[0], "helpfulness")["explanation"], "clear");
    assert_eq!(prior(&items[0], "correct")["score"].as_f64(), Some(1.0));
    assert_eq!(
        prior(&items[0], "verdict")["label"],
        "correct",
        "a categorical score keeps its category's name, not its index"
    );
    let note = report
        .choices
        .iter()
        .find(|c| c.field == "prior_scores")
        .expect("the report names the scores file");
    assert!(
        note.why.contains("3 of 4 scores") && note.why.contains("1 skipped"),
        "{}",
        note.why
    );
    assert!(
        !note.why.contains("other pages"),
        "every score the download reported is in the file"
    );
    // A first page of a larger download says so.
    std::fs::write(
        &scores,
        body.replace("\"totalItems\":4", "\"totalItems\":120"),
    )
    .unwrap();
    let report = read_items_mapped(&trace, &ImportLimits::default(), &map, |_| Ok(())).unwrap();
    let note = report
        .choices
        .iter()
        .find(|c| c.field == "prior_scores")
        .unwrap();
    assert!(
        note.why.contains("4 of the 120 scores") && note.why.contains("other pages"),
        "{}",
        note.why
    );

    let langsmith = dir.path().join("runs.json");
    std::fs::write(
        &langsmith,
        real("langsmith/langsmith-sdk-py_wrap_openai.post-patch.json"),
    )
    .unwrap();
    let refused = read_items_mapped(&langsmith, &ImportLimits::default(), &map, |_| Ok(()));
    match refused {
        Err(DatasetError::UnsupportedShape { path, message }) => {
            assert!(path.ends_with("scores.json"), "{path}");
            assert!(message.contains("beside a Langfuse"), "{message}");
        }
        other => panic!("a scores file beside LangSmith runs: {other:?}"),
    }
}

#[test]
fn an_openai_evals_log_makes_each_sampling_event_an_item_and_notes_the_other_lines() {
    let got = imported("openai-evals/openai-evals-log-gpt-4-cot_semantic_role_recognition.jsonl");
    assert_eq!(got.report.rejected_count, 0, "{:?}", got.report.rejected);
    let notes: Vec<&str> = got
        .report
        .warnings
        .iter()
        .filter(|w| w.message.contains("not an item") || w.message.contains("event of sample"))
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(
        notes.len(),
        2,
        "the spec line and the metrics event: {notes:?}"
    );
    let first = &got.items[0].item;
    assert_eq!(
        first.id.as_deref(),
        Some("semantic_role_recognition.test.231")
    );
    assert!(
        first.metadata.contains_key("system_prompt"),
        "{:?}",
        first.metadata.keys()
    );
}

#[test]
fn files_that_hold_no_item_are_refused_saying_what_they_hold() {
    // AutoRAG's generator output has answers and scores but no question (its rows line
    // up with the qa file by position): each row says which field is missing.
    let generator = imported("autorag/autorag-result-generator-0.parquet");
    assert!(generator.items.is_empty());
    assert!(
        generator.report.rejected[0]
            .reason
            .contains("missing question")
            && generator.report.rejected[0]
                .reason
                .contains("--map question="),
        "{:?}",
        generator.report.rejected[0]
    );
    // A Parquet file cut short (a download that stopped) is refused whole.
    let bytes = real("autorag/autorag-qa_data_sample.parquet");
    let cut = super::try_import(
        "qa.parquet",
        &bytes[..bytes.len() / 2],
        &ImportLimits::default(),
    )
    .err()
    .expect("a Parquet file without its footer");
    assert_eq!(cut.code(), "unsupported_shape");
    assert!(cut.to_string().contains("Parquet"), "{cut}");
    let summary = super::try_import(
        "summary.json",
        &real("azure-ai-evaluation/rag-postgres.evaltools-summary.json"),
        &ImportLimits::default(),
    )
    .err()
    .expect("no items");
    assert_eq!(summary.code(), "unsupported_shape");
}
