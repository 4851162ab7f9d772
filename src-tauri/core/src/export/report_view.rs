//! `ReportView`: a stakeholder report's content — the `RunView` plus what a reader who
//! did not run the evaluation needs: stage verdicts, metric meanings and distributions,
//! the diagnosis with its evidence, an optional comparison, and the methodology.
//!
//! Owns: assembling that content and every sentence derived from data (headline,
//! privacy line, offline-judge caveat), so the Markdown, the PDF and the UI say the same
//! thing. Renderers only lay it out and escape it. Deterministic: the same run gives the
//! same view; the only clock is `ReportOptions::generated_at`, passed in.

use serde::{Deserialize, Serialize};

use super::evidence::{excerpt, Evidence};
use super::view::RunView;
use crate::analysis::compare::{self, Comparison};
use crate::analysis::diagnosis::{actions, MetricScore, PatternSummary};
use crate::analysis::stages::{self, Band, StageVerdict};
use crate::analysis::MetricStats;
use crate::catalogue::stage::PipelineStage;
use crate::error::{Error, Result};
use crate::judge::{self, open, ProviderKind};
use crate::metrics::{self, Scope, Status};
use crate::run::{self, RunTotals};
use crate::store::{self, Store};
use crate::text::capitalise;

/// Worst items a pattern shows in full.
pub const PATTERN_CASES: usize = 2;
/// Characters of an answer quoted beside a pattern example.
const ANSWER_EXCERPT: usize = 320;
/// Histogram bins over [0, 1]; a score of exactly 1 falls in the last bin.
pub const HISTOGRAM_BINS: usize = 10;

/// What to build a report of.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// The report's date line, e.g. an RFC 3339 timestamp; the only non-data input.
    pub generated_at: String,
    /// How much the report holds: the short default, or everything.
    pub detail: Detail,
    /// Items in the appendix.
    pub worst: usize,
    /// Compare against this run (the report's run is "B").
    pub baseline: Option<i64>,
    pub threshold: f64,
    /// Compare with a baseline judged differently (the report then says so).
    pub allow_different_judges: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            generated_at: String::new(),
            detail: Detail::Short,
            worst: 10,
            baseline: None,
            threshold: compare::DEFAULT_THRESHOLD,
            allow_different_judges: false,
        }
    }
}

/// How much a report holds. `Short` (the default) answers "how good, what is wrong, what
/// to fix first, which items show it" in a few pages: the headline metrics, the failure
/// patterns with their examples, the action items, a short methodology. `Full` adds every
/// metric, every chart, the insights, every metric definition and the worst items in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    #[default]
    Short,
    Full,
}

impl Detail {
    pub fn parse(s: &str) -> Option<Detail> {
        match s.trim().to_ascii_lowercase().as_str() {
            "short" => Some(Detail::Short),
            "full" => Some(Detail::Full),
            _ => None,
        }
    }
}

/// The metrics a short report shows, at most: one or two per pipeline stage.
pub const HEADLINE_METRICS: usize = 5;

/// Metrics that speak for a stage, in the order a short report prefers them.
const HEADLINE_ORDER: &[&str] = &[
    "ragvue.retrieval_relevance",
    "ragvue.strict_faithfulness",
    "ragvue.answer_completeness",
    "ragalyst.answer_correctness",
    "citation.strict_accuracy",
    "ragvue.answer_relevance",
    "ragvue.retrieval_coverage",
    "ragvue.answer_overall",
    "ragvue.retrieval_overall",
    "reference.token_f1",
];

/// One metric as the report's table and charts show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricLine {
    pub id: String,
    pub description: String,
    pub judged: bool,
    pub stage: Option<PipelineStage>,
    /// Band of the mean read higher-is-better; none without a mean.
    pub band: Option<Band>,
    pub stats: MetricStats,
    /// `ok` scores per tenth of [0, 1].
    pub histogram: Vec<u64>,
}

/// An item shown as an example of a failure pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseView {
    pub item_id: i64,
    pub label: String,
    pub question: String,
    pub answer_excerpt: Option<String>,
    /// The scores that made the pattern fire.
    pub scores: Vec<MetricScore>,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternView {
    #[serde(flatten)]
    pub summary: PatternSummary,
    /// The `PATTERN_CASES` worst examples.
    pub cases: Vec<CaseView>,
}

/// The stage to fix first, and why that one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrimaryStage {
    pub stage: String,
    pub basis: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeFacts {
    pub profile: String,
    pub kind: String,
    pub model: String,
    pub temperature: f64,
    /// Host the judge was reached at; `None` offline or when the profile is gone.
    pub host: Option<String>,
    pub offline: bool,
    /// False when the run's profile no longer exists.
    pub profile_found: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkipNote {
    pub metric: String,
    pub reason: String,
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Methodology {
    pub judge: JudgeFacts,
    /// Metrics of this run that ask the judge.
    pub judged_metrics: Vec<String>,
    /// Judge configurations recorded with the results.
    pub judge_configs: Vec<String>,
    pub prompt_versions: Vec<String>,
    /// The offline judge's embedded semantic model, when it took part in this run.
    pub semantic_model: Option<String>,
    /// What the latest judge check of this run's judge found, in one sentence; what to
    /// do when there is none.
    pub judge_check: String,
    pub offline_caveat: Option<String>,
    pub calibration: String,
    pub settings: Vec<Setting>,
    pub totals: RunTotals,
    pub scored: u64,
    pub errors: u64,
    pub skipped: u64,
    pub skip_notes: Vec<SkipNote>,
    pub privacy: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub generated_at: String,
    pub detail: Detail,
    pub title: String,
    pub run: RunView,
    pub metrics: Vec<MetricLine>,
    pub stages: Vec<StageVerdict>,
    pub primary_stage: Option<PrimaryStage>,
    /// The executive summary's opening sentences.
    pub headline: Vec<String>,
    pub patterns: Vec<PatternView>,
    pub comparison: Option<Comparison>,
    pub methodology: Methodology,
    /// The run's insights and judge-written action items, when it has them.
    pub insights: Option<crate::analysis::insights::RunInsights>,
    /// How far to trust the run, in plain sentences (`export::trust`).
    pub trust: super::TrustStatement,
    /// The run's agreement with people's labels (empty metrics when none).
    pub alignment: crate::trust::alignment::Alignment,
    /// The user's own criteria the run scored: version, text and how the items did.
    pub criteria: Vec<super::CriterionReport>,
}

/// One ranked action item as every output shows it (terminal, Markdown, PDF; the window
/// applies the same rule to the same facts).
#[derive(Debug, Clone, PartialEq)]
pub struct RunAction {
    /// "high", "medium", "low", or "none" for a note.
    pub impact: String,
    pub title: String,
    pub whats_wrong: String,
    pub why: String,
    /// The example question, with the evidence that shows it.
    pub example: Option<String>,
    pub how_to_fix: String,
}

impl ReportView {
    /// The run's action items: the insights' when the run has them (they rank the
    /// pattern actions together with the metric-level ones), else the diagnosis's. One
    /// list, so the terminal never advises other fixes than the report.
    pub fn actions(&self) -> Vec<RunAction> {
        if let Some(insights) = self.insights.as_ref().filter(|i| !i.actions.is_empty()) {
            return insights
                .actions
                .iter()
                .map(|a| RunAction {
                    impact: a.impact.clone(),
                    title: a.title.clone(),
                    whats_wrong: a.whats_wrong.clone(),
                    why: a.why.clone(),
                    example: Some(format!("{} ({})", a.example_question, a.metric)),
                    how_to_fix: a.how_to_fix.clone(),
                })
                .collect();
        }
        let Some(d) = &self.run.summary.diagnosis else {
            return Vec::new();
        };
        d.actions
            .iter()
            .map(|a| RunAction {
                impact: a.impact.as_str().to_string(),
                title: a.title.clone(),
                whats_wrong: a.whats_wrong.clone(),
                why: a.why.clone(),
                example: a.example.as_ref().map(|e| {
                    let scores: Vec<String> = e
                        .scores
                        .iter()
                        .map(|s| format!("{} {:.3}", s.metric, s.score))
                        .collect();
                    if scores.is_empty() {
                        e.question.clone()
                    } else {
                        format!("{} ({})", e.question, scores.join(", "))
                    }
                }),
                how_to_fix: a.how_to_fix.clone(),
            })
            .collect()
    }

    /// The ids of the metrics a short report shows: up to `HEADLINE_METRICS` scored
    /// metrics, stage by stage (`HEADLINE_ORDER`), then the most-scored others.
    pub fn headline_metric_ids(&self) -> Vec<String> {
        let scored: Vec<&MetricLine> = self
            .metrics
            .iter()
            .filter(|m| m.stats.mean.is_some())
            .collect();
        let mut ids: Vec<String> = HEADLINE_ORDER
            .iter()
            .filter(|id| scored.iter().any(|m| m.id == **id))
            .map(|id| id.to_string())
            .collect();
        let mut rest: Vec<&&MetricLine> = scored.iter().filter(|m| !ids.contains(&m.id)).collect();
        rest.sort_by_key(|m| (std::cmp::Reverse(m.stats.n), m.id.clone()));
        ids.extend(
            rest.into_iter()
                .filter(|m| !m.id.starts_with("criteria."))
                .map(|m| m.id.clone()),
        );
        ids.truncate(HEADLINE_METRICS);
        // The user's own criteria are theirs to read first: always shown.
        ids.extend(
            scored
                .iter()
                .filter(|m| m.id.starts_with("criteria."))
                .map(|m| m.id.clone()),
        );
        ids
    }

    pub fn load(store: &mut Store, run_id: i64, options: &ReportOptions) -> Result<ReportView> {
        let run = RunView::load_with_worst(store, run_id, options.worst)?;
        let comparison = match options.baseline {
            Some(baseline) => Some(compare::compare_runs(
                store,
                baseline,
                run_id,
                options.threshold,
                options.allow_different_judges,
            )?),
            None => None,
        };
        let metrics = metric_lines(store, &run)?;
        let stages = stages::verdicts(&run.summary, &run.run.metrics);
        let primary_stage = primary_stage(&run, &stages);
        let clean = run
            .summary
            .diagnosis
            .as_ref()
            .filter(|d| d.is_clean())
            .map(|d| d.items_checked);
        let headline = headline(&stages, primary_stage.as_ref(), clean, comparison.as_ref());
        let patterns = pattern_views(store, &run)?;
        let methodology = methodology(store, &run)?;
        let insights = crate::analysis::insights::load(store, run_id)?;
        let trust = super::trust::statement(store, &run.run, &run.summary)?;
        let alignment = crate::trust::alignment::align(store, run_id)?;
        let criteria = super::criteria_view::load(store, &run.run, &run.summary)?;
        let name = run.run.name();
        let title = match &comparison {
            Some(c) => format!("{} compared with {}", name, c.a.title()),
            None => name,
        };
        Ok(ReportView {
            generated_at: options.generated_at.clone(),
            detail: options.detail,
            title,
            run,
            metrics,
            stages,
            primary_stage,
            headline,
            patterns,
            comparison,
            methodology,
            insights,
            trust,
            alignment,
            criteria,
        })
    }
}

/// The user's id of an item, or its 1-based position in the file.
pub fn item_label(external_id: Option<&str>, ordinal: i64) -> String {
    external_id
        .map(str::to_string)
        .unwrap_or_else(|| format!("#{}", ordinal + 1))
}

fn metric_lines(store: &Store, view: &RunView) -> Result<Vec<MetricLine>> {
    let mut lines = Vec::new();
    for id in &view.run.metrics {
        let (Some(spec), Some(summary)) = (metrics::find(id), view.summary.metrics.get(id)) else {
            continue;
        };
        if spec.scope != Scope::Item {
            continue;
        }
        let mut histogram = vec![0u64; HISTOGRAM_BINS];
        for cell in store::results::scores(store.conn(), view.run.id, id)? {
            if let (Status::Ok, Some(score)) = (cell.status, cell.score) {
                let bin = ((score.clamp(0.0, 1.0) * HISTOGRAM_BINS as f64) as usize)
                    .min(HISTOGRAM_BINS - 1);
                histogram[bin] += 1;
            }
        }
        let band = summary
            .stats
            .mean
            .filter(|_| !metrics::catalogue::is_descriptive(id))
            .map(|m| Band::of(if spec.lower_is_better { 1.0 - m } else { m }));
        lines.push(MetricLine {
            id: id.clone(),
            description: spec.description.to_string(),
            judged: spec.judge,
            stage: metrics::stage::stage_of(id),
            band,
            stats: summary.stats.clone(),
            histogram,
        });
    }
    Ok(lines)
}

/// The diagnosis's primary stage when patterns were checked, else the lowest stage
/// below "good". A diagnosis in which no pattern fired gives no stage advice: the
/// action list then says no systematic failure was found, and a "fix X first" beside
/// it would contradict it.
fn primary_stage(view: &RunView, stages: &[StageVerdict]) -> Option<PrimaryStage> {
    let diagnosis = view.summary.diagnosis.as_ref();
    if let Some(d) = diagnosis {
        if d.is_clean() {
            return None;
        }
        // The pattern that made the stage primary: the first-ranked one (diagnosis rule).
        let top = d.primary_stage.and_then(|_| {
            d.patterns
                .iter()
                .min_by_key(|p| actions::priority(p, d.items_checked))
        });
        if let Some(top) = top {
            let impact = actions::impact(top.pattern, top.count, d.items_checked);
            return Some(PrimaryStage {
                stage: top.stage.label().to_string(),
                basis: format!(
                    "failure pattern {} ({}) on {} of {} checked items: {} impact, and the earliest stage to fix \
                     among the patterns that matter most",
                    top.letter,
                    top.name,
                    top.count,
                    d.items_checked,
                    impact.as_str()
                ),
            });
        }
    }
    let weakest = stages
        .iter()
        .filter_map(|s| s.score.map(|score| (s.stage, score)))
        .filter(|(_, score)| *score < 0.75)
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let why = if diagnosis.is_some() {
        "no item could be checked for failure patterns"
    } else {
        "failure patterns were not checked because the run has no judged RAGVUE metric"
    };
    Some(PrimaryStage {
        stage: weakest.0.label().to_string(),
        basis: format!("lowest stage score ({:.2}); {why}", weakest.1),
    })
}

fn headline(
    stages: &[StageVerdict],
    primary: Option<&PrimaryStage>,
    clean: Option<u64>,
    comparison: Option<&Comparison>,
) -> Vec<String> {
    let mut lines = Vec::new();
    let judged: Vec<String> = stages
        .iter()
        .filter_map(|s| {
            Some(format!(
                "{} {} ({:.2})",
                s.stage.label(),
                verdict(s.band?),
                s.score?
            ))
        })
        .collect();
    if judged.is_empty() {
        lines.push(
            "None of the run's metrics speaks for a pipeline stage, so there is no stage verdict."
                .to_string(),
        );
    } else {
        lines.push(format!("{}.", capitalise(&join_words(&judged))));
    }
    match (primary, clean) {
        (Some(p), _) => lines.push(format!("Fix {} first: {}.", p.stage, p.basis)),
        (None, Some(checked)) => lines.push(format!(
            "No failure pattern fired on the {checked} checked items, so no stage needs a systematic fix."
        )),
        (None, None) => {
            lines.push("No stage is failing: every stage scored is in the good band.".to_string())
        }
    }
    if let Some(c) = comparison {
        let red: Vec<&str> = c.regressions().map(|m| m.metric.as_str()).collect();
        lines.push(if red.is_empty() {
            format!(
                "Compared with {}, no metric regressed beyond {:.2}.",
                c.a.title(),
                c.threshold
            )
        } else {
            format!(
                "Compared with {}, {} regressed: {}.",
                c.a.title(),
                count(red.len(), "metric"),
                red.join(", ")
            )
        });
    }
    lines
}

/// A band as a verb phrase: "is good", "needs attention", "is critical".
fn verdict(band: Band) -> &'static str {
    match band {
        Band::Good => "is good",
        Band::NeedsAttention => "needs attention",
        Band::Critical => "is critical",
    }
}

fn pattern_views(store: &Store, view: &RunView) -> Result<Vec<PatternView>> {
    let Some(diagnosis) = &view.summary.diagnosis else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for pattern in &diagnosis.patterns {
        let mut cases = Vec::new();
        for example in pattern.examples.iter().take(PATTERN_CASES) {
            let stored = store::items::get(store.conn(), example.item_id)?;
            let results: Vec<_> =
                store::results::for_item(store.conn(), view.run.id, example.item_id)?
                    .into_iter()
                    .map(|r| r.result)
                    .collect();
            cases.push(CaseView {
                item_id: example.item_id,
                label: item_label(stored.item.id.as_deref(), stored.ordinal),
                answer_excerpt: stored
                    .item
                    .answer
                    .as_deref()
                    .map(|a| excerpt(a, ANSWER_EXCERPT)),
                evidence: Evidence::from_results(&stored.item, &results).focus(pattern.pattern),
                question: stored.item.question,
                scores: example.scores.clone(),
            });
        }
        out.push(PatternView {
            summary: pattern.clone(),
            cases,
        });
    }
    Ok(out)
}

fn methodology(store: &Store, view: &RunView) -> Result<Methodology> {
    let run = &view.run;
    let judged_metrics: Vec<String> = run
        .metrics
        .iter()
        .filter(|id| metrics::find(id).is_some_and(|m| m.judge))
        .cloned()
        .collect();
    let judge = judge_facts(store, &run.judge)?;
    let recorded = store::results::prompt_versions(store.conn(), run.id)?;
    let semantic_used = if recorded.is_empty() {
        matches!(
            crate::semantic::availability(),
            crate::semantic::Availability::Loaded { .. }
        )
    } else {
        recorded
            .iter()
            .any(|v| v == judge::offline::SEMANTIC_PROMPT_VERSION)
    };
    let prompt_versions = if judged_metrics.is_empty() {
        Vec::new()
    } else if !recorded.is_empty() {
        // What actually judged this run's items (runs before versions were recorded
        // fall through to what this build would use).
        recorded
    } else if judge.offline {
        vec![judge::offline::current_prompt_version().to_string()]
    } else {
        judge::task::TaskKind::ALL
            .iter()
            .map(|k| judge::prompt::prompt_version(*k).to_string())
            .collect()
    };
    let totals: RunTotals = store::runs::totals(store.conn(), run.id)?;
    let semantic_model =
        (judge.offline && semantic_used).then(|| crate::semantic::MODEL_NAME.to_string());
    let offline_caveat = (judge.offline && !judged_metrics.is_empty()).then(|| {
        format!(
            "The judged scores in this report come from Ragnosis's built-in offline judge ({}), not from a \
             language model. It applies fixed rules (word overlap, matching of names, numbers and dates, sentence \
             splitting, readability){}, so it is free, private and gives the same verdict every time, but it cannot \
             follow reasoning the way a model judge does, and claim support is decided on words and anchors, not \
             on entailment. Read its scores as a screening signal and confirm important findings with an LLM judge.",
            prompt_versions.join(", "),
            if semantic_used {
                format!(
                    ", with the embedded semantic model {} for relevance, coverage and aspects addressed",
                    crate::semantic::MODEL_NAME
                )
            } else {
                format!(" only: the semantic model {} was not in use, so paraphrase went unseen", crate::semantic::MODEL_NAME)
            }
        )
    });
    let mut skip_notes = Vec::new();
    let (mut scored, mut errors, mut skipped) = (0, 0, 0);
    for id in &run.metrics {
        let Some(m) = view.summary.metrics.get(id) else {
            continue;
        };
        scored += m.stats.n;
        errors += m.stats.errors;
        skipped += m.stats.skipped;
        skip_notes.extend(m.skip_reasons.iter().map(|(reason, count)| SkipNote {
            metric: id.clone(),
            reason: reason.clone(),
            count: *count,
        }));
    }
    let privacy = privacy_line(&judge, &judged_metrics, &totals);
    let judge_configs = store::results::judge_configs(store.conn(), run.id)?;
    let judge_check = judge_check_line(
        store,
        &judge_configs,
        &prompt_versions,
        judged_metrics.is_empty(),
    )?;
    Ok(Methodology {
        judge_check,
        judge_configs,
        calibration: calibration_line(store, run.id)?,
        settings: settings(run)?,
        judge,
        judged_metrics,
        prompt_versions,
        semantic_model,
        offline_caveat,
        totals,
        scored,
        errors,
        skipped,
        skip_notes,
        privacy,
    })
}

pub(crate) fn judge_facts(store: &Store, name: &str) -> Result<JudgeFacts> {
    match open::profile(store, name) {
        Ok(p) => {
            let offline = p.kind == ProviderKind::Offline;
            let url = match p.kind {
                ProviderKind::OpenAi if p.base_url.trim().is_empty() => {
                    judge::provider::openai::DEFAULT_BASE_URL
                }
                ProviderKind::Anthropic if p.base_url.trim().is_empty() => {
                    judge::provider::anthropic::DEFAULT_BASE_URL
                }
                _ => p.base_url.as_str(),
            };
            Ok(JudgeFacts {
                host: (!offline).then(|| host_of(url)).filter(|h| !h.is_empty()),
                profile: p.name,
                kind: p.kind.as_str().into(),
                model: p.model,
                temperature: p.temperature,
                offline,
                profile_found: true,
            })
        }
        Err(Error::NotFound { .. }) => Ok(JudgeFacts {
            profile: name.to_string(),
            kind: "unknown".into(),
            model: "unknown".into(),
            temperature: 0.0,
            host: None,
            offline: false,
            profile_found: false,
        }),
        Err(e) => Err(e),
    }
}

/// The host (and port) of a URL, without scheme, path or any user:password part, which
/// must never reach a report.
pub fn host_of(url: &str) -> String {
    let rest = url.trim().split_once("://").map_or(url.trim(), |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, a)| a)
        .to_ascii_lowercase()
}

fn privacy_line(judge: &JudgeFacts, judged_metrics: &[String], totals: &RunTotals) -> String {
    if judged_metrics.is_empty() {
        return "No item text left this machine: every metric of this run is computed locally, without a judge."
            .to_string();
    }
    if judge.offline {
        return "No item text left this machine: the built-in offline judge runs locally."
            .to_string();
    }
    let calls = format!(
        "{} in this run, {} answered from the local cache",
        count(totals.calls as usize, "call"),
        totals.cache_hits
    );
    match &judge.host {
        _ if !judge.profile_found => format!(
            "Item text was sent to the judge profile '{}', which no longer exists, so its host cannot be named ({calls}).",
            judge.profile
        ),
        Some(host) if judge::accounting::is_loopback(&format!("http://{host}")) => format!(
            "Item text (questions, answers, contexts) was sent to a judge service on this machine ({host}, model {}); \
             nothing was sent to an external service ({calls}).",
            judge.model
        ),
        Some(host) => format!(
            "Item text (questions, answers, contexts) was sent to the external service {host} (judge profile '{}', \
             model {}) ({calls}).",
            judge.profile, judge.model
        ),
        None => format!(
            "Item text was sent to the judge of profile '{}', whose address is not recorded ({calls}).",
            judge.profile
        ),
    }
}

/// The latest judge check of the judge behind this run's results: same configuration,
/// and (when both recorded one) a prompt version in common, so a check of the lexical
/// offline judge is not cited for a run the semantic one judged.
fn judge_check_line(
    store: &Store,
    judge_configs: &[String],
    prompt_versions: &[String],
    no_judge: bool,
) -> Result<String> {
    if no_judge {
        return Ok("Not needed: no metric of this run asks a judge.".into());
    }
    // The user's latest check of each configuration first, then, for the built-in
    // judge, the check shipped with this build.
    let mut checks = Vec::new();
    for config in judge_configs {
        checks.extend(crate::judge_check::latest_for_config(store.conn(), config)?);
        checks.extend(crate::judge_check::shipped::for_config(config));
    }
    for check in checks {
        let shares_version = check.prompt_versions.is_empty()
            || prompt_versions.is_empty()
            || check
                .prompt_versions
                .iter()
                .any(|v| prompt_versions.contains(v));
        if shares_version {
            let certificate = check
                .certificate
                .as_ref()
                .map(|c| format!(" Certificate: {}", c.sentence()))
                .unwrap_or_default();
            return Ok(format!(
                "{}{certificate} (Sample {}; run it again in Settings → Judges or with `ragnosis judge-check`.)",
                check.headline(),
                check.sample_version
            ));
        }
    }
    Ok("No judge check of this judge is on record, so how far its verdicts agree with people is unmeasured here: \
        run `ragnosis judge-check` or Settings → Judges → Check this judge, then write the report again."
        .into())
}

fn calibration_line(store: &Store, run_id: i64) -> Result<String> {
    use crate::trust::calibration::{Calibration, CALIBRATION};
    let Some(json) = store::analyses::get(store.conn(), run_id, CALIBRATION)? else {
        return Ok("Not run: the judge was not calibrated against other judge configurations for this run.".into());
    };
    let Ok(cal) = serde_json::from_value::<Calibration>(json) else {
        return Ok(
            "A calibration was stored for this run but could not be read by this version.".into(),
        );
    };
    let parts: Vec<String> = cal
        .metrics
        .iter()
        .filter_map(|m| {
            m.mean_agreement
                .map(|a| format!("{} {:.2} ({} to review)", m.metric, a, m.needs_review.len()))
        })
        .collect();
    Ok(format!(
        "Agreement across {} judge configurations (1 − spread of scores, items below {:.2} need review): {}.",
        cal.runs.len(),
        cal.review_below,
        if parts.is_empty() { "no item was scored by every configuration".to_string() } else { parts.join("; ") }
    ))
}

fn settings(run: &store::runs::RunRow) -> Result<Vec<Setting>> {
    let config = run::run_config(run)?;
    let has = |id: &str| run.metrics.iter().any(|m| m == id);
    let mut out = vec![Setting {
        name: "Mode".into(),
        value: run.mode.clone(),
    }];
    let selection = &config.selection;
    let items = match (selection.limit, selection.sample) {
        (None, None) => format!("all {} items of the dataset", run.item_count),
        (Some(l), None) => format!("the first {l} items"),
        (limit, Some(s)) => format!(
            "a random sample of {s} items (seed {}){}",
            selection.seed,
            limit
                .map(|l| format!(" from the first {l}"))
                .unwrap_or_default()
        ),
    };
    out.push(Setting {
        name: "Items".into(),
        value: items,
    });
    if has("reference.recall_at_k") || has("reference.mrr_at_k") {
        out.push(Setting {
            name: "k for recall@k and MRR@k".into(),
            value: config.metric_config.k.to_string(),
        });
    }
    if run.metrics.iter().any(|m| m.starts_with("citation.")) {
        let pattern = &config.metric_config.citation_pattern;
        let value = if *pattern == metrics::citation::DEFAULT_PATTERN {
            "the default: [ID: 17], [17], [doc17] and the same in full-width brackets".to_string()
        } else {
            pattern.clone()
        };
        out.push(Setting {
            name: "Citation pattern".into(),
            value,
        });
    }
    if has("ragvue.retrieval_relevance") {
        let tau = config.tau.unwrap_or(metrics::ragvue::DEFAULT_TAU);
        out.push(Setting {
            name: "Chunk relevance threshold τ".into(),
            value: format!("{tau}"),
        });
    }
    if has("ragvue.answer_overall") {
        out.push(Setting {
            name: "answer_overall weights".into(),
            value: config.weights.name.clone(),
        });
    }
    if let Some(budget) = config.budget_usd {
        out.push(Setting {
            name: "Budget".into(),
            value: format!("${budget:.2}"),
        });
    }
    out.push(Setting {
        name: "Judge cache".into(),
        value: if config.use_cache {
            "used".into()
        } else {
            "bypassed (fresh verdicts)".into()
        },
    });
    Ok(out)
}

fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn join_words(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_of_drops_scheme_path_and_credentials() {
        assert_eq!(host_of("https://api.openai.com/v1"), "api.openai.com");
        assert_eq!(
            host_of("http://user:secret@LOCALHOST:11434/v1"),
            "localhost:11434"
        );
        assert_eq!(host_of(""), "");
    }

    #[test]
    fn headline_lists_stages_and_the_primary_one() {
        let stages = vec![
            StageVerdict {
                stage: PipelineStage::Retrieval,
                score: Some(0.8),
                band: Some(Band::Good),
                metrics: vec![],
            },
            StageVerdict {
                stage: PipelineStage::Grounding,
                score: Some(0.4),
                band: Some(Band::Critical),
                metrics: vec![],
            },
            StageVerdict {
                stage: PipelineStage::Generation,
                score: None,
                band: None,
                metrics: vec![],
            },
        ];
        let primary = PrimaryStage {
            stage: "grounding".into(),
            basis: "lowest stage score (0.40)".into(),
        };
        let lines = headline(&stages, Some(&primary), None, None);
        assert_eq!(
            lines[0],
            "Retrieval is good (0.80) and grounding is critical (0.40)."
        );
        assert_eq!(lines[1], "Fix grounding first: lowest stage score (0.40).");
    }
}
