//! Kill anywhere: the real `ragnosis` binary is SIGKILLed at a random moment of an
//! import, a trace import, a judged run against the judge simulator, report and export
//! writing, and an ingest, over and over on one real SQLite file. After every kill:
//! the database opens and passes SQLite's integrity check; every dataset and corpus the
//! CLI lists is whole (its item, document and chunk counts are those of an
//! uninterrupted import of the same file); every unfinished run resumes to done with
//! exactly one result per cell; every report or export under its final name is whole
//! (byte for byte the uninterrupted output, charts included; reports: PDF and
//! Markdown, exports: JSON, CSV and Markdown).
//!
//! Each operation is first run once to the end (its duration sets the window the kill
//! is drawn from, and its output is the reference). `RAGNOSIS_KILL_LOOPS=50` runs 50
//! kills (the default is 8, cycling through the operations); `RAGNOSIS_KILL_SEED`
//! changes the drawn moments.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use ragnosis_core::store::{self, runs::RunStatus, Store};
use ragnosis_judge_sim::{FaultRules, SimConfig, Simulator};
use serde_json::Value;

use crate::support::*;

/// A small deterministic generator (xorshift), for the kill moments.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Import,
    TraceImport,
    JudgedRun,
    Report,
    Export,
    Ingest,
}

const OPS: [Op; 6] = [
    Op::Import,
    Op::TraceImport,
    Op::JudgedRun,
    Op::Report,
    Op::Export,
    Op::Ingest,
];

/// Items in an import: more than two of the importer's 5,000-item commits, so a kill
/// can land after some items are committed.
const IMPORT_ITEMS: usize = 12_000;
/// Copies of the three Phoenix traces in a trace import.
const TRACE_COPIES: usize = 1_500;
/// Copies of the RAGVUE examples in a judged run.
const RUN_COPIES: usize = 4;
/// Copies of each readable document in an ingest.
const DOCUMENT_COPIES: usize = 40;
/// The date line of reports and exports: a reference and a later output a minute apart
/// would otherwise differ in it, not in being whole.
const DATE: &str = "1 January 2030";

fn import_file(dir: &Path, tag: &str) -> PathBuf {
    let mut out = String::new();
    for j in 0..IMPORT_ITEMS {
        out.push_str(
            &serde_json::json!({
                "id": format!("{tag}-{j}"),
                "question": format!("What does part {j} of batch {tag} do?"),
                "answer": format!("Part {j} holds the frame [P{j}]."),
                "contexts": [format!("Part {j} of batch {tag} holds the frame of the bike.")],
                "ground_truth": format!("It holds the frame."),
            })
            .to_string(),
        );
        out.push('\n');
    }
    let path = dir.join(format!("import-{tag}.jsonl"));
    std::fs::write(&path, out).unwrap();
    path
}

fn trace_file(dir: &Path, tag: &str) -> PathBuf {
    let spans = std::fs::read_to_string(repo().join("tests/traces/phoenix-spans.jsonl")).unwrap();
    let mut out = String::new();
    for copy in 0..TRACE_COPIES {
        for line in spans.lines().filter(|l| !l.trim().is_empty()) {
            let mut span: Value = serde_json::from_str(line).unwrap();
            let trace = span["context"]["trace_id"].as_str().unwrap().to_string();
            span["context"]["trace_id"] = Value::String(format!("{tag}-{copy}-{trace}"));
            out.push_str(&span.to_string());
            out.push('\n');
        }
    }
    let path = dir.join(format!("traces-{tag}.jsonl"));
    std::fs::write(&path, out).unwrap();
    path
}

fn run_file(dir: &Path, tag: &str) -> PathBuf {
    let source =
        std::fs::read_to_string(repo().join("assets/examples/ragvue/agentic.jsonl")).unwrap();
    let mut out = String::new();
    for copy in 0..RUN_COPIES {
        for line in source.lines().filter(|l| !l.trim().is_empty()) {
            let mut item: Value = serde_json::from_str(line).unwrap();
            let q = item["question"].as_str().unwrap().to_string();
            item["question"] = Value::String(format!("{q} ({tag}, case {copy})"));
            out.push_str(&item.to_string());
            out.push('\n');
        }
    }
    let path = dir.join(format!("run-{tag}.jsonl"));
    std::fs::write(&path, out).unwrap();
    path
}

fn documents(dir: &Path, tag: &str) -> PathBuf {
    let folder = dir.join(format!("docs-{tag}"));
    std::fs::create_dir_all(&folder).unwrap();
    for copy in 0..DOCUMENT_COPIES {
        for name in ["warranty.md", "faq.txt", "service.html", "manual.pdf"] {
            let from = repo().join("tests/documents").join(name);
            let to = folder.join(format!("{copy:03}-{name}"));
            std::fs::copy(from, to).unwrap();
        }
    }
    folder
}

/// Files by the suffix after their base name (".pdf", "-overview.svg"), with their bytes.
type Files = Vec<(String, Vec<u8>)>;

/// What an uninterrupted operation left: the counts a listed dataset or corpus must
/// have, the reference outputs.
struct Expected {
    import_items: i64,
    trace_items: i64,
    run_items: i64,
    corpus_documents: i64,
    corpus_chunks: i64,
    /// The run reports and exports are written from.
    finished_run: i64,
    /// Base name ("report", "export") -> its uninterrupted files.
    outputs: Vec<(&'static str, Files)>,
}

/// Everything under `dir` whose name starts with `base`'s file name, by suffix.
fn outputs_of(base: &Path) -> Files {
    let stem = base.file_name().unwrap().to_string_lossy().into_owned();
    let mut found: Files = std::fs::read_dir(base.parent().unwrap())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let suffix = name.strip_prefix(&stem)?.to_string();
            Some((suffix, std::fs::read(e.path()).unwrap()))
        })
        .collect();
    found.sort();
    found
}

/// The command for `op`, tagged `tag` (each iteration its own file, so no import is a
/// reuse of an earlier one).
fn command(op: Op, home: &Path, work: &Path, tag: &str, finished_run: i64) -> Vec<String> {
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    match op {
        Op::Import => vec!["import".into(), s(import_file(work, tag))],
        Op::TraceImport => vec!["import".into(), s(trace_file(work, tag))],
        Op::JudgedRun => vec![
            "agentic".into(),
            s(run_file(work, tag)),
            "--judge".into(),
            "sim".into(),
        ],
        Op::Report => {
            let out = home.join("out");
            std::fs::create_dir_all(&out).unwrap();
            // Each kill writes over the previous iteration's report of the same name.
            vec![
                "report".into(),
                finished_run.to_string(),
                "--format".into(),
                "pdf,md".into(),
                "--out".into(),
                s(out.join("report")),
                "--date".into(),
                DATE.into(),
            ]
        }
        Op::Export => {
            let out = home.join("out");
            std::fs::create_dir_all(&out).unwrap();
            vec![
                "export".into(),
                finished_run.to_string(),
                "--format".into(),
                "json,csv,md".into(),
                "--out-base".into(),
                s(out.join("export")),
                "--date".into(),
                DATE.into(),
            ]
        }
        Op::Ingest => vec![
            "ingest".into(),
            s(documents(work, tag)),
            "--name".into(),
            format!("docs-{tag}"),
        ],
    }
}

fn run_cells(store: &Store, run_id: i64) -> (i64, i64, usize) {
    let row = store::runs::get(store.conn(), run_id).unwrap();
    let item_metrics = row
        .metrics
        .iter()
        .filter(|m| {
            ragnosis_core::metrics::find(m)
                .is_some_and(|s| s.scope == ragnosis_core::metrics::Scope::Item)
        })
        .count() as i64;
    let results: i64 = store::results::status_counts(store.conn(), run_id)
        .unwrap()
        .values()
        .sum();
    let pairs = store::results::done_pairs(store.conn(), run_id)
        .unwrap()
        .len();
    (row.item_count * item_metrics, results, pairs)
}

/// Every invariant a kill must leave intact; resumes what the kill interrupted.
fn check_after_kill(home: &Path, expected: &Expected, what: &str) {
    assert_the_database_opens_and_is_intact(home, what);
    assert_the_ready_datasets_are_whole(home, expected, what);
    assert_the_corpora_are_whole(home, expected, what);
    resume_every_unfinished_run_to_one_result_per_cell(home, what);
    assert_the_outputs_under_their_final_names_are_whole(home, expected, what);
}

/// The database at `home` opens and passes SQLite's integrity check.
fn assert_the_database_opens_and_is_intact(home: &Path, what: &str) {
    let store =
        Store::open(home).unwrap_or_else(|e| panic!("{what}: the database does not open: {e}"));
    let integrity: String = store
        .conn()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok", "{what}: SQLite's integrity check");
}

/// Datasets the CLI lists as ready are whole; one whose import was killed is listed as
/// incomplete (status `importing`), never as ready.
fn assert_the_ready_datasets_are_whole(home: &Path, expected: &Expected, what: &str) {
    let listed: Value = serde_json::from_str(&ok(home, &["datasets", "--json"])).unwrap();
    let store = Store::open(home).unwrap();
    for d in listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["status"] == "ready")
    {
        let id = d["id"].as_i64().unwrap();
        let name = d["name"].as_str().unwrap();
        let count = d["item_count"].as_i64().unwrap();
        let stored: i64 = store
            .conn()
            .query_row(
                "SELECT COUNT(*) FROM items WHERE dataset_id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            stored, count,
            "{what}: dataset {name} lists {count} items, holds {stored}"
        );
        let whole = if name.starts_with("import-") {
            expected.import_items
        } else if name.starts_with("traces-") {
            expected.trace_items
        } else if name.starts_with("run-") {
            expected.run_items
        } else {
            panic!("{what}: an unexpected dataset {name}")
        };
        assert_eq!(
            count, whole,
            "{what}: dataset {name} is listed with part of its items"
        );
    }
}

/// Corpora the CLI lists are whole.
fn assert_the_corpora_are_whole(home: &Path, expected: &Expected, what: &str) {
    let corpora: Value = serde_json::from_str(&ok(home, &["corpora", "--json"])).unwrap();
    for c in corpora.as_array().unwrap() {
        assert_eq!(
            (
                c["documents"].as_i64().unwrap(),
                c["chunks"].as_i64().unwrap()
            ),
            (expected.corpus_documents, expected.corpus_chunks),
            "{what}: corpus {} is listed with part of its documents",
            c["name"]
        );
    }
}

/// Every run not done resumes to done, one result per cell.
fn resume_every_unfinished_run_to_one_result_per_cell(home: &Path, what: &str) {
    let store = Store::open(home).unwrap();
    let runs = store::runs::list(store.conn()).unwrap();
    drop(store);
    for r in runs.iter().filter(|r| r.status != RunStatus::Done) {
        ok(home, &["resume", &r.id.to_string()]);
        let store = Store::open(home).unwrap();
        assert_eq!(
            store::runs::get(store.conn(), r.id).unwrap().status,
            RunStatus::Done,
            "{what}: run {} resumed to done",
            r.id
        );
        let (cells, results, pairs) = run_cells(&store, r.id);
        assert_eq!(
            (results, pairs as i64),
            (cells, cells),
            "{what}: run {} has exactly one result per cell",
            r.id
        );
    }
}

/// Reports and exports under their final names are whole: byte for byte the
/// uninterrupted output.
fn assert_the_outputs_under_their_final_names_are_whole(
    home: &Path,
    expected: &Expected,
    what: &str,
) {
    let out = home.join("out");
    for (base, reference) in &expected.outputs {
        if !out.exists() {
            break;
        }
        for (suffix, bytes) in outputs_of(&out.join(base)) {
            let whole = reference
                .iter()
                .find(|(s, _)| *s == suffix)
                .unwrap_or_else(|| panic!("{what}: an unexpected file {base}{suffix}"));
            assert!(
                whole.1 == bytes,
                "{what}: {base}{suffix} is not whole ({} bytes of {})",
                bytes.len(),
                whole.1.len()
            );
        }
    }
}

fn loops() -> usize {
    std::env::var("RAGNOSIS_KILL_LOOPS")
        .ok()
        .map(|n| n.parse().expect("RAGNOSIS_KILL_LOOPS is a number"))
        .unwrap_or(8)
}

#[test]
fn a_kill_at_any_moment_leaves_a_database_that_opens_resumes_and_lists_only_whole_data() {
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            latency_ms: 5,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path();
    let work = home.join("work");
    std::fs::create_dir_all(&work).unwrap();
    add_judge(
        home,
        "sim",
        &sim.base_url(),
        &["--concurrency", "4", "--timeout", "10"],
    );

    // Each operation once to the end: its duration, its counts, its outputs.
    let (window, expected) = run_each_operation_to_the_end(home, &work);
    check_after_kill(home, &expected, "after the uninterrupted operations");

    let seed = std::env::var("RAGNOSIS_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15u64);
    let mut draw = Draw(seed | 1);
    let mut killed_mid_operation = 0;
    let mut finished_first = 0;
    let total = loops();
    for i in 0..total {
        let op = OPS[i % OPS.len()];
        // The kill point is a random moment of the operation's measured duration. When
        // the operation finished before it (the machine ran faster, or the first timing
        // was slow), the next attempt draws below the time that took, halving down to a
        // kill as it starts: every loop ends with a kill while the operation runs, by
        // construction, however busy the machine is.
        let mut limit = (window[i % OPS.len()].as_millis() as u64).max(1);
        for attempt in 0.. {
            let tag = format!("k{i}-{attempt}");
            let args = command(op, home, &work, &tag, expected.finished_run);
            let after = Duration::from_millis(if attempt >= 5 { 0 } else { draw.below(limit) });
            let mut child = ragnosis(home)
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(after);
            let running = child.try_wait().unwrap().is_none();
            child.kill().unwrap();
            child.wait().unwrap();
            let what = format!("kill {i}, attempt {attempt} ({op:?} after {after:?})");
            check_after_kill(home, &expected, &what);
            if running {
                killed_mid_operation += 1;
                break;
            }
            finished_first += 1;
            limit = (after.as_millis() as u64 / 2).max(1);
        }
    }
    eprintln!(
        "{total} kills while the operation was running; {finished_first} operations finished before their first kill point"
    );
    assert_eq!(
        killed_mid_operation, total,
        "every loop kills an operation that runs; otherwise this test tests nothing"
    );
}

/// Each operation run once to the end in `home`: how long each took (the window its
/// kill is drawn from), and what an uninterrupted one leaves.
fn run_each_operation_to_the_end(home: &Path, work: &Path) -> (Vec<Duration>, Expected) {
    let mut window = Vec::new();
    let mut expected = Expected {
        import_items: IMPORT_ITEMS as i64,
        trace_items: 0,
        run_items: 0,
        corpus_documents: 0,
        corpus_chunks: 0,
        finished_run: 0,
        outputs: Vec::new(),
    };
    for op in OPS {
        let args = command(op, home, work, "whole", expected.finished_run);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let started = Instant::now();
        ok(home, &args);
        window.push(started.elapsed());
        record_what_it_left(op, home, &mut expected);
    }
    assert_the_reference_outputs_cover_every_format(&expected);
    (window, expected)
}

/// What operation `op`, run to the end, left in `home`: recorded in `expected`.
fn record_what_it_left(op: Op, home: &Path, expected: &mut Expected) {
    let store = Store::open(home).unwrap();
    match op {
        Op::TraceImport => {
            let rows = store::datasets::list(store.conn()).unwrap();
            expected.trace_items = rows
                .iter()
                .find(|d| d.name.starts_with("traces-"))
                .unwrap()
                .item_count;
        }
        Op::JudgedRun => {
            let rows = store::datasets::list(store.conn()).unwrap();
            expected.run_items = rows
                .iter()
                .find(|d| d.name.starts_with("run-"))
                .unwrap()
                .item_count;
            expected.finished_run = store::runs::list(store.conn())
                .unwrap()
                .iter()
                .map(|r| r.id)
                .max()
                .unwrap();
        }
        Op::Report => expected
            .outputs
            .push(("report", outputs_of(&home.join("out/report")))),
        Op::Export => expected
            .outputs
            .push(("export", outputs_of(&home.join("out/export")))),
        Op::Ingest => {
            let c = &store::corpora::list(store.conn()).unwrap()[0];
            (expected.corpus_documents, expected.corpus_chunks) = (c.documents, c.chunks);
        }
        Op::Import => {}
    }
}

/// The uninterrupted operations made traces, a run and a corpus, and outputs of every
/// format a kill must leave whole.
fn assert_the_reference_outputs_cover_every_format(expected: &Expected) {
    assert!(expected.trace_items > 0 && expected.run_items > 0 && expected.corpus_chunks > 0);
    let suffixes: Vec<&str> = expected
        .outputs
        .iter()
        .flat_map(|(_, files)| files.iter().map(|(s, _)| s.as_str()))
        .collect();
    for wanted in [".pdf", ".md", ".json", ".csv"] {
        assert!(
            suffixes.contains(&wanted),
            "the reference outputs have a {wanted}: {suffixes:?}"
        );
    }
}
