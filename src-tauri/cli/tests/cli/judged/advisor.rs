//! The advisor with a model: `ask --judge` through the judge layer against the simulator,
//! which answers from the facts it is sent — and, with a fault, cites an item the facts
//! do not name, which is refused and asked again once.

use std::path::Path;

use ragnosis_judge_sim::{ContainsRule, Fault, FaultRules};
use serde_json::Value;

use super::{add_sim_judge, simulator};
use crate::support::*;

fn ask(home: &Path, question: &str) -> Value {
    let out = ok(home, &["ask", "1", question, "--judge", "sim", "--json"]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

fn cited(answer: &Value) -> Vec<i64> {
    answer["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_i64().unwrap())
        .collect()
}

#[test]
fn a_model_answers_from_the_runs_facts_and_an_invented_item_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let town = repo().join("tests/compare/town-v1.jsonl");
    ok(home, &["agentic", town.to_str().unwrap(), "--label", "v1"]);
    let sim = simulator(0);
    add_sim_judge(home, &sim, 2);

    // Answered by the model, through the judge layer: one advice call, tokens counted.
    let answer = ask(home, "What should I fix first?");
    assert_eq!(answer["rule_based"], false, "{answer}");
    assert_eq!(
        answer["model"].as_str().map(|m| m.contains("sim")),
        Some(true),
        "{answer}"
    );
    assert!(answer["tokens"].as_u64().unwrap() > 0, "{answer}");
    assert!(!answer["lines"].as_array().unwrap().is_empty());
    assert!(answer["note"]
        .as_str()
        .unwrap()
        .contains("nothing else of the run"));
    let stats = sim.stats();
    assert_eq!(stats.by_task.get("advice"), Some(&1), "{:?}", stats.by_task);
    assert_eq!(stats.repairs, 0);

    // A reply citing an item the facts do not name is refused and asked again once; the
    // second reply stands.
    sim.set_faults(FaultRules {
        next: [Fault::InventedItem].into(),
        ..Default::default()
    });
    let answer = ask(home, "Which items show subtle distortion?");
    assert_eq!(answer["rule_based"], false, "{answer}");
    assert!(!cited(&answer).contains(&999_999), "{answer}");
    assert_eq!(sim.stats().repairs, 1);

    // A model that keeps inventing is not believed: the rules answer, and say why.
    sim.set_faults(FaultRules {
        when_contains: vec![ContainsRule {
            text: "RUN_FACTS".into(),
            fault: Fault::InventedItem,
        }],
        ..Default::default()
    });
    let answer = ask(home, "Can I trust these scores?");
    assert_eq!(answer["rule_based"], true, "{answer}");
    let note = answer["note"].as_str().unwrap();
    assert!(
        note.contains("could not answer") && note.contains("999999"),
        "{note}"
    );
    assert!(!cited(&answer).contains(&999_999));
}
