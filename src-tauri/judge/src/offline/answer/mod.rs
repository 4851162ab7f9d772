//! The answer on its own: relevance, completeness and tone (`review`), clarity,
//! coherence and conciseness (`style`), and the scorecard and grading note (`scorecard`).

pub(super) mod review;
pub(super) mod scorecard;
pub(super) mod style;
