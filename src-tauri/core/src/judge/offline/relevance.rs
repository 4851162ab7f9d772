//! placeholder
use crate::judge::task::*;
use super::SupportParams;
pub fn score_chunks(_q: &str, _c: &[String]) -> Vec<ChunkScore> { todo!() }
pub fn coverage(_q: &str, _a: &[String], _c: &[String], _p: &SupportParams) -> Vec<AspectCoverage> { todo!() }
