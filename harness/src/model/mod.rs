//! Plain serde records that every stage passes along: what ran, how it ended, what it measured.
//!
//! Nothing here runs anything. Runners produce these types; reporters consume them.
//!
//! Owns the records and the pure functions over them (`summarize_runs`, `RunMeta::started`).
//! May import `stats` only.

mod bisect;
mod compare;
mod detect;
mod explain;
mod gpu;
mod host;
mod listed;
mod metric;
mod outcome;
mod record;
mod results;
mod slowed;
mod summarize;

pub use bisect::{BISECT_FORMAT_VERSION, BisectFile, BisectStep, BuildCounts, Candidate, RangeChange, RangeCommit, StepVerdict};
pub use compare::{CalibrationEntry, CompareEntry, CompareRun, CompareVerdict, NoiseSources, NullControl, SequentialRun, SideStats};
pub use detect::{
    DETECT_FORMAT_VERSION, DetectEntry, DetectRun, Evidence, EvidenceKind, FailureRate, Mechanism, MechanismKind, OrderVerdict,
    PhaseRecord, RunCounts, ScheduleRecord, ValueShift, WouldDecide,
};
pub use explain::{ExplainEntry, ExplainStatus, Profile};
pub use gpu::{
    GpuSettings, LockedClocks, MOSTLY_THROTTLED, THROTTLE_REASONS, ThrottleNote, parse_throttle_mask, throttle_notes, throttle_reason_names,
};
pub use host::{GpuState, HostInfo};
pub use listed::Listed;
pub use metric::{Better, MetricSample, Unit};
pub use outcome::headline;
pub use outcome::{Outcome, OutcomeCounts, Status};
pub use record::{EnvChange, ProcessFacts, RunRecord, ScenarioKind};
pub use results::{
    CounterMeta, FORMAT_VERSION, MetricSummary, PerCall, PlanInfo, ResultsFile, RunMeta, ScenarioSummary, ShardOrigin, Slowed, Verdict,
};
pub use slowed::{RememberedSpeed, SLOWED_FACTOR, SLOWED_ONE_END, fastest_probe, full_speed};
pub(crate) use slowed::{full_speed_stands, is_slowed};
pub use summarize::{summarize_judged, summarize_remembering, summarize_runs};
