//! The user's own criteria: metrics defined in plain words (or as a deterministic
//! check), stored with every version; the shipped examples; saving, importing and
//! exporting files; removing; trying a draft on a dataset's first items before saving.
//! Must not score a run (runs do, with `criteria.<name>`).
//!
//! Policy both shells follow: what is registered for runs after a save is the
//! definition as stored.

mod view;

use std::path::Path;

use ragnosis_core::criteria::{self, file, registry};
use ragnosis_core::judge::{open, CallContext};
use ragnosis_core::{run, store, Error, Result};

use crate::{jobs, Ctx};

pub use ragnosis_core::criteria::{
    Anchor, Check, Definition, Direction, ReadField, Scale, Versioned,
};
pub use ragnosis_core::store::criteria::{Saved, StoredCriterion};
pub use view::{CriterionInfo, CriterionTrial, SavedCriterion};

/// A check in words ("the answer matches /…/").
pub fn describe_check(check: &Check) -> String {
    criteria::check::describe(check)
}

/// A definition as the editor sends it (JSON), read and checked; a wrong field is
/// `invalid` with the core's sentence (the same `criteria import` prints).
pub fn from_json(definition: serde_json::Value) -> Result<Definition> {
    let def: Definition = serde_json::from_value(definition)
        .map_err(|e| Error::Invalid(format!("the criterion cannot be read: {e}")))?;
    checked(def)
}

/// The definition, or why it cannot be a criterion.
pub fn checked(def: Definition) -> Result<Definition> {
    criteria::validate(&def).map_err(Error::Invalid)?;
    Ok(def)
}

/// The user's criteria (latest versions), by name.
pub fn list(ctx: &Ctx) -> Result<Vec<CriterionInfo>> {
    Ok(store::criteria::list(ctx.store()?.conn(), false)?
        .into_iter()
        .map(CriterionInfo::from)
        .collect())
}

/// A criterion at `version` (the latest when none), and all its versions.
pub fn show(
    ctx: &Ctx,
    name: &str,
    version: Option<u32>,
) -> Result<(StoredCriterion, Vec<StoredCriterion>)> {
    let store = ctx.store()?;
    let shown = match version {
        Some(v) => store::criteria::get(store.conn(), name, v)?,
        None => store::criteria::current(store.conn(), name)?,
    };
    Ok((shown, store::criteria::versions(store.conn(), name)?))
}

/// The three shipped examples (tone, no promises beyond the passages, cites the
/// section), to copy.
pub fn examples() -> Vec<Definition> {
    criteria::examples::shipped()
}

/// The shipped examples as a TOML file's text.
pub fn examples_toml() -> Result<String> {
    file::render(&examples(), file::Format::Toml)
}

/// Stores the criterion: its next version when the text changed, nothing when it did
/// not. Runs may use it at once.
pub fn save(ctx: &Ctx, def: &Definition) -> Result<SavedCriterion> {
    let def = checked(def.clone())?;
    let store = ctx.store()?;
    let (version, saved) = store::criteria::save(store.conn(), &def)?;
    let stored = store::criteria::get(store.conn(), def.name.trim(), version)?;
    registry::register(&stored.definition);
    Ok(SavedCriterion {
        saved,
        criterion: stored.into(),
    })
}

/// Stores every criterion of a TOML or JSON file, in its order.
pub fn import(ctx: &Ctx, path: &Path) -> Result<Vec<SavedCriterion>> {
    file::read(path)?.iter().map(|def| save(ctx, def)).collect()
}

/// Writes the named criteria (all when none is named) to `out`; returns how many.
pub fn export(ctx: &Ctx, names: &[String], out: &Path) -> Result<usize> {
    let defs: Vec<Definition> = {
        let store = ctx.store()?;
        if names.is_empty() {
            store::criteria::list(store.conn(), false)?
                .into_iter()
                .map(|c| c.definition)
                .collect()
        } else {
            names
                .iter()
                .map(|n| store::criteria::current(store.conn(), n).map(|c| c.definition))
                .collect::<Result<_>>()?
        }
    };
    if defs.is_empty() {
        return Err(Error::Invalid("there are no criteria to export".into()));
    }
    file::write(out, &defs)?;
    Ok(defs.len())
}

/// Removes a criterion; runs that used it still report it.
pub fn delete(ctx: &Ctx, name: &str) -> Result<()> {
    if store::criteria::remove(ctx.store()?.conn(), name)? {
        Ok(())
    } else {
        Err(Error::NotFound {
            what: "criterion",
            id: name.to_string(),
        })
    }
}

/// Scores the draft on the first items of `dataset_id` with the judge profile `judge`,
/// storing nothing: the scores and the judge's reasons, and what the calls cost.
pub fn try_draft(
    ctx: &Ctx,
    def: &Definition,
    dataset_id: i64,
    judge: &str,
) -> Result<CriterionTrial> {
    let def = checked(def.clone())?;
    let opened = open::open_judge(&*ctx.store()?, judge, ctx.secrets())?;
    let store = ctx.own_store()?;
    // The store moves to the trial's thread: a connection is not shared between threads.
    let trial = jobs::on_own_thread("the trial", move || {
        run::criteria::trial(&store, &def, dataset_id, opened, &CallContext::default())
    })?;
    Ok(CriterionTrial {
        judge: judge.to_string(),
        trial,
    })
}
