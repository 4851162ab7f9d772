//! Do the passages and the answer cover the question? Chunk relevance and coverage
//! (`relevance`), the question's aspects (`aspects`), the kind of answer it asks for
//! (`answer_type`) and what the semantic model's similarities mean (`meaning`).

pub(super) mod answer_type;
pub(super) mod aspects;
pub(super) mod meaning;
pub(super) mod relevance;
