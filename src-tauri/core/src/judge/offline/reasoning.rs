//! placeholder
use crate::judge::task::*;
use super::SupportParams;
pub fn reason(_q: &str, _a: &str, _c: &[String], _p: &SupportParams) -> Reasoning { todo!() }
