//! The `pipeline_profiles` table: the user's description of the pipeline behind a
//! dataset's answers, one per dataset.

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::error::Result;
use crate::pipeline::PipelineProfile;

/// A dataset's profile, and where it came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DatasetProfile {
    pub profile: PipelineProfile,
    /// The earlier version of the test set whose profile this is, when the dataset has
    /// none of its own.
    pub inherited_from: Option<i64>,
}

/// Stores `profile` as the dataset's own (an empty one removes it).
pub fn set(conn: &Connection, dataset_id: i64, profile: &PipelineProfile) -> Result<()> {
    if profile.is_empty() {
        conn.execute(
            "DELETE FROM pipeline_profiles WHERE dataset_id = ?1",
            [dataset_id],
        )?;
        return Ok(());
    }
    conn.execute(
        "INSERT INTO pipeline_profiles (dataset_id, profile_json, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(dataset_id) DO UPDATE SET profile_json = ?2, updated_at = ?3",
        params![dataset_id, serde_json::to_string(profile)?, super::now()],
    )?;
    Ok(())
}

fn own(conn: &Connection, dataset_id: i64) -> Result<Option<PipelineProfile>> {
    let json: Option<String> = conn
        .query_row(
            "SELECT profile_json FROM pipeline_profiles WHERE dataset_id = ?1",
            [dataset_id],
            |r| r.get(0),
        )
        .optional()?;
    // A profile that no longer parses (edited by hand) is treated as absent, not as a
    // failure to open the run it describes.
    Ok(json.and_then(|j| serde_json::from_str(&j).ok()))
}

/// The dataset's profile: its own, else the nearest earlier version's (empty when no
/// version has one).
pub fn for_dataset(conn: &Connection, dataset_id: i64) -> Result<DatasetProfile> {
    if let Some(profile) = own(conn, dataset_id)? {
        return Ok(DatasetProfile {
            profile,
            inherited_from: None,
        });
    }
    let versions = super::datasets::versions(conn, dataset_id)?;
    for earlier in versions.iter().rev().filter(|v| **v < dataset_id) {
        if let Some(profile) = own(conn, *earlier)? {
            return Ok(DatasetProfile {
                profile,
                inherited_from: Some(*earlier),
            });
        }
    }
    Ok(DatasetProfile::default())
}
