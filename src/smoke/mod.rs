//! The smoke test: the Python payload shipped inside rocmcheck and the model of what it reports.
//!
//! The payload (`payload.py`, standard library only) is copied into a container (or run with the
//! local `python3` for `smoke --local`) and prints one JSON document. [`result`] turns that
//! document, or whatever came out instead, into a [`result::SmokeResult`].

pub mod checks;
pub mod figures;
pub mod local;
pub mod result;

pub use result::{Classification, SmokeResult};

/// The payload's source, embedded at build time.
pub const PAYLOAD: &str = include_str!("payload.py");

/// The path the payload gets inside a container.
pub const PAYLOAD_PATH: &str = "/tmp/rocmcheck-payload.py";
