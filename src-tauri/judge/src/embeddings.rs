//! Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint, for retriever
//! evaluation. The endpoint is a judge profile (base URL, key in the keyring, limits), so
//! it is configured and tested like a judge, and every request goes through the same
//! limiter, retries, timeout and cancellation as a judge call.

use std::time::Duration;

use super::limiter::Limiter;
use super::provider::openai::{OpenAiProvider, StructuredOutput};
use super::retry::{self, RetryPolicy};
use super::{CallContext, JudgeError};
use ragnosis_types::judge_profile::JudgeProfile;
use ragnosis_types::ApiKey;

/// Texts sent per request: large enough to be quick, small enough for any server's limit.
pub const BATCH: usize = 32;

pub struct EndpointEmbedder {
    provider: OpenAiProvider,
    limiter: Limiter,
    policy: RetryPolicy,
    profile: String,
    /// The embedding model asked for.
    pub model: String,
    /// What cached vectors are keyed by: the model and where it is served, so two
    /// servers' "same" model never share vectors.
    pub cache_key: String,
}

impl EndpointEmbedder {
    /// `model` overrides the profile's (usually a chat model) when given.
    pub fn new(
        profile: &JudgeProfile,
        key: Option<ApiKey>,
        model: Option<&str>,
    ) -> Result<EndpointEmbedder, JudgeError> {
        let model = model
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .unwrap_or(profile.model.trim())
            .to_string();
        if model.is_empty() {
            return Err(JudgeError::Config(format!(
                "profile {} names no model to embed with",
                profile.name
            )));
        }
        let timeout = Duration::from_secs(u64::from(profile.timeout_secs.max(1)));
        let provider = OpenAiProvider::new(&profile.base_url, key, StructuredOutput::Off, timeout)?;
        let base = if profile.base_url.trim().is_empty() {
            super::provider::openai::DEFAULT_BASE_URL
        } else {
            profile.base_url.trim().trim_end_matches('/')
        };
        Ok(EndpointEmbedder {
            provider,
            limiter: Limiter::new(profile.concurrency, profile.rpm, profile.tpm),
            policy: RetryPolicy {
                timeout,
                ..RetryPolicy::default()
            },
            profile: profile.name.clone(),
            cache_key: format!("{model} @ {base}"),
            model,
        })
    }

    /// How the retriever is named in figures and charts.
    pub fn label(&self) -> String {
        format!("{} ({})", self.model, self.profile)
    }

    /// One vector per text, in order (one request per `BATCH` texts).
    pub async fn embed(
        &self,
        texts: &[&str],
        ctx: &CallContext,
    ) -> Result<Vec<Vec<f32>>, JudgeError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let tokens = batch.iter().map(|t| t.len() as u64 / 4 + 1).sum();
            let who = self.profile.as_str();
            let vectors = retry::run(&self.policy, who, ctx, || async {
                let _permit = self.limiter.acquire(tokens, ctx, who).await?;
                retry::with_timeout(self.policy.timeout, self.provider.embed(&self.model, batch))
                    .await
            })
            .await?;
            out.extend(vectors);
        }
        Ok(out)
    }
}
