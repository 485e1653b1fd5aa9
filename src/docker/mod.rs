//! docker (being built; see the issue tracker).
