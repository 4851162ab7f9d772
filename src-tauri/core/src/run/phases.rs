//! What evaluating one item reads besides the item: the run's settings, and the verdicts
//! of the two phases of judge tasks (those that depend on the item alone, and those that
//! need the first phase's aspects or claims).
//!
//! Owns: those shapes. Must not: ask the judge (`engine`) or score (`verdicts`).

use crate::item::RagCheckerLabels;
use crate::judge::task::{
    AnswerReview, AspectCoverage, ChunkScore, CorrectnessExample, Grounding, Reasoning, Scorecard,
};
use crate::judge::JudgeError;
use crate::metrics::overall::WeightProfile;
use crate::metrics::MetricConfig;

/// Settings shared by every item of a run.
#[derive(Debug, Clone, Default)]
pub struct EngineSettings {
    pub metric_config: MetricConfig,
    pub tau: Option<f64>,
    pub weights: WeightProfile,
    /// Scored examples shown to the judge for answer correctness (at most eight).
    pub few_shot: Vec<CorrectnessExample>,
    /// The versions of the user's criteria the run scores (`run::criteria`).
    pub criteria: Vec<crate::criteria::Versioned>,
}

/// A verdict asked for, or not asked (the metrics chosen did not need it).
pub(super) type Asked<T> = Option<Result<T, JudgeError>>;

/// The verdicts that depend only on the item (asked at once).
pub(super) struct FirstPhase {
    /// The user's own aspects when the item has them, else the judge's.
    pub(super) aspects: Asked<Vec<String>>,
    /// The judge's grading note, asked with the aspects.
    pub(super) note: Asked<Vec<String>>,
    pub(super) chunk_scores: Asked<Vec<ChunkScore>>,
    pub(super) grounding: Asked<Grounding>,
    pub(super) reasoning: Asked<Reasoning>,
    /// The ground truth's claims (RAGChecker).
    pub(super) gt_claims: Asked<Vec<String>>,
}

/// The verdicts that need the aspects or the claims of the first phase.
pub(super) struct SecondPhase {
    pub(super) coverage: Asked<Vec<AspectCoverage>>,
    pub(super) review: Asked<AnswerReview>,
    pub(super) labels: Asked<RagCheckerLabels>,
    pub(super) scorecard: Asked<Scorecard>,
}
