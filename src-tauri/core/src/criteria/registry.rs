//! The dynamic part of the metric catalogue: one `MetricSpec` per stored criterion, so
//! every stage that asks `metrics::find(id)` (statistics, reports, compare, gates,
//! labels, the case view) treats `criteria.tone` as it treats a built-in metric.
//!
//! The catalogue hands out `&'static MetricSpec`s; a criterion's spec is built once per
//! distinct shape (id, fields read, judged or not, direction, description) and kept for
//! the life of the process, so editing a criterion many times in one session costs a
//! few hundred bytes per edit. `Store::open` loads the latest version of every stored
//! criterion (removed ones too: old runs still name them), and saving one registers it.
//! A process works on one database; which criteria a *run* uses is always read from
//! that run's store (`store::criteria`), never from this registry alone.
//!
//! Owns: building, interning and looking up criterion specs. Must not: read SQL.

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use super::{Definition, FAMILY};
use crate::item::Field;
use crate::metrics::catalogue::{Family, MetricSpec, Scope};

#[derive(Default)]
struct Registry {
    /// The spec each id currently names.
    by_id: HashMap<String, &'static MetricSpec>,
    /// Every spec built, by shape, so the same shape is never built twice.
    interned: HashMap<Shape, &'static MetricSpec>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Shape {
    name: String,
    needs: Vec<Field>,
    judge: bool,
    lower_is_better: bool,
    description: String,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(RwLock::default);

fn shape(def: &Definition) -> Shape {
    Shape {
        name: def.name.clone(),
        needs: def.needs(),
        judge: def.needs_judge(),
        lower_is_better: def.lower_is_better(),
        description: def.description(),
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The spec of `def`, built once per shape; does not change what its id names.
pub fn spec_of(def: &Definition) -> &'static MetricSpec {
    let key = shape(def);
    if let Some(spec) = read().interned.get(&key) {
        return spec;
    }
    let mut registry = write();
    if let Some(spec) = registry.interned.get(&key) {
        return spec;
    }
    let spec: &'static MetricSpec = Box::leak(Box::new(MetricSpec {
        id: leak(format!("{FAMILY}.{}", key.name)),
        family: Family::Criteria,
        name: leak(key.name.clone()),
        needs: Box::leak(key.needs.clone().into_boxed_slice()),
        judge: key.judge,
        lower_is_better: key.lower_is_better,
        scope: Scope::Item,
        synthesised: false,
        description: leak(key.description.clone()),
    }));
    registry.interned.insert(key, spec);
    spec
}

/// Makes `criteria.<name>` name this definition's spec, and returns it.
pub fn register(def: &Definition) -> &'static MetricSpec {
    let spec = spec_of(def);
    write().by_id.insert(spec.id.to_string(), spec);
    spec
}

/// The spec `id` names, when it is a registered criterion.
pub fn find(id: &str) -> Option<&'static MetricSpec> {
    if !id.starts_with(FAMILY) {
        return None;
    }
    read().by_id.get(id).copied()
}

/// The spec of a registered criterion called `name` (its bare name).
pub fn find_name(name: &str) -> Option<&'static MetricSpec> {
    find(&format!("{FAMILY}.{name}"))
}

fn read() -> std::sync::RwLockReadGuard<'static, Registry> {
    REGISTRY.read().unwrap_or_else(|p| p.into_inner())
}

fn write() -> std::sync::RwLockWriteGuard<'static, Registry> {
    REGISTRY.write().unwrap_or_else(|p| p.into_inner())
}

/// Every registered criterion, by id.
pub fn all() -> Vec<&'static MetricSpec> {
    let mut specs: Vec<&'static MetricSpec> = read().by_id.values().copied().collect();
    specs.sort_by_key(|s| s.id);
    specs
}

/// Registers the latest version of every criterion stored in the database (removed ones
/// too: runs that used them still name them). A version this build cannot read is left
/// out here and named when it is used (`store::criteria`), so the database still opens.
pub fn load(conn: &rusqlite::Connection) -> crate::error::Result<()> {
    for name in crate::store::criteria::names(conn)? {
        if let Ok(Some(stored)) = crate::store::criteria::latest(conn, &name) {
            register(&stored.definition);
        }
    }
    Ok(())
}
