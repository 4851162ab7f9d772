//! The catalogue's run-time part: specs that exist because a user defined them (their own
//! criteria, `criteria.<name>`). `find` and the selection see these beside the built-in
//! table, so statistics, reports, compare, gates, labels and the case view treat
//! `criteria.tone` as they treat a built-in metric.
//!
//! The catalogue hands out `&'static MetricSpec`s; a custom spec is built once per
//! distinct shape and kept for the life of the process, so editing a criterion many
//! times in one session costs a few hundred bytes per edit. A process works on one
//! database; which criteria a *run* uses is always read from that run's store, never
//! from this table alone.
//!
//! Owns: interning and looking up custom specs. Must not: know what a criterion's
//! definition says (`crate::criteria` turns a definition into a `CustomSpec`).

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use super::{Family, MetricSpec, Scope};
use crate::item::Field;

/// The family name of every custom spec: ids read `criteria.<name>`.
pub const FAMILY: &str = "criteria";

/// Everything that tells one custom spec from another.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CustomSpec {
    pub name: String,
    pub needs: Vec<Field>,
    pub judge: bool,
    pub lower_is_better: bool,
    pub description: String,
}

#[derive(Default)]
struct Table {
    /// The spec each id currently names.
    by_id: HashMap<String, &'static MetricSpec>,
    /// Every spec built, by shape, so the same shape is never built twice.
    interned: HashMap<CustomSpec, &'static MetricSpec>,
}

static TABLE: LazyLock<RwLock<Table>> = LazyLock::new(RwLock::default);

fn read() -> std::sync::RwLockReadGuard<'static, Table> {
    TABLE.read().unwrap_or_else(|p| p.into_inner())
}

fn write() -> std::sync::RwLockWriteGuard<'static, Table> {
    TABLE.write().unwrap_or_else(|p| p.into_inner())
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The spec of `shape`, built once per shape; does not change what its id names.
pub fn intern(shape: CustomSpec) -> &'static MetricSpec {
    if let Some(spec) = read().interned.get(&shape) {
        return spec;
    }
    let mut table = write();
    if let Some(spec) = table.interned.get(&shape) {
        return spec;
    }
    let spec: &'static MetricSpec = Box::leak(Box::new(MetricSpec {
        id: leak(format!("{FAMILY}.{}", shape.name)),
        family: Family::Criteria,
        name: leak(shape.name.clone()),
        needs: Box::leak(shape.needs.clone().into_boxed_slice()),
        judge: shape.judge,
        lower_is_better: shape.lower_is_better,
        scope: Scope::Item,
        synthesised: false,
        description: leak(shape.description.clone()),
    }));
    table.interned.insert(shape, spec);
    spec
}

/// Makes the spec's id name it from now on.
pub fn register(spec: &'static MetricSpec) {
    write().by_id.insert(spec.id.to_string(), spec);
}

/// The spec `id` names, when it is a registered custom spec.
pub fn find(id: &str) -> Option<&'static MetricSpec> {
    if !id.starts_with(FAMILY) {
        return None;
    }
    read().by_id.get(id).copied()
}

/// Every registered custom spec, by id.
pub fn all() -> Vec<&'static MetricSpec> {
    let mut specs: Vec<&'static MetricSpec> = read().by_id.values().copied().collect();
    specs.sort_by_key(|s| s.id);
    specs
}
