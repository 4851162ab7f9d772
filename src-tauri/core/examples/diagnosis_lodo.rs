//! Chooses the diagnosis's thresholds leave-one-domain-out and prints what the choice is
//! worth on the domain left out.
//!
//! ```sh
//! python3 scripts/diagnosis-domains.py --dump target/diagnosis-dump.jsonl
//! cargo run -p ragnosis-core --example diagnosis_lodo -- target/diagnosis-dump.jsonl
//! ```
//!
//! The dump holds every labelled item of every set (`set`, `shape`, `expect`, `accept`,
//! `scores` with the decision facts). For each set in turn, every combination of the
//! grid below is scored on the other sets, the best is applied to the set left out, and
//! its figures are printed beside the shipped defaults'. A choice that only suits the
//! sets it was made on shows here as a held-out figure worse than the training one.
//!
//! Objective (precision first): failures named − 2 × false alarms − extra letters, as
//! shares, less the unsure share above 25 %.

use std::collections::{BTreeMap, BTreeSet};

use ragnosis_core::analysis::diagnosis::reading::{read_with, Thresholds};
use serde::Deserialize;

#[derive(Deserialize)]
struct Row {
    set: String,
    id: String,
    shape: String,
    expect: Vec<String>,
    accept: Vec<String>,
    scores: BTreeMap<String, f64>,
}

#[derive(Default, Clone, Copy)]
struct Figures {
    correct: u32,
    false_alarms: u32,
    failures: u32,
    named: u32,
    extras: u32,
    unsure: u32,
}

impl Figures {
    fn add(&mut self, o: Figures) {
        self.correct += o.correct;
        self.false_alarms += o.false_alarms;
        self.failures += o.failures;
        self.named += o.named;
        self.extras += o.extras;
        self.unsure += o.unsure;
    }

    fn objective(&self) -> f64 {
        let share = |n: u32, d: u32| n as f64 / d.max(1) as f64;
        let items = self.correct + self.failures;
        share(self.named, self.failures)
            - 2.0 * share(self.false_alarms, self.correct)
            - share(self.extras, self.failures)
            - (share(self.unsure, items) - 0.25).max(0.0)
    }

    fn line(&self) -> String {
        format!(
            "false alarms {:>2}/{:<3} named {:>3}/{:<3} extras {:>2} unsure {:>2}",
            self.false_alarms, self.correct, self.named, self.failures, self.extras, self.unsure
        )
    }
}

fn score(rows: &[&Row], t: &Thresholds) -> Figures {
    let mut f = Figures::default();
    for row in rows {
        let reading = read_with(&row.scores, t);
        let letters: BTreeSet<String> = reading
            .patterns()
            .iter()
            .map(|p| p.letter().to_string())
            .collect();
        let accept: BTreeSet<String> = row.accept.iter().cloned().collect();
        let expect: BTreeSet<String> = row.expect.iter().cloned().collect();
        f.unsure += u32::from(reading.unsure.is_some());
        if matches!(row.shape.as_str(), "good" | "correct_abstention") {
            f.correct += 1;
            f.false_alarms += u32::from(letters.iter().any(|l| !accept.contains(l)));
        } else {
            f.failures += 1;
            f.named += u32::from(letters.iter().any(|l| expect.contains(l)));
            f.extras += u32::from(
                letters
                    .iter()
                    .any(|l| !expect.contains(l) && !accept.contains(l)),
            );
        }
    }
    f
}

fn grid() -> Vec<Thresholds> {
    let mut out = Vec::new();
    for agrees in [0.7, 0.8, 0.9] {
        for contradicts in [0.2, 0.3, 0.4] {
            for backed in [0.34, 0.5, 0.67] {
                for all_backed in [0.67, 0.8, 1.0] {
                    for held in [0.0, 0.49, 0.5, 0.66] {
                        out.push(Thresholds {
                            agrees,
                            contradicts,
                            backed,
                            all_backed,
                            held,
                        });
                    }
                }
            }
        }
    }
    out
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: diagnosis_lodo DUMP.jsonl");
    let text = std::fs::read_to_string(&path).expect("the dump is readable");
    let rows: Vec<Row> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a dump line"))
        .collect();
    let sets: BTreeSet<&str> = rows.iter().map(|r| r.set.as_str()).collect();
    let grid = grid();
    let defaults = Thresholds::default();
    let (mut held_out, mut shipped) = (Figures::default(), Figures::default());
    println!("set left out        held out with the thresholds chosen on the others        | shipped defaults");
    for set in &sets {
        let train: Vec<&Row> = rows.iter().filter(|r| r.set != *set).collect();
        let test: Vec<&Row> = rows.iter().filter(|r| r.set == *set).collect();
        let best = grid
            .iter()
            .max_by(|a, b| {
                score(&train, a)
                    .objective()
                    .total_cmp(&score(&train, b).objective())
                    // Ties go to the shipped defaults' side: nearer values first.
                    .then_with(|| distance(b, &defaults).total_cmp(&distance(a, &defaults)))
            })
            .expect("a non-empty grid");
        let (f, d) = (score(&test, best), score(&test, &defaults));
        held_out.add(f);
        shipped.add(d);
        println!("{set:<18} {}  | {}", f.line(), d.line());
        println!("{:<18} chosen: {best:?}", "");
    }
    println!("{:<18} {}  | {}", "all", held_out.line(), shipped.line());
    let all: Vec<&Row> = rows.iter().collect();
    let best_all = grid
        .iter()
        .max_by(|a, b| {
            score(&all, a)
                .objective()
                .total_cmp(&score(&all, b).objective())
                .then_with(|| distance(b, &defaults).total_cmp(&distance(a, &defaults)))
        })
        .expect("a non-empty grid");
    println!(
        "chosen on every set: {best_all:?} ({})",
        score(&all, best_all).line()
    );
    for row in &rows {
        let _ = &row.id;
    }
}

fn distance(a: &Thresholds, b: &Thresholds) -> f64 {
    (a.agrees - b.agrees).abs()
        + (a.contradicts - b.contradicts).abs()
        + (a.backed - b.backed).abs()
        + (a.all_backed - b.all_backed).abs()
        + (a.held - b.held).abs()
}
