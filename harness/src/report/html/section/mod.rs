//! The report's sections, one file each, in page order: each renders one part of a
//! `ReportContext` into HTML. Every string from a scenario or a results file passes through
//! `escape`; nothing here reads files or computes statistics. The detect and compare sections
//! come with the `cli` feature (only those commands write their files).

#[cfg(feature = "cli")]
mod compare;
#[cfg(feature = "cli")]
mod detect;
mod failures;
mod gpu;
mod host;
mod leaks;
mod measurements;
mod overview;
mod summary;

#[cfg(feature = "cli")]
pub(crate) use compare::compare;
#[cfg(feature = "cli")]
pub(crate) use detect::detect;
pub(crate) use failures::failures;
pub(crate) use gpu::gpu_notes;
pub(crate) use host::host;
pub(crate) use leaks::leaks;
pub(crate) use measurements::measurements;
pub(crate) use overview::overview;
pub(crate) use summary::summary;
