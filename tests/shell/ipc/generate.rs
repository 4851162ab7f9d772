//! Generate: documents ingested into a corpus, a test set generated from it by the judge
//! simulator, cancelled and resumed, exported, and used to compare retrievers.

use std::path::Path;

use serde_json::{json, Value};

use super::common::{assert_error, profile, shell, Shell};

/// The Generate screen's commands end to end against the judge simulator: documents
/// become a corpus (unreadable files named), the offline judge is refused before
/// anything is stored, a generation streams progress and ends, its candidates keep their
/// reasons, cancel and resume keep what was decided, both exports write JSONL, and the
/// generated set compares BM25 with the simulator's embeddings endpoint.
#[test]
fn documents_become_a_generated_test_set_and_compare_retrievers() {
    let sim = ragnosis_judge_sim::Simulator::start(ragnosis_judge_sim::SimConfig {
        faults: ragnosis_judge_sim::faults::FaultRules {
            latency_ms: 30,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let corpus = ingest_the_test_documents(&s);

    let settings = json!({ "count": 3, "seed": 1, "require_answerable": true, "min_faithfulness": 0.8,
                           "min_relevance": 0.7, "budget_usd": null });
    assert_the_offline_judge_is_refused_before_anything_is_stored(&s, corpus, &settings);

    let mut sim_profile = profile("sim", &sim.base_url());
    sim_profile["model"] = json!("sim-judge-small");
    s.ok("save_judge", json!({ "profile": sim_profile }));
    let input = json!({ "corpus_id": corpus, "judge": "sim", "name": "northwind cases", "settings": settings });
    let plan = s.ok("preview_generation", json!({ "input": input }));
    assert_eq!(plan["calls"], 15, "five calls for each of three chunks");
    assert_eq!(sim.stats().calls, 0, "a plan calls nothing");

    let id = s.ok(
        "start_generation",
        json!({ "input": input, "onProgress": "__CHANNEL__:61" }),
    );
    let (dataset, candidates) = assert_the_generation_ends_with_three_cases_stored(&s, &id);
    assert_both_exports_are_jsonl(&s, home.path(), &id, candidates);
    assert_a_cancelled_generation_stops_resumable_and_resume_finishes_it(&s, corpus);
    assert_the_generated_set_ranks_its_own_corpus(&s, home.path(), dataset, corpus);
}

/// tests/documents ingested as a corpus: every file reported, the broken PDF with its
/// error; the corpus id.
fn ingest_the_test_documents(s: &Shell) -> i64 {
    let documents = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/documents");
    let report = s.ok(
        "ingest_documents",
        json!({ "input": { "paths": [documents], "chunk_tokens": 120, "overlap": 20 } }),
    );
    assert_eq!(report["name"], "documents", "named after the folder");
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 6);
    assert!(
        files
            .iter()
            .any(|f| f["path"].as_str().unwrap().ends_with("broken.pdf")
                && f["error"].as_str().is_some_and(|e| !e.is_empty())),
        "{report}"
    );
    let corpus = report["corpus_id"].as_i64().unwrap();
    let chunks = report["chunks"].as_u64().unwrap();
    assert_eq!(
        s.ok("list_corpora", Value::Null)[0]["chunks"].as_u64(),
        Some(chunks)
    );
    corpus
}

/// The offline judge cannot write questions: a generation with it is refused and none
/// is stored.
fn assert_the_offline_judge_is_refused_before_anything_is_stored(
    s: &Shell,
    corpus: i64,
    settings: &Value,
) {
    let offline = s
        .invoke(
            "start_generation",
            json!({ "input": { "corpus_id": corpus, "judge": "offline", "settings": settings }, "onProgress": "__CHANNEL__:60" }),
        )
        .unwrap_err();
    assert_error(&offline, "invalid");
    assert!(offline["message"]
        .as_str()
        .unwrap()
        .contains("cannot write questions"));
    assert_eq!(s.ok("list_generations", Value::Null), json!([]));
}

/// Generation `id` streams its progress and ends done with three accepted cases, stored
/// as the dataset "northwind cases"; every other candidate keeps its reason. The
/// dataset's id and the number of candidates.
fn assert_the_generation_ends_with_three_cases_stored(s: &Shell, id: &Value) -> (i64, usize) {
    let events = s.events_until_ended(61);
    let ended = events.last().unwrap();
    assert_eq!(
        (&ended["status"], &ended["run_id"]),
        (&json!("done"), id),
        "{ended}"
    );
    assert!(events
        .iter()
        .any(|e| e["kind"] == "advanced" && e["done"] == 3 && e["total"] == 3));
    assert!(events
        .iter()
        .any(|e| e["kind"] == "totals" && e["calls"].as_u64() >= Some(15)));
    let detail = s.ok("get_generation", json!({ "generationId": id }));
    assert_eq!(detail["summary"]["accepted"], 3);
    assert_eq!(detail["active"], false);
    let candidates = detail["candidates"].as_array().unwrap();
    assert!(candidates
        .iter()
        .filter(|c| c["status"] != "accepted")
        .all(|c| c["reason"].as_str().is_some_and(|r| !r.is_empty())));
    let dataset = detail["summary"]["dataset_id"].as_i64().unwrap();
    let datasets = s.ok("list_datasets", Value::Null);
    assert!(
        datasets
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == dataset && d["name"] == "northwind cases" && d["item_count"] == 3),
        "{datasets}"
    );
    (dataset, candidates.len())
}

/// Both exports are JSONL; the test set imports back as the same three cases, the
/// candidates file has every candidate, and an unknown export is refused.
fn assert_both_exports_are_jsonl(s: &Shell, home: &Path, id: &Value, candidates: usize) {
    let out = home.join("cases.jsonl");
    let written = s.ok(
        "export_generation",
        json!({ "generationId": id, "what": "test_set", "path": out }),
    );
    assert_eq!(written["rows"], 3);
    let imported = s.ok("import_file", json!({ "path": out }));
    assert_eq!(imported["report"]["items_accepted"], 3, "{imported}");
    let all = home.join("candidates.jsonl");
    let written = s.ok(
        "export_generation",
        json!({ "generationId": id, "what": "candidates", "path": all }),
    );
    assert_eq!(written["rows"].as_u64(), Some(candidates as u64));
    assert_error(
        &s.invoke(
            "export_generation",
            json!({ "generationId": id, "what": "everything", "path": all }),
        )
        .unwrap_err(),
        "invalid",
    );
}

/// A generation cancelled at once stops resumable; resuming finishes it.
fn assert_a_cancelled_generation_stops_resumable_and_resume_finishes_it(s: &Shell, corpus: i64) {
    let big = json!({ "corpus_id": corpus, "judge": "sim", "settings": {
        "count": 6, "seed": 2, "require_answerable": true, "min_faithfulness": 0.8,
        "min_relevance": 0.7, "budget_usd": null } });
    let second = s.ok(
        "start_generation",
        json!({ "input": big, "onProgress": "__CHANNEL__:62" }),
    );
    s.ok("cancel_generation", json!({ "generationId": second }));
    let stopped = s.events_until_ended(62);
    assert_eq!(stopped.last().unwrap()["status"], "cancelled");
    let before = s.ok("get_generation", json!({ "generationId": second }))["summary"]["accepted"]
        .as_u64()
        .unwrap();
    assert!(before < 6);
    s.ok(
        "resume_generation",
        json!({ "generationId": second, "judge": "sim", "onProgress": "__CHANNEL__:63" }),
    );
    let resumed = s.events_until_ended(63);
    let last = resumed.last().unwrap();
    assert!(
        last["status"] == "done" || last["status"] == "exhausted",
        "{last}"
    );
    assert_error(
        &s.invoke("cancel_generation", json!({ "generationId": second }))
            .unwrap_err(),
        "not_running",
    );
}

/// The generated set ranks its own corpus: BM25 beside the endpoint's vectors, with a
/// chart and a report of the comparison shown; an unknown retriever is refused.
fn assert_the_generated_set_ranks_its_own_corpus(
    s: &Shell,
    home: &Path,
    dataset: i64,
    corpus: i64,
) {
    let view = s.ok(
        "evaluate_retrievers",
        json!({ "input": { "dataset_id": dataset, "corpus_id": corpus,
                           "retrievers": ["bm25", "endpoint:sim@sim-embed-1"], "k": 5 } }),
    );
    assert_eq!(view["eval"]["queries"], 3);
    let names: Vec<&str> = view["eval"]["retrievers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["retriever"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["BM25", "sim-embed-1 (sim)"]);
    assert!(view["chart"]["svg"].as_str().unwrap().contains("<svg"));
    // The report is the comparison shown, written without evaluating again.
    let md = home.join("retrievers");
    let exported = s.ok(
        "export_retrieval_report",
        json!({ "eval": view["eval"], "path": md }),
    );
    let paths = exported["paths"].as_array().unwrap();
    assert!(paths[0].as_str().unwrap().ends_with("retrievers.md"));
    assert!(std::fs::read_to_string(paths[0].as_str().unwrap())
        .unwrap()
        .contains("| BM25 |"));
    assert_error(
        &s.invoke(
            "evaluate_retrievers",
            json!({ "input": { "dataset_id": dataset, "corpus_id": corpus, "retrievers": ["telepathy"], "k": 5 } }),
        )
        .unwrap_err(),
        "invalid",
    );
}
