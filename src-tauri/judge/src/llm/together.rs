//! A model asked several tasks about one item in one call (`prompt::bundle`). Each
//! verdict is still read, validated and cached on its own: a field the reply lacks or
//! gets wrong is asked again alone (with its own repair), and a rerun finds every
//! verdict in the cache without a call.

use std::time::Instant;

use super::{usage_of, LlmJudge};
use crate::cache::JudgeCache;
use crate::parse::{json_objects, parse_verdict};
use crate::prompt::bundle::{bundle_schema, bundled_version, field_of, render_bundle};
use crate::prompt::{prompt_version, render};
use crate::provider::ChatRequest;
use crate::task::{Task, TaskKind};
use crate::{CallContext, JudgeError, Judgement, Usage};

type Answer = Result<Judgement, JudgeError>;

pub(super) async fn judge_together(
    judge: &LlmJudge,
    tasks: &[Task],
    ctx: &CallContext,
) -> Vec<Answer> {
    let kinds: Vec<TaskKind> = tasks.iter().map(Task::kind).collect();
    let distinct = kinds
        .iter()
        .map(|k| k.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if tasks.len() < 2 || distinct < tasks.len() {
        return crate::join_all(tasks.iter().map(|t| judge_one(judge, t, ctx)).collect()).await;
    }
    let started = Instant::now();
    let keys: Vec<String> = tasks
        .iter()
        .map(|t| JudgeCache::key(&judge.identity, &bundled_version(t.kind()), &render(t)))
        .collect();
    let mut answers: Vec<Option<Answer>> = tasks
        .iter()
        .zip(&keys)
        .map(|(task, key)| cached(judge, task, key, ctx, started).map(Ok))
        .collect();
    let pending: Vec<usize> = (0..tasks.len()).filter(|i| answers[*i].is_none()).collect();
    match pending.len() {
        0 => {}
        1 => answers[pending[0]] = Some(judge_one(judge, &tasks[pending[0]], ctx).await),
        _ => {
            let asked: Vec<&Task> = pending.iter().map(|i| &tasks[*i]).collect();
            let read = ask_bundle(judge, &asked, ctx, started).await;
            for (i, answer) in pending.iter().zip(read) {
                answers[*i] = Some(match answer {
                    Read::Verdict(judgement) => {
                        store(judge, &tasks[*i], &keys[*i], &judgement, ctx);
                        Ok(judgement)
                    }
                    // Asked again on its own, with its own repair request.
                    Read::Unusable => judge_one(judge, &tasks[*i], ctx).await,
                    Read::Failed(e) => Err(e),
                });
            }
        }
    }
    answers
        .into_iter()
        .map(|a| a.expect("every task answered"))
        .collect()
}

async fn judge_one(judge: &LlmJudge, task: &Task, ctx: &CallContext) -> Answer {
    judge
        .judge_with_outcome(task, ctx)
        .await
        .map(|o| o.judgement)
}

/// What a bundle's reply says about one of its tasks.
enum Read {
    Verdict(Judgement),
    /// The field is missing or does not hold a valid reply to the task.
    Unusable,
    /// The call itself failed (after its retries): every task of it fails so.
    Failed(JudgeError),
}

/// One call for `tasks`; the first usable verdict carries the call's tokens and cost.
async fn ask_bundle(
    judge: &LlmJudge,
    tasks: &[&Task],
    ctx: &CallContext,
    started: Instant,
) -> Vec<Read> {
    let messages = render_bundle(tasks);
    let kinds: Vec<TaskKind> = tasks.iter().map(|t| t.kind()).collect();
    let request = ChatRequest {
        model: judge.identity.model.clone(),
        messages: messages.clone(),
        temperature: judge.identity.temperature,
        max_output_tokens: judge.max_output_tokens,
        schema: Some(bundle_schema(&kinds)),
    };
    let reply = match judge.send(request, &messages, ctx).await {
        Ok(reply) => reply,
        Err(e) => return tasks.iter().map(|_| Read::Failed(e.clone())).collect(),
    };
    let usage = usage_of(&reply, &messages);
    let object = json_objects(&reply.text).into_iter().next();
    let mut paid = false;
    tasks
        .iter()
        .map(|task| {
            let field = object.as_ref().and_then(|o| field_of(o, task.kind()));
            let Some(Ok(verdict)) = field.map(|text| parse_verdict(task, &text)) else {
                return Read::Unusable;
            };
            let first = !paid;
            paid = true;
            let usage = if first { usage } else { Usage::default() };
            Read::Verdict(Judgement {
                verdict,
                usage,
                cost_usd: judge.price.map_or(0.0, |p| p.cost(&usage)),
                cached: false,
                latency_ms: started.elapsed().as_millis() as u64,
                prompt_version: bundled_version(task.kind()),
                shared_call: !first,
            })
        })
        .collect()
}

/// The task's verdict from the cache, when it is there: asked in a bundle, or asked
/// alone (a batch, a repair, or a run before bundles), each with its own version.
fn cached(
    judge: &LlmJudge,
    task: &Task,
    key: &str,
    ctx: &CallContext,
    started: Instant,
) -> Option<Judgement> {
    let kind = task.kind();
    let alone = prompt_version(kind);
    judge
        .cached_judgement(key, kind, &bundled_version(kind), ctx, started)
        .or_else(|| {
            let alone_key = JudgeCache::key(&judge.identity, alone, &render(task));
            judge.cached_judgement(&alone_key, kind, alone, ctx, started)
        })
}

fn store(judge: &LlmJudge, task: &Task, key: &str, judgement: &Judgement, ctx: &CallContext) {
    let version = bundled_version(task.kind());
    let verdict = (&judgement.verdict, &judgement.usage);
    judge.remember(key, &version, &render(task), verdict, ctx);
}
