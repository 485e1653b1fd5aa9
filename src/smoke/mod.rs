//! smoke (being built; see the issue tracker).
