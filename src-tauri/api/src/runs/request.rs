//! A run request as a shell sends it (the Evaluate screen's form, `eval` / `agentic`'s
//! arguments) and its one set of checks: the window and the CLI refuse the same input
//! with the same sentence and code. Must not touch the database beyond reading the
//! user's criteria and few-shot choice (checking a request creates nothing).

use std::path::Path;

use ragnosis_core::judge::{few_shot, open};
use ragnosis_core::metrics::overall::WeightProfile;
use ragnosis_core::metrics::{self, MetricConfig};
use ragnosis_core::run::{self, Mode, Selection};
use ragnosis_core::{Error, Result};
use serde::Deserialize;

use crate::Ctx;

/// What to evaluate and how. The first fields are the Evaluate screen's; the optional
/// ones after them are what the command line also offers.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunRequest {
    /// The dataset to evaluate, as `ragnosis datasets` lists it; it must be ready.
    pub dataset_id: i64,
    /// "agentic", "manual" or "retrieval_only".
    pub mode: String,
    /// Metric ids, bare names or families (manual mode only).
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Judge profile name; "offline" for the built-in judge.
    pub judge: String,
    /// A name for the run ("baseline"); without one it is called "Run N".
    #[serde(default)]
    pub label: Option<String>,
    /// The version of the pipeline evaluated ("v1.2"), shown beside the label in titles.
    #[serde(default)]
    pub version: Option<String>,
    /// Free text kept with the run, for people.
    #[serde(default)]
    pub notes: Option<String>,
    /// Keep only the first N items.
    #[serde(default)]
    pub limit: Option<u64>,
    /// Then draw N of them at random with `seed`.
    #[serde(default)]
    pub sample: Option<u64>,
    /// Seed of the random sample; the same seed draws the same items.
    #[serde(default)]
    pub seed: u64,
    /// Stop launching judge calls before the cost passes this many USD.
    #[serde(default)]
    pub budget_usd: Option<f64>,
    /// k of recall@k and MRR@k (10 when absent).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub k: Option<u64>,
    /// The relevance a chunk must reach to count as useful (retrieval_relevance).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tau: Option<f64>,
    /// A regex whose first capture group is a cited id.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub citation_pattern: Option<String>,
    /// The weight profile of answer_overall: ragvue-paper (default) or ragvue-0.6.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub weights: Option<String>,
    /// Ask the judge again even for verdicts in its cache.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub no_cache: Option<bool>,
    /// A file of scored answer-correctness examples; the Settings choice (or the
    /// shipped set) when absent.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub few_shot: Option<String>,
    /// Send the judge calls through the provider's batch service (half price, results
    /// within 24 h; `run::batch`).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub batch: Option<bool>,
}

fn trimmed(text: &Option<String>) -> Option<String> {
    text.as_ref()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

fn invalid<T>(message: impl Into<String>) -> Result<T> {
    Err(Error::Invalid(message.into()))
}

impl RunRequest {
    fn mode(&self) -> Result<Mode> {
        match self.mode.as_str() {
            "agentic" => Ok(Mode::Agentic),
            "manual" => Ok(Mode::Manual),
            "retrieval_only" => Ok(Mode::RetrievalOnly),
            other => invalid(format!(
                "unknown mode '{other}': choose agentic, manual or retrieval_only"
            )),
        }
    }

    /// The figures of the request, each in its range.
    fn check_figures(&self) -> Result<()> {
        if self.limit == Some(0) || self.sample == Some(0) {
            return invalid("limit and sample must be at least 1 item");
        }
        if let Some(b) = self.budget_usd.filter(|b| !b.is_finite() || *b < 0.0) {
            return invalid(format!(
                "the budget must be an amount of USD, 0 or more; got {b}"
            ));
        }
        if self.k == Some(0) {
            return invalid("k must be at least 1");
        }
        if let Some(tau) = self.tau.filter(|t| !(0.0..=1.0).contains(t)) {
            return invalid(format!("tau must be between 0 and 1, got {tau}"));
        }
        Ok(())
    }

    fn metric_config(&self) -> Result<MetricConfig> {
        let mut config = MetricConfig::default();
        if let Some(k) = self.k {
            config.k = k as usize;
        }
        if let Some(pattern) = &self.citation_pattern {
            metrics::citation::compile_pattern(pattern).map_err(|e| {
                Error::Invalid(format!("the citation pattern is not a valid regex: {e}"))
            })?;
            config.citation_pattern = pattern.clone();
        }
        Ok(config)
    }

    fn weights(&self) -> Result<WeightProfile> {
        let name = self.weights.as_deref().unwrap_or("ragvue-paper");
        WeightProfile::builtin(name).ok_or_else(|| {
            Error::Invalid(format!(
                "unknown weight profile '{name}' (use ragvue-paper or ragvue-0.6)"
            ))
        })
    }

    /// Every check a request passes before anything is stored, in one order, and the
    /// core's request it makes. Reads the user's criteria and few-shot choice when a
    /// database exists, and creates none.
    pub(crate) fn checked(&self, ctx: &Ctx) -> Result<run::RunRequest> {
        let mode = self.mode()?;
        self.check_figures()?;
        let metric_config = self.metric_config()?;
        let weights = self.weights()?;
        let store = ctx.existing_store()?;
        let few_shot = match (&self.few_shot, &store) {
            (Some(path), _) => few_shot::read(Path::new(path)).map_err(Error::Invalid)?,
            (None, Some(store)) => few_shot::for_new_run(store)?,
            (None, None) => few_shot::default_examples(),
        };
        let request = run::RunRequest {
            dataset_id: self.dataset_id,
            mode,
            metrics: match mode {
                Mode::Manual => self.metrics.clone(),
                _ => Vec::new(),
            },
            label: trimmed(&self.label),
            version: trimmed(&self.version),
            notes: trimmed(&self.notes),
            selection: Selection {
                limit: self.limit.map(|n| n as usize),
                sample: self.sample.map(|n| n as usize),
                seed: self.seed,
            },
            metric_config,
            judge: self.judge.trim().to_string(),
            weights,
            tau: self.tau,
            budget_usd: self.budget_usd,
            use_cache: !self.no_cache.unwrap_or(false),
            few_shot,
            batch: self.batch.unwrap_or(false),
        };
        // The judge and the metrics it names exist (the user's criteria included).
        match &store {
            Some(store) => {
                open::profile(store, &request.judge)?;
                drop(run::selected_metrics(store, &request)?);
            }
            None => {
                if request.judge != open::OFFLINE {
                    // No database, so no profile of that name.
                    return Err(Error::NotFound {
                        what: "judge profile",
                        id: request.judge,
                    });
                }
                if mode == Mode::Manual {
                    drop(metrics::resolve_selection(&request.metrics)?);
                }
            }
        }
        Ok(request)
    }

    /// Checks the request as `start` and `preview` will, storing nothing: what the CLI
    /// asks before it imports a file to evaluate (`dataset_id` is not looked at).
    pub fn check(&self, ctx: &Ctx) -> Result<()> {
        self.checked(ctx).map(drop)
    }
}

/// Re-judging a finished run to measure the judge: under other judges or temperatures
/// (`calibrate`), or the same judge again without its cache (`repeat`).
#[derive(Debug, Clone, PartialEq)]
pub enum Recheck {
    /// `NAME[@TEMP]` entries (`offline,gpt@0.7`).
    Calibrate(Vec<String>),
    /// Further executions at the same settings: N − 1 of `--repeat N`.
    Repeat(usize),
}

impl Recheck {
    /// From `--calibrate LIST` and `--repeat N`: at most one of them, N at least 2.
    pub fn parse(calibrate: Option<&str>, repeat: Option<usize>) -> Result<Option<Recheck>> {
        let entries: Vec<String> = calibrate
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(String::from)
            .collect();
        match (repeat, entries.is_empty()) {
            (Some(0 | 1), _) => invalid("--repeat needs at least 2 (the run itself and one more)"),
            (Some(_), false) => {
                invalid("--repeat and --calibrate each re-judge the run; use one at a time")
            }
            (Some(n), true) => Ok(Some(Recheck::Repeat(n - 1))),
            (None, false) => Ok(Some(Recheck::Calibrate(entries))),
            (None, true) => Ok(None),
        }
    }

    /// Every judge it names exists (`NAME` or `NAME@TEMP`): checked before the main run
    /// starts, so a typo does not cost a whole run first.
    pub fn check(&self, ctx: &Ctx) -> Result<()> {
        if let Recheck::Calibrate(entries) = self {
            let store = ctx.store()?;
            for entry in entries {
                crate::judges::profile_at(&store, entry)?;
            }
        }
        Ok(())
    }
}
