//! The three outcomes of a run, named once so that "findings" and "rocmcheck failed" can never be
//! confused: 0 nothing at or above the threshold, 1 findings, 2 usage or input error.

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing at or above the failure threshold.
    Success,
    /// Findings at or above the threshold.
    Findings,
    /// Usage or input error (bad flags, unreadable or invalid input), or rocmcheck itself failed.
    Error,
    /// Stopped by Ctrl-C (SIGINT) after printing what had finished: 130, as shells report it.
    Interrupted,
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
            ExitStatus::Interrupted => 130,
        }
    }
    /// The worse of two outcomes (Interrupted > Error > Findings > Success).
    pub fn max(self, other: ExitStatus) -> ExitStatus {
        if self.code() >= other.code() { self } else { other }
    }
}
