//! The shapes commands take and return. They mirror core types field by field where the
//! UI needs them, so the core stays free of UI concerns and the TypeScript bindings
//! (`bindings.rs`) are generated from one place.

pub mod cases;
pub mod compare;
pub mod datasets;
pub mod reports;
pub mod runs;
pub mod settings;
