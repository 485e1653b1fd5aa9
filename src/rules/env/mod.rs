//! env rules (see the module list in `rules/mod.rs` for what each area covers).

use super::Rule;

/// The env rules.
pub static RULES: &[&dyn Rule] = &[];
