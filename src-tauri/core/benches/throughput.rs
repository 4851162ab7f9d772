//! Import and judge-free metric throughput on generated data. Prints figures; asserts
//! nothing. `cargo bench -p ragnosis-core --bench throughput [-- ITEMS]`
//!
//! Items: a question, an answer citing one source, 5 contexts of ~400 characters, a
//! ground truth, a citation label and ranked ids — the shape of a real RAG log. The
//! contexts are chunks of one corpus of 5,000, as a retriever returns them; with
//! `distinct` after ITEMS every context is a new text instead (the worst case for
//! storing each chunk once).

use std::io::Write;
use std::time::Instant;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::metrics::{self, MetricConfig, Scope};
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::{self, Store};

const WORDS: &[&str] = &[
    "battery",
    "warranty",
    "frame",
    "motor",
    "charger",
    "service",
    "centre",
    "firmware",
    "update",
    "range",
    "cycle",
    "torque",
    "brake",
    "pedal",
    "display",
    "shipping",
    "return",
    "policy",
    "months",
    "kilometres",
    "replacement",
    "customer",
    "order",
    "invoice",
    "model",
    "sensor",
    "cable",
    "speed",
    "assist",
    "mode",
];

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
    fn sentence(&mut self, chars: usize) -> String {
        let mut s = String::with_capacity(chars + 16);
        while s.len() < chars {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(WORDS[self.next() % WORDS.len()]);
            if self.next().is_multiple_of(9) {
                s.push('.');
            }
        }
        s
    }
}

/// Prints how long each stage of a run took, to show where the time goes.
struct StageClock(std::sync::Mutex<(Instant, String)>);

impl ragnosis_core::progress::ProgressSink for StageClock {
    fn report(&self, event: ragnosis_core::progress::Progress) {
        use ragnosis_core::progress::Progress;
        let next = match event {
            Progress::Started { stage, .. } => stage,
            Progress::Finished { stage } => format!("end of {stage}"),
            _ => return,
        };
        let mut at = self.0.lock().unwrap();
        println!(
            "  {:>7.2} s  {} (peak RSS so far {:.0} MB)",
            at.0.elapsed().as_secs_f64(),
            at.1,
            peak_rss_mb()
        );
        *at = (Instant::now(), next);
    }
}

fn peak_rss_mb() -> f64 {
    proc_status_mb("VmHWM:")
}

/// A size line of /proc/self/status, in MB.
fn proc_status_mb(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// The judge-free item metrics that count words, without the embedded model's.
fn lexical_metrics() -> Vec<&'static metrics::MetricSpec> {
    metrics::catalogue()
        .iter()
        .filter(|m| m.scope == Scope::Item && !m.judge && !m.synthesised && m.id != SEMANTIC)
        .collect()
}

const SEMANTIC: &str = "reference.semantic_similarity";

// long: a benchmark script: each stage timed in turn with its figures printed
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--statistics-only") {
        return statistics_only(std::path::Path::new(&args[at + 1]));
    }
    if let Some(at) = args.iter().position(|a| a == "--import-only") {
        return import_only(std::path::Path::new(&args[at + 1]));
    }
    if let Some(at) = args.iter().position(|a| a == "--judged") {
        return judged(&args[at + 1..]);
    }
    if let Some(at) = args.iter().position(|a| a == "--run-only") {
        return run_only(
            std::path::Path::new(&args[at + 1]),
            args[at + 2].parse().unwrap(),
        );
    }
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let distinct = std::env::args().any(|a| a == "distinct");
    // RAGNOSIS_BENCH_HOME keeps the database for later looks (`--statistics-only`, the
    // report and first-paint benches); otherwise everything goes with the temp dir.
    let kept = std::env::var_os("RAGNOSIS_BENCH_HOME").map(std::path::PathBuf::from);
    let temp = tempfile::tempdir().unwrap();
    let dir_path = kept.unwrap_or_else(|| temp.path().to_path_buf());
    std::fs::create_dir_all(&dir_path).unwrap();
    let file = dir_path.join("synthetic.jsonl");
    let mut rng = Lcg(42);
    const CORPUS: usize = 5000;
    let corpus: Vec<String> = (0..CORPUS).map(|_| rng.sentence(400)).collect();
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        for i in 0..n {
            let docs: Vec<usize> = (0..5).map(|k| (i * 7 + k * 13) % CORPUS).collect();
            let ids: Vec<String> = docs.iter().map(|d| format!("D{d}")).collect();
            let contexts: Vec<serde_json::Value> = docs
                .iter()
                .zip(&ids)
                .map(|(&d, id)| {
                    let text = if distinct {
                        rng.sentence(400)
                    } else {
                        corpus[d].clone()
                    };
                    serde_json::json!({"doc_id": id, "text": text})
                })
                .collect();
            let gold = &ids[rng.next() % 5];
            let line = serde_json::json!({
                "id": format!("q{i}"),
                "question": format!("What does the {} say about the {}?", WORDS[i % 30], WORDS[(i / 30) % 30]),
                "answer": format!("{} [ID: {}]", rng.sentence(160), ids[rng.next() % 5]),
                "contexts": contexts,
                "ground_truth": rng.sentence(120),
                "gold_id": gold,
                "retrieved_ids": ids,
                "gold_context_ids": [gold],
            });
            serde_json::to_writer(&mut out, &line).unwrap();
            out.write_all(b"\n").unwrap();
        }
    }
    let bytes = std::fs::metadata(&file).unwrap().len();
    let kind = if distinct {
        "every context distinct"
    } else {
        "contexts from a corpus of 5,000 chunks"
    };
    println!("generated {n} items ({kind}), {:.1} MB", bytes as f64 / 1e6);

    // Import only (parse + map + validate), no storage.
    let t = Instant::now();
    let mut accepted = 0u64;
    ragnosis_core::dataset::read_items(&file, &ImportLimits::default(), |_| {
        accepted += 1;
        Ok(())
    })
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "read+validate: {accepted} items in {secs:.2} s = {:.0} items/s",
        accepted as f64 / secs
    );

    // Import into SQLite.
    let mut store = Store::open(&dir_path.join("home")).unwrap();
    let t = Instant::now();
    let imported = ragnosis_core::import::import_file(
        &mut store,
        &file,
        None,
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "import into SQLite: {} items in {secs:.2} s = {:.0} items/s; peak RSS so far {:.0} MB",
        imported.report.items_accepted,
        imported.report.items_accepted as f64 / secs,
        peak_rss_mb()
    );
    let pages: i64 = store
        .conn()
        .query_row(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
            [],
            |r| r.get(0),
        )
        .unwrap();
    println!("database after import: {:.1} MB", pages as f64 / 1e6);

    // Judge-free metrics, computation only. The embedded model's metric is timed on its
    // own: it runs a small transformer per text, a different cost from word counting.
    let lexical = lexical_metrics();
    let items = store::items::page(store.conn(), imported.dataset.id, 0, 20_000).unwrap();
    let config = MetricConfig::default();
    let t = Instant::now();
    let mut cells = 0u64;
    for stored in &items {
        for spec in &lexical {
            std::hint::black_box(metrics::compute(spec, &stored.item, &config));
            cells += 1;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "word-based metrics (compute only, {} items x {} metrics): {cells} item-metrics in {secs:.2} s = {:.0} item-metrics/s",
        items.len(),
        lexical.len(),
        cells as f64 / secs
    );
    if let Some(semantic) = metrics::find(SEMANTIC) {
        let sample = &items[..items.len().min(500)];
        let t = Instant::now();
        for stored in sample {
            std::hint::black_box(metrics::compute(semantic, &stored.item, &config));
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{SEMANTIC} (compute only, embedded model, {} items): {:.0} items/s",
            sample.len(),
            sample.len() as f64 / secs
        );
    }
    drop(items);
    let home = dir_path.join("home");
    drop(store);

    // The whole run in a process of its own, so its peak RSS is the run's and not this
    // process's (the sample above and the embedded model stay in its heap).
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--run-only")
        .arg(&home)
        .arg(imported.dataset.id.to_string())
        .status()
        .unwrap();
    assert!(status.success(), "the run's process failed");
}

/// `--import-only FILE`: one import of FILE into a fresh home, alone in its process (to
/// profile it: `perf record` sees nothing else).
fn import_only(file: &std::path::Path) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let t = Instant::now();
    let imported = ragnosis_core::import::import_file(
        &mut store,
        file,
        Some("synthetic"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    let n = imported.dataset.item_count;
    println!(
        "import only: {n} items in {secs:.2} s = {:.0} items/s",
        n as f64 / secs
    );
}

/// `--run-only HOME DATASET`: a whole judge-free run of the word-based metrics (compute,
/// store every result, statistics, insights, case indexes), stage by stage.
fn run_only(home: &std::path::Path, dataset_id: i64) {
    let mut store = Store::open(home).unwrap();
    println!("RSS before the run: {:.0} MB", proc_status_mb("VmRSS:"));
    let request = RunRequest {
        dataset_id,
        metrics: lexical_metrics().iter().map(|m| m.id.to_string()).collect(),
        ..Default::default()
    };
    let t = Instant::now();
    let judge = std::sync::Arc::new(ragnosis_core::judge::offline::OfflineJudge::default());
    let clock = std::sync::Arc::new(StageClock(std::sync::Mutex::new((
        Instant::now(),
        "planning".to_string(),
    ))));
    let outcome = run::evaluate(&mut store, &request, judge, clock, &CancelToken::new()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "full word-based run (compute + store + statistics + case indexes): {} results in {secs:.2} s = {:.0} item-metrics/s",
        outcome.written,
        outcome.written as f64 / secs
    );
    println!("peak RSS of the run's process: {:.0} MB", peak_rss_mb());
}

/// `--judged HOME DATASET BASE_URL METRIC [batch]`: a run of one judged metric against an
/// OpenAI-compatible server (the judge simulator: `ragnosis-judge-sim --port N`, then
/// `http://127.0.0.1:N/v1`), with the verdict cache, stage by stage. Run it twice to time
/// a run the cache answers.
fn judged(args: &[String]) {
    let [home, dataset, base_url, metric, rest @ ..] = args else {
        panic!("--judged HOME DATASET BASE_URL METRIC [batch]");
    };
    let batch = rest.iter().any(|a| a == "batch");
    let mut store = Store::open(std::path::Path::new(home)).unwrap();
    let profile = ragnosis_core::judge_profile::JudgeProfile {
        name: "bench-sim".into(),
        kind: ragnosis_core::judge::ProviderKind::OpenAi,
        base_url: base_url.clone(),
        model: "sim-judge-small".into(),
        temperature: 0.0,
        concurrency: 32,
        rpm: None,
        tpm: None,
        timeout_secs: 120,
        price_input: Some(2.5),
        price_output: Some(10.0),
        api_version: None,
    };
    store::judge_profiles::upsert(store.conn(), &profile).unwrap();
    let keys = ragnosis_core::judge::open::env_store_for(&profile);
    let judge = ragnosis_core::judge::open::open_judge(&store, &profile.name, &keys).unwrap();
    let request = RunRequest {
        dataset_id: dataset.parse().unwrap(),
        metrics: vec![metric.clone()],
        judge: profile.name.clone(),
        use_cache: true,
        batch,
        ..Default::default()
    };
    println!("RSS before the run: {:.0} MB", proc_status_mb("VmRSS:"));
    let clock = std::sync::Arc::new(StageClock(std::sync::Mutex::new((
        Instant::now(),
        "planning".to_string(),
    ))));
    let t = Instant::now();
    let outcome = run::evaluate(&mut store, &request, judge, clock, &CancelToken::new()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let a = &outcome.accounting;
    println!(
        "judged run ({metric}{}): {:?}, {} results in {secs:.1} s = {:.0} items/s; {a:?}",
        if batch { ", batch" } else { "" },
        outcome.status,
        outcome.written,
        outcome.written as f64 / secs,
    );
    println!("peak RSS of the run's process: {:.0} MB", peak_rss_mb());
}

/// `--statistics-only HOME`: the statistics stage alone, again, on the newest run of a
/// database a run left (to profile it without evaluating again).
fn statistics_only(home: &std::path::Path) {
    let store = Store::open(home).unwrap();
    let run_id = store::runs::list(store.conn()).unwrap()[0].id;
    println!("RSS before statistics: {:.0} MB", proc_status_mb("VmRSS:"));
    let t = Instant::now();
    let summary = ragnosis_core::analysis::summarize(&store, run_id).unwrap();
    println!(
        "statistics of {} items: {:.2} s, peak RSS {:.0} MB",
        summary.items,
        t.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
    drop(summary);
    // The case index's two reads, each alone (the index itself is built already).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let t = Instant::now();
    let aggregates = store::cases::aggregates(store.conn(), run_id, &[]).unwrap();
    println!(
        "case aggregates of {} items: {:.2} s, peak RSS {:.0} MB",
        aggregates.len(),
        t.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
    drop(aggregates);
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let t = Instant::now();
    let mut read = 0u64;
    ragnosis_core::analysis::diagnosis::for_each_rule_scores(store.conn(), run_id, |_| read += 1)
        .unwrap();
    println!(
        "rule scores of {read} items, streamed: {:.2} s, peak RSS {:.0} MB",
        t.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
}
