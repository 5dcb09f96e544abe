//! How a culprit acts on its victim or brittle scenario — `env`, `cwd`, `file` or `memory` — from
//! the [`Footprint`]s observed in their processes, with a suggested fix for each.
//!
//! `env`: the culprit wrote (set, removed, cleared) a variable the scenario read. `cwd`: the
//! culprit left the process in a directory the scenario then started in. `file`: the culprit
//! left (or removed) a path the scenario touched. `memory`: both were observed and none of these
//! was seen, so the effect travels through in-process state (statics, caches, interned data).
//! Nothing is said about a pair when either side was never observed (no preload).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::footprint::Footprint;
use crate::model::{DetectEntry, Mechanism, MechanismKind, OrderVerdict};

/// Fill `mechanism` of every victim and brittle entry from `processes`: per observed process,
/// the footprints of the scenarios that ran there, in run order.
///
/// A culprit's effect is read from the processes where it ran before the target, so a path or
/// variable is paired within one process. When the effect names a different path in different
/// processes (a file name with the process id in it), the one seen most often is reported and
/// the fix says how many others there were. Pairs never seen in one process fall back to each
/// side's footprints merged over all runs.
pub fn attribute(entries: &mut [DetectEntry], processes: &[Vec<(String, Arc<Footprint>)>]) {
    for e in entries.iter_mut() {
        let (victim, culprits) = match e.verdict {
            OrderVerdict::Victim => (true, &e.polluters),
            OrderVerdict::Brittle => (false, &e.state_setters),
            _ => continue,
        };
        let mut out = Vec::new();
        for c in culprits {
            out.extend(for_culprit(&e.name, c, victim, &e.cleaners, processes));
        }
        // In-process state leaves no footprint; the victim's own failure may name it.
        let hint = e.evidence.iter().find_map(|ev| ev.message.as_deref()).and_then(state_hint);
        if let Some(h) = hint {
            for m in out.iter_mut().filter(|m| m.kind == MechanismKind::Memory) {
                m.name = format!("in-process state: `{h}` in the failure (no env, cwd or file effect observed)");
            }
        }
        e.mechanism = out;
    }
}

/// The type or value a failure message names, if any: the `Err` of an unwrap
/// (`SetLoggerError`), else the first `...Error` type, else an assertion's `left` value.
pub fn state_hint(message: &str) -> Option<String> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect() };
    if let Some((_, rest)) = message.split_once("`Err` value: ") {
        let id = ident(rest.trim_start());
        if !id.is_empty() {
            return Some(id);
        }
    }
    let words = message.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'));
    if let Some(t) = words
        .clone()
        .find(|w| w.len() > 5 && w.starts_with(char::is_uppercase) && w.ends_with("Error"))
    {
        return Some(t.to_owned());
    }
    let (_, rest) = message.split_once("left: ")?;
    let value: String = rest.lines().next()?.chars().take(40).collect();
    (!value.trim().is_empty()).then(|| format!("left: {}", value.trim()))
}

fn merged(name: &str, processes: &[Vec<(String, Arc<Footprint>)>]) -> Option<Footprint> {
    let mut all = processes.iter().flatten().filter(|(n, _)| n == name).map(|(_, f)| f).peekable();
    all.peek()?;
    let mut m = Footprint::default();
    all.for_each(|f| m.merge(f));
    Some(m)
}

fn for_culprit(
    target: &str,
    culprit: &str,
    victim: bool,
    cleaners: &[String],
    processes: &[Vec<(String, Arc<Footprint>)>],
) -> Vec<Mechanism> {
    let mut found: Vec<Vec<Mechanism>> = Vec::new();
    for p in processes {
        let at = |n: &str| p.iter().position(|(x, _)| x == n);
        if let (Some(c), Some(t)) = (at(culprit), at(target))
            && c < t
        {
            found.push(between(target, &p[t].1, culprit, &p[c].1, victim, cleaners));
        }
    }
    if found.is_empty() {
        let (Some(on), Some(by)) = (merged(target, processes), merged(culprit, processes)) else {
            return vec![];
        };
        found.push(between(target, &on, culprit, &by, victim, cleaners));
    }
    // Memory only where no process showed an env, cwd or file effect.
    let seen: Vec<&Mechanism> = found.iter().flatten().filter(|m| m.kind != MechanismKind::Memory).collect();
    if seen.is_empty() {
        return found.swap_remove(0);
    }
    let mut by_kind: BTreeMap<MechanismKind, BTreeMap<&str, (usize, &Mechanism)>> = BTreeMap::new();
    for m in seen {
        by_kind.entry(m.kind).or_default().entry(m.name.as_str()).or_insert((0, m)).0 += 1;
    }
    let mut out = Vec::new();
    for names in by_kind.values() {
        // Variables and directories are the same in every process; a path may carry a pid.
        let take = if names.values().next().is_some_and(|(_, m)| m.kind == MechanismKind::File) {
            1
        } else {
            names.len()
        };
        let mut ranked: Vec<&(usize, &Mechanism)> = names.values().collect();
        ranked.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
        for (_, m) in ranked.iter().take(take) {
            let mut m = (*m).clone();
            if names.len() > take {
                m.fix = format!("{} ({} other paths in other runs, the same way)", m.fix, names.len() - take);
            }
            out.push(m);
        }
    }
    out
}

/// Every way `culprit` (footprint `by`) reaches `target` (footprint `on`).
pub fn between(target: &str, on: &Footprint, culprit: &str, by: &Footprint, victim: bool, cleaners: &[String]) -> Vec<Mechanism> {
    let mk = |kind: MechanismKind, name: &str| Mechanism {
        kind,
        name: name.to_owned(),
        culprit: culprit.to_owned(),
        fix: fix(kind, name, culprit, target, victim, by, cleaners),
    };
    let mut out = Vec::new();
    for var in &on.env_read {
        if by.env_cleared || by.env_set.contains(var) || by.env_unset.contains(var) {
            out.push(mk(MechanismKind::Env, var));
        }
    }
    if let Some(dir) = by.cwd_left.as_ref().filter(|d| on.cwd_start.contains(*d)) {
        out.push(mk(MechanismKind::Cwd, dir));
    }
    for path in by.files_left.iter().chain(&by.files_removed) {
        if on.files_touched.contains(path) {
            out.push(mk(MechanismKind::File, path));
        }
    }
    if out.is_empty() {
        out.push(mk(MechanismKind::Memory, "in-process state (no env, cwd or file effect observed)"));
    }
    out
}

fn fix(kind: MechanismKind, name: &str, culprit: &str, target: &str, victim: bool, by: &Footprint, cleaners: &[String]) -> String {
    match (kind, victim) {
        (MechanismKind::Env, true) => {
            let verb = if by.env_set.contains(name) { "sets" } else { "removes" };
            format!(
                "{culprit} {verb} {name} and never restores it: restore it at the end of {culprit} (a scoped guard that puts back the old value on drop)"
            )
        }
        (MechanismKind::Env, false) => {
            format!("{target} reads {name}, which only {culprit} sets: set it in {target} itself (and restore it afterwards)")
        }
        (MechanismKind::Cwd, true) => format!(
            "{culprit} leaves the process in {name}: change back to the previous directory at the end of {culprit} (a guard that restores it on drop), or use absolute paths"
        ),
        (MechanismKind::Cwd, false) => {
            format!(
                "{target} needs to run in {name}, where {culprit} leaves the process: change to it in {target} itself, or use absolute paths"
            )
        }
        (MechanismKind::File, true) if by.files_removed.contains(name) => {
            format!(
                "{culprit} removes {name}, which {target} needs: have {culprit} work on a copy in its own temporary directory, or recreate the file"
            )
        }
        (MechanismKind::File, true) => {
            format!(
                "{culprit} leaves {name} behind: remove it at the end of {culprit}, or create it in a fresh temporary directory of its own"
            )
        }
        (MechanismKind::File, false) => {
            format!("{target} needs {name}, which only {culprit} creates: create it in {target} itself")
        }
        (MechanismKind::Memory, true) if !cleaners.is_empty() => format!(
            "{} resets the state {culprit} leaves: do what it does at the end of {culprit} (or at the start of {target}), or run {target} in its own process",
            cleaners.join(", ")
        ),
        (MechanismKind::Memory, true) => {
            format!("reset the state {culprit} leaves at its end (or at the start of {target}), or run {target} in its own process")
        }
        (MechanismKind::Memory, false) => {
            format!(
                "{target} relies on in-process state that {culprit} sets up: set it up in {target} itself, or run it in its own process"
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::model::OrderVerdict;

    #[test]
    fn the_state_hint_quotes_the_error_type_or_value_of_the_failure() {
        let unwrap = "called `Result::unwrap()` on an `Err` value: SetLoggerError(())";
        assert_eq!(state_hint(unwrap).as_deref(), Some("SetLoggerError"));
        let typed = "init failed: AlreadyInitializedError at src/lib.rs";
        assert_eq!(state_hint(typed).as_deref(), Some("AlreadyInitializedError"));
        let assert = "assertion `left == right` failed\n  left: 3\n right: 0";
        assert_eq!(state_hint(assert).as_deref(), Some("left: 3"));
        assert_eq!(state_hint("polluter_a ran first"), None);
    }

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    fn entry(name: &str, verdict: OrderVerdict, culprits: &[&str]) -> DetectEntry {
        let c: Vec<String> = culprits.iter().map(|s| (*s).to_owned()).collect();
        DetectEntry {
            name: name.into(),
            binary: None,
            package: None,
            verdict,
            polluters: if verdict == OrderVerdict::Victim { c.clone() } else { vec![] },
            state_setters: if verdict == OrderVerdict::Brittle { c } else { vec![] },
            cleaners: vec![],
            cleaners_stopped: None,
            backtrace: None,
            failure_rate: None,
            evidence: vec![],
            hazards: vec![],
            value_shifts: vec![],
            reproduce: None,
            mechanism: vec![],
            would_decide: vec![],
        }
    }

    fn kinds(e: &DetectEntry) -> Vec<(MechanismKind, String, String)> {
        e.mechanism.iter().map(|m| (m.kind, m.name.clone(), m.culprit.clone())).collect()
    }

    #[test]
    fn env_cwd_file_and_memory_each_only_where_observed() {
        let gate = set(&["HARNESS_FIXTURE"]);
        let fps = BTreeMap::from([
            (
                "env_pol".to_owned(),
                Footprint {
                    env_set: set(&["KEY1"]),
                    env_read: gate.clone(),
                    ..Default::default()
                },
            ),
            (
                "env_vic".to_owned(),
                Footprint {
                    env_read: set(&["KEY1", "HARNESS_FIXTURE"]),
                    ..Default::default()
                },
            ),
            (
                "cwd_pol".to_owned(),
                Footprint {
                    cwd_start: set(&["/w"]),
                    cwd_left: Some("/tmp".into()),
                    ..Default::default()
                },
            ),
            (
                "cwd_vic".to_owned(),
                Footprint {
                    cwd_start: set(&["/w", "/tmp"]),
                    ..Default::default()
                },
            ),
            (
                "file_pol".to_owned(),
                Footprint {
                    files_left: set(&["/w/x"]),
                    files_touched: set(&["/w/x"]),
                    ..Default::default()
                },
            ),
            (
                "file_vic".to_owned(),
                Footprint {
                    files_touched: set(&["/w/x"]),
                    env_read: gate.clone(),
                    ..Default::default()
                },
            ),
            (
                "static_pol".to_owned(),
                Footprint {
                    env_read: gate.clone(),
                    ..Default::default()
                },
            ),
            // Reads the variable env_pol writes, yet its culprit is static_pol: not env.
            (
                "static_vic".to_owned(),
                Footprint {
                    env_read: set(&["KEY1"]),
                    files_touched: set(&["/w/x"]),
                    ..Default::default()
                },
            ),
        ]);
        let mut es = vec![
            entry("env_vic", OrderVerdict::Victim, &["env_pol"]),
            entry("cwd_vic", OrderVerdict::Victim, &["cwd_pol"]),
            entry("file_vic", OrderVerdict::Victim, &["file_pol"]),
            entry("static_vic", OrderVerdict::Victim, &["static_pol"]),
            entry("unseen_vic", OrderVerdict::Victim, &["env_pol"]),
            entry("env_vic2", OrderVerdict::Victim, &["unseen_pol"]),
            entry("env_pol", OrderVerdict::Pass, &[]),
        ];
        es[5].name = "env_vic".into();
        let pairs = ["env", "cwd", "file", "static"];
        let processes: Vec<Vec<(String, Arc<Footprint>)>> = pairs
            .iter()
            .map(|p| {
                [format!("{p}_pol"), format!("{p}_vic")]
                    .map(|n| (n.clone(), Arc::new(fps[&n].clone())))
                    .to_vec()
            })
            .collect();
        attribute(&mut es, &processes);
        let m = MechanismKind::Memory;
        assert_eq!(kinds(&es[0]), [(MechanismKind::Env, "KEY1".into(), "env_pol".into())]);
        assert_eq!(kinds(&es[1]), [(MechanismKind::Cwd, "/tmp".into(), "cwd_pol".into())]);
        assert_eq!(kinds(&es[2]), [(MechanismKind::File, "/w/x".into(), "file_pol".into())]);
        assert_eq!(es[3].mechanism.len(), 1);
        assert_eq!(es[3].mechanism[0].kind, m);
        assert_eq!(es[3].mechanism[0].culprit, "static_pol");
        assert!(es[3].mechanism[0].fix.contains("own process"), "{}", es[3].mechanism[0].fix);
        assert!(es[4].mechanism.is_empty(), "victim never observed: nothing said");
        assert!(es[5].mechanism.is_empty(), "culprit never observed: nothing said");
        assert!(es[6].mechanism.is_empty());
        assert!(es[0].mechanism[0].fix.contains("env_pol sets KEY1"));
    }

    #[test]
    fn a_path_that_differs_per_process_is_reported_once_and_without_a_shared_run_the_merged_footprints_decide() {
        let run = |path: &str| {
            vec![
                (
                    "p".to_owned(),
                    Arc::new(Footprint {
                        files_left: set(&[path]),
                        ..Default::default()
                    }),
                ),
                (
                    "v".to_owned(),
                    Arc::new(Footprint {
                        files_touched: set(&[path]),
                        ..Default::default()
                    }),
                ),
            ]
        };
        let mut es = vec![entry("v", OrderVerdict::Victim, &["p"])];
        attribute(&mut es, &[run("/t/a-1"), run("/t/a-2"), run("/t/a-2")]);
        assert_eq!(kinds(&es[0]), [(MechanismKind::File, "/t/a-2".into(), "p".into())]);
        assert!(es[0].mechanism[0].fix.ends_with("(1 other paths in other runs, the same way)"));
        // No run with the culprit first: both sides merged over their runs.
        let mut late = run("/t/x");
        late.reverse();
        attribute(&mut es, &[late]);
        assert_eq!(kinds(&es[0])[0].0, MechanismKind::File);
    }

    #[test]
    fn a_cwd_change_the_target_never_started_in_is_not_blamed_and_fixes_name_the_cleaner() {
        let by = Footprint {
            cwd_left: Some("/tmp".into()),
            ..Default::default()
        };
        let on = Footprint {
            cwd_start: set(&["/w"]),
            ..Default::default()
        };
        let m = between("v", &on, "p", &by, true, &["c".to_owned()]);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].kind, MechanismKind::Memory);
        assert!(m[0].fix.starts_with("c resets the state p leaves"), "{}", m[0].fix);
        let brittle = between(
            "b",
            &Footprint {
                env_read: set(&["K"]),
                ..Default::default()
            },
            "s",
            &Footprint {
                env_set: set(&["K"]),
                ..Default::default()
            },
            false,
            &[],
        );
        assert_eq!(brittle[0].kind, MechanismKind::Env);
        assert!(brittle[0].fix.contains("set it in b itself"));
        let removed = Footprint {
            files_removed: set(&["/w/needed"]),
            ..Default::default()
        };
        let m = between(
            "v",
            &Footprint {
                files_touched: set(&["/w/needed"]),
                ..Default::default()
            },
            "p",
            &removed,
            true,
            &[],
        );
        assert!(m[0].kind == MechanismKind::File && m[0].fix.contains("removes /w/needed"));
    }
}
