//! The bundled example, evaluated as a new user would (agentic, offline judge, no key, no
//! network): the diagnosis must name the failure each item was designed with (its
//! `metadata.shape`) and raise nothing on the good items. Run with the embedded
//! semantic model (required where `RAGNOSIS_MODEL=required`, as in scripts/test.sh) and
//! with words alone, the fallback when the model is absent.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use ragnosis_core::analysis::diagnosis::{self, FailurePattern};
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, Mode, RunRequest};
use ragnosis_core::store::{self, Store};

const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/examples/ragnosis-example.jsonl"
);

struct Outcome {
    shape: String,
    patterns: Vec<char>,
    /// The same patterns by name ("hallucination"), as the hand-written sets list them.
    names: Vec<String>,
    /// For the hand-written sets: the patterns the item was written to show, and those
    /// that may fire beside them.
    expected: Vec<String>,
    /// Where a failure has two fair names: any of them names it.
    named_by: Vec<String>,
    also_ok: Vec<String>,
    scores: BTreeMap<String, f64>,
    /// Failure-taxonomy categories that apply to the item (RAGalyst, below 0.9).
    taxonomy: Vec<String>,
}

fn evaluate(judge: OfflineJudge) -> BTreeMap<String, Outcome> {
    evaluate_file(Path::new(EXAMPLE), judge)
}

// long: imports, runs and reads back one example file with the facts every diagnosis test checks
/// Every item of `path` evaluated in agentic mode with `judge`, by its id.
fn evaluate_file(path: &Path, judge: OfflineJudge) -> BTreeMap<String, Outcome> {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = ragnosis_core::import::import_file(
        &mut store,
        path,
        Some("example"),
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
    let run_id = run::plan(&mut store, &request).unwrap();
    run::execute(
        &mut store,
        run_id,
        Arc::new(judge),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    let mut outcomes = BTreeMap::new();
    for item_id in store::run_items::item_ids(store.conn(), run_id).unwrap() {
        let item = store::items::get(store.conn(), item_id).unwrap().item;
        let shape = item.metadata["shape"]
            .as_str()
            .expect("every example item has a shape")
            .to_string();
        let patterns = diagnosis::item_patterns(&store, run_id, item_id).unwrap();
        let results = store::results::for_item(store.conn(), run_id, item_id).unwrap();
        let scores = results
            .iter()
            .filter_map(|r| Some((r.result.metric.clone(), r.result.score?)))
            .collect();
        let taxonomy = results
            .iter()
            .filter(|r| r.result.metric == "ragalyst.answer_correctness")
            .flat_map(|r| {
                r.result.details["failures"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|f| f["applies"].as_bool() == Some(true))
            .filter_map(|f| Some(f["category"].as_str()?.to_string()))
            .collect();
        let id = item.id.clone().expect("example items have ids");
        let names_of = |key: &str| -> Vec<String> {
            item.metadata
                .get(key)
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|v| Some(v.as_str()?.to_string()))
                        .collect()
                })
                .unwrap_or_default()
        };
        outcomes.insert(
            id,
            Outcome {
                shape,
                patterns: patterns
                    .iter()
                    .map(|p| FailurePattern::letter(*p))
                    .collect(),
                names: patterns
                    .iter()
                    .map(|p| {
                        serde_json::to_value(p)
                            .unwrap()
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect(),
                expected: names_of("expected_patterns"),
                named_by: names_of("named_by"),
                also_ok: names_of("also_ok"),
                scores,
                taxonomy,
            },
        );
    }
    outcomes
}

/// Whether the designed failure of `shape` is named: by a failure pattern where one
/// exists for it, else by the metric that measures it (citations, length).
fn names_designed_failure(o: &Outcome) -> Result<(), String> {
    let has = |letter: char| o.patterns.contains(&letter);
    let score = |metric: &str| o.scores.get(metric).copied();
    let ok = match o.shape.as_str() {
        "good" => o.patterns.is_empty(),
        s if s.starts_with("retrieval_miss") => has('A'),
        // A made-up date where the passage states another one contradicts it: named by
        // F (a changed detail) rather than also by C, since patterns do not overlap.
        s if s.starts_with("hallucination") => has('C') || has('F'),
        "contradiction" => has('C') || has('F'),
        "over_confident" => has('D'),
        // Declining rightly is no hallucination and no incompleteness; the retrieval
        // that missed the gift-card document is the failure.
        "correct_abstention" => has('A') && !has('C') && !has('H') && !has('D'),
        "incomplete" => has('H'),
        "verbose_repetitive" => has('G'),
        "wrong_citation" => score("citation.strict_accuracy") == Some(0.0),
        "multi_citation" => {
            score("citation.multi_citation_rate") == Some(1.0)
                && score("citation.lenient_accuracy") == Some(1.0)
        }
        "no_citation" => score("citation.no_citation_rate") == Some(1.0),
        "very_short" => score("ragvue.answer_length").is_some_and(|s| s < 0.5),
        other => return Err(format!("unknown shape {other}")),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{}: patterns {:?}", o.shape, o.patterns))
    }
}

fn check(outcomes: &BTreeMap<String, Outcome>) {
    assert_eq!(outcomes.len(), 24);
    // A correct answer is never filed under a failure category: before, the taxonomy
    // flagged eight of the ten good answers ("other"), read off a similarity below 0.9.
    let flagged: Vec<(&String, &Vec<String>)> = outcomes
        .iter()
        .filter(|(_, o)| o.shape == "good" && !o.taxonomy.is_empty())
        .map(|(id, o)| (id, &o.taxonomy))
        .collect();
    assert!(
        flagged.is_empty(),
        "good answers in the taxonomy: {flagged:?}"
    );
    let misses: Vec<String> = outcomes
        .iter()
        .filter_map(|(id, o)| names_designed_failure(o).err().map(|e| format!("{id} {e}")))
        .collect();
    assert!(
        misses.is_empty(),
        "designed failures not named: {misses:#?}"
    );
}

#[test]
fn with_the_semantic_model_the_example_diagnosis_names_every_designed_failure() {
    let judge = OfflineJudge::standard();
    if !judge.uses_semantic_model() {
        assert_ne!(
            std::env::var("RAGNOSIS_MODEL").as_deref(),
            Ok("required"),
            "RAGNOSIS_MODEL=required but the semantic model did not load: {}",
            ragnosis_core::semantic::availability().notice()
        );
        eprintln!(
            "skipped: {}",
            ragnosis_core::semantic::availability().notice()
        );
        return;
    }
    let outcomes = evaluate(judge);
    check(&outcomes);
    // The model is what rescues chunks that answer in other words (nw-002: "How long
    // does it take to fully charge the battery?" — "A full charge … takes about 5 hours").
    let rr = outcomes["nw-002"].scores["ragvue.retrieval_relevance"];
    assert!(rr > 0.0, "nw-002's answering chunk is relevant: {rr}");
    assert!(
        !outcomes["nw-021"]
            .scores
            .contains_key("ragvue.strict_faithfulness"),
        "an abstention has no claims to score"
    );
}

#[test]
fn with_words_alone_the_example_diagnosis_still_names_every_designed_failure() {
    check(&evaluate(OfflineJudge::default()));
}

/// The hand-written sets under `tests/diagnosis/` (see its README): items written to show
/// one failure each, or none, in everyday help-desk language.
const HANDWRITTEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/diagnosis");

/// How one hand-written item fared: whether its designed failure was named, and which
/// patterns fired that it was not written to show.
fn verdict(o: &Outcome) -> (bool, Vec<String>) {
    let named = if !o.named_by.is_empty() {
        o.named_by.iter().any(|e| o.names.contains(e))
    } else if o.expected.is_empty() {
        o.names.is_empty()
    } else {
        o.expected.iter().all(|e| o.names.contains(e))
    };
    let extra = o
        .names
        .iter()
        .filter(|n| !o.expected.contains(n) && !o.also_ok.contains(n))
        .cloned()
        .collect();
    (named, extra)
}

/// The figures the diagnosis is held to, summed over the hand-written sets.
#[derive(Default)]
struct Figures {
    /// Designed failures (not good, not a correct abstention): named / all.
    named: (u32, u32),
    /// Good answers on which some pattern fired / all good answers.
    false_alarms: (u32, u32),
    /// Correct abstentions on which no answer-side pattern fired / all of them.
    abstentions_left_alone: (u32, u32),
}

fn share((a, b): (u32, u32)) -> f64 {
    f64::from(a) / f64::from(b.max(1))
}

/// Tallies one set into `figures`, prints its per-shape table, and returns the items
/// diagnosed otherwise than written.
fn tally(name: &str, outcomes: &BTreeMap<String, Outcome>, figures: &mut Figures) -> Vec<String> {
    let mut by_shape: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    let mut misses = Vec::new();
    for (id, o) in outcomes {
        let (named, extra) = verdict(o);
        let entry = by_shape.entry(o.shape.as_str()).or_default();
        entry.1 += 1;
        entry.0 += u32::from(named && extra.is_empty());
        match o.shape.as_str() {
            "good" => {
                figures.false_alarms.1 += 1;
                figures.false_alarms.0 += u32::from(!o.names.is_empty());
            }
            "correct_abstention" => {
                let answer_side = [
                    "hallucination",
                    "over_confidence",
                    "incomplete",
                    "wrong_refusal",
                    "subtle_distortion",
                    "context_ignored",
                ];
                figures.abstentions_left_alone.1 += 1;
                figures.abstentions_left_alone.0 +=
                    u32::from(!o.names.iter().any(|n| answer_side.contains(&n.as_str())));
            }
            _ => {
                figures.named.1 += 1;
                figures.named.0 += u32::from(named);
            }
        }
        if !(named && extra.is_empty()) {
            misses.push(format!(
                "{id} [{}] expected {:?}, fired {:?}",
                o.shape, o.expected, o.names
            ));
        }
    }
    eprintln!("{name} (exactly as written / items):");
    for (shape, (ok, n)) in &by_shape {
        eprintln!("  {shape:<22} {ok}/{n}");
    }
    misses
}

/// The hand-written sets, item by item. Every item diagnosed otherwise than written is
/// printed, and must be one of the few known misses; the figures are held to issue 24's
/// goals: ≥ 0.85 of designed failures named, ≤ 0.05 false alarms on good answers, ≥ 0.90
/// of correct abstentions left alone.
#[test]
fn the_hand_written_sets_are_diagnosed_item_by_item() {
    let judge = OfflineJudge::standard();
    if !judge.uses_semantic_model() {
        assert_ne!(
            std::env::var("RAGNOSIS_MODEL").as_deref(),
            Ok("required"),
            "RAGNOSIS_MODEL=required but the semantic model did not load"
        );
        return;
    }
    let mut files: Vec<_> = std::fs::read_dir(HANDWRITTEN)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "the hand-written sets are missing");
    let mut figures = Figures::default();
    let mut misses = Vec::new();
    for file in &files {
        let outcomes = evaluate_file(file, OfflineJudge::standard());
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        misses.extend(
            tally(&name, &outcomes, &mut figures)
                .into_iter()
                .map(|m| format!("{name}: {m}")),
        );
    }
    let (named, false_alarms, left_alone) = (
        share(figures.named),
        share(figures.false_alarms),
        share(figures.abstentions_left_alone),
    );
    eprintln!(
        "designed failures named {:?} = {named:.2}; false alarms on good answers {:?} = {false_alarms:.2}; \
         correct abstentions left alone {:?} = {left_alone:.2}",
        figures.named, figures.false_alarms, figures.abstentions_left_alone
    );
    eprintln!("diagnosed otherwise than written: {misses:#?}");
    assert!(named >= 0.85, "designed failures named: {named:.2}");
    assert!(
        false_alarms <= 0.05,
        "false alarms on good answers: {false_alarms:.2}"
    );
    assert!(
        left_alone >= 0.90,
        "correct abstentions left alone: {left_alone:.2}"
    );
    // Item by item: every item is diagnosed as written except these, whose wrong
    // combination of two quoted facts needs reasoning the offline judge does not do
    // (a language-model judge scores multi-hop faithfulness for them).
    const KNOWN_MISSES: [&str; 2] = ["hd-15", "lib-044"];
    let unexpected: Vec<&String> = misses
        .iter()
        .filter(|m| {
            !KNOWN_MISSES
                .iter()
                .any(|id| m.contains(&format!(": {id} ")))
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "items diagnosed otherwise than written: {unexpected:#?}"
    );
}
