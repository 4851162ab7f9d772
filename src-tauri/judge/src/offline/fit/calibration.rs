//! Measuring the offline judge's support decision against human labels, shared by
//! `examples/offline_judge_eval.rs` (prints the figures) and
//! `tests/offline_judge_quality.rs` (fails when they regress).
//!
//! Data sets (in the repository's `shared/data`):
//! - WiCE-dev (`wice-dev/claims_dev.jsonl`): a Wikipedia claim and the sentences of the
//!   article it cites; positive = `supported`, negative = `partially_supported` or
//!   `not_supported`. Every evidence sentence is one passage.
//! - BEGIN-dev (`begin-dev/*/begin_dev_*.tsv`): a dialogue response and the knowledge
//!   paragraph it should rest on; positive = "Fully attributable", negative = "Not fully
//!   attributable" or "Generic". The knowledge is one passage.
//!
//! How a prediction is made, for both: the text is split into claims with the judge's
//! `Claims` task, the claims are labelled against the passages with `ClaimLabels`, and
//! the text is predicted supported when it has at least one claim and every claim is
//! entailed by some passage (RAGChecker's merge: any passage entailing suffices). A text
//! with no claim (a greeting, a question) is predicted unsupported: nothing in it is
//! attributable. Judging the whole text as one claim instead was measured too: the same
//! on WiCE (whose claims are single sentences) and about 0.01 lower on BEGIN, so the
//! judge's own splitting is what is evaluated, as the metrics use it.
//!
//! Owns: loading those files, the prediction rule, the confusion matrix. Must not: tune
//! anything itself; thresholds live in `support::SupportParams`.

use std::io;
use std::path::Path;

use crate::offline::OfflineJudge;
use crate::task::{Task, Verdict};

/// One human-labelled text with the passages it is judged against.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledClaim {
    pub text: String,
    pub passages: Vec<String>,
    /// The humans' verdict: fully supported by the passages.
    pub supported: bool,
}

/// Counts of a binary decision against human labels; positive = supported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confusion {
    pub true_positive: usize,
    pub false_positive: usize,
    pub true_negative: usize,
    pub false_negative: usize,
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

impl Confusion {
    pub fn add(&mut self, predicted: bool, actual: bool) {
        match (predicted, actual) {
            (true, true) => self.true_positive += 1,
            (true, false) => self.false_positive += 1,
            (false, false) => self.true_negative += 1,
            (false, true) => self.false_negative += 1,
        }
    }

    pub fn n(&self) -> usize {
        self.true_positive + self.false_positive + self.true_negative + self.false_negative
    }

    pub fn positives(&self) -> usize {
        self.true_positive + self.false_negative
    }

    /// Recall of the positive class (true positive rate).
    pub fn recall(&self) -> f64 {
        ratio(self.true_positive, self.positives())
    }

    /// True negative rate.
    pub fn specificity(&self) -> f64 {
        ratio(self.true_negative, self.true_negative + self.false_positive)
    }

    pub fn precision(&self) -> f64 {
        ratio(self.true_positive, self.true_positive + self.false_positive)
    }

    /// Mean of the true positive and true negative rates: accuracy that a judge cannot
    /// inflate by always answering the majority class.
    pub fn balanced_accuracy(&self) -> f64 {
        (self.recall() + self.specificity()) / 2.0
    }
}

fn invalid(path: &Path, line: usize, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}:{line}: {what}", path.display()),
    )
}

/// Reads WiCE's `claims_dev.jsonl`.
pub fn load_wice(path: &Path) -> io::Result<Vec<LabelledClaim>> {
    let raw = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    for (i, line) in raw
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| invalid(path, i + 1, &e.to_string()))?;
        let text = value["claim"]
            .as_str()
            .ok_or_else(|| invalid(path, i + 1, "no claim"))?;
        let label = value["label"]
            .as_str()
            .ok_or_else(|| invalid(path, i + 1, "no label"))?;
        let passages = value["evidence"]
            .as_array()
            .ok_or_else(|| invalid(path, i + 1, "no evidence list"))?
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
        out.push(LabelledClaim {
            text: text.to_string(),
            passages,
            supported: label == "supported",
        });
    }
    Ok(out)
}

/// Reads one of BEGIN's tab-separated files (header with `knowledge`, `response`,
/// `begin_label`; no quoting).
pub fn load_begin(path: &Path) -> io::Result<Vec<LabelledClaim>> {
    let raw = std::fs::read_to_string(path)?;
    let mut lines = raw.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .trim_end_matches('\r')
        .split('\t')
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| invalid(path, 1, &format!("no {name} column")))
    };
    let (knowledge, response, label) = (
        column("knowledge")?,
        column("response")?,
        column("begin_label")?,
    );
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.trim_end_matches('\r').split('\t').collect();
        if fields.len() <= label.max(knowledge).max(response) {
            if line.trim().is_empty() {
                continue;
            }
            return Err(invalid(path, i + 2, "too few columns"));
        }
        out.push(LabelledClaim {
            text: fields[response].to_string(),
            passages: vec![fields[knowledge].to_string()],
            supported: fields[label].trim() == "Fully attributable",
        });
    }
    Ok(out)
}

/// The offline judge's prediction for one labelled text (rule in the module doc).
pub fn predict(judge: &OfflineJudge, example: &LabelledClaim) -> bool {
    let claims = match judge.verdict(&Task::Claims {
        question: String::new(),
        text: example.text.clone(),
    }) {
        Verdict::Claims { claims } => claims,
        _ => return false,
    };
    if claims.is_empty() {
        return false;
    }
    match judge.verdict(&Task::ClaimLabels {
        claims,
        passages: example.passages.clone(),
    }) {
        Verdict::ClaimLabels { labels } => labels
            .iter()
            .all(|row| row.iter().any(|l| l.is_entailment())),
        _ => false,
    }
}

/// The confusion matrix of the judge's predictions on `examples`.
pub fn evaluate(judge: &OfflineJudge, examples: &[LabelledClaim]) -> Confusion {
    let mut confusion = Confusion::default();
    for example in examples {
        confusion.add(predict(judge, example), example.supported);
    }
    confusion
}

/// The balanced accuracy of the judge on `examples`.
pub fn balanced_accuracy(judge: &OfflineJudge, examples: &[LabelledClaim]) -> f64 {
    evaluate(judge, examples).balanced_accuracy()
}

/// WiCE-dev and the two BEGIN-dev files, from the `shared/data` directory.
pub fn load_wice_dev(data_dir: &Path) -> io::Result<Vec<LabelledClaim>> {
    load_wice(&data_dir.join("wice-dev/claims_dev.jsonl"))
}

/// BEGIN-dev: CMU-DoG and TopicalChat together.
pub fn load_begin_dev(data_dir: &Path) -> io::Result<Vec<LabelledClaim>> {
    let mut all = load_begin(&data_dir.join("begin-dev/cmu-dog/begin_dev_cmu.tsv"))?;
    all.extend(load_begin(
        &data_dir.join("begin-dev/topicalchat/begin_dev_tc.tsv"),
    )?);
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_accuracy_ignores_class_imbalance() {
        let mut always_no = Confusion::default();
        for _ in 0..90 {
            always_no.add(false, false);
        }
        for _ in 0..10 {
            always_no.add(false, true);
        }
        assert_eq!(
            always_no.balanced_accuracy(),
            0.5,
            "majority-class guessing is chance, not 0.9"
        );
        let mut c = Confusion::default();
        c.add(true, true);
        c.add(true, false);
        c.add(false, false);
        assert_eq!(
            (c.precision(), c.recall(), c.specificity()),
            (0.5, 1.0, 0.5)
        );
    }

    #[test]
    fn begin_rows_parse_by_header_name() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("b.tsv");
        std::fs::write(&path, "knowledge\tresponse\tbegin_label\r\nGold is Au.\tgold is au\tFully attributable\r\nK\thi\tGeneric\n")
            .expect("write");
        let rows = load_begin(&path).expect("parses");
        assert_eq!(rows.len(), 2);
        assert!(rows[0].supported && !rows[1].supported);
        assert_eq!(rows[0].passages, ["Gold is Au."]);
    }
}
