//! The offline judge's sentence rules measured on hand-written tables
//! (`judge/tests/data/claims/`, see its README): what is a claim, what declines, and
//! whether support, numbers and negation are read as a careful reader would. Each test
//! prints its figures (run with `--nocapture`) and holds a floor, so a change that makes
//! a rule worse fails here; the false-alarm rates are the figures that matter most,
//! because a false alarm puts a correct answer at the top of a report.

use serde_json::Value;

use crate::offline::{claim_labels, claims::split, SupportParams};
use ragnosis_types::item::Label;

fn table(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/data/claims/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text<'a>(row: &'a Value, key: &str) -> &'a str {
    row[key].as_str().unwrap()
}

/// (rows where the rule said yes though the label says no, rows labelled no,
///  rows where the rule said no though the label says yes, rows labelled yes, the rows
///  it got wrong).
struct Tally {
    false_yes: usize,
    no: usize,
    false_no: usize,
    yes: usize,
    wrong: Vec<String>,
}

fn tally(rows: &[Value], label: &str, show: &str, rule: impl Fn(&Value) -> bool) -> Tally {
    let mut t = Tally {
        false_yes: 0,
        no: 0,
        false_no: 0,
        yes: 0,
        wrong: Vec::new(),
    };
    for row in rows {
        let truth = row[label].as_bool().unwrap();
        let said = rule(row);
        if truth {
            t.yes += 1;
            t.false_no += usize::from(!said);
        } else {
            t.no += 1;
            t.false_yes += usize::from(said);
        }
        if said != truth {
            t.wrong.push(format!("{truth}: {}", text(row, show)));
        }
    }
    t
}

fn report(name: &str, yes: &str, t: &Tally) -> (f64, f64) {
    let false_yes = t.false_yes as f64 / t.no.max(1) as f64;
    let false_no = t.false_no as f64 / t.yes.max(1) as f64;
    eprintln!(
        "{name}: said {yes} wrongly on {}/{} ({:.2}), missed {}/{} ({:.2})",
        t.false_yes, t.no, false_yes, t.false_no, t.yes, false_no
    );
    for w in &t.wrong {
        eprintln!("  wrong (label {w})");
    }
    (false_yes, false_no)
}

#[test]
fn greetings_sign_offs_and_referrals_are_not_taken_for_claims() {
    let rows = table("non_claims");
    let t = tally(&rows, "claim", "sentence", |r| {
        !split::split(text(r, "sentence")).is_empty()
    });
    let (false_claims, dropped_claims) = report("claims", "claim", &t);
    // A courtesy scored as a claim is an "unsupported statement" in a correct answer.
    assert!(
        false_claims <= 0.10,
        "courtesy read as claims: {false_claims:.2}"
    );
    assert!(
        dropped_claims <= 0.10,
        "claims dropped: {dropped_claims:.2}"
    );
}

#[test]
fn declines_are_recognised_whatever_their_wording() {
    let rows = table("declines");
    let t = tally(&rows, "declines", "answer", |r| {
        split::abstains(text(r, "answer"))
    });
    let (false_declines, missed) = report("declines", "declines", &t);
    assert!(
        false_declines <= 0.10,
        "answers read as declines: {false_declines:.2}"
    );
    assert!(missed <= 0.15, "declines missed: {missed:.2}");
}

fn label(claim: &str, passage: &str) -> Label {
    claim_labels(
        &[claim.to_string()],
        &[passage.to_string()],
        &SupportParams::default(),
        None,
    )[0][0]
}

#[test]
fn the_organisations_own_voice_is_matched_with_its_documents() {
    let rows = table("voice_pairs");
    let t = tally(&rows, "supported", "claim", |r| {
        label(text(r, "claim"), text(r, "passage")) == Label::Entailment
    });
    let (false_support, missed) = report("voice", "supported", &t);
    assert!(
        false_support <= 0.35,
        "unsupported read as supported: {false_support:.2}"
    );
    assert!(
        missed <= 0.35,
        "first-person claims left unsupported: {missed:.2}"
    );
}

#[test]
fn numbers_are_matched_as_sets_with_their_units() {
    let rows = table("number_pairs");
    // A pair that agrees must never be called a contradiction (the false alarm); one
    // that disagrees must at least not be called supported.
    let t = tally(&rows, "agree", "claim", |r| {
        label(text(r, "claim"), text(r, "evidence")) != Label::Contradiction
    });
    let (_, false_contradictions) = report("numbers (no contradiction)", "agree", &t);
    let wrongly_supported = rows
        .iter()
        .filter(|r| !r["agree"].as_bool().unwrap())
        .filter(|r| label(text(r, "claim"), text(r, "evidence")) == Label::Entailment)
        .count();
    eprintln!("numbers: disagreeing pairs called supported: {wrongly_supported}");
    assert!(
        false_contradictions <= 0.10,
        "agreeing numbers called contradictions: {false_contradictions:.2}"
    );
}

#[test]
fn negation_is_read_clause_by_clause_on_both_sides() {
    let rows = table("negation_pairs");
    let t = tally(&rows, "contradicts", "claim", |r| {
        label(text(r, "claim"), text(r, "evidence")) == Label::Contradiction
    });
    let (false_contradictions, missed) = report("negation", "contradicts", &t);
    assert!(
        false_contradictions <= 0.15,
        "agreement called contradiction: {false_contradictions:.2}"
    );
    assert!(missed <= 0.60, "contradictions missed: {missed:.2}");
}
