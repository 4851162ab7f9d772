//! The judge protocol: every question Ragnosis asks a judge (`Task`) and the typed answer
//! it expects (`Verdict`). LLM judges and the offline judge implement the same protocol,
//! so every judge-based metric runs on either.
//!
//! Tasks are grouped so an item with question, answer and contexts needs at most seven
//! calls for the whole RAGVUE family: aspects are extracted once and shared by coverage
//! and completeness; all chunks are scored in one call; one grounding call yields the
//! claims, the chunks used and the implicit contradictions. The aspects call also writes
//! the grading note (the expected structure of the answer), and one scorecard call rates
//! every RAGXplain criterion and RAGalyst's answer correctness with its failure taxonomy,
//! so the two families add one call to an item, not eight.

use serde::{Deserialize, Serialize};

use ragnosis_types::item::Label;

/// A judgement request. Text fields hold untrusted data from the user's dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum Task {
    /// 1–5 short information needs of the question (no answers, no new facts), and a
    /// 1–2 point note on the structure an ideal answer has (RAGXplain's grading note).
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
    /// Rubric ratings of the answer and the contexts (RAGXplain) and answer correctness
    /// against the ground truth (RAGalyst), each criterion asked only when its metric
    /// runs. With `taxonomy`, an answer rated below 0.9 on correctness also gets every
    /// failure category checked.
    Scorecard(Box<ScorecardTask>),
    /// A run-level task: plain-language insights on the weaker metrics and at most four
    /// ranked action items, from the run's own statistics and example items.
    Insights(Box<InsightsTask>),
    /// The advisor: the user's question about one run, answered from that run's facts
    /// only, citing its items by id.
    Advice(Box<AdviceTask>),
    /// Test-set generation, the question agent: one specific, unambiguous question that
    /// the chunk alone answers.
    DraftQuestion { chunk: String },
    /// Test-set generation, the answer agent: the reference answer to the question from
    /// the chunk alone.
    DraftAnswer { question: String, chunk: String },
    /// A user's own criterion (`crate::criteria`) asked about one item: the question in
    /// plain words with its scale, anchors and scored examples, and the fields it reads.
    Criterion(Box<CriterionTask>),
}

/// What a criterion call is given. Fields the criterion does not read are empty and
/// left out of the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionTask {
    /// The criterion's name (not its version: an unchanged text keeps its cached
    /// verdicts when a draft is saved).
    pub name: String,
    /// The question the judge answers, as the user wrote it.
    pub text: String,
    pub scale: ragnosis_types::criterion::Scale,
    pub anchors: Vec<ragnosis_types::criterion::Anchor>,
    pub examples: Vec<ragnosis_types::criterion::Example>,
    pub reads: Vec<ragnosis_types::criterion::ReadField>,
    pub question: String,
    pub answer: String,
    pub chunks: Vec<String>,
    pub ground_truth: String,
}

/// The judge's answer on a criterion: why, then the score on the criterion's scale.
/// `score` is `None` only from a judge that cannot score criteria in plain words (the
/// offline judge), whose `reasoning` then says so; model replies always carry a score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionVerdict {
    pub reasoning: String,
    pub score: Option<f64>,
}

/// What the insights call is given: the run's metrics (mean below 0.95 each), their
/// lowest and highest items, and the rule table's action items as a baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InsightsTask {
    pub metrics: Vec<MetricBrief>,
    pub baseline: Vec<ActionBrief>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricBrief {
    pub metric: String,
    pub description: String,
    pub mean: f64,
    pub n: u64,
    pub lower_is_better: bool,
    pub low: Vec<ItemBrief>,
    pub high: Vec<ItemBrief>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemBrief {
    pub question: String,
    pub score: f64,
    pub explanation: String,
}

/// An action item as the judge writes it. `example_question` must be a question of the
/// run and `metric` a metric that ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ActionBrief {
    /// high, medium or low.
    pub impact: String,
    pub metric: String,
    pub title: String,
    pub whats_wrong: String,
    pub why: String,
    pub example_question: String,
    pub how_to_fix: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricInsight {
    pub metric: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InsightsVerdict {
    pub insights: Vec<MetricInsight>,
    pub actions: Vec<ActionBrief>,
}

/// What the advisor call is given: the user's question and the run's facts as the
/// rule-based advisor reads them (its answer, the headline, the actions), each item named
/// "[item 12]" by its run item id. The whole task travels as data in one block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdviceTask {
    pub question: String,
    pub facts: Vec<String>,
    /// The run item ids the facts name: the only items an answer may cite.
    pub items: Vec<i64>,
}

/// The advisor's answer: a few short paragraphs and the run item ids they cite.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AdviceVerdict {
    pub answer: Vec<String>,
    pub items: Vec<i64>,
}

/// Metrics whose mean reaches this get no insight: "strong; changing it will not move
/// much" (METRICS.md).
pub const STRONG_MEAN: f64 = 0.95;

/// What a scorecard call is given. Empty texts are fields the item lacks; the criteria
/// asked never need them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScorecardTask {
    pub question: String,
    pub answer: String,
    pub chunks: Vec<String>,
    pub ground_truth: String,
    /// The grading note from the aspects call; empty unless `grading_note` is asked.
    pub structure_note: Vec<String>,
    pub criteria: Vec<Criterion>,
    /// Scored examples for answer correctness (at most eight).
    pub examples: Vec<CorrectnessExample>,
    pub taxonomy: bool,
}

/// One thing a scorecard rates. The RAGXplain criteria use the 0.2-step rubric; answer
/// correctness is continuous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    ContextRelevancy,
    ContextAdherence,
    AnswerRelevancy,
    ContextRecall,
    Factuality,
    GradingNote,
    AnswerCorrectness,
}

impl Criterion {
    pub const ALL: [Criterion; 7] = [
        Criterion::ContextRelevancy,
        Criterion::ContextAdherence,
        Criterion::AnswerRelevancy,
        Criterion::ContextRecall,
        Criterion::Factuality,
        Criterion::GradingNote,
        Criterion::AnswerCorrectness,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::ContextRelevancy => "context_relevancy",
            Criterion::ContextAdherence => "context_adherence",
            Criterion::AnswerRelevancy => "answer_relevancy",
            Criterion::ContextRecall => "context_recall",
            Criterion::Factuality => "factuality",
            Criterion::GradingNote => "grading_note",
            Criterion::AnswerCorrectness => "answer_correctness",
        }
    }

    pub fn parse(s: &str) -> Option<Criterion> {
        Criterion::ALL.into_iter().find(|c| c.as_str() == s.trim())
    }

    /// The metric this criterion scores.
    pub fn metric_id(self) -> &'static str {
        match self {
            Criterion::ContextRelevancy => "ragxplain.context_relevancy",
            Criterion::ContextAdherence => "ragxplain.context_adherence",
            Criterion::AnswerRelevancy => "ragxplain.answer_relevancy",
            Criterion::ContextRecall => "ragxplain.context_recall",
            Criterion::Factuality => "ragxplain.factuality",
            Criterion::GradingNote => "ragxplain.grading_note",
            Criterion::AnswerCorrectness => "ragalyst.answer_correctness",
        }
    }

    pub fn of_metric(id: &str) -> Option<Criterion> {
        Criterion::ALL.into_iter().find(|c| c.metric_id() == id)
    }

    /// RAGXplain criteria are rated on {0.2, 0.4, 0.6, 0.8, 1.0}.
    pub fn is_rubric(self) -> bool {
        self != Criterion::AnswerCorrectness
    }
}

/// A scored pair shown to the judge as a calibration example for answer correctness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorrectnessExample {
    pub answer: String,
    pub reference: String,
    pub score: f64,
}

/// The failure categories of RAGalyst's taxonomy, checked for answers rated below 0.9 on
/// correctness. The first four blame retrieval and the RAG setup, the next five the
/// model.
pub const FAILURE_CATEGORIES: [&str; 10] = [
    "not_extracted",
    "wrong_format",
    "under_specificity",
    "over_specificity",
    "factual_contradiction",
    "factual_fabrication",
    "instruction_inconsistency",
    "context_inconsistency",
    "logical_inconsistency",
    "other",
];

/// Correctness below this gets a failure taxonomy.
pub const TAXONOMY_BELOW: f64 = 0.9;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionScore {
    pub criterion: Criterion,
    pub score: f64,
    #[serde(default)]
    pub rationale: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FailureCheck {
    pub category: String,
    pub applies: bool,
    #[serde(default)]
    pub explanation: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scorecard {
    pub scores: Vec<CriterionScore>,
    /// Every failure category, or none when correctness was not asked, not below 0.9, or
    /// the taxonomy was not asked.
    #[serde(default)]
    pub failures: Vec<FailureCheck>,
}

impl Scorecard {
    pub fn score(&self, criterion: Criterion) -> Option<&CriterionScore> {
        self.scores.iter().find(|s| s.criterion == criterion)
    }
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
            Task::Scorecard(_) => TaskKind::Scorecard,
            Task::Insights(_) => TaskKind::Insights,
            Task::Advice(_) => TaskKind::Advice,
            Task::DraftQuestion { .. } => TaskKind::DraftQuestion,
            Task::DraftAnswer { .. } => TaskKind::DraftAnswer,
            Task::Criterion(_) => TaskKind::Criterion,
        }
    }

    /// Whether the task writes new text (a test set) rather than judging given text; the
    /// offline judge cannot, and never pretends to.
    pub fn is_generation(&self) -> bool {
        self.kind().is_generation()
    }

    /// Whether only a language model can answer it: generation, and a criterion written
    /// in plain words. The offline judge declines these; a cascade sends them on.
    pub fn needs_language_model(&self) -> bool {
        self.is_generation() || matches!(self.kind(), TaskKind::Criterion | TaskKind::Advice)
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
    Scorecard,
    Insights,
    DraftQuestion,
    DraftAnswer,
    Criterion,
    Advice,
}

impl TaskKind {
    pub fn is_generation(self) -> bool {
        matches!(self, TaskKind::DraftQuestion | TaskKind::DraftAnswer)
    }

    pub const ALL: [TaskKind; 14] = [
        TaskKind::Aspects,
        TaskKind::ChunkRelevance,
        TaskKind::Coverage,
        TaskKind::AnswerReview,
        TaskKind::Grounding,
        TaskKind::Reasoning,
        TaskKind::Claims,
        TaskKind::ClaimLabels,
        TaskKind::Scorecard,
        TaskKind::Insights,
        TaskKind::DraftQuestion,
        TaskKind::DraftAnswer,
        TaskKind::Criterion,
        TaskKind::Advice,
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
            TaskKind::Scorecard => "scorecard",
            TaskKind::Insights => "insights",
            TaskKind::DraftQuestion => "draft_question",
            TaskKind::DraftAnswer => "draft_answer",
            TaskKind::Criterion => "criterion",
            TaskKind::Advice => "advice",
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
    /// The judge's probability that the chunks answer the aspect, when it has one (the
    /// offline judge's learned decision); `covered` is the decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
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
    Aspects {
        aspects: Vec<String>,
        /// The grading note: 1–2 points on the structure of an ideal answer.
        #[serde(default)]
        structure_note: Vec<String>,
    },
    ChunkRelevance {
        chunks: Vec<ChunkScore>,
    },
    Coverage {
        aspects: Vec<AspectCoverage>,
    },
    AnswerReview(AnswerReview),
    Grounding(Grounding),
    Reasoning(Reasoning),
    Claims {
        claims: Vec<String>,
    },
    ClaimLabels {
        labels: Vec<Vec<Label>>,
    },
    Scorecard(Scorecard),
    Insights(InsightsVerdict),
    DraftQuestion {
        question: String,
    },
    DraftAnswer {
        answer: String,
    },
    Criterion(CriterionVerdict),
    Advice(AdviceVerdict),
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
            Verdict::Scorecard(_) => TaskKind::Scorecard,
            Verdict::Insights(_) => TaskKind::Insights,
            Verdict::DraftQuestion { .. } => TaskKind::DraftQuestion,
            Verdict::DraftAnswer { .. } => TaskKind::DraftAnswer,
            Verdict::Criterion(_) => TaskKind::Criterion,
            Verdict::Advice(_) => TaskKind::Advice,
        }
    }
}
