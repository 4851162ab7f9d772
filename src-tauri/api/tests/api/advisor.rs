//! Asking a run: the rule-based advisor answers from the run's facts and cites only the
//! run's own items, on the bundled example and on a help-desk log nobody tuned it on.

use std::path::Path;
use std::sync::Arc;

use ragnosis_api::advisor;
use ragnosis_api::runs::{self, RunRequest};
use ragnosis_api::{CancelToken, ErrorCode, NoProgress};

use crate::{home, refusal, repo, Home};

fn import(h: &Home, file: &Path) -> i64 {
    let request = ragnosis_api::datasets::ImportRequest::new(file);
    ragnosis_api::datasets::import(&h.ctx, &request, &NoProgress)
        .unwrap()
        .dataset
        .id
}

fn evaluated(h: &Home, file: &Path) -> i64 {
    let request = RunRequest {
        dataset_id: import(h, file),
        mode: "agentic".into(),
        judge: "offline".into(),
        ..RunRequest::default()
    };
    // In the foreground: the run has ended when this returns, however busy the machine.
    let planned = runs::plan(&h.ctx, &request).unwrap();
    let run_id = planned.run_id;
    runs::execute(&h.ctx, planned, Arc::new(NoProgress), &CancelToken::new()).unwrap();
    run_id
}

/// The pattern letters the case view shows for an item.
fn letters(h: &Home, run_id: i64, item_id: i64) -> Vec<String> {
    ragnosis_api::cases::get(&h.ctx, run_id, item_id)
        .unwrap()
        .patterns
        .into_iter()
        .map(|p| p.letter().to_string())
        .collect()
}

#[test]
fn the_advisor_answers_common_questions_from_the_runs_own_facts() {
    let h = home();
    let run_id = evaluated(&h, &repo().join("assets/examples/ragnosis-example.jsonl"));
    let report = ragnosis_api::reports::view(&h.ctx, run_id, &Default::default()).unwrap();

    let first = advisor::ask(
        &h.ctx,
        run_id,
        "What should I fix first?",
        &Default::default(),
    )
    .unwrap();
    assert_eq!(first.intent, advisor::Intent::FixFirst);
    let top = &report.actions()[0];
    assert!(
        first.lines[0].contains(&top.title),
        "{:?} against the report's first action {:?}",
        first.lines,
        top.title
    );
    assert!(first.rule_based && first.note.contains("no language model"));
    assert!(!first.items.is_empty(), "the example item is cited");

    let listed = advisor::ask(
        &h.ctx,
        run_id,
        "Which items show hallucination?",
        &Default::default(),
    )
    .unwrap();
    assert_eq!(listed.intent, advisor::Intent::ItemsWithPattern);
    assert!(!listed.items.is_empty(), "{:?}", listed.lines);
    for item in &listed.items {
        assert!(
            letters(&h, run_id, *item).contains(&"C".to_string()),
            "item {item} is cited for C"
        );
    }

    let why = advisor::ask(
        &h.ctx,
        run_id,
        "why is nw-015 flagged?",
        &Default::default(),
    )
    .unwrap();
    assert_eq!(why.intent, advisor::Intent::WhyFlagged);
    assert_eq!(why.items.len(), 1);
    let shown = letters(&h, run_id, why.items[0]);
    assert!(!shown.is_empty(), "nw-015 is a designed failure");
    for letter in &shown {
        assert!(
            why.lines.iter().any(|l| l.contains(&format!("{letter} ("))),
            "pattern {letter} of the case view is explained: {:?}",
            why.lines
        );
    }

    let other = advisor::ask(&h.ctx, run_id, "Tell me a joke", &Default::default()).unwrap();
    assert_eq!(other.intent, advisor::Intent::Unknown);
    assert!(other.items.is_empty() && other.lines[0].contains("language model"));

    let (code, _) = refusal(advisor::ask(
        &h.ctx,
        run_id,
        "why?",
        &advisor::Asked {
            item: Some("no-such-item"),
            against: None,
            judge: None,
        },
    ));
    assert_eq!(code, ErrorCode::NotFound);
    let (code, _) = refusal(advisor::ask(&h.ctx, run_id, "  ", &Default::default()));
    assert_eq!(code, ErrorCode::Invalid);
}

#[test]
fn on_a_log_nobody_tuned_it_on_every_flagged_item_is_explained_by_its_own_patterns() {
    let h = home();
    let shared =
        ragnosis_core::paths::shared_data_dir().join("diagnosis-domains/airline/items.jsonl");
    // The label travels in `metadata`; a user's file has none.
    let stripped: String = std::fs::read_to_string(&shared)
        .unwrap()
        .lines()
        .map(|line| {
            let mut item: serde_json::Value = serde_json::from_str(line).unwrap();
            item.as_object_mut().unwrap().remove("metadata");
            format!("{item}\n")
        })
        .collect();
    let file = h.dir.path().join("airline.jsonl");
    std::fs::write(&file, stripped).unwrap();
    let run_id = evaluated(&h, &file);
    let mut explained = 0;
    for line in std::fs::read_to_string(&file).unwrap().lines() {
        let id = serde_json::from_str::<serde_json::Value>(line).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let answer = advisor::ask(
            &h.ctx,
            run_id,
            &format!("Why is {id} flagged?"),
            &Default::default(),
        )
        .unwrap();
        assert_eq!(answer.intent, advisor::Intent::WhyFlagged, "{id}");
        let shown = letters(&h, run_id, answer.items[0]);
        if shown.is_empty() {
            assert!(
                answer.lines[0].contains("no failure pattern")
                    || answer.lines[0].contains("needs a look"),
                "{id}: {:?}",
                answer.lines
            );
            continue;
        }
        explained += 1;
        for letter in &shown {
            assert!(
                answer
                    .lines
                    .iter()
                    .any(|l| l.contains(&format!("- {letter} ("))),
                "{id}: {letter} is not explained in {:?}",
                answer.lines
            );
        }
    }
    assert!(explained >= 10, "only {explained} flagged items explained");
}

#[test]
fn asked_against_an_earlier_run_it_names_the_items_the_change_made_worse() {
    let h = home();
    let v1 = evaluated(&h, &repo().join("tests/compare/town-v1.jsonl"));
    let v2 = evaluated(&h, &repo().join("tests/compare/town-v2.jsonl"));
    let asked = advisor::Asked {
        item: None,
        against: Some(v1),
        judge: None,
    };
    let answer = advisor::ask(&h.ctx, v2, "What got worse?", &asked).unwrap();
    assert_eq!(answer.intent, advisor::Intent::Compare);
    let worse = answer
        .lines
        .iter()
        .find(|l| l.starts_with("Worse:"))
        .unwrap_or_else(|| panic!("{:?}", answer.lines));
    assert!(worse.contains("t-05"), "t-05 got worse: {worse}");
    let improved = answer
        .lines
        .iter()
        .find(|l| l.starts_with("Improved:"))
        .unwrap_or_else(|| panic!("{:?}", answer.lines));
    for id in ["t-02", "t-04", "t-08"] {
        assert!(improved.contains(id), "{id} improved: {improved}");
    }
    let v2_items = ragnosis_core::store::run_items::item_ids(
        ragnosis_core::store::Store::open(h.dir.path())
            .unwrap()
            .conn(),
        v2,
    )
    .unwrap();
    assert!(
        answer.items.iter().all(|id| v2_items.contains(id)),
        "every cited item is one of the run's"
    );
    let without = advisor::ask(
        &h.ctx,
        v2,
        "What changed since the last run?",
        &Default::default(),
    )
    .unwrap();
    assert!(
        without.lines[0].contains("--against"),
        "{:?}",
        without.lines
    );
    let (code, _) = refusal(advisor::ask(
        &h.ctx,
        v2,
        "what changed?",
        &advisor::Asked {
            item: None,
            against: Some(v2),
            judge: None,
        },
    ));
    assert_eq!(code, ErrorCode::Invalid);
}
