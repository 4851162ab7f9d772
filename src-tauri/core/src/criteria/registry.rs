//! A criterion in the metric catalogue: one `MetricSpec` per stored criterion, kept in
//! the catalogue's run-time table (`catalogue::custom`). `Store::open` registers the
//! latest version of every stored criterion (removed ones too: old runs still name
//! them), and saving one registers it.
//!
//! Owns: turning a definition into its spec. Must not: read SQL.

use super::Definition;
use crate::catalogue::custom::{self, CustomSpec};
use crate::catalogue::MetricSpec;

/// The spec of `def`, built once per shape; does not change what its id names.
pub fn spec_of(def: &Definition) -> &'static MetricSpec {
    custom::intern(CustomSpec {
        name: def.name.clone(),
        needs: def.needs(),
        judge: def.needs_judge(),
        lower_is_better: def.lower_is_better(),
        description: def.description(),
    })
}

/// Makes `criteria.<name>` name this definition's spec, and returns it.
pub fn register(def: &Definition) -> &'static MetricSpec {
    let spec = spec_of(def);
    custom::register(spec);
    spec
}
