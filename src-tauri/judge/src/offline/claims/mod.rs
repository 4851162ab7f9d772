//! Is each claim backed? Claim splitting (`split`), one claim's parts (`claim`), what
//! contradicts a passage (`conflicts`), what a passage's scope excludes (`scoping`), the
//! support decision (`support`) and the answer against the reference (`reference`).

pub(super) mod claim;
pub(super) mod conflicts;
pub(super) mod reference;
pub(super) mod scoping;
pub(super) mod split;
pub(super) mod support;
#[cfg(test)]
mod support_tests;
#[cfg(test)]
mod tables_tests;
