//! Finished checks in the store (`store::judge_checks` keeps their JSON).

use rusqlite::Connection;

use super::JudgeCheck;
use crate::error::Result;
use crate::store::judge_checks::{self, CheckKeys};

impl JudgeCheck {
    /// Stores the whole check; returns its row id.
    pub fn save(&self, conn: &Connection) -> Result<i64> {
        let keys = CheckKeys {
            profile: &self.profile,
            judge_config: &self.judge_config,
            prompt_versions: &self.prompt_versions,
            sample_version: &self.sample_version,
        };
        judge_checks::insert(conn, &keys, self)
    }
}

/// The latest check of the judge with this `config_key`.
pub fn latest_for_config(conn: &Connection, judge_config: &str) -> Result<Option<JudgeCheck>> {
    judge_checks::latest_for_config(conn, judge_config)
}

/// The latest check run through the profile called `profile`, whatever it pointed at.
pub fn latest_for_profile(conn: &Connection, profile: &str) -> Result<Option<JudgeCheck>> {
    judge_checks::latest_for_profile(conn, profile)
}
