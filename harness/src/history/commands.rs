//! The `history add`, `history check` and `history report` commands.

use std::path::Path;

use super::{Change, Store, build_series, find_changes, write_history_html};
use crate::errors::Error;
use crate::report::read_results;
use crate::stats::ChangePointConfig;

/// `history add DIR`: stores the run in `dir` under `label`; returns its id.
pub fn add(dir: &Path, db: &Path, label: Option<&str>) -> Result<i64, Error> {
    let results = read_results(dir)?;
    Store::open(db)?.add(&results, label)
}

/// `history check`: every change point of every series; writes `out/changes.json` and
/// `out/index.html`. Returns the changes and whether one that the environment does not explain
/// lies in the newest `window` runs.
pub fn check(db: &Path, out: &Path, window: usize) -> Result<(Vec<Change>, bool), Error> {
    let store = open_existing(db)?;
    let runs = store.runs()?;
    let series = build_series(&runs, &store.values()?);
    let config = ChangePointConfig::default();
    let mut changes: Vec<Change> = series
        .iter()
        .flat_map(|s| super::alloc_changes::exact_changes(s, &runs).unwrap_or_else(|| find_changes(s, &runs, &config)))
        .collect();
    super::explain::attach(&mut changes, &series, &runs, &store)?;
    create(out)?;
    let path = out.join("changes.json");
    let text = serde_json::to_string_pretty(&changes).expect("changes serialize");
    std::fs::write(&path, text).map_err(|source| Error::Io {
        what: format!("writing {}", path.display()),
        source,
    })?;
    write_history_html(out, runs.len(), &series, &changes)?;
    let first_new = runs.len().saturating_sub(window) + 1;
    // A change at a runner change is reported, labelled, but is no reason to fail the check.
    let recent = changes.iter().any(|c| c.run >= first_new && !c.environment_changed());
    Ok((changes, recent))
}

/// One change as `history check` prints it: a line, then for a counted change the top 3
/// functions behind it, indented.
pub fn change_text(c: &Change) -> String {
    let what = if c.environment_changed() { "environment changed" } else { "change" };
    if let Some(p) = &c.per_call {
        let at = c.label.as_deref().or(c.commit.as_deref()).unwrap_or(&c.started_at);
        return format!(
            "{what}  {} {}  at run {} ({at})  {} -> {}  {p}  exact",
            c.name, c.metric, c.run, c.before, c.after
        );
    }
    let mut text = format!(
        "{what}  {} {}  at run {} ({})  {:.4} -> {:.4}  x{:.3}  p={:.3}",
        c.name,
        c.metric,
        c.run,
        c.label.as_deref().or(c.commit.as_deref()).unwrap_or(&c.started_at),
        c.before,
        c.after,
        c.ratio,
        c.p_value
    );
    if c.environment_changed() {
        text += &format!("\n    the fingerprint changed here: {}", c.environment.join("; "));
    }
    for line in c.explain.iter().flat_map(|x| crate::explain::terminal_lines(x, 3)) {
        text.push('\n');
        text += &line;
    }
    if let Some(n) = &c.explain_note {
        text += &format!("\n    note: {n}");
    }
    text
}

/// `history report`: the trends alone, in `out/index.html`.
pub fn report(db: &Path, out: &Path) -> Result<std::path::PathBuf, Error> {
    let store = open_existing(db)?;
    let runs = store.runs()?;
    let series = build_series(&runs, &store.values()?);
    create(out)?;
    write_history_html(out, runs.len(), &series, &[])
}

/// Reading a history that is not there is a mistake (a wrong path, a cache not restored), not
/// an empty history: no file is created.
fn open_existing(db: &Path) -> Result<Store, Error> {
    if !db.is_file() {
        return Err(Error::History {
            path: db.to_owned(),
            detail: "no such file (--db); `history add` or `run --history` creates it".into(),
        });
    }
    Store::open(db)
}

fn create(out: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(out).map_err(|source| Error::OutDir {
        path: out.to_owned(),
        source,
    })
}
