//! The `criteria` table: every version of every criterion a user defined. Saving a
//! changed definition adds the next version; saving the same one again adds nothing.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

use crate::criteria::{Definition, Versioned};
use crate::error::{Error, Result};

/// One stored version.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StoredCriterion {
    pub version: u32,
    pub definition: Definition,
    pub created_at: String,
    /// Set when the criterion was removed (runs that used it still report it).
    pub removed_at: Option<String>,
}

impl StoredCriterion {
    pub fn versioned(&self) -> Versioned {
        Versioned {
            version: self.version,
            definition: self.definition.clone(),
        }
    }
}

/// What saving did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Saved {
    /// The first version of a new name (or of a removed one defined again).
    Created,
    /// A new version of a changed definition.
    NewVersion,
    /// The same definition as the latest version: nothing was written.
    Unchanged,
}

/// Registers the latest version of every stored criterion in the metric catalogue
/// (removed ones too: runs that used them still name them). A version this build cannot
/// read is left out here and named when it is used, so the database still opens.
pub fn register_all(conn: &Connection) -> Result<()> {
    for name in names(conn)? {
        if let Ok(Some(stored)) = latest(conn, &name) {
            crate::criteria::registry::register(&stored.definition);
        }
    }
    Ok(())
}

fn row(r: &Row) -> rusqlite::Result<(u32, String, String, Option<String>)> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
}

fn stored(name: &str, raw: (u32, String, String, Option<String>)) -> Result<StoredCriterion> {
    let (version, json, created_at, removed_at) = raw;
    let definition = serde_json::from_str(&json).map_err(|e| {
        Error::Invalid(format!(
            "criterion '{name}' version {version} cannot be read by this version of Ragnosis: {e}"
        ))
    })?;
    Ok(StoredCriterion {
        version,
        definition,
        created_at,
        removed_at,
    })
}

const COLUMNS: &str = "version, definition_json, created_at, removed_at";

/// The latest version of `name`, removed or not.
pub fn latest(conn: &Connection, name: &str) -> Result<Option<StoredCriterion>> {
    let raw = conn
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM criteria WHERE name = ?1 ORDER BY version DESC LIMIT 1"
            ),
            [name],
            row,
        )
        .optional()?;
    raw.map(|r| stored(name, r)).transpose()
}

/// Version `version` of `name`.
pub fn get(conn: &Connection, name: &str, version: u32) -> Result<StoredCriterion> {
    let raw = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM criteria WHERE name = ?1 AND version = ?2"),
            params![name, version],
            row,
        )
        .optional()?
        .ok_or_else(|| Error::NotFound {
            what: "criterion",
            id: format!("{name} version {version}"),
        })?;
    stored(name, raw)
}

/// The criterion `name` as it is now; not found when it does not exist or was removed.
pub fn current(conn: &Connection, name: &str) -> Result<StoredCriterion> {
    latest(conn, name)?
        .filter(|c| c.removed_at.is_none())
        .ok_or_else(|| Error::NotFound {
            what: "criterion",
            id: name.to_string(),
        })
}

/// The latest version of every criterion, by name; removed ones only with `removed`.
pub fn list(conn: &Connection, removed: bool) -> Result<Vec<StoredCriterion>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT c.name, {COLUMNS} FROM criteria c
         WHERE c.version = (SELECT MAX(version) FROM criteria WHERE name = c.name)
         ORDER BY c.name"
    ))?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (name, raw) in rows {
        let c = stored(&name, raw)?;
        if removed || c.removed_at.is_none() {
            out.push(c);
        }
    }
    Ok(out)
}

/// The name of every criterion ever stored.
pub fn names(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT DISTINCT name FROM criteria ORDER BY name")?;
    let names = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(names)
}

/// Every version of `name`, oldest first.
pub fn versions(conn: &Connection, name: &str) -> Result<Vec<StoredCriterion>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM criteria WHERE name = ?1 ORDER BY version"
    ))?;
    let rows = stmt
        .query_map([name], row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter().map(|r| stored(name, r)).collect()
}

/// Stores `def` (already validated; kept in its canonical form) as the next version of
/// its name, unless the latest live version is the same definition. Returns the version
/// that now holds it.
pub fn save(conn: &Connection, def: &Definition) -> Result<(u32, Saved)> {
    let def = &def.clone().canonical();
    let latest = latest(conn, &def.name)?;
    let (version, saved) = match &latest {
        Some(c) if c.removed_at.is_none() && c.definition == *def => {
            return Ok((c.version, Saved::Unchanged))
        }
        Some(c) if c.removed_at.is_none() => (c.version + 1, Saved::NewVersion),
        Some(c) => (c.version + 1, Saved::Created),
        None => (1, Saved::Created),
    };
    conn.execute(
        "INSERT INTO criteria (name, version, definition_json, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![def.name, version, serde_json::to_string(def)?, super::now()],
    )?;
    Ok((version, saved))
}

/// Marks every version of `name` removed; false when there was no such live criterion.
pub fn remove(conn: &Connection, name: &str) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE criteria SET removed_at = ?2 WHERE name = ?1 AND removed_at IS NULL",
        params![name, super::now()],
    )?;
    Ok(changed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::criteria::examples;
    use crate::store::Store;

    #[test]
    fn editing_a_criterion_adds_a_version_and_saving_it_unchanged_adds_none() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut tone = examples::shipped().remove(0);
        assert_eq!(save(store.conn(), &tone).unwrap(), (1, Saved::Created));
        assert_eq!(save(store.conn(), &tone).unwrap(), (1, Saved::Unchanged));
        tone.question = "Is the answer friendly?".into();
        assert_eq!(save(store.conn(), &tone).unwrap(), (2, Saved::NewVersion));
        let all = versions(store.conn(), "tone").unwrap();
        assert_eq!(all.len(), 2);
        assert_ne!(
            all[0].definition.question, all[1].definition.question,
            "version 1 keeps the text it had"
        );
        assert_eq!(current(store.conn(), "tone").unwrap().version, 2);
    }

    #[test]
    fn a_definition_listed_in_another_order_or_spacing_is_the_same_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let tone = examples::shipped().remove(0);
        save(store.conn(), &tone).unwrap();
        let mut shuffled = tone.clone();
        shuffled.anchors.reverse();
        shuffled.reads.reverse();
        shuffled.question = format!("  {}\n", tone.question);
        assert_eq!(
            save(store.conn(), &shuffled).unwrap(),
            (1, Saved::Unchanged)
        );
        assert_eq!(current(store.conn(), "tone").unwrap().definition, tone);
    }

    #[test]
    fn a_removed_criterion_leaves_the_list_but_keeps_its_versions_for_old_runs() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let tone = examples::shipped().remove(0);
        save(store.conn(), &tone).unwrap();
        assert!(remove(store.conn(), "tone").unwrap());
        assert!(!remove(store.conn(), "tone").unwrap(), "removed once");
        assert!(list(store.conn(), false).unwrap().is_empty());
        assert!(current(store.conn(), "tone").is_err());
        assert_eq!(get(store.conn(), "tone", 1).unwrap().definition, tone);
        assert_eq!(
            save(store.conn(), &tone).unwrap(),
            (2, Saved::Created),
            "defining it again starts a new version"
        );
    }
}
