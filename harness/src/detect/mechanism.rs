//! How a culprit acts on its victim or brittle scenario — `env`, `cwd`, `file` or `memory` — from
//! the [`Footprint`]s observed in their processes, with a suggested fix for each.
//!
//! `env`: the culprit wrote (set, removed, cleared) a variable the scenario read. `cwd`: the
//! culprit left the process in a directory the scenario then started in. `file`: the culprit
//! left (or removed) a path the scenario touched. `memory`: both were observed and none of these
//! was seen, so the effect travels through in-process state (statics, caches, interned data).
//! Nothing is said about a pair when either side was never observed (no preload).

use std::collections::BTreeMap;

use super::footprint::Footprint;
use crate::model::{DetectEntry, Mechanism, MechanismKind, OrderVerdict};

/// Fill `mechanism` of every victim and brittle entry from `footprints` (observed tests only,
/// each merged over its runs).
pub fn attribute(entries: &mut [DetectEntry], footprints: &BTreeMap<String, Footprint>) {
    for e in entries.iter_mut() {
        let (victim, culprits) = match e.verdict {
            OrderVerdict::Victim => (true, &e.polluters),
            OrderVerdict::Brittle => (false, &e.state_setters),
            _ => continue,
        };
        let Some(target) = footprints.get(&e.name) else { continue };
        e.mechanism = culprits
            .iter()
            .filter_map(|c| footprints.get(c).map(|fp| (c, fp)))
            .flat_map(|(c, fp)| between(&e.name, target, c, fp, victim, &e.cleaners))
            .collect();
    }
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

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    fn entry(name: &str, verdict: OrderVerdict, culprits: &[&str]) -> DetectEntry {
        let c: Vec<String> = culprits.iter().map(|s| (*s).to_owned()).collect();
        DetectEntry {
            name: name.into(),
            binary: None,
            verdict,
            polluters: if verdict == OrderVerdict::Victim { c.clone() } else { vec![] },
            state_setters: if verdict == OrderVerdict::Brittle { c } else { vec![] },
            cleaners: vec![],
            failure_rate: None,
            evidence: vec![],
            hazards: vec![],
            value_shifts: vec![],
            mechanism: vec![],
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
        attribute(&mut es, &fps);
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
