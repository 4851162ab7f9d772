//! The judge protocol: every question Ragnosis asks a judge (`Task`) and the typed answer
//! it expects (`Verdict`). LLM judges and the offline judge implement the same protocol,
//! so every judge-based metric runs on either.
//!
//! Tasks are grouped so an item with question, answer and contexts needs at most seven
//! calls for the whole RAGVUE family: aspects are extracted once and shared by coverage
//! and completeness; all chunks are scored in one call; one grounding call yields the
//! claims, the chunks used and the implicit contradictions.

use serde::{Deserialize, Serialize};

use crate::item::Label;

/// A judgement request. Text fields hold untrusted data from the user's dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum Task {
    /// 1–5 short information needs of the question (no answers, no new facts).
    Aspects { question: String },
    /// Usefulness of each chunk for answering the question, all chunks in one call.
    ChunkRelevance {
        question: String,
        chunks: Vec<String>,
    },
    /// For each aspect: does some chunk support it?
    Coverage {
        question: String,
        aspects: Vec<String>,
        chunks: Vec<String>,
    },
    /// Judgements of the answer text alone: intent alignment, aspects addressed,
    /// clarity, coherence, conciseness.
    AnswerReview {
        question: String,
        answer: String,
        aspects: Vec<String>,
    },
    /// The answer's atomic claims labelled against the chunks (strict on entities and
    /// dates), the chunks the answer draws on, and subtle contradictions.
    Grounding {
        question: String,
        answer: String,
        chunks: Vec<String>,
    },
    /// The answer's reasoning hops, whether the chunks suffice, whether it abstains.
    Reasoning {
        question: String,
        answer: String,
        chunks: Vec<String>,
    },
    /// Atomic claims of a text (an answer or a ground truth).
    Claims { question: String, text: String },
    /// Entailment of each claim by each passage: `labels[claim][passage]`.
    ClaimLabels {
        claims: Vec<String>,
        passages: Vec<String>,
    },
}

impl Task {
    /// Stable name, used in prompts, cache keys, logs and the simulator.
    pub fn kind(&self) -> TaskKind {
        match self {
            Task::Aspects { .. } => TaskKind::Aspects,
            Task::ChunkRelevance { .. } => TaskKind::ChunkRelevance,
            Task::Coverage { .. } => TaskKind::Coverage,
            Task::AnswerReview { .. } => TaskKind::AnswerReview,
            Task::Grounding { .. } => TaskKind::Grounding,
            Task::Reasoning { .. } => TaskKind::Reasoning,
            Task::Claims { .. } => TaskKind::Claims,
            Task::ClaimLabels { .. } => TaskKind::ClaimLabels,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Aspects,
    ChunkRelevance,
    Coverage,
    AnswerReview,
    Grounding,
    Reasoning,
    Claims,
    ClaimLabels,
}

impl TaskKind {
    pub const ALL: [TaskKind; 8] = [
        TaskKind::Aspects,
        TaskKind::ChunkRelevance,
        TaskKind::Coverage,
        TaskKind::AnswerReview,
        TaskKind::Grounding,
        TaskKind::Reasoning,
        TaskKind::Claims,
        TaskKind::ClaimLabels,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Aspects => "aspects",
            TaskKind::ChunkRelevance => "chunk_relevance",
            TaskKind::Coverage => "coverage",
            TaskKind::AnswerReview => "answer_review",
            TaskKind::Grounding => "grounding",
            TaskKind::Reasoning => "reasoning",
            TaskKind::Claims => "claims",
            TaskKind::ClaimLabels => "claim_labels",
        }
    }

    pub fn parse(s: &str) -> Option<TaskKind> {
        TaskKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkScore {
    pub index: usize,
    /// Usefulness in [0, 1]: ≥0.9 contains the answer, 0.7–0.8 highly useful,
    /// 0.3–0.6 background, ≤0.2 irrelevant.
    pub relevance: f64,
    #[serde(default)]
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AspectCoverage {
    pub aspect: String,
    pub covered: bool,
    #[serde(default)]
    pub chunk: Option<usize>,
    /// At most ten words quoted from the chunk.
    #[serde(default)]
    pub evidence: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AspectAddressed {
    pub aspect: String,
    pub addressed: bool,
    /// At most twenty words quoted from the answer.
    #[serde(default)]
    pub evidence: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerReview {
    /// Intent alignment only: not correctness, not style.
    pub relevance: f64,
    #[serde(default)]
    pub missing_parts: Vec<String>,
    #[serde(default)]
    pub off_topic: Vec<String>,
    #[serde(default)]
    pub aspects: Vec<AspectAddressed>,
    pub clarity: f64,
    #[serde(default)]
    pub clarity_issues: Vec<String>,
    #[serde(default)]
    pub suggestions: Vec<String>,
    pub coherence: f64,
    #[serde(default)]
    pub coherence_issues: Vec<String>,
    pub conciseness: f64,
    #[serde(default)]
    pub conciseness_issues: Vec<String>,
}

/// How well the contexts back one claim of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Support {
    Supported,
    PartiallyHallucinated,
    FullyHallucinated,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroundedClaim {
    pub claim: String,
    pub support: Support,
    #[serde(default)]
    pub reason: String,
    /// The chunk that supports (or best matches) the claim.
    #[serde(default)]
    pub chunk: Option<usize>,
    /// Entities and dates in the claim that the contexts do not confirm.
    #[serde(default)]
    pub unconfirmed_anchors: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contradiction {
    /// dropped_qualifier, scope_shift, negation_flip, temporal_misattribution,
    /// causal_reversal, magnitude_shift.
    pub kind: String,
    /// low, medium or high.
    pub severity: String,
    #[serde(default)]
    pub explanation: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grounding {
    pub claims: Vec<GroundedClaim>,
    /// Indices of the chunks the answer draws on.
    #[serde(default)]
    pub used_chunks: Vec<usize>,
    #[serde(default)]
    pub contradictions: Vec<Contradiction>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hop {
    pub step: String,
    /// Backed by some chunk.
    pub grounded: bool,
    /// Follows from the previous hop (the first hop follows trivially).
    pub follows: bool,
    #[serde(default)]
    pub chunk: Option<usize>,
    #[serde(default)]
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reasoning {
    pub hops: Vec<Hop>,
    pub contexts_sufficient: bool,
    pub answer_abstains: bool,
    #[serde(default)]
    pub reason: String,
}

/// A judge's answer to one task, typed by task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Aspects { aspects: Vec<String> },
    ChunkRelevance { chunks: Vec<ChunkScore> },
    Coverage { aspects: Vec<AspectCoverage> },
    AnswerReview(AnswerReview),
    Grounding(Grounding),
    Reasoning(Reasoning),
    Claims { claims: Vec<String> },
    ClaimLabels { labels: Vec<Vec<Label>> },
}

impl Verdict {
    pub fn kind(&self) -> TaskKind {
        match self {
            Verdict::Aspects { .. } => TaskKind::Aspects,
            Verdict::ChunkRelevance { .. } => TaskKind::ChunkRelevance,
            Verdict::Coverage { .. } => TaskKind::Coverage,
            Verdict::AnswerReview(_) => TaskKind::AnswerReview,
            Verdict::Grounding(_) => TaskKind::Grounding,
            Verdict::Reasoning(_) => TaskKind::Reasoning,
            Verdict::Claims { .. } => TaskKind::Claims,
            Verdict::ClaimLabels { .. } => TaskKind::ClaimLabels,
        }
    }
}
