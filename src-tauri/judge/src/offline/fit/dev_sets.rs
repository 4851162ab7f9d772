//! The human-labelled dev sets the learned decisions are fitted on, read from the
//! repository's `shared/data`, and their feature rows.
//!
//! - support: WiCE-dev (grouped by Wikipedia article), BEGIN-dev (by knowledge
//!   paragraph), ExpertQA validation, both splits pooled and deduplicated (by question:
//!   the two files share 160 questions);
//! - answerability: SQuAD 2.0 dev articles 1–8 and train articles 1–10 (by article);
//!   each question against its own paragraph, answerable = not `is_impossible`.
//!
//! Owns: reading those files and turning them into `features::Row`s. Must not: fit.

use std::collections::HashSet;
use std::io;
use std::path::Path;

use crate::offline::claims::claim::Claim;
use crate::offline::claims::support::SupportParams;
use crate::offline::faithfulness::features::{self, Row};
use crate::offline::fit::calibration::{self, LabelledClaim};
use crate::offline::words::evidence::Evidence;
use crate::offline::OfflineJudge;
use crate::semantic::SemanticModel;

/// A labelled claim with where it comes from and the group it must stay with.
#[derive(Debug, Clone)]
pub struct SupportCase {
    pub source: &'static str,
    pub group: String,
    pub claim: LabelledClaim,
}

/// A SQuAD question against its paragraph.
#[derive(Debug, Clone)]
pub struct AnswerabilityCase {
    pub source: &'static str,
    /// The article's title.
    pub group: String,
    pub question: String,
    pub passage: String,
    pub answerable: bool,
}

/// A short, stable name for a group, so the checked-in table holds no text.
fn group_name(source: &str, key: &str) -> String {
    format!("{source}:{}", &blake3::hash(key.as_bytes()).to_hex()[..10])
}

fn read_json_lines(path: &Path) -> io::Result<Vec<serde_json::Value>> {
    std::fs::read_to_string(path)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}:{}: {e}", path.display(), i + 1),
                )
            })
        })
        .collect()
}

pub fn support_cases(data: &Path) -> io::Result<Vec<SupportCase>> {
    let mut out = Vec::new();
    // WiCE: the claim's article is its group.
    let wice = read_json_lines(&data.join("wice-dev/claims_dev.jsonl"))?;
    let claims = calibration::load_wice_dev(data)?;
    for (value, claim) in wice.iter().zip(claims) {
        let title = value["meta"]["claim_title"].as_str().unwrap_or_default();
        out.push(SupportCase {
            source: "wice",
            group: group_name("wice", title),
            claim,
        });
    }
    for claim in calibration::load_begin_dev(data)? {
        out.push(SupportCase {
            source: "begin",
            group: group_name("begin", &claim.passages[0]),
            claim,
        });
    }
    let mut seen = HashSet::new();
    for file in [
        "expertqa-val/domain_val.jsonl",
        "expertqa-rand-val/rand_val.jsonl",
    ] {
        for d in read_json_lines(&data.join(file))? {
            let question = d["question"].as_str().unwrap_or_default().to_string();
            let Some(answers) = d["answers"].as_object() else {
                continue;
            };
            for answer in answers.values() {
                for c in answer["claims"].as_array().into_iter().flatten() {
                    let label = c["support"].as_str().unwrap_or_default();
                    let text = c["claim_string"].as_str().unwrap_or_default();
                    let passages: Vec<String> = c["evidence"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|e| e.as_str())
                        .filter(|e| !e.trim().is_empty())
                        .map(str::to_string)
                        .collect();
                    let labelled =
                        matches!(label, "Complete" | "Missing" | "Incomplete" | "Partial");
                    if !labelled
                        || passages.is_empty()
                        || text.trim().is_empty()
                        || !seen.insert((question.clone(), text.to_string()))
                    {
                        continue;
                    }
                    out.push(SupportCase {
                        source: "expertqa",
                        group: group_name("expertqa", &question),
                        claim: LabelledClaim {
                            text: text.to_string(),
                            passages,
                            supported: label == "Complete",
                        },
                    });
                }
            }
        }
    }
    Ok(out)
}

pub fn answerability_cases(data: &Path) -> io::Result<Vec<AnswerabilityCase>> {
    let mut out = Vec::new();
    for (source, file) in [
        ("squad-dev", "squad2-sample/dev-v2.0-articles-1-8.json"),
        (
            "squad-train",
            "squad2-train-sample/train-v2.0-articles-1-10.json",
        ),
    ] {
        let path = data.join(file);
        let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)
            .map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            })?;
        for article in value["data"].as_array().into_iter().flatten() {
            let title = article["title"].as_str().unwrap_or_default();
            for p in article["paragraphs"].as_array().into_iter().flatten() {
                let passage = p["context"].as_str().unwrap_or_default();
                for q in p["qas"].as_array().into_iter().flatten() {
                    out.push(AnswerabilityCase {
                        source,
                        group: group_name("squad", title),
                        question: q["question"].as_str().unwrap_or_default().to_string(),
                        passage: passage.to_string(),
                        answerable: !q["is_impossible"].as_bool().unwrap_or(false),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The feature row of one support case; the baseline is the rule judge's verdict through
/// the protocol (claims split, each labelled, all must be entailed).
pub fn support_row(case: &SupportCase, sem: Option<&SemanticModel>) -> Row {
    let c = &case.claim;
    let evidence = Evidence::new(&c.passages);
    let claim = Claim::new(&c.text, &evidence);
    let rules = calibration::predict(&OfflineJudge::default(), c);
    let (x, _) = features::support(
        &claim,
        &evidence,
        &SupportParams::default(),
        sem,
        Some(rules),
    );
    Row {
        source: case.source.to_string(),
        group: case.group.clone(),
        label: c.supported,
        baseline: if rules { 1.0 } else { 0.0 },
        x,
    }
}

/// The feature row of one answerability case; the baseline is the share of the
/// question's aspects the rules (with the model's paraphrase check) find covered.
pub fn answerability_row(case: &AnswerabilityCase, sem: Option<&SemanticModel>) -> Row {
    let passages = vec![case.passage.clone()];
    let evidence = Evidence::new(&passages);
    let (x, _) = features::answerability(&case.question, &evidence, &passages, sem);
    let aspects = crate::offline::coverage::aspects::extract(&case.question);
    let covered = crate::offline::coverage::relevance::coverage(&aspects, &passages, sem);
    let baseline = if covered.is_empty() {
        0.0
    } else {
        covered.iter().filter(|c| c.covered).count() as f64 / covered.len() as f64
    };
    Row {
        source: case.source.to_string(),
        group: case.group.clone(),
        label: case.answerable,
        baseline,
        x,
    }
}
