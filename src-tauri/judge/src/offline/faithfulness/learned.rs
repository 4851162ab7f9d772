//! Learned, calibrated decisions: a logistic model per judgement over the signals in
//! `features`, fitted on the human-labelled dev sets by `examples/fit_offline_judge.rs`
//! (`fit` holds the fitting) and shipped as `assets/offline-judge/decisions.json`. The
//! output is a probability that the claim is supported (or the passages answer the
//! question); the decision is that probability against the threshold chosen on held-out
//! folds.
//!
//! There are two variants of each model: with the embedded model's cosines, and words
//! only for when the model is absent or turned off (its cosine features are then zeros
//! and carry no weight).
//!
//! Owns: reading the coefficients and applying them. Must not: compute features or fit.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

const SHIPPED: &str = include_str!("../../../../../assets/offline-judge/decisions.json");

/// A fitted logistic model over standardised features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    pub features: Vec<String>,
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    pub weights: Vec<f64>,
    pub bias: f64,
    /// The probability at or above which the decision is "yes": the one that maximised
    /// balanced accuracy over the held-out folds.
    pub threshold: f64,
    /// How close (in log-odds) a probability may lie to its decision point for the
    /// decision to count as unsure: the distance within which `judge_check::fit::CASCADE_SHARE` of
    /// the fitted rows lie. A cascade sends unsure decisions to a stronger judge.
    #[serde(default)]
    pub cascade_margin: f64,
}

impl Logistic {
    /// The probability of "yes" for one feature vector (in `features` order).
    pub fn probability(&self, x: &[f64]) -> f64 {
        let z: f64 = self.bias
            + x.iter()
                .zip(&self.mean)
                .zip(&self.scale)
                .zip(&self.weights)
                .map(|(((v, m), s), w)| w * (v - m) / s)
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }

    pub fn decide(&self, p: f64) -> bool {
        p >= self.threshold
    }
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-9, 1.0 - 1e-9);
    (p / (1.0 - p)).ln()
}

/// One judgement's two variants, and, for support, the prior its decision compares with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variants {
    pub with_meaning: Logistic,
    pub words_only: Logistic,
    /// The probability of "yes" from the evidence's shape alone (how many passages, how
    /// long, how long the claim). Sets of evidence differ in how often a claim is
    /// supported at all; a probability above this prior means the claim's own words
    /// raised the odds, which is the decision that balances both kinds of error for
    /// every kind of evidence (one fixed threshold suits only one of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior: Option<Logistic>,
}

impl Variants {
    pub fn pick(&self, semantic: bool) -> &Logistic {
        if semantic {
            &self.with_meaning
        } else {
            &self.words_only
        }
    }

    /// The probability of "yes" and the decision, for a feature vector.
    pub fn decide(&self, semantic: bool, x: &[f64]) -> (f64, bool) {
        let (p, point) = self.probability_and_point(semantic, x);
        (p, p >= point)
    }

    /// The probability of "yes" and the point the decision compares it with.
    pub fn probability_and_point(&self, semantic: bool, x: &[f64]) -> (f64, f64) {
        let model = self.pick(semantic);
        let point = match &self.prior {
            Some(prior) => prior.probability(x),
            None => model.threshold,
        };
        (model.probability(x), point)
    }

    /// The decision's distance from its point, in log-odds.
    pub fn distance(&self, semantic: bool, x: &[f64]) -> f64 {
        let (p, point) = self.probability_and_point(semantic, x);
        (logit(p) - logit(point)).abs()
    }

    /// Whether the decision lies within the model's cascade margin of its point.
    pub fn is_unsure(&self, semantic: bool, x: &[f64]) -> bool {
        self.distance(semantic, x) < self.pick(semantic).cascade_margin
    }
}

/// Every learned decision of the offline judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decisions {
    /// What the coefficients were fitted on, for people reading the file.
    pub fitted_on: String,
    /// Is a claim supported by the passages?
    pub support: Variants,
    /// Do the passages answer the question?
    pub answerability: Variants,
}

impl Decisions {
    pub fn from_json(text: &str) -> serde_json::Result<Decisions> {
        serde_json::from_str(text)
    }

    /// Pretty JSON with a trailing newline: the shipped file's exact form.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("plain numbers and strings");
        text.push('\n');
        text
    }
}

/// The shipped coefficients. The file is built and checked in with the code (a test
/// compares it with a refit); a bad file is a build defect, not a user's input.
pub fn shipped() -> &'static Decisions {
    static DECISIONS: OnceLock<Decisions> = OnceLock::new();
    DECISIONS.get_or_init(|| {
        Decisions::from_json(SHIPPED)
            .unwrap_or_else(|e| panic!("assets/offline-judge/decisions.json: {e}"))
    })
}

/// A short fingerprint of the shipped coefficients, part of the judge's prompt version
/// so verdicts of older coefficients are not reused from the cache.
pub fn version() -> String {
    blake3::hash(SHIPPED.as_bytes()).to_hex()[..8].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::faithfulness::features;

    #[test]
    fn shipped_models_read_the_features_the_code_computes() {
        let d = shipped();
        for (model, names) in [
            (&d.support.with_meaning, features::SUPPORT),
            (&d.support.words_only, features::SUPPORT),
            (&d.answerability.with_meaning, features::ANSWERABILITY),
            (&d.answerability.words_only, features::ANSWERABILITY),
        ] {
            assert_eq!(model.features, names);
            assert_eq!(model.weights.len(), names.len());
            assert!(model.scale.iter().all(|s| *s > 0.0));
            assert!((0.0..1.0).contains(&model.threshold));
        }
        // Words only: the model's cosines are absent, so they must carry no weight.
        for v in [&d.support, &d.answerability] {
            let m = &v.words_only;
            for (name, w) in m.features.iter().zip(&m.weights) {
                assert!(!features::needs_model(name) || *w == 0.0, "{name}: {w}");
            }
        }
        let prior = d
            .support
            .prior
            .as_ref()
            .expect("support decides against its prior");
        for (name, w) in prior.features.iter().zip(&prior.weights) {
            assert!(
                features::SHAPE.contains(&name.as_str()) || *w == 0.0,
                "{name}: {w}"
            );
        }
    }

    #[test]
    fn prompt_versions_name_the_shipped_coefficients() {
        // Changing the coefficients changes verdicts: the version must change with them,
        // or cached verdicts of the old ones would be reused.
        for v in [
            crate::offline::LEARNED_PROMPT_VERSION,
            crate::offline::SEMANTIC_PROMPT_VERSION,
        ] {
            assert!(
                v.ends_with(&format!("learned-{}", version())),
                "{v}: set its suffix to learned-{}",
                version()
            );
        }
    }

    #[test]
    fn probability_rises_with_a_positive_weight() {
        let m = Logistic {
            features: vec!["a".into()],
            mean: vec![0.5],
            scale: vec![0.25],
            weights: vec![2.0],
            bias: 0.0,
            threshold: 0.5,
            cascade_margin: 0.0,
        };
        assert_eq!(m.probability(&[0.5]), 0.5);
        assert!(m.probability(&[0.9]) > 0.9);
        assert!(m.probability(&[0.1]) < 0.1);
        assert!(m.decide(0.5) && !m.decide(0.49));
    }
}
