//! dockerfile (being built; see the issue tracker).
