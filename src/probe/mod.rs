//! probe (being built; see the issue tracker).
