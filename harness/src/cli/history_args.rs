//! Raw arguments of `history` and `merge` (clap's derive: the CLI's), and `run`'s shard options
//! (clap's builder: a suite binary's too).

use std::path::PathBuf;

use super::builder::{builder_args, group, one, value};

/// `history`: keep finished runs in a SQLite file and find change points across them.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, clap::Args)]
pub struct HistoryArgs {
    /// What to do with the history.
    #[command(subcommand)]
    pub command: HistoryCommand,
}

/// Subcommands of `history`.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, clap::Subcommand)]
pub enum HistoryCommand {
    /// Store a finished run directory (its results.json / results.jsonl) in the history.
    Add {
        /// The run's output directory.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The history database (created if missing).
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// A label for the run (a version, a PR number), shown with the changes it starts.
        #[arg(long, value_name = "TEXT")]
        label: Option<String>,
    },
    /// Find level shifts per scenario and metric; write changes.json and index.html; exit 1 when
    /// a change lies in the newest --window runs.
    Check {
        /// The history database.
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// Output directory for changes.json and index.html.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Runs counted as new: a change among them makes the exit status 1.
        #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
        window: u32,
    },
    /// Draw the trends (index.html) without looking for changes.
    Report {
        /// The history database.
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// Output directory for index.html.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

/// `merge`: rebuild one result set from the shard directories of a `--partition`ed run.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, clap::Args)]
pub struct MergeArgs {
    /// The shards' output directories (all N of them).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Output directory of the merged result set.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// `run`'s options for spreading a plan over machines, continuing it, and keeping its history.
/// Flags and help: [`ShardArgs::augment`].
#[derive(Debug, Clone, Default)]
pub struct ShardArgs {
    /// `--partition K/N`.
    pub partition: Option<crate::plan::Partition>,
    /// `--resume DIR`.
    pub resume: Option<PathBuf>,
    /// `--history FILE`.
    pub history: Option<PathBuf>,
    /// `--history-label TEXT`.
    pub history_label: Option<String>,
}
builder_args!(ShardArgs, "ShardArgs");

impl ShardArgs {
    pub(super) fn augment(cmd: clap::Command) -> clap::Command {
        let args = [
            value(
                "partition",
                "partition",
                "K/N",
                clap::value_parser!(crate::plan::Partition),
                "Run only shard K of N of the seeded plan (every N-th job from K-1 on); give every shard the \
                 same --seed, then `merge` the N output directories",
            ),
            value(
                "resume",
                "resume",
                "DIR",
                clap::value_parser!(PathBuf),
                "Continue the interrupted run in DIR (its results.jsonl), with its seed and plan, skipping the \
                 processes it recorded; its output goes to DIR",
            )
            .conflicts_with("out"),
            value(
                "history",
                "history",
                "FILE",
                clap::value_parser!(PathBuf),
                "Add the finished run to this history database (see `history`)",
            ),
            value(
                "history_label",
                "history-label",
                "TEXT",
                clap::value_parser!(String),
                "Label of the run in the history (with --history)",
            )
            .requires("history"),
        ];
        group(cmd, "ShardArgs", args)
    }

    pub(super) fn from_matches(m: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(ShardArgs {
            partition: one(m, "partition"),
            resume: one(m, "resume"),
            history: one(m, "history"),
            history_label: one(m, "history_label"),
        })
    }
}
