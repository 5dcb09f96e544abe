//! Documented exit statuses, mapped in one place.

use crate::errors::Error;

/// Exit statuses of every harness command.
pub struct ExitCodes;

impl ExitCodes {
    /// Everything ran; nothing failed.
    pub const OK: u8 = 0;
    /// A check failed, crashed, timed out or was flaky (or detect/compare found something).
    pub const FAILURES: u8 = 1;
    /// Bad command line or input: nothing ran.
    pub const USAGE: u8 = 2;
    /// The harness itself could not do its work (I/O).
    pub const HARNESS: u8 = 3;
    /// A scenario failed in a smoke test under `cargo test` or nextest: libtest's own status.
    pub const LIBTEST_FAILED: u8 = 101;

    /// The status for an expected error.
    pub fn for_error(e: &Error) -> u8 {
        match e {
            Error::InvalidFlag { .. } | Error::NothingMatched { .. } | Error::BadResultsFile { .. } => Self::USAGE,
            Error::NotASuite { .. } | Error::NotATestBinary { .. } | Error::NoResults { .. } => Self::USAGE,
            Error::Cargo { .. } => Self::USAGE,
            Error::HistoryDuplicate { .. } | Error::Merge { .. } => Self::USAGE,
            Error::DuplicateScenario { .. } | Error::NotBuiltIn { .. } | Error::CliOnly { .. } | Error::Unsupported { .. } => Self::USAGE,
            // Asking to count where nothing can count is bad input: the message says what would.
            Error::Counters { .. } => Self::USAGE,
            // An output directory that cannot be created or written is an I/O failure, as the
            // README documents, even when the path was the user's choice.
            Error::OutDir { .. } | Error::Io { .. } | Error::History { .. } => Self::HARNESS,
        }
    }
}
