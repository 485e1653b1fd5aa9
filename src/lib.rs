//! rocmcheck: find ROCm / PyTorch / gfx-target mismatches before they cost a day.
//!
//! Data flow:
//!
//! ```text
//! matrix/*.yaml ──► Matrix (validated, embedded; --matrix DIR overrides)
//!   probe (files under --root, one Python subprocess) ──► Facts ─┐
//!   Dockerfile parser + resolver ──► Facts ─────────────────────┤
//!                                                               ▼
//!                                  rules (pure) ──► Findings ──► policy ──► report (formats)
//!   matrix entries ──► candidates ──► docker build ──► smoke run ──► SmokeResult ──► report
//! ```
//!
//! Probes never judge; rules never read files or run processes; only [`policy`] changes
//! severities; renderers only render. Layers read top-down: [`finding`] (findings and rule
//! metadata) knows nothing of [`rules`]; [`matrix`] is validated, read-only knowledge, and the
//! side-effecting modules ([`probe`], [`docker`], [`sync`] for network reads) sit beside it.
//! On top, [`commands`] are the commands as library functions (typed options in, a report
//! rendered and a typed error out); [`cli`] only parses arguments into them. Every runtime and
//! HTTP client comes from [`http`].
#![deny(missing_docs)]
// Nested `if let` reads better than let-chains in the validation and probing code.
#![allow(clippy::collapsible_if)]

pub mod cli;
pub mod commands;
pub mod config;
pub mod data;
pub mod docker;
pub mod dockerfile;
pub mod exit;
pub mod facts;
pub mod finding;
pub mod fix;
pub mod github;
pub mod http;
pub mod input;
pub mod matrix;
pub mod online;
pub mod policy;
pub mod probe;
pub mod report;
pub mod rules;
pub mod smoke;
pub mod sync;
pub mod triage;
pub mod version;

/// The embedded matrix as build.rs validated and packed it ([`matrix::validate::pack`]); read by
/// [`matrix::embedded::get`]. build.rs compiles `matrix/` itself and defines its own (empty) one.
pub(crate) static PACKED_MATRIX: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/matrix.packed"));
