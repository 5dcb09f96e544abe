//! `Store`: the history database (SQLite), its schema, migrations and the runs in it.
//!
//! The schema is documented in `docs/history.md`. `PRAGMA user_version` holds the schema
//! version; [`MIGRATIONS`] takes a file of any older version to the newest, each step in one
//! transaction. Adding a run is one transaction too, so a failure (a full disk, a lock held too
//! long, a kill) leaves the runs already stored as they were.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::errors::Error;
use crate::model::{ResultsFile, ScenarioKind};

/// Schema steps, in order: `MIGRATIONS[v]` takes a database from version `v` to `v + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: runs and their per-process metric values.
    "CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        run_key     TEXT NOT NULL UNIQUE,
        started_at  TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        seed        TEXT NOT NULL,
        binary      TEXT NOT NULL,
        hostname    TEXT NOT NULL,
        git_commit  TEXT,
        git_dirty   INTEGER NOT NULL,
        label       TEXT,
        added_at    TEXT NOT NULL,
        command     TEXT NOT NULL
    );
    CREATE TABLE process_values (
        run_id     INTEGER NOT NULL REFERENCES runs(id),
        scenario   TEXT NOT NULL,
        metric     TEXT NOT NULL,
        unit       TEXT NOT NULL,
        better     TEXT NOT NULL,
        repetition INTEGER NOT NULL,
        run_index  INTEGER NOT NULL,
        value      REAL NOT NULL
    );
    CREATE INDEX process_values_series ON process_values (scenario, metric, run_id);",
    // 2: the counter source of a value (`--counters`), so series of two sources never mix.
    "ALTER TABLE process_values ADD COLUMN source TEXT;",
    // 3: per-function instructions of counted processes (JSON `Profile`), which explain the
    // change points of instructions series.
    "CREATE TABLE profiles (
        run_id    INTEGER NOT NULL REFERENCES runs(id),
        scenario  TEXT NOT NULL,
        source    TEXT NOT NULL,
        profile   TEXT NOT NULL
    );",
    // 4: the run's environment fingerprint (JSON), so a change point at a runner change says so.
    "ALTER TABLE runs ADD COLUMN fingerprint TEXT;",
];

/// The newest schema version this harness writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// How long to wait for another writer's lock before failing.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

pub use super::stored::{StoredRun, StoredValue};

/// An open history database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and migrates it to [`SCHEMA_VERSION`].
    pub fn open(path: &Path) -> Result<Self, Error> {
        let conn = Connection::open(path).map_err(db_err(path, "opening"))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(db_err(path, "configuring"))?;
        let mut store = Store {
            conn,
            path: path.to_owned(),
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<(), Error> {
        let path = self.path.clone();
        let version: u32 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db_err(&path, "reading the schema version of"))?;
        if version > SCHEMA_VERSION {
            return Err(Error::History {
                path,
                detail: format!("schema version {version} is newer than this harness's {SCHEMA_VERSION}; use a newer harness"),
            });
        }
        for (v, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = self.conn.transaction().map_err(db_err(&path, "migrating"))?;
            tx.execute_batch(sql).map_err(db_err(&path, "migrating"))?;
            tx.pragma_update(None, "user_version", v + 1).map_err(db_err(&path, "migrating"))?;
            tx.commit().map_err(db_err(&path, "migrating"))?;
        }
        Ok(())
    }

    /// Stores every measured process value of `results` under `label`; returns the run's id.
    /// A run already stored (same start time, seed and binary) is refused with
    /// [`Error::HistoryDuplicate`].
    pub fn add(&mut self, results: &ResultsFile, label: Option<&str>) -> Result<i64, Error> {
        let path = self.path.clone();
        let meta = &results.meta;
        let key = run_key(results);
        let tx = self.conn.transaction().map_err(db_err(&path, "writing to"))?;
        let existing: Option<i64> = tx
            .query_row("SELECT id FROM runs WHERE run_key = ?1", [&key], |r| r.get(0))
            .optional()
            .map_err(db_err(&path, "reading"))?;
        if let Some(id) = existing {
            return Err(Error::HistoryDuplicate {
                path,
                id,
                started_at: meta.started_at.clone(),
            });
        }
        let (commit, dirty) = split_commit(meta.host.git_commit.as_deref());
        tx.execute(
            "INSERT INTO runs (run_key, started_at, finished_at, seed, binary, hostname, git_commit, git_dirty, label, added_at, command, fingerprint)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                key,
                meta.started_at,
                meta.finished_at,
                meta.seed.to_string(),
                meta.binary,
                meta.host.hostname,
                commit,
                dirty,
                label,
                crate::clock::rfc3339(std::time::SystemTime::now()),
                serde_json::to_string(&meta.command).expect("strings serialize"),
                serde_json::to_string(&meta.host.fingerprint).expect("strings serialize"),
            ],
        )
        .map_err(db_err(&path, "writing to"))?;
        let id = tx.last_insert_rowid();
        {
            let mut insert = tx
                .prepare("INSERT INTO process_values (run_id, scenario, metric, unit, better, repetition, run_index, value, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")
                .map_err(db_err(&path, "writing to"))?;
            for r in results.runs.iter().filter(|r| r.kind == ScenarioKind::Measure) {
                for (m, p) in r.metrics.iter().filter_map(|m| Some((m, m.profile.as_ref()?))) {
                    let text = serde_json::to_string(p).expect("a profile serializes");
                    tx.execute(
                        "INSERT INTO profiles (run_id, scenario, source, profile) VALUES (?1, ?2, ?3, ?4)",
                        params![id, r.scenario, m.source.as_deref().unwrap_or(""), text],
                    )
                    .map_err(db_err(&path, "writing to"))?;
                }
                for m in r.metrics.iter().filter(|m| m.value.is_finite()) {
                    let better = serde_json::to_value(m.better).expect("enum serializes");
                    insert
                        .execute(params![
                            id,
                            r.scenario,
                            m.name,
                            m.unit.symbol(),
                            better.as_str(),
                            r.repetition as i64,
                            r.run_index as i64,
                            m.value,
                            m.source
                        ])
                        .map_err(db_err(&path, "writing to"))?;
                }
            }
        }
        tx.commit().map_err(db_err(&path, "writing to"))?;
        Ok(id)
    }

    /// Every stored run, oldest first (in the order they were added).
    pub fn runs(&self) -> Result<Vec<StoredRun>, Error> {
        let path = &self.path;
        let mut q = self
            .conn
            .prepare("SELECT id, started_at, seed, git_commit, git_dirty, hostname, label, fingerprint FROM runs ORDER BY id")
            .map_err(db_err(path, "reading"))?;
        let rows = q
            .query_map([], |r| {
                Ok(StoredRun {
                    id: r.get(0)?,
                    started_at: r.get(1)?,
                    seed: r.get(2)?,
                    commit: r.get(3)?,
                    dirty: r.get(4)?,
                    hostname: r.get(5)?,
                    label: r.get(6)?,
                    fingerprint: r
                        .get::<_, Option<String>>(7)?
                        .and_then(|t| serde_json::from_str(&t).ok())
                        .unwrap_or_default(),
                })
            })
            .map_err(db_err(path, "reading"))?;
        rows.collect::<Result<_, _>>().map_err(db_err(path, "reading"))
    }

    /// Every stored process value, by scenario, metric, run and process order.
    pub fn values(&self) -> Result<Vec<StoredValue>, Error> {
        let path = &self.path;
        let mut q = self
            .conn
            .prepare(
                "SELECT run_id, scenario, metric, unit, value, source FROM process_values ORDER BY scenario, metric, run_id, run_index",
            )
            .map_err(db_err(path, "reading"))?;
        let rows = q
            .query_map([], |r| {
                Ok(StoredValue {
                    run_id: r.get(0)?,
                    scenario: r.get(1)?,
                    metric: r.get(2)?,
                    unit: r.get(3)?,
                    value: r.get(4)?,
                    source: r.get(5)?,
                })
            })
            .map_err(db_err(path, "reading"))?;
        rows.collect::<Result<_, _>>().map_err(db_err(path, "reading"))
    }
}

impl Store {
    /// The stored profiles of `scenario` counted by `source` in run `run_id`. A profile that
    /// does not parse (written by a newer harness) is left out: it only explains.
    pub fn profiles(&self, run_id: i64, scenario: &str, source: &str) -> Result<Vec<crate::model::Profile>, Error> {
        let path = &self.path;
        let mut q = self
            .conn
            .prepare("SELECT profile FROM profiles WHERE run_id = ?1 AND scenario = ?2 AND source = ?3")
            .map_err(db_err(path, "reading"))?;
        let rows = q
            .query_map(params![run_id, scenario, source], |r| r.get::<_, String>(0))
            .map_err(db_err(path, "reading"))?;
        let texts: Vec<String> = rows.collect::<Result<_, _>>().map_err(db_err(path, "reading"))?;
        Ok(texts.iter().filter_map(|t| serde_json::from_str(t).ok()).collect())
    }
}

/// What identifies a run: its start time, seed and binary (a resumed or merged run keeps the
/// original start time, so it is the same run).
fn run_key(results: &ResultsFile) -> String {
    let m = &results.meta;
    format!("{}|{}|{}", m.started_at, m.seed, m.binary)
}

/// `abc123-dirty` into (`abc123`, dirty); an "(at build)" note stays part of the commit.
fn split_commit(commit: Option<&str>) -> (Option<String>, bool) {
    match commit {
        None => (None, false),
        Some(c) => match c.strip_suffix("-dirty") {
            Some(clean) => (Some(clean.to_owned()), true),
            None => (Some(c.to_owned()), false),
        },
    }
}

fn db_err(path: &Path, doing: &'static str) -> impl Fn(rusqlite::Error) -> Error {
    let path = path.to_owned();
    move |e| Error::History {
        path: path.clone(),
        detail: format!("{doing} the history database: {e}"),
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
