//! Documents into a corpus, and retrievers ranked on it: chunk counts and offsets against
//! an independent count, and BM25 on a real qrels collection (the SQuAD 2.0 sample:
//! paragraphs as the corpus, each answerable question's paragraph as its gold) against
//! `rank_bm25` (`scripts/bm25-reference.py`: 294 paragraphs, 1 278 questions, Recall@10
//! 0.9530516431924883, MRR@10 0.8347079389919767).

use super::*;

// tests/documents/COUNTS.
const WARRANTY_CHUNKS: u64 = 4;
const FAQ_CHUNKS: u64 = 3;
const WARRANTY_SECOND_START: usize = 613;

fn documents() -> PathBuf {
    repo().join("tests/documents")
}

#[test]
fn ingest_reports_every_file_and_chunks_them_with_offsets() {
    let home = tempfile::tempdir().unwrap();
    let o = ragnosis(
        home.path(),
        &[
            "ingest",
            documents().to_str().unwrap(),
            "--name",
            "northwind",
            "--chunk-tokens",
            "120",
            "--overlap",
            "20",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let files = report["files"].as_array().unwrap();
    let by_name = |name: &str| {
        files
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} is reported: {report}"))
    };
    // Counted independently (tests/documents/COUNTS): words split on whitespace,
    // windows of 120 stepping by 100, the last ending at the last word.
    assert_eq!(by_name("warranty.md")["chunks"], WARRANTY_CHUNKS);
    assert_eq!(by_name("faq.txt")["chunks"], FAQ_CHUNKS);
    let manual = by_name("manual.pdf");
    assert_eq!(manual["pages"], 3, "{manual}");
    assert!(manual["chunks"].as_u64().unwrap() >= 2, "{manual}");
    assert!(by_name("service.html")["chunks"].as_u64().unwrap() >= 1);
    assert!(by_name("broken.pdf")["error"]
        .as_str()
        .unwrap()
        .contains("not a readable PDF"));
    assert!(by_name("empty.txt")["error"]
        .as_str()
        .unwrap()
        .contains("empty"));
    assert_eq!(files.len(), 6, "every file is named, read or not");

    assert_the_stored_chunks_are_the_files_text_at_their_offsets(home.path());

    // Nothing readable: an error, and no corpus is left behind.
    let bad = ragnosis(
        home.path(),
        &["ingest", documents().join("empty.txt").to_str().unwrap()],
    );
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    let listed = stdout(&ragnosis(home.path(), &["corpora", "--json"]));
    assert_eq!(
        serde_json::from_str::<Value>(&listed)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// The stored chunks of corpus 1 in `home` are the file's own text at their offsets, the
/// second warranty chunk where the independent count puts it, the manual's pages in order.
fn assert_the_stored_chunks_are_the_files_text_at_their_offsets(home: &Path) {
    let store = ragnosis_core::store::Store::open(home).unwrap();
    let chunks = ragnosis_core::store::corpora::chunks(store.conn(), 1).unwrap();
    let warranty = std::fs::read_to_string(documents().join("warranty.md")).unwrap();
    let first: Vec<_> = chunks
        .iter()
        .filter(|c| c.key.starts_with("warranty.md#"))
        .collect();
    for c in &first {
        let (s, e) = (c.start.unwrap() as usize, c.end.unwrap() as usize);
        assert_eq!(&warranty[s..e], c.text, "{}", c.key);
    }
    assert_eq!(first[1].start.unwrap() as usize, WARRANTY_SECOND_START);
    let pages: Vec<i64> = chunks
        .iter()
        .filter(|c| c.key.starts_with("manual.pdf#"))
        .map(|c| c.page.unwrap())
        .collect();
    assert!(
        pages.windows(2).all(|w| w[0] <= w[1]) && pages[0] == 1,
        "{pages:?}"
    );
}

/// The SQuAD sample's first `limit` paragraphs as a corpus (ids p0, p1, ...) and their
/// answerable questions as dataset 1, with the paragraph as gold; corpus 1.
fn squad(home: &Path, limit: usize) {
    let shared = ragnosis_core::paths::shared_data_dir();
    let squad: Value = serde_json::from_str(
        &std::fs::read_to_string(shared.join("squad2-sample/dev-v2.0-articles-1-8.json")).unwrap(),
    )
    .unwrap();
    let (mut corpus, mut questions, mut p) = (String::new(), String::new(), 0);
    let paragraphs = squad["data"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["paragraphs"].as_array().unwrap())
        .take(limit);
    for paragraph in paragraphs {
        let id = format!("p{p}");
        corpus.push_str(&format!(
            "{}\n",
            serde_json::json!({ "id": id, "text": paragraph["context"] })
        ));
        for qa in paragraph["qas"].as_array().unwrap() {
            if qa["is_impossible"].as_bool() != Some(true) {
                questions.push_str(&format!(
                    "{}\n",
                    serde_json::json!({ "question": qa["question"], "gold_context_ids": [id] })
                ));
            }
        }
        p += 1;
    }
    let corpus_file = home.join("paragraphs.jsonl");
    let questions_file = home.join("questions.jsonl");
    std::fs::write(&corpus_file, corpus).unwrap();
    std::fs::write(&questions_file, questions).unwrap();
    assert!(ragnosis(home, &["ingest", corpus_file.to_str().unwrap()])
        .status
        .success());
    assert!(
        ragnosis(home, &["import", questions_file.to_str().unwrap()])
            .status
            .success()
    );
}

#[test]
fn the_embedded_model_ranks_a_corpus_and_keeps_its_vectors() {
    let home = tempfile::tempdir().unwrap();
    squad(home.path(), 40);
    let o = crate::support::ragnosis_with_model(home.path())
        .args([
            "retrieval-eval",
            "--dataset",
            "1",
            "--corpus",
            "1",
            "--json",
        ])
        .output()
        .expect("the binary runs");
    if !o.status.success()
        && stderr(&o).contains("embedded model is not available")
        && std::env::var("RAGNOSIS_MODEL").as_deref() != Ok("required")
    {
        return; // no weights on this machine, and this run does not demand them
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let e: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = e["retrievers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["retriever"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["BM25", "all-MiniLM-L6-v2"], "both are compared");
    let embedded = e["retrievers"][1]["recall_at_k"]["value"].as_f64().unwrap();
    assert!(
        embedded > 0.6,
        "a sentence model finds most paragraphs: {embedded}"
    );
    let store = ragnosis_core::store::Store::open(home.path()).unwrap();
    let first = &ragnosis_core::store::corpora::chunks(store.conn(), 1).unwrap()[0];
    let hash = blake3::hash(first.text.as_bytes()).to_hex().to_string();
    assert!(
        ragnosis_core::store::corpora::embedding(store.conn(), "all-MiniLM-L6-v2", &hash)
            .unwrap()
            .is_some_and(|v| v.len() == 384),
        "the chunk's vector is cached for the next evaluation"
    );
}

#[test]
fn bm25_on_the_squad_sample_matches_rank_bm25() {
    let home = tempfile::tempdir().unwrap();
    squad(home.path(), usize::MAX);
    let o = ragnosis(
        home.path(),
        &[
            "retrieval-eval",
            "--dataset",
            "1",
            "--corpus",
            "1",
            "--retrievers",
            "bm25",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let e: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (e["chunks"].as_u64(), e["queries"].as_u64()),
        (Some(294), Some(1278))
    );
    let bm25 = &e["retrievers"][0];
    let recall = bm25["recall_at_k"]["value"].as_f64().unwrap();
    let mrr = bm25["mrr_at_k"]["value"].as_f64().unwrap();
    assert!(
        (recall - 0.953_051_643_192_488_3).abs() < 1e-12,
        "Recall@10 {recall}"
    );
    assert!((mrr - 0.834_707_938_991_976_7).abs() < 1e-9, "MRR@10 {mrr}");
    let (lo, hi) = (
        bm25["recall_at_k"]["ci_low"].as_f64().unwrap(),
        bm25["recall_at_k"]["ci_high"].as_f64().unwrap(),
    );
    assert!(
        lo < recall && recall < hi,
        "the interval brackets the figure"
    );

    let refused = ragnosis(
        home.path(),
        &[
            "retrieval-eval",
            "--dataset",
            "1",
            "--corpus",
            "1",
            "--retrievers",
            "tfidf",
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("unknown retriever 'tfidf'"));
}

/// An OpenAI-compatible `/v1/embeddings` service (the judge simulator, on 127.0.0.1)
/// saved as a judge profile ranks the corpus beside BM25; its vectors are cached by
/// model and endpoint, a malformed reply is an error naming the profile, and the
/// comparison is written as a Markdown report with its chart.
#[test]
fn an_embeddings_endpoint_is_compared_with_bm25_and_its_vectors_are_cached() {
    use ragnosis_judge_sim::{SimConfig, Simulator};
    let sim = Simulator::start(SimConfig::default()).unwrap();
    let home = tempfile::tempdir().unwrap();
    squad(home.path(), 30);
    add_the_simulator_as_judge_sim(home.path(), &sim.base_url());
    let report = home.path().join("retrievers.md");
    let eval = |retrievers: &str| {
        ragnosis(
            home.path(),
            &[
                "retrieval-eval",
                "--dataset",
                "1",
                "--corpus",
                "1",
                "--retrievers",
                retrievers,
                "--report",
                report.to_str().unwrap(),
                "--json",
            ],
        )
    };
    let o = eval("bm25,endpoint:sim@sim-embed-1");
    assert!(o.status.success(), "{}", stderr(&o));
    let e: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let endpoint = &e["retrievers"][1];
    assert_eq!(endpoint["retriever"], "sim-embed-1 (sim)");
    let recall = endpoint["recall_at_k"]["value"].as_f64().unwrap();
    assert!(
        recall > 0.5,
        "word-overlap vectors find most paragraphs: {recall}"
    );
    let queries = e["queries"].as_u64().unwrap();
    let batches = |n: u64| n.div_ceil(32);
    let first = sim.stats().embedding_requests;
    assert_eq!(
        first,
        batches(30) + batches(queries),
        "chunks, then questions, in batches of 32"
    );

    // The chunks' vectors come from the cache the second time: only questions are sent.
    assert!(eval("endpoint:sim@sim-embed-1").status.success());
    assert_eq!(sim.stats().embedding_requests - first, batches(queries));
    // Another model on the same endpoint shares nothing with the first.
    assert!(eval("endpoint:sim@sim-embed-2").status.success());
    assert_eq!(
        sim.stats().embedding_requests - first - batches(queries),
        batches(30) + batches(queries)
    );

    assert_the_report_shows_the_model_as_text_beside_its_chart(home.path(), &report);

    let broken = eval("bm25,endpoint:sim@sim-embed-broken");
    assert_eq!(broken.status.code(), Some(2), "{}", stderr(&broken));
    assert!(
        stderr(&broken).contains("embeddings endpoint of profile sim failed")
            && stderr(&broken).contains("vectors for"),
        "{}",
        stderr(&broken)
    );
    let unknown = eval("endpoint:nobody");
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("nobody"), "{}", stderr(&unknown));
}

/// The judge simulator at `base_url` saved as the OpenAI-compatible judge profile `sim`.
fn add_the_simulator_as_judge_sim(home: &Path, base_url: &str) {
    let added = ragnosis(
        home,
        &[
            "judges",
            "add",
            "sim",
            "--kind",
            "openai",
            "--base-url",
            base_url,
            "--model",
            "sim-judge-small",
        ],
    );
    assert!(added.status.success(), "{}", stderr(&added));
}

/// The Markdown report at `report` shows the last model compared as text (its Markdown
/// escaped), and its chart is written beside it.
fn assert_the_report_shows_the_model_as_text_beside_its_chart(home: &Path, report: &Path) {
    let md = std::fs::read_to_string(report).unwrap();
    assert!(
        md.contains("| sim\\-embed\\-2 \\(sim\\) |"),
        "escaped as text: {md}"
    );
    let chart = std::fs::read_to_string(home.join("retrievers-retrievers.svg")).unwrap();
    assert!(
        chart.contains("Recall@10"),
        "the chart is written beside the report"
    );
}
