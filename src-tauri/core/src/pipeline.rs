//! The user's description of the pipeline behind a dataset's answers: retriever, chunks,
//! top-k, reranker, models, temperature, prompt notes. Every field is optional (a user
//! says what they know); reports show it, and the actions read it to say what to change
//! in this pipeline rather than in any pipeline (`analysis::diagnosis::tailor`).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct PipelineProfile {
    /// "bm25", "dense", "hybrid", or the user's own word.
    pub retriever: Option<String>,
    /// Tokens (or the user's unit) per chunk.
    pub chunk_size: Option<u32>,
    pub chunk_overlap: Option<u32>,
    /// Passages handed to the generator per question.
    pub top_k: Option<u32>,
    /// The reranker's name; "none" when there is none.
    pub reranker: Option<String>,
    pub embedding_model: Option<String>,
    pub generator_model: Option<String>,
    pub temperature: Option<f64>,
    /// What the prompt asks for (refusal rules, citation rules), in the user's words.
    pub prompt_notes: Option<String>,
}

impl PipelineProfile {
    /// Blank words become absent, so "" never reads as a value.
    pub fn checked(mut self) -> Result<PipelineProfile> {
        for text in [
            &mut self.retriever,
            &mut self.reranker,
            &mut self.embedding_model,
            &mut self.generator_model,
            &mut self.prompt_notes,
        ] {
            if text.as_deref().is_some_and(|t| t.trim().is_empty()) {
                *text = None;
            }
            if let Some(t) = text {
                *t = t.trim().to_string();
            }
        }
        if let Some(t) = self.temperature {
            if !(t.is_finite() && (0.0..=2.0).contains(&t)) {
                return Err(Error::Invalid(format!(
                    "the temperature is read between 0 and 2, got {t}"
                )));
            }
        }
        if self.top_k == Some(0) || self.chunk_size == Some(0) {
            return Err(Error::Invalid(
                "top-k and the chunk size are 1 or more (leave them empty when unknown)".into(),
            ));
        }
        if let (Some(size), Some(overlap)) = (self.chunk_size, self.chunk_overlap) {
            if overlap >= size {
                return Err(Error::Invalid(format!(
                    "the chunk overlap ({overlap}) must be smaller than the chunk size ({size})"
                )));
            }
        }
        Ok(self)
    }

    pub fn is_empty(&self) -> bool {
        *self == PipelineProfile::default()
    }

    /// "hybrid retriever, chunks of 512 (overlap 64), top-k 3, no reranker, generator
    /// gpt-4o-mini at temperature 0.7": what the user said, in one line.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(r) = &self.retriever {
            parts.push(format!("{r} retriever"));
        }
        match (self.chunk_size, self.chunk_overlap) {
            (Some(s), Some(o)) => parts.push(format!("chunks of {s} (overlap {o})")),
            (Some(s), None) => parts.push(format!("chunks of {s}")),
            (None, Some(o)) => parts.push(format!("chunk overlap {o}")),
            (None, None) => {}
        }
        if let Some(k) = self.top_k {
            parts.push(format!("top-k {k}"));
        }
        match self.reranker.as_deref() {
            Some(_) if self.has_no_reranker() => parts.push("no reranker".into()),
            Some(r) => parts.push(format!("reranker {r}")),
            None => {}
        }
        if let Some(m) = &self.embedding_model {
            parts.push(format!("embeddings {m}"));
        }
        match (&self.generator_model, self.temperature) {
            (Some(m), Some(t)) => parts.push(format!("generator {m} at temperature {t}")),
            (Some(m), None) => parts.push(format!("generator {m}")),
            (None, Some(t)) => parts.push(format!("temperature {t}")),
            (None, None) => {}
        }
        if let Some(n) = &self.prompt_notes {
            parts.push(format!("prompt: {n}"));
        }
        parts.join(", ")
    }

    /// The user said there is no reranker ("none", "no", "-").
    pub fn has_no_reranker(&self) -> bool {
        self.reranker.as_deref().is_some_and(|r| {
            matches!(
                r.to_ascii_lowercase().as_str(),
                "none" | "no" | "-" | "n/a" | "off"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_is_described_with_what_the_user_said_only() {
        let p = PipelineProfile {
            retriever: Some("hybrid".into()),
            chunk_size: Some(512),
            chunk_overlap: Some(64),
            top_k: Some(3),
            reranker: Some("none".into()),
            temperature: Some(0.7),
            ..Default::default()
        };
        assert_eq!(
            p.describe(),
            "hybrid retriever, chunks of 512 (overlap 64), top-k 3, no reranker, temperature 0.7"
        );
        assert_eq!(PipelineProfile::default().describe(), "");
    }

    #[test]
    fn blank_words_are_absent_and_impossible_numbers_are_refused() {
        let p = PipelineProfile {
            retriever: Some("  ".into()),
            generator_model: Some(" gpt-4o ".into()),
            ..Default::default()
        }
        .checked()
        .unwrap();
        assert_eq!(p.retriever, None);
        assert_eq!(p.generator_model.as_deref(), Some("gpt-4o"));
        for bad in [
            PipelineProfile {
                temperature: Some(3.0),
                ..Default::default()
            },
            PipelineProfile {
                top_k: Some(0),
                ..Default::default()
            },
            PipelineProfile {
                chunk_size: Some(100),
                chunk_overlap: Some(100),
                ..Default::default()
            },
        ] {
            assert!(bad.checked().is_err());
        }
    }
}
