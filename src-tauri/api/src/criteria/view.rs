//! What Settings → Your criteria exchanges with the shell: a stored criterion with the
//! words a list shows, what saving did, and a trial of a draft on a dataset's first
//! items.

use ragnosis_core::criteria;
use ragnosis_core::run::criteria::Trial;
use ragnosis_core::store::criteria::{Saved, StoredCriterion};
use serde::Serialize;

/// A criterion as the editor lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CriterionInfo {
    /// The version shown (the latest), its definition, when it was saved and removed.
    #[serde(flatten)]
    pub stored: StoredCriterion,
    /// `criteria.<name>`.
    pub metric: String,
    /// "passes at 4 or more on 1–5", "pass/fail".
    pub pass_rule: String,
    /// "judged; reads question, answer" or "no judge: the answer matches /…/", then
    /// "; only where the question matches /…/" for a criterion scoped by its question.
    pub how: String,
    /// Whether a language model must judge it (the offline judge leaves it unmeasured).
    pub needs_judge: bool,
}

impl From<StoredCriterion> for CriterionInfo {
    fn from(c: StoredCriterion) -> Self {
        let d = &c.definition;
        let mut how = match &d.check {
            Some(check) => format!("no judge: {}", criteria::check::describe(check)),
            None => format!("judged; reads {}", d.reads_text()),
        };
        if let Some(scope) = d.scope() {
            how = format!("{how}; {scope}");
        }
        CriterionInfo {
            metric: d.metric_id(),
            pass_rule: d.pass_rule(),
            how,
            needs_judge: d.needs_judge(),
            stored: c,
        }
    }
}

/// What saving a criterion did, and the criterion as stored now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SavedCriterion {
    /// Whether saving created the criterion, added a version or changed nothing.
    pub saved: Saved,
    /// The criterion's latest version after the save.
    pub criterion: CriterionInfo,
}

/// A draft criterion tried on a dataset's first items; nothing was stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CriterionTrial {
    /// The judge the trial used, as the request named it.
    pub judge: String,
    /// Each item's result, its score on the criterion's scale, and what the calls cost.
    #[serde(flatten)]
    pub trial: Trial,
}
