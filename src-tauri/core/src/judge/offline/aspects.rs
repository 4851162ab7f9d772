//! placeholder
pub fn extract(_q: &str) -> Vec<String> { todo!() }
