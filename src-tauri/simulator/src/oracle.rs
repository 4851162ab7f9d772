//! The oracle: answers the judge check's labelled cases as the people who labelled them
//! did, so the simulator can stand in for a judge better than the offline one (the
//! cascade's "stronger judge" in measurements). A claim case's claims are all entailed
//! by its passages when the humans said supported, none otherwise; an answerability
//! case's aspects are all covered when the question is answerable. Any other task is
//! left to the offline judge.
//!
//! Owns: recognising a labelled case in a task. Must not: answer anything else.

use std::collections::HashMap;
use std::sync::OnceLock;

use ragnosis_core::item::Label;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::judge::task::{Task, Verdict};
use ragnosis_core::judge_check::sample::{self, Case};

struct Index {
    /// Passages (joined) → every labelled text judged against them, with its label.
    claims: HashMap<String, Vec<(String, bool)>>,
    /// (question, passage) → answerable.
    questions: HashMap<(String, String), bool>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut claims: HashMap<String, Vec<(String, bool)>> = HashMap::new();
        let mut questions = HashMap::new();
        for case in sample::cases() {
            match case {
                Case::Attribution(c) | Case::ClaimSupport(c) | Case::ExpertClaims(c) => claims
                    .entry(c.passages.join("\n"))
                    .or_default()
                    .push((c.text, c.supported)),
                Case::Answerability {
                    question,
                    passage,
                    answerable,
                } => {
                    questions.insert((question, passage), answerable);
                }
                _ => {}
            }
        }
        Index { claims, questions }
    })
}

/// The human verdict for `task`, when it is one of the labelled cases.
pub fn verdict(task: &Task) -> Option<Verdict> {
    let index = index();
    match task {
        Task::ClaimLabels { claims, passages } => {
            let texts = index.claims.get(&passages.join("\n"))?;
            // The text the claims were split from: the one that holds every claim's words.
            let supported = texts
                .iter()
                .find(|(text, _)| claims.iter().all(|c| holds(text, c)))?
                .1;
            let label = if supported {
                Label::Entailment
            } else {
                Label::Neutral
            };
            Some(Verdict::ClaimLabels {
                labels: claims.iter().map(|_| vec![label; passages.len()]).collect(),
            })
        }
        Task::Coverage {
            question, chunks, ..
        } if chunks.len() == 1 => {
            let answerable = *index
                .questions
                .get(&(question.clone(), chunks[0].clone()))?;
            match OfflineJudge::default().verdict(task) {
                Verdict::Coverage { mut aspects } => {
                    for a in aspects.iter_mut() {
                        a.covered = answerable;
                    }
                    Some(Verdict::Coverage { aspects })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether every word of `claim` occurs in `text` (claims are sentences of the text,
/// sometimes trimmed of a leading word or punctuation).
fn holds(text: &str, claim: &str) -> bool {
    let lower = text.to_lowercase();
    claim
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| lower.contains(&w.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labelled_cases_get_the_human_verdict_and_others_none() {
        let cases = sample::cases();
        for want in [true, false] {
            let c = cases
                .iter()
                .find_map(|c| match c {
                    Case::ClaimSupport(c) if c.supported == want => Some(c.clone()),
                    _ => None,
                })
                .expect("both labels in the sample");
            let task = Task::ClaimLabels {
                claims: vec![c.text.clone()],
                passages: c.passages.clone(),
            };
            let Some(Verdict::ClaimLabels { labels }) = verdict(&task) else {
                panic!("a labelled case is recognised");
            };
            assert!(
                labels[0].iter().all(|l| l.is_entailment() == want),
                "{labels:?}"
            );
        }
        let unknown = Task::ClaimLabels {
            claims: vec!["Paris is in France.".into()],
            passages: vec!["Paris is the capital of France.".into()],
        };
        assert!(verdict(&unknown).is_none(), "not a labelled case");
    }
}
