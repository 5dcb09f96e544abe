//! `ReportContext`: the plain data a report shows, built from the results files and kept apart
//! from rendering so it can be tested without parsing HTML. One file per section of the page
//! that needs more than its input (`section/` renders them).

#[cfg(feature = "cli")]
mod compare;
#[cfg(feature = "cli")]
mod detect;
mod failures;
mod overview;
mod report;
mod run;
mod summary;
#[cfg(test)]
pub(crate) mod test_helpers;

#[cfg(feature = "cli")]
pub(crate) use compare::CompareContext;
#[cfg(feature = "cli")]
pub(crate) use detect::DetectContext;
pub(crate) use failures::FailedRun;
pub(crate) use overview::verdict_rank;
pub(crate) use report::ReportContext;
pub(crate) use run::RunContext;
pub(crate) use summary::{MeasurementCard, SummaryRow};
