//! `history` and `merge`: validated arguments into the history and merge commands.

use super::exit_code::ExitCodes;
use super::history_args::{HistoryArgs, HistoryCommand, MergeArgs};
use crate::errors::Error;
use crate::history::commands;

pub(crate) fn run(a: &HistoryArgs) -> Result<u8, Error> {
    match &a.command {
        HistoryCommand::Add { dir, db, label } => {
            let id = commands::add(dir, db, label.as_deref())?;
            println!("history: run {id} added to {}", db.display());
            Ok(ExitCodes::OK)
        }
        HistoryCommand::Check { db, out, window } => {
            let (changes, recent) = commands::check(db, out, *window as usize)?;
            for c in &changes {
                if let Some(p) = &c.per_call {
                    let at = c.label.as_deref().or(c.commit.as_deref()).unwrap_or(&c.started_at);
                    println!(
                        "change  {} {}  at run {} ({at})  {} -> {}  {p}  exact",
                        c.name, c.metric, c.run, c.before, c.after
                    );
                    continue;
                }
                println!(
                    "change  {} {}  at run {} ({})  {:.4} -> {:.4}  x{:.3}  p={:.3}",
                    c.name,
                    c.metric,
                    c.run,
                    c.label.as_deref().or(c.commit.as_deref()).unwrap_or(&c.started_at),
                    c.before,
                    c.after,
                    c.ratio,
                    c.p_value
                );
            }
            println!("{} change(s); report: {}", changes.len(), out.join("index.html").display());
            Ok(if recent { ExitCodes::FAILURES } else { ExitCodes::OK })
        }
        HistoryCommand::Report { db, out } => {
            println!("report: {}", commands::report(db, out)?.display());
            Ok(ExitCodes::OK)
        }
    }
}

pub(crate) fn merge(m: &MergeArgs) -> Result<u8, Error> {
    let out = crate::merge::merge(&m.dirs, &m.out)?;
    println!("merged {} shards: {}", m.dirs.len(), out.display());
    Ok(ExitCodes::OK)
}
