//! The report crate end to end, as one test binary (typst links once): real stores built
//! by evaluating the example dataset with the offline judge, reports written to temp
//! dirs, and the Markdown and PDF read back.

mod compare;
mod determinism;
mod escaping;
mod fixture;
mod short;
mod structure;
