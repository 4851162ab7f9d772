//! Estimating a batch of judge tasks before running it: how many calls, how many are
//! already cached, tokens in and out, a cost range and a duration at the profile's
//! concurrency. No network: input tokens come from the rendered prompts, output tokens
//! from a per-kind model of how long replies are, latency is an assumption.

use serde::Serialize;

use super::accounting::{self, estimate_tokens};
use super::cache::JudgeCache;
use super::identity_of;
use super::prompt::bundle::{bundled_version, calls_for};
use super::prompt::{prompt_version, render};
use super::task::Task;
use super::JudgeError;
use ragnosis_types::judge_profile::JudgeProfile;

/// Assumed seconds per call for a hosted or local model.
pub const ASSUMED_LATENCY_SECS: f64 = 4.0;
/// Share of calls assumed to need a repair call, for the high cost bound.
const REPAIR_SHARE: f64 = 0.1;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgePlan {
    /// Calls to make: a model answers an item's tasks of one phase in one call.
    pub calls: u64,
    /// Judge tasks to ask (not in the cache); each is its own request in a batch.
    pub tasks: u64,
    pub cache_hits: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// USD; `None` when the profile's model has no known price.
    pub cost_low: Option<f64>,
    pub cost_high: Option<f64>,
    pub duration_secs: f64,
}

/// How a cascade (`offline+NAME`) divides a run between the offline judge and NAME, and
/// what it saves against sending every task to NAME.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CascadePlan {
    /// Tasks the offline judge is expected to decide itself (free, in-process).
    pub offline_tasks: u64,
    /// Tasks expected to go to the stronger judge.
    pub sent_tasks: u64,
    /// How many tasks the split was measured on: all of them, or an even sample of a
    /// large run (then the two counts above are that sample's shares of the run).
    pub measured_tasks: u64,
    /// What judging every task with the stronger judge would take.
    pub all_sent: JudgePlan,
}

/// The plan of a cascade in front of `profile`'s judge: the stronger judge's part (the
/// tasks `offline` is unsure of; on a sample, scaled to the run) and the split.
pub fn estimate_cascade(
    profile: &JudgeProfile,
    tasks: &[Task],
    cache: Option<&JudgeCache>,
    offline: &super::offline::OfflineJudge,
) -> Result<(JudgePlan, CascadePlan), JudgeError> {
    let all_sent = estimate(profile, tasks, cache)?;
    let split = super::cascade::split(offline, tasks);
    let mut sent = estimate(profile, &split.sent, cache)?;
    if split.measured < split.total {
        scale(&mut sent, split.total as f64 / split.measured.max(1) as f64);
    }
    let sent_tasks = ((split.share() * split.total as f64).round() as u64).min(tasks.len() as u64);
    let cascade = CascadePlan {
        offline_tasks: tasks.len() as u64 - sent_tasks,
        sent_tasks,
        measured_tasks: split.measured as u64,
        all_sent,
    };
    Ok((sent, cascade))
}

/// A sample's plan stretched to the whole run.
fn scale(plan: &mut JudgePlan, factor: f64) {
    let times = |n: u64| (n as f64 * factor).round() as u64;
    plan.calls = times(plan.calls);
    plan.tasks = times(plan.tasks);
    plan.cache_hits = times(plan.cache_hits);
    plan.input_tokens = times(plan.input_tokens);
    plan.output_tokens = times(plan.output_tokens);
    plan.cost_low = plan.cost_low.map(|c| c * factor);
    plan.cost_high = plan.cost_high.map(|c| c * factor);
    plan.duration_secs *= factor;
}

/// Estimates `tasks` as a run asks them (an item's tasks of one phase in one call, see
/// `prompt::bundle`) for `profile`; tasks whose verdict is in `cache` cost nothing.
pub fn estimate(
    profile: &JudgeProfile,
    tasks: &[Task],
    cache: Option<&JudgeCache>,
) -> Result<JudgePlan, JudgeError> {
    estimate_asked(profile, tasks, cache, true)
}

/// `estimate` for work that asks every task in a call of its own (a test-set generation,
/// whose checks wait for its drafts).
pub fn estimate_one_by_one(
    profile: &JudgeProfile,
    tasks: &[Task],
    cache: Option<&JudgeCache>,
) -> Result<JudgePlan, JudgeError> {
    estimate_asked(profile, tasks, cache, false)
}

fn estimate_asked(
    profile: &JudgeProfile,
    tasks: &[Task],
    cache: Option<&JudgeCache>,
    together: bool,
) -> Result<JudgePlan, JudgeError> {
    let identity = identity_of(profile);
    let mut plan = JudgePlan {
        calls: 0,
        tasks: 0,
        cache_hits: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_low: None,
        cost_high: None,
        duration_secs: 0.0,
    };
    if identity.is_offline() {
        // The offline judge has no cache, no tokens and no price; it runs in-process.
        plan.calls = tasks.len() as u64;
        plan.tasks = tasks.len() as u64;
        plan.cost_low = Some(0.0);
        plan.cost_high = Some(0.0);
        return Ok(plan);
    }
    let mut asked = Vec::new();
    for task in tasks {
        let messages = render(task);
        if let Some(cache) = cache {
            let cached = |version: &str| {
                let key = JudgeCache::key(&identity, version, &messages);
                cache.contains(&key).unwrap_or(false)
            };
            if cached(prompt_version(task.kind())) || cached(&bundled_version(task.kind())) {
                plan.cache_hits += 1;
                continue;
            }
        }
        asked.push(task);
        plan.input_tokens += accounting::estimate_message_tokens(&messages);
        plan.output_tokens += expected_output_tokens(task);
    }
    plan.tasks = asked.len() as u64;
    plan.calls = if together {
        calls_for(&asked)
    } else {
        plan.tasks
    };
    if let Some(price) = accounting::price_for(profile) {
        let low = (plan.input_tokens as f64 * price.input
            + plan.output_tokens as f64 * price.output)
            / 1e6;
        // High: replies twice as long as modelled, and one call in ten repaired (the
        // repair resends the prompt and the reply).
        let high_in = plan.input_tokens as f64 * (1.0 + REPAIR_SHARE)
            + plan.output_tokens as f64 * REPAIR_SHARE;
        let high_out = plan.output_tokens as f64 * 2.0 * (1.0 + REPAIR_SHARE);
        plan.cost_low = Some(low);
        plan.cost_high = Some((high_in * price.input + high_out * price.output) / 1e6);
    }
    let concurrency = f64::from(profile.concurrency.max(1));
    let by_concurrency = (plan.calls as f64 / concurrency).ceil() * ASSUMED_LATENCY_SECS;
    let by_rpm = profile
        .rpm
        .filter(|&r| r > 0)
        .map_or(0.0, |rpm| plan.calls as f64 / f64::from(rpm) * 60.0);
    let by_tpm = profile.tpm.filter(|&t| t > 0).map_or(0.0, |tpm| {
        (plan.input_tokens + plan.output_tokens) as f64 / f64::from(tpm) * 60.0
    });
    plan.duration_secs = by_concurrency.max(by_rpm).max(by_tpm);
    Ok(plan)
}

/// A rough length of the reply to a task, in tokens: a fixed part plus a part per
/// chunk, aspect, claim or label asked for.
pub fn expected_output_tokens(task: &Task) -> u64 {
    let n = |v: &Vec<String>| v.len() as u64;
    let reply = match task {
        Task::Aspects { .. } => 70,
        Task::ChunkRelevance { chunks, .. } => 15 + 30 * n(chunks),
        Task::Coverage { aspects, .. } => 15 + 35 * n(aspects),
        Task::AnswerReview { aspects, .. } => 180 + 35 * n(aspects),
        // Claims restate the answer, plus labels, reasons and contradictions.
        Task::Grounding { answer, chunks, .. } => 60 + estimate_tokens(answer) * 2 + 3 * n(chunks),
        Task::Reasoning { answer, .. } => 80 + estimate_tokens(answer) * 3 / 2,
        Task::Claims { text, .. } => 15 + estimate_tokens(text) * 6 / 5,
        Task::ClaimLabels { claims, passages } => 10 + 4 * n(claims) * n(passages).max(1),
        Task::Insights(run) => 120 + 110 * run.metrics.len() as u64 + 400,
        // A score and a sentence per criterion, and ten taxonomy entries when asked.
        Task::Scorecard(card) => {
            20 + 35 * card.criteria.len() as u64 + if card.taxonomy { 250 } else { 0 }
        }
        Task::DraftQuestion { .. } => 40,
        Task::DraftAnswer { .. } => 80,
        // One or two sentences of reasoning and a score.
        Task::Criterion(_) => 60,
        // A few short paragraphs.
        Task::Advice(_) => 350,
    };
    reply.max(20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Verdict;
    use crate::Usage;

    fn profile() -> JudgeProfile {
        JudgeProfile {
            name: "hosted".into(),
            kind: crate::ProviderKind::OpenAi,
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o-mini".into(),
            temperature: 0.0,
            concurrency: 2,
            rpm: None,
            tpm: None,
            timeout_secs: 60,
            price_input: None,
            price_output: None,
            api_version: None,
        }
    }

    #[test]
    fn cached_tasks_are_counted_as_hits_and_cost_nothing() {
        let cache = JudgeCache::new(Box::<crate::cache::MemoryShelf>::default());
        let tasks: Vec<Task> = (0..4)
            .map(|i| Task::Aspects {
                question: format!("question {i}?"),
            })
            .collect();
        let before = estimate(&profile(), &tasks, Some(&cache)).unwrap();
        assert_eq!((before.calls, before.cache_hits), (4, 0));

        let identity = identity_of(&profile());
        let messages = render(&tasks[0]);
        let key = JudgeCache::key(&identity, prompt_version(tasks[0].kind()), &messages);
        let verdict = Verdict::Aspects {
            aspects: vec!["x".into()],
            structure_note: vec![],
        };
        cache
            .put(
                &key,
                &identity,
                "aspects@1",
                &messages,
                &verdict,
                &Usage::default(),
            )
            .unwrap();

        let after = estimate(&profile(), &tasks, Some(&cache)).unwrap();
        assert_eq!(
            (after.calls, after.cache_hits),
            (3, 1),
            "the cached task needs no call"
        );
        assert!(after.input_tokens < before.input_tokens);
        let (low, high) = (after.cost_low.unwrap(), after.cost_high.unwrap());
        assert!(
            low > 0.0 && high > low,
            "gpt-4o-mini has a default price; the range is ordered"
        );
        assert_eq!(
            after.duration_secs,
            2.0 * ASSUMED_LATENCY_SECS,
            "3 calls at concurrency 2 take two rounds"
        );
    }

    #[test]
    fn unknown_prices_are_unknown_not_zero_and_rpm_can_bind() {
        let mut p = profile();
        p.model = "some-private-model".into();
        p.rpm = Some(6);
        let tasks: Vec<Task> = (0..3)
            .map(|i| Task::Claims {
                question: String::new(),
                text: format!("text {i}"),
            })
            .collect();
        let plan = estimate(&p, &tasks, None).unwrap();
        assert_eq!(plan.cost_low, None);
        assert_eq!(
            plan.duration_secs, 30.0,
            "3 calls at 6 per minute take 30 s"
        );
    }
}
