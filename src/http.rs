//! The one place that builds an async runtime and an HTTP client: every network read
//! (`matrix update`, `matrix sync`, `--online`, `triage --issue`) and every Docker command runs on
//! a current-thread runtime from [`runtime`], and reads through a client from [`client`].

use std::time::Duration;

/// A current-thread tokio runtime (timers and I/O enabled) for one command.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}

/// How a client behaves.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// What the client is for, in the user agent: `rocmcheck/VERSION (PURPOSE)`.
    pub purpose: &'static str,
    /// The whole request's limit.
    pub timeout: Duration,
    /// The connection's limit (none: only `timeout`).
    pub connect_timeout: Option<Duration>,
    /// Redirects followed (none: reqwest's default, 10).
    pub redirects: Option<usize>,
}

/// An HTTP client (rustls with the ring provider, installed once per process).
pub fn client(o: &ClientOptions) -> Result<reqwest::Client, String> {
    // reqwest is built without a default crypto provider; install ring once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut b = reqwest::Client::builder().timeout(o.timeout).user_agent(format!(
        "rocmcheck/{} ({})",
        env!("CARGO_PKG_VERSION"),
        o.purpose
    ));
    if let Some(c) = o.connect_timeout {
        b = b.connect_timeout(c);
    }
    if let Some(n) = o.redirects {
        b = b.redirect(reqwest::redirect::Policy::limited(n));
    }
    b.build().map_err(|e| format!("cannot create the HTTP client: {e}"))
}
