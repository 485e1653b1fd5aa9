//! host rules: devices, kernel, driver, memory (`env` only).

use super::Rule;

/// The host rules.
pub static RULES: &[&dyn Rule] = &[];
