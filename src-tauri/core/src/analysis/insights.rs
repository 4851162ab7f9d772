//! A run's advice in words: a plain-language insight for every metric whose mean is
//! below 0.95, and at most four ranked action items (RAGXplain), written by the run's
//! judge at the end of the run and kept in `analyses` under `insights`.
//!
//! The judge is given the run's own statistics, its lowest and highest items, and the
//! diagnosis's action items (one per failure pattern) as the baseline. Its reply is
//! validated (`judge::validate`): every example question must be one of the run's, every
//! metric one that ran. The offline judge writes the insights from templates and keeps the
//! baseline as it is; `source` says which happened. A judge that fails leaves the
//! template insights and the baseline in place with the failure named in `error` —
//! advice is never silently missing.
//!
//! Owns: choosing what the judge sees, the per-metric rule table, storing the result.

use serde::{Deserialize, Serialize};

use super::diagnosis::Impact;
use super::RunSummary;
use crate::error::Result;
use crate::judge::task::{ActionBrief, InsightsTask, ItemBrief, MetricBrief, STRONG_MEAN};
use crate::judge::validate::MAX_ACTIONS;
use crate::judge::{CallContext, Judge, Task, Usage, Verdict};
use crate::metrics::{self, Scope};
use crate::store::{self, Store};

/// Kind under which insights are kept in `analyses`.
pub const INSIGHTS: &str = "insights";

/// Items of each end shown to the judge per metric.
const EXAMPLES: usize = 2;
/// Longest question or explanation passed on, in characters.
const MAX_TEXT: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum InsightSource {
    /// A model judge wrote them, and its reply passed validation.
    Judge,
    /// Sentence templates over the run's statistics (offline judge, or the judge failed).
    Templates,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunInsights {
    pub source: InsightSource,
    /// The judge configuration that wrote them.
    pub judge: String,
    /// One sentence for the reader on how these were written.
    pub note: String,
    pub insights: Vec<crate::judge::task::MetricInsight>,
    /// Metrics at or above 0.95: "strong; changing it will not move much".
    pub strong: Vec<String>,
    pub actions: Vec<ActionBrief>,
    /// Why the judge's own insights are not shown, when it failed.
    #[serde(default)]
    pub error: Option<String>,
}

/// Writes the run's insights with `judge` and stores them. Judge failures are recorded
/// in the result, not returned: the run is done either way. Also returns what the
/// judge's call cost (tokens, USD), for the run's totals: none for the offline judge or
/// a cached answer.
pub async fn write(
    store: &Store,
    summary: &RunSummary,
    judge: &dyn Judge,
    ctx: &CallContext,
) -> Result<(RunInsights, Option<(Usage, f64)>)> {
    let task = brief(store, summary)?;
    let strong: Vec<String> = summary
        .metrics
        .iter()
        .filter(|(_, m)| {
            m.stats
                .mean
                .is_some_and(|mean| goodness(m.stats.lower_is_better, mean) >= STRONG_MEAN)
        })
        .map(|(id, _)| id.clone())
        .collect();
    let identity = judge.identity();
    let templates = crate::judge::offline::template_insights(&task);
    // Nothing to ask about (every metric strong, no advice) needs no call either.
    let nothing_to_ask = task.metrics.is_empty() && task.baseline.is_empty();
    let mut spent = None;
    let (source, verdict, error) = if identity.is_offline() || nothing_to_ask {
        (InsightSource::Templates, templates, None)
    } else {
        let answer = judge
            .judge(&Task::Insights(Box::new(task.clone())), ctx)
            .await;
        spent = match &answer {
            Ok(j) if !j.cached => Some((j.usage, j.cost_usd)),
            Err(e) => e.spent(),
            _ => None,
        };
        match answer {
            Ok(j) => match j.verdict {
                Verdict::Insights(v) => (InsightSource::Judge, v, None),
                other => (
                    InsightSource::Templates,
                    templates,
                    Some(format!(
                        "the judge answered a {} task instead",
                        other.kind().as_str()
                    )),
                ),
            },
            Err(e) => (InsightSource::Templates, templates, Some(e.to_string())),
        }
    };
    let note = match (source, &error) {
        (InsightSource::Judge, _) => format!(
            "Written by the judge {} from this run's statistics and items; every example question and metric it names was checked against the run.",
            identity.config_key()
        ),
        (InsightSource::Templates, None) => "Written from fixed templates over this run's statistics (offline judge: no model wrote these sentences); action items come from the fixed rule table.".to_string(),
        (InsightSource::Templates, Some(e)) => format!(
            "The judge could not write insights ({e}); these come from fixed templates over this run's statistics and the fixed rule table."
        ),
    };
    let insights = RunInsights {
        source,
        judge: identity.config_key(),
        note,
        insights: verdict.insights,
        strong,
        actions: verdict.actions,
        error,
    };
    store::analyses::put(
        store.conn(),
        summary.run_id,
        INSIGHTS,
        &serde_json::to_value(&insights)?,
    )?;
    Ok((insights, spent))
}

/// The stored insights of a run, if it has any.
pub fn load(store: &Store, run_id: i64) -> Result<Option<RunInsights>> {
    Ok(
        match store::analyses::get(store.conn(), run_id, INSIGHTS)? {
            Some(json) => Some(serde_json::from_value(json)?),
            None => None,
        },
    )
}

fn goodness(lower_is_better: bool, mean: f64) -> f64 {
    if lower_is_better {
        1.0 - mean
    } else {
        mean
    }
}

/// What the judge is shown: weaker item metrics with examples, and the baseline.
pub fn brief(store: &Store, summary: &RunSummary) -> Result<InsightsTask> {
    let conn = store.conn();
    let mut metrics_out = Vec::new();
    for (id, m) in &summary.metrics {
        let Some(spec) = metrics::find(id).filter(|s| s.scope == Scope::Item) else {
            continue;
        };
        let Some(mean) = m.stats.mean else { continue };
        if goodness(spec.lower_is_better, mean) >= STRONG_MEAN {
            continue;
        }
        let item = |s: &super::ItemScore| -> Result<ItemBrief> {
            let question = store::items::get(conn, s.item_id)?.item.question;
            let explanation = store::results::explanation(conn, summary.run_id, s.item_id, id)?
                .unwrap_or_default();
            Ok(ItemBrief {
                question: cut(&question),
                score: s.score,
                explanation: cut(&explanation),
            })
        };
        // "Low" means bad: for lower-is-better metrics the worst items have the highest scores.
        let (bad, good) = if spec.lower_is_better {
            (&m.highest, &m.lowest)
        } else {
            (&m.lowest, &m.highest)
        };
        metrics_out.push(MetricBrief {
            metric: id.clone(),
            description: spec.description.to_string(),
            mean,
            n: m.stats.n,
            lower_is_better: spec.lower_is_better,
            low: bad.iter().take(EXAMPLES).map(item).collect::<Result<_>>()?,
            high: good
                .iter()
                .take(EXAMPLES)
                .map(item)
                .collect::<Result<_>>()?,
        });
    }
    let baseline = baseline(summary);
    Ok(InsightsTask {
        metrics: metrics_out,
        baseline,
    })
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_TEXT).collect();
    out.push('…');
    out
}

/// The rule-table advice: the diagnosis's pattern actions, ranked, capped at what the
/// judge may return. Metric averages advise nothing of their own (a low mean of a
/// sentence cosine ranked right answers below wrong ones); the patterns say what failed.
fn baseline(summary: &RunSummary) -> Vec<ActionBrief> {
    let Some(diagnosis) = &summary.diagnosis else {
        return Vec::new();
    };
    diagnosis
        .actions
        .iter()
        .filter(|a| a.pattern.is_some())
        .filter_map(|a| {
            let example = a.example.as_ref()?;
            Some(ActionBrief {
                impact: impact_name(a.impact).into(),
                metric: example
                    .scores
                    .first()
                    .map(|s| s.metric.clone())
                    .unwrap_or_default(),
                title: a.title.clone(),
                whats_wrong: a.whats_wrong.clone(),
                why: a.why.clone(),
                example_question: cut(&example.question),
                how_to_fix: a.how_to_fix.clone(),
            })
        })
        .take(MAX_ACTIONS)
        .collect()
}

/// A brief's impact word; the judge protocol has no "none".
fn impact_name(impact: Impact) -> &'static str {
    match impact {
        Impact::None => "low",
        other => other.as_str(),
    }
}
