//! `LlmJudge`: a `Judge` backed by a model service, built from a judge profile and its
//! key. One call goes: cache lookup → limiter → provider call (retries, timeout, cancel)
//! → parse and validate → on failure one repair call that shows the judge its reply and
//! the error → cache the validated verdict → `Judgement` with usage, cost and latency.
//!
//! Owns that flow and nothing below it. The key lives inside the provider (and, for
//! services with a batch API, inside the batch client beside it); this type's `Debug`
//! shows the identity only. It is also the `BatchJudge` a run in batch mode uses: the
//! same requests, cache and price, sent through the provider's batch service.

mod together;

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::accounting::{self, Price};
use super::batch::{self, BatchApi, BatchJudge, BatchLimits, PollPolicy};
use super::cache::JudgeCache;
use super::limiter::Limiter;
use super::offline::OfflineJudge;
use super::parse::parse_verdict;
use super::prompt::{self, schema, Message};
use super::provider::anthropic::AnthropicProvider;
use super::provider::openai::{OpenAiProvider, StructuredOutput};
use super::provider::{ChatRequest, ChatResponse, Provider};
use super::retry::{self, RetryPolicy};
use super::task::{Task, TaskKind, Verdict};
use super::{
    identity_of, CallContext, Judge, JudgeError, JudgeIdentity, Judgement, ProviderKind, Usage,
};
use ragnosis_types::judge_profile::JudgeProfile;
use ragnosis_types::progress::Progress;
use ragnosis_types::ApiKey;

/// Knobs that are not part of a stored profile.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeOptions {
    /// Attempts per call, the first included (default 5).
    pub max_attempts: u32,
    /// Base of the exponential backoff (default 0.5 s).
    pub backoff_base: Duration,
    pub structured_output: StructuredOutput,
    /// Reply length limit, sent where the API requires one (Anthropic).
    pub max_output_tokens: u32,
    /// Batch mode: the provider's limits per batch when None (lowered by
    /// `RAGNOSIS_BATCH_MAX_REQUESTS`); tests set smaller ones.
    pub batch_limits: Option<BatchLimits>,
    /// Batch mode: how often to poll (default, or `RAGNOSIS_BATCH_POLL_MS`).
    pub batch_poll: Option<PollPolicy>,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            max_attempts: 5,
            backoff_base: Duration::from_millis(500),
            structured_output: StructuredOutput::Auto,
            max_output_tokens: 4096,
            batch_limits: None,
            batch_poll: None,
        }
    }
}

/// The judge for a profile: the offline judge for kind `offline`, else an `LlmJudge`.
pub fn build_judge(
    profile: &JudgeProfile,
    key: Option<ApiKey>,
    cache: Option<Arc<JudgeCache>>,
) -> Result<Arc<dyn Judge>, JudgeError> {
    match profile.kind {
        ProviderKind::Offline => Ok(Arc::new(OfflineJudge::standard())),
        _ => Ok(Arc::new(LlmJudge::new(profile, key, cache)?)),
    }
}

pub struct LlmJudge {
    identity: JudgeIdentity,
    provider: Box<dyn Provider>,
    limiter: Limiter,
    cache: Option<Arc<JudgeCache>>,
    policy: RetryPolicy,
    price: Option<Price>,
    max_output_tokens: u32,
    /// The provider's batch service, for runs in batch mode.
    batch: Option<Box<dyn BatchApi>>,
    batch_poll: PollPolicy,
}

/// One finished call and what it took.
pub struct Outcome {
    pub judgement: Judgement,
    /// The first reply failed to parse and the repair call fixed it.
    pub repaired: bool,
    /// The model the server says answered.
    pub served_by: Option<String>,
}

impl std::fmt::Debug for LlmJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmJudge")
            .field("identity", &self.identity)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl LlmJudge {
    pub fn new(
        profile: &JudgeProfile,
        key: Option<ApiKey>,
        cache: Option<Arc<JudgeCache>>,
    ) -> Result<LlmJudge, JudgeError> {
        Self::with_options(profile, key, cache, JudgeOptions::default())
    }

    pub fn with_options(
        profile: &JudgeProfile,
        key: Option<ApiKey>,
        cache: Option<Arc<JudgeCache>>,
        options: JudgeOptions,
    ) -> Result<LlmJudge, JudgeError> {
        let identity = identity_of(profile);
        if identity.model.is_empty() {
            return Err(JudgeError::Config(format!(
                "profile {} names no model",
                profile.name
            )));
        }
        let timeout = Duration::from_secs(u64::from(profile.timeout_secs.max(1)));
        let choice = options.structured_output;
        let batch = batch_api(profile, key.clone(), &options, timeout)?;
        let provider: Box<dyn Provider> = match identity.kind {
            ProviderKind::OpenAi => Box::new(OpenAiProvider::new(
                &profile.base_url,
                key,
                choice,
                timeout,
            )?),
            ProviderKind::AzureOpenAi => Box::new(OpenAiProvider::azure(
                &profile.base_url,
                profile.api_version.as_deref(),
                key,
                choice,
                timeout,
            )?),
            ProviderKind::Anthropic => {
                Box::new(AnthropicProvider::new(&profile.base_url, key, timeout)?)
            }
            ProviderKind::Offline => {
                return Err(JudgeError::Config(
                    "the offline judge is not an LLM judge; use build_judge".into(),
                ))
            }
        };
        Ok(LlmJudge {
            identity,
            provider,
            limiter: Limiter::new(profile.concurrency, profile.rpm, profile.tpm),
            cache,
            policy: RetryPolicy {
                max_attempts: options.max_attempts.max(1),
                base: options.backoff_base,
                timeout,
                ..RetryPolicy::default()
            },
            price: accounting::price_for(profile),
            max_output_tokens: options.max_output_tokens,
            batch,
            batch_poll: options.batch_poll.unwrap_or_default().with_env(),
        })
    }

    /// Model names the service offers (no retries beyond the policy's).
    pub async fn list_models(&self, ctx: &CallContext) -> Result<Vec<String>, JudgeError> {
        let timeout = self.policy.timeout;
        retry::run(&self.policy, &self.identity.name, ctx, || {
            retry::with_timeout(timeout, self.provider.list_models())
        })
        .await
    }

    /// Judges a task and reports whether a repair was needed: the cache first, then one
    /// call with its retries, a repair request when the reply cannot be used, and the
    /// accounting.
    pub async fn judge_with_outcome(
        &self,
        task: &Task,
        ctx: &CallContext,
    ) -> Result<Outcome, JudgeError> {
        if ctx.cancel.is_cancelled() {
            return Err(JudgeError::Cancelled);
        }
        let started = Instant::now();
        let kind = task.kind();
        let version = prompt::prompt_version(kind);
        let messages = prompt::render(task);
        let key = JudgeCache::key(&self.identity, version, &messages);
        if let Some(judgement) = self.cached_judgement(&key, kind, version, ctx, started) {
            return Ok(Outcome {
                judgement,
                repaired: false,
                served_by: None,
            });
        }

        let first = self.call(&messages, task, ctx).await?;
        let mut usage = usage_of(&first, &messages);
        let (verdict, repaired, served_by) = match parse_verdict(task, &first.text) {
            Ok(verdict) => (verdict, false, first.model),
            Err(error) => {
                let (verdict, second, repair_usage) = self
                    .repair(task, ctx, &messages, &first, usage, &error)
                    .await?;
                usage = repair_usage;
                (verdict, true, second)
            }
        };

        self.remember(&key, version, &messages, (&verdict, &usage), ctx);
        let judgement = Judgement {
            verdict,
            usage,
            // An unknown price counts as 0 here; `plan` shows it as unknown instead.
            cost_usd: self.price.map_or(0.0, |p| p.cost(&usage)),
            cached: false,
            latency_ms: started.elapsed().as_millis() as u64,
            prompt_version: version.to_string(),
            shared_call: false,
        };
        Ok(Outcome {
            judgement,
            repaired,
            served_by,
        })
    }

    /// The verdict cached under `key` (asked with prompt `version`), when caching is on and
    /// it is there. A cache that cannot be read is treated as empty: the call still
    /// succeeds.
    fn cached_judgement(
        &self,
        key: &str,
        kind: TaskKind,
        version: &str,
        ctx: &CallContext,
        started: Instant,
    ) -> Option<Judgement> {
        let cache = self.cache.as_ref().filter(|_| ctx.use_cache)?;
        let hit = cache.get(key, kind).ok().flatten()?;
        Some(Judgement {
            verdict: hit.verdict,
            usage: hit.usage,
            cost_usd: 0.0,
            cached: true,
            latency_ms: started.elapsed().as_millis() as u64,
            prompt_version: version.to_string(),
            shared_call: false,
        })
    }

    /// Keeps a verdict under `key`; a cache that cannot be written is a notice, not a
    /// failed call.
    fn remember(
        &self,
        key: &str,
        version: &str,
        messages: &[Message],
        (verdict, usage): (&Verdict, &Usage),
        ctx: &CallContext,
    ) {
        let Some(cache) = &self.cache else { return };
        if let Err(e) = cache.put(key, &self.identity, version, messages, verdict, usage) {
            ctx.progress.report(Progress::Notice {
                message: format!("could not store a verdict in the judge cache: {e}"),
            });
        }
    }

    /// The repair request after a first reply that could not be used (`error`): the
    /// verdict of the second reply, the model that served it, and the usage of both. A
    /// second failure is `Unparseable`, with the tokens both replies cost.
    async fn repair(
        &self,
        task: &Task,
        ctx: &CallContext,
        messages: &[Message],
        first: &ChatResponse,
        usage: Usage,
        error: &str,
    ) -> Result<(Verdict, Option<String>, Usage), JudgeError> {
        let repair = prompt::render_repair(messages, &first.text, error);
        // The unreadable reply was paid for: its tokens go with the error.
        let spent = |usage: Usage| Some((usage, self.price.map_or(0.0, |p| p.cost(&usage))));
        let second = match self.call(&repair, task, ctx).await {
            Ok(second) => second,
            Err(JudgeError::Cancelled) => return Err(JudgeError::Cancelled),
            Err(repair_error) => {
                return Err(JudgeError::Unparseable {
                    message: format!("{error}; the repair request failed: {repair_error}"),
                    raw: first.text.clone(),
                    spent: spent(usage),
                })
            }
        };
        let usage = accounting::add_usage(usage, usage_of(&second, &repair));
        match parse_verdict(task, &second.text) {
            Ok(verdict) => Ok((verdict, second.model, usage)),
            Err(second_error) => Err(JudgeError::Unparseable {
                message: format!("{error}; after the repair request: {second_error}"),
                raw: format!(
                    "{}\n--- reply to the repair request ---\n{}",
                    first.text, second.text
                ),
                spent: spent(usage),
            }),
        }
    }

    /// One request for `task` with limits, retries, timeout and cancellation.
    async fn call(
        &self,
        messages: &[Message],
        task: &Task,
        ctx: &CallContext,
    ) -> Result<ChatResponse, JudgeError> {
        self.send(self.chat_request(task, messages.to_vec()), messages, ctx)
            .await
    }

    /// `request` (of `messages`) with limits, retries, timeout and cancellation.
    async fn send(
        &self,
        request: ChatRequest,
        messages: &[Message],
        ctx: &CallContext,
    ) -> Result<ChatResponse, JudgeError> {
        let tokens = accounting::estimate_message_tokens(messages)
            + u64::from(self.max_output_tokens.min(1024));
        let who = self.identity.name.as_str();
        retry::run(&self.policy, who, ctx, || async {
            let _permit = self.limiter.acquire(tokens, ctx, who).await?;
            retry::with_timeout(self.policy.timeout, self.provider.chat(&request)).await
        })
        .await
    }
}

impl LlmJudge {
    /// The request a call sends for `task` with `messages`.
    fn chat_request(&self, task: &Task, messages: Vec<Message>) -> ChatRequest {
        let kind = task.kind();
        ChatRequest {
            model: self.identity.model.clone(),
            messages,
            temperature: self.identity.temperature,
            max_output_tokens: self.max_output_tokens,
            schema: Some((schema::schema_name(kind), schema::reply_schema(kind))),
        }
    }
}

/// The batch client for a profile's service: OpenAI (and compatible services that offer
/// the same batch API), Azure OpenAI, Anthropic. Built beside the live provider with the
/// same key; used only by runs in batch mode.
fn batch_api(
    profile: &JudgeProfile,
    key: Option<ApiKey>,
    options: &JudgeOptions,
    timeout: Duration,
) -> Result<Option<Box<dyn BatchApi>>, JudgeError> {
    use batch::anthropic::AnthropicBatches;
    use batch::openai::OpenAiBatches;
    let limits = |default: BatchLimits| options.batch_limits.unwrap_or(default.with_env());
    let choice = options.structured_output;
    Ok(match profile.kind {
        ProviderKind::OpenAi => Some(Box::new(OpenAiBatches::new(
            &profile.base_url,
            key,
            choice,
            timeout,
            limits(BatchLimits::OPENAI),
        )?)),
        ProviderKind::AzureOpenAi => Some(Box::new(OpenAiBatches::azure(
            &profile.base_url,
            profile.api_version.as_deref(),
            key,
            choice,
            timeout,
            limits(BatchLimits::OPENAI),
        )?)),
        ProviderKind::Anthropic => Some(Box::new(AnthropicBatches::new(
            &profile.base_url,
            key,
            timeout,
            limits(BatchLimits::ANTHROPIC),
        )?)),
        ProviderKind::Offline => None,
    })
}

impl BatchJudge for LlmJudge {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
    }

    fn api(&self) -> &dyn BatchApi {
        self.batch
            .as_deref()
            .expect("batch() offers this judge only with a batch client")
    }

    fn cache(&self) -> Option<&JudgeCache> {
        self.cache.as_deref()
    }

    fn request(&self, task: &Task, messages: Vec<Message>) -> ChatRequest {
        self.chat_request(task, messages)
    }

    fn price(&self) -> Option<Price> {
        self.price
    }

    fn poll(&self) -> PollPolicy {
        self.batch_poll
    }
}

fn usage_of(response: &ChatResponse, messages: &[Message]) -> Usage {
    response
        .usage
        .unwrap_or_else(|| accounting::estimate_usage(messages, &response.text))
}

#[async_trait::async_trait]
impl Judge for LlmJudge {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
    }

    fn concurrency(&self) -> usize {
        self.limiter.concurrency()
    }

    async fn judge(&self, task: &Task, ctx: &CallContext) -> Result<Judgement, JudgeError> {
        self.judge_with_outcome(task, ctx)
            .await
            .map(|o| o.judgement)
    }

    async fn judge_together(
        &self,
        tasks: &[Task],
        ctx: &CallContext,
    ) -> Vec<Result<Judgement, JudgeError>> {
        together::judge_together(self, tasks, ctx).await
    }

    fn batch(&self) -> Option<&dyn BatchJudge> {
        self.batch.is_some().then_some(self as &dyn BatchJudge)
    }
}
