//! The diagnosis on hand-labelled help-desk logs, set by set, as a user meets it: the
//! label stripped from each item before import, an agentic run with the offline judge and
//! the embedded model, each item's patterns read back. A set holds the figures it reached
//! (a floor that fails when they drop): false alarms on correct items (good answers and
//! correct abstentions), failures named with one of their letters, failures with a letter
//! outside their expected and tolerated ones, correct items shown as an example under a
//! pattern or an action.
//!
//! The five shared domains (`shared/data/diagnosis-domains`, written by people who never
//! saw the code; see its README for the scoring) and the repository's own four sets
//! (`tests/diagnosis`). `scripts/diagnosis-domains.py` prints the same figures through the
//! CLI; the thresholds the reading uses were chosen leave-one-domain-out over them
//! (`examples/diagnosis_lodo.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ragnosis_core::analysis::diagnosis;
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, Mode, RunRequest};
use ragnosis_core::store::{self, Store};

/// What an item was written to show: whether it is correct, the letters that name its
/// failure, and the letters tolerated beside them.
struct Label {
    correct: bool,
    expect: BTreeSet<String>,
    accept: BTreeSet<String>,
}

fn letter(name: &str) -> String {
    match name {
        "retrieval_miss" => "A",
        "context_ignored" => "B",
        "hallucination" => "C",
        "over_confidence" => "D",
        "multi_hop_failure" => "E",
        "subtle_distortion" => "F",
        "generation_quality" => "G",
        "incomplete" => "H",
        "wrong_refusal" => "I",
        "citation_failure" => "J",
        other => panic!("unknown pattern name {other}"),
    }
    .to_string()
}

/// Either labelling scheme: the shared domains' (`expect`, `accept`) or the repository's
/// (`expected_patterns`, `named_by`, `also_ok`, by name).
fn label(meta: &serde_json::Value) -> Label {
    let list = |key: &str| -> BTreeSet<String> {
        meta.get(key)
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| Some(v.as_str()?.to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let shape = meta["shape"].as_str().expect("every item has a shape");
    let correct = matches!(shape, "good" | "correct_abstention");
    if meta.get("expect").is_some() {
        return Label {
            correct,
            expect: list("expect"),
            accept: list("accept"),
        };
    }
    let names = |key: &str| list(key).iter().map(|n| letter(n)).collect::<BTreeSet<_>>();
    let named_by = names("named_by");
    let expected = names("expected_patterns");
    let also = names("also_ok");
    if correct {
        // A correct abstention's "expected" retrieval miss is tolerable, not required.
        Label {
            correct,
            expect: BTreeSet::new(),
            accept: also.union(&expected).cloned().collect(),
        }
    } else {
        let expect = if named_by.is_empty() {
            expected
        } else {
            named_by
        };
        Label {
            correct,
            accept: also.difference(&expect).cloned().collect(),
            expect,
        }
    }
}

#[derive(Debug, Default, PartialEq)]
struct Figures {
    correct: u32,
    false_alarms: u32,
    failures: u32,
    named: u32,
    extras: u32,
    correct_examples: u32,
}

/// The set at `path` (a JSONL of labelled items) evaluated as a user would, scored.
fn evaluate(path: &Path) -> (Figures, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let (labels, file) = strip_labels(path, dir.path());
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let run_id = run_offline(&mut store, &file);
    let shown = shown_as_examples(&diagnosis::diagnose(&store, run_id).unwrap());
    let mut figures = Figures::default();
    let mut wrong = Vec::new();
    for item_id in store::run_items::item_ids(store.conn(), run_id).unwrap() {
        let id = store::items::get(store.conn(), item_id)
            .unwrap()
            .item
            .id
            .unwrap();
        let label = &labels[&id];
        let letters: BTreeSet<String> = diagnosis::item_patterns(&store, run_id, item_id)
            .unwrap()
            .iter()
            .map(|p| p.letter().to_string())
            .collect();
        let got: String = letters.iter().cloned().collect();
        if label.correct {
            figures.correct += 1;
            if letters.iter().any(|l| !label.accept.contains(l)) {
                figures.false_alarms += 1;
                wrong.push(format!("{id}: false alarm {got}"));
            }
            if shown.contains(&item_id) {
                figures.correct_examples += 1;
                wrong.push(format!("{id}: a correct item shown as an example"));
            }
        } else {
            figures.failures += 1;
            let named = letters.iter().any(|l| label.expect.contains(l));
            let extra = letters
                .iter()
                .any(|l| !label.expect.contains(l) && !label.accept.contains(l));
            figures.named += u32::from(named);
            figures.extras += u32::from(extra);
            if !named || extra {
                let expected: String = label.expect.iter().cloned().collect();
                wrong.push(format!("{id}: expected {expected}, got {got}"));
            }
        }
    }
    (figures, wrong)
}

/// Each item of the JSONL at `path` without its label (its `metadata`), written to
/// `dir/items.jsonl`; the labels by item id, and the file.
fn strip_labels(path: &Path, dir: &Path) -> (BTreeMap<String, Label>, PathBuf) {
    let mut labels = BTreeMap::new();
    let mut stripped = String::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        if line.trim().is_empty() {
            continue;
        }
        let mut item: serde_json::Value = serde_json::from_str(line).unwrap();
        let meta = item
            .as_object_mut()
            .unwrap()
            .remove("metadata")
            .expect("a labelled item");
        labels.insert(item["id"].as_str().unwrap().to_string(), label(&meta));
        stripped.push_str(&item.to_string());
        stripped.push('\n');
    }
    let file = dir.join("items.jsonl");
    std::fs::write(&file, stripped).unwrap();
    (labels, file)
}

/// The file imported into `store` and evaluated in agentic mode with the offline judge:
/// the run's id.
fn run_offline(store: &mut Store, file: &Path) -> i64 {
    let dataset = ragnosis_core::import::import_file(
        store,
        file,
        Some("labelled"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id;
    let request = RunRequest {
        dataset_id: dataset,
        mode: Mode::Agentic,
        ..Default::default()
    };
    let run_id = run::plan(store, &request).unwrap();
    run::execute(
        store,
        run_id,
        Arc::new(OfflineJudge::standard()),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    run_id
}

/// The items the diagnosis shows as an example, under a pattern or an action.
fn shown_as_examples(diagnosed: &diagnosis::Diagnosis) -> BTreeSet<i64> {
    diagnosed
        .patterns
        .iter()
        .flat_map(|p| p.examples.iter().map(|e| e.item_id))
        .chain(
            diagnosed
                .actions
                .iter()
                .filter_map(|a| a.example.as_ref().map(|e| e.item_id)),
        )
        .collect()
}

/// The figures a set must keep: at most so many false alarms and extras and correct items
/// as examples, at least so many failures named.
struct Floor {
    false_alarms: u32,
    named: u32,
    extras: u32,
    correct_examples: u32,
}

fn hold(path: PathBuf, floor: Floor) {
    if !OfflineJudge::standard().uses_semantic_model() {
        assert_ne!(
            std::env::var("RAGNOSIS_MODEL").as_deref(),
            Ok("required"),
            "RAGNOSIS_MODEL=required but the semantic model did not load"
        );
        eprintln!("skipped: the semantic model is not installed");
        return;
    }
    let (f, wrong) = evaluate(&path);
    eprintln!(
        "{}: false alarms {}/{}, named {}/{}, extras {}, correct items as examples {}\n{wrong:#?}",
        path.display(),
        f.false_alarms,
        f.correct,
        f.named,
        f.failures,
        f.extras,
        f.correct_examples
    );
    assert!(
        f.false_alarms <= floor.false_alarms,
        "false alarms {} > {}: {wrong:#?}",
        f.false_alarms,
        floor.false_alarms
    );
    assert!(
        f.named >= floor.named,
        "named {} < {}: {wrong:#?}",
        f.named,
        floor.named
    );
    assert!(
        f.extras <= floor.extras,
        "extras {} > {}: {wrong:#?}",
        f.extras,
        floor.extras
    );
    assert!(
        f.correct_examples <= floor.correct_examples,
        "correct items as examples {} > {}: {wrong:#?}",
        f.correct_examples,
        floor.correct_examples
    );
}

fn shared(domain: &str) -> PathBuf {
    ragnosis_core::paths::shared_data_dir()
        .join("diagnosis-domains")
        .join(domain)
        .join("items.jsonl")
}

fn own(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/diagnosis")
        .join(file)
}

/// (false alarms, named, extras, correct items as examples) a set must keep.
fn floor(false_alarms: u32, named: u32, extras: u32, correct_examples: u32) -> Floor {
    Floor {
        false_alarms,
        named,
        extras,
        correct_examples,
    }
}

#[test]
fn airline_domain_holds_its_figures() {
    hold(shared("airline"), floor(0, 11, 0, 0));
}

#[test]
fn api_docs_domain_holds_its_figures() {
    // api-02 ("If you don't pass limit, …") no longer contradicts "Pass limit" since
    // offline-11: a negation inside an "if" condition denies nothing.
    hold(shared("api-docs"), floor(1, 12, 2, 0));
}

#[test]
fn bank_domain_holds_its_figures() {
    hold(shared("bank"), floor(0, 12, 0, 0));
}

#[test]
fn pharmacy_domain_holds_its_figures() {
    // pha-23 (an invented student discount; the reference says the documents have none)
    // is over-confidence alone: no retrieval miss where there was nothing to find.
    hold(shared("pharmacy"), floor(0, 11, 2, 0));
}

#[test]
fn transit_domain_holds_its_figures() {
    // trn-03 (a wrong sum, E) read as a retrieval miss since the reference's claims are
    // checked against the chunks alone: the answer among the passages had vouched for them.
    // trn-24 (a decline that says what the passages cover, "…, but not the ferry") is no
    // longer a false alarm nor an example since offline-10.
    hold(shared("transit"), floor(0, 10, 2, 0));
}

#[test]
fn the_repositorys_own_sets_hold_their_figures() {
    hold(own("library-services.jsonl"), floor(1, 24, 0, 0));
    // hd-13 (half the reference stated, judged to answer no part) is H since rules 7.
    hold(own("helpdesk-15.jsonl"), floor(1, 6, 0, 1));
}

/// Written by people who read none of the code, first measured before any change (false
/// alarms 3 and 3 of 11, named 8 and 9 of 13); see `tests/diagnosis/README.md`.
#[test]
fn the_held_out_sets_hold_their_figures() {
    hold(own("recycling.jsonl"), floor(1, 10, 2, 1));
    hold(own("student-services.jsonl"), floor(0, 10, 3, 0));
}

/// Written after rules 7 and measured once, no rule chosen on them: the floors are what
/// they showed, false alarms included (bb-24, vet-13, vet-20, vet-21), so a change that
/// lowers them is seen.
#[test]
fn the_sets_nobody_tuned_on_hold_their_figures() {
    hold(own("broadband.jsonl"), floor(1, 6, 1, 1));
    hold(own("vets.jsonl"), floor(3, 8, 2, 2));
}
