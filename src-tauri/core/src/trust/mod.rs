//! How far a run's scores can be trusted: people's labels (imported or set one by one),
//! the judge's agreement with them (alignment, with the pass rate corrected for the
//! judge's measured error), the calibration of its scores, and the agreement with scores
//! a file brought from another tool. The trust statement of a report reads these
//! (`view::trust`).

pub mod alignment;
pub mod calibration;
pub mod corrected;
pub mod labels;
pub mod prior;
