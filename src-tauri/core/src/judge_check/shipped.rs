//! The judge check of the built-in offline judge, measured whenever its rules or learned
//! coefficients change and shipped with the build (`assets/offline-judge/check.json`),
//! so a new installation can say how far the offline judge agrees with people without
//! a three-minute check first. A test fails when the file no longer describes this
//! build's offline judge; `ragnosis judge-check offline --json` with a scratch home
//! rewrites it (see `assets/offline-judge/README.md`).
//!
//! Owns: reading the shipped check, and choosing between it and the checks a user ran.
//! Must not: run a check or store one (`store::judge_checks` keeps the user's own).

use rusqlite::Connection;

use super::JudgeCheck;
use crate::error::Result;
use crate::judge::open::OFFLINE;

const SHIPPED: &str = include_str!("../../../../assets/offline-judge/check.json");

/// The check shipped with this build. The file is written and checked in with the code
/// (a test reads it); a bad file is a build defect, not a user's input.
pub fn shipped() -> JudgeCheck {
    serde_json::from_str(SHIPPED).unwrap_or_else(|e| panic!("assets/offline-judge/check.json: {e}"))
}

/// Whether `check` was measured with the offline judge this process runs (its rules,
/// coefficients, and the embedded model if loaded).
fn measured_this_judge(check: &JudgeCheck) -> bool {
    let current = crate::judge::offline::current_prompt_version();
    check.prompt_versions.iter().any(|v| v == current)
}

/// The check to show for the offline judge: the user's latest when it describes this
/// build's judge, otherwise the shipped one when that does; failing both, the user's
/// latest (which readers then mark stale).
fn for_offline(stored: Option<JudgeCheck>) -> Option<JudgeCheck> {
    match stored {
        Some(own) if measured_this_judge(&own) => Some(own),
        stored => {
            let shipped = shipped();
            if measured_this_judge(&shipped) {
                Some(shipped)
            } else {
                stored
            }
        }
    }
}

/// The latest check of the profile called `profile`; for the built-in offline judge,
/// the shipped check when the user has none of this build's judge.
pub fn latest_for_profile(conn: &Connection, profile: &str) -> Result<Option<JudgeCheck>> {
    let stored = super::latest_for_profile(conn, profile)?;
    Ok(if profile == OFFLINE {
        for_offline(stored)
    } else {
        stored
    })
}

/// The shipped check, when `judge_config` is the configuration it measured (the
/// built-in offline judge's). Readers match it to a run by prompt version.
pub fn for_config(judge_config: &str) -> Option<JudgeCheck> {
    let shipped = shipped();
    (shipped.judge_config == judge_config).then_some(shipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::offline::{LEARNED_PROMPT_VERSION, SEMANTIC_PROMPT_VERSION};

    #[test]
    fn the_shipped_check_describes_this_builds_offline_judge() {
        // The check is measured with the embedded model, as users run the judge. When the
        // rules or the coefficients change, the prompt version changes and this fails:
        // rerun the check and ship its figures with the change.
        let check = shipped();
        assert!(
            check.prompt_versions.iter().any(|v| v == SEMANTIC_PROMPT_VERSION),
            "assets/offline-judge/check.json was measured with {:?}, this build's offline judge is {SEMANTIC_PROMPT_VERSION}: \
             rerun `ragnosis judge-check offline --json` (see assets/offline-judge/README.md)",
            check.prompt_versions
        );
        assert_eq!(check.profile, OFFLINE);
        assert!(check.claims.is_some() && check.diagnosis.designed > 0);
        assert!(!check
            .prompt_versions
            .iter()
            .any(|v| v == LEARNED_PROMPT_VERSION));
    }

    #[test]
    fn a_users_check_of_this_judge_wins_over_the_shipped_one_and_an_older_one_does_not() {
        let mut own = shipped();
        own.checked_at = "2031-01-01T00:00:00Z".into();
        let current = crate::judge::offline::current_prompt_version().to_string();
        own.prompt_versions = vec![current];
        assert_eq!(for_offline(Some(own.clone())), Some(own.clone()));

        let mut old = own.clone();
        old.prompt_versions = vec!["offline-1".into()];
        let shown = for_offline(Some(old.clone())).expect("a check to show");
        if measured_this_judge(&shipped()) {
            assert_eq!(
                shown,
                shipped(),
                "an older check gives way to the shipped one"
            );
        } else {
            // Without the embedded model this process runs another offline judge than the
            // one the shipped check measured: neither describes it, the user's stays.
            assert_eq!(shown, old);
        }
        assert_eq!(for_offline(None).is_some(), measured_this_judge(&shipped()));
    }
}
