//! The terminal's findings, grouped by shared cause so a person can read them: victims (and
//! brittle scenarios) with the same culprits, cleaners and mechanism form one block of at most
//! three lines (who, how and one fix, one reproduce line). A family whose members each fail after
//! any other of them (tests that each install a process-global once) is one block too. Every
//! per-pair detail stays in detect.json and the HTML.

use std::collections::BTreeSet;
use std::io::Write;

use crate::model::{DetectEntry, MechanismKind, OrderVerdict};

/// Names shown in a block's first line, at most; the rest are counted.
const MAX_NAMES: usize = 5;

/// Blocks shown, at most (three lines each): a binary of thousands of unrelated victims would
/// print thousands of blocks no one reads; the rest are counted, in full in detect.json and the HTML.
pub(super) const MAX_BLOCKS: usize = 40;

/// One block: entries sharing a cause.
struct Block<'a> {
    members: Vec<&'a DetectEntry>,
    /// Members that each fail after every other member (and nothing else).
    family: bool,
}

fn label(e: &DetectEntry) -> String {
    match &e.binary {
        Some(b) => format!("{} ({b})", e.name),
        None => e.name.clone(),
    }
}

fn culprits(e: &DetectEntry) -> &[String] {
    if e.verdict == OrderVerdict::Victim {
        &e.polluters
    } else {
        &e.state_setters
    }
}

fn how(e: &DetectEntry) -> BTreeSet<(MechanismKind, &str)> {
    e.mechanism.iter().map(|m| (m.kind, m.name.as_str())).collect()
}

fn sorted(v: &[String]) -> Vec<&str> {
    let mut v: Vec<&str> = v.iter().map(String::as_str).collect();
    v.sort_unstable();
    v
}

/// Whether `a` and `b` share a cause: verdict, binary, culprits, cleaners and mechanism.
fn same_cause(a: &DetectEntry, b: &DetectEntry) -> bool {
    a.verdict == b.verdict
        && a.binary == b.binary
        && a.package == b.package
        && sorted(culprits(a)) == sorted(culprits(b))
        && sorted(&a.cleaners) == sorted(&b.cleaners)
        && a.cleaners_stopped == b.cleaners_stopped
        && how(a) == how(b)
}

/// `e`'s culprits with `e` itself, sorted: equal for every member of a family.
fn family_key(e: &DetectEntry) -> Vec<&str> {
    let mut k = sorted(culprits(e));
    k.push(e.name.as_str());
    k.sort_unstable();
    k
}

/// Victims and brittle entries in blocks, in first-seen order.
fn blocks(entries: &[DetectEntry]) -> Vec<Block<'_>> {
    let mut out: Vec<Block> = Vec::new();
    for e in entries
        .iter()
        .filter(|e| matches!(e.verdict, OrderVerdict::Victim | OrderVerdict::Brittle))
    {
        match out.iter_mut().find(|b| same_cause(b.members[0], e)) {
            Some(b) => b.members.push(e),
            None => out.push(Block {
                members: vec![e],
                family: false,
            }),
        }
    }
    // Singletons whose culprits and selves are one set: a family (each fails after any other).
    let mut merged: Vec<Block> = Vec::new();
    for b in out {
        let e = b.members[0];
        let joins = b.members.len() == 1 && e.verdict == OrderVerdict::Victim && !e.polluters.is_empty();
        let slot = merged.iter_mut().find(|m| {
            let f = m.members[0];
            joins
                && (m.family || m.members.len() == 1)
                && f.verdict == OrderVerdict::Victim
                && f.binary == e.binary
                && f.package == e.package
                && family_key(f) == family_key(e)
                && sorted(&f.cleaners) == sorted(&e.cleaners)
                && f.mechanism.iter().map(|m| m.kind).collect::<BTreeSet<_>>()
                    == e.mechanism.iter().map(|m| m.kind).collect::<BTreeSet<_>>()
        });
        match slot {
            Some(m) => {
                m.members.push(e);
                m.family = true;
            }
            None => merged.push(b),
        }
    }
    merged
}

fn list(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(MAX_NAMES).map(String::as_str).collect();
    match names.len().saturating_sub(MAX_NAMES) {
        0 => shown.join(", "),
        n => format!("{} and {n} more (detect.json)", shown.join(", ")),
    }
}

/// The cleaners, as "at least" these with the reason where the search stopped early.
pub(super) fn cleaners(e: &DetectEntry) -> String {
    match &e.cleaners_stopped {
        None => list(&e.cleaners),
        Some(why) => format!("at least {} ({why})", list(&e.cleaners)),
    }
}

/// The block's fix: its first mechanism's, with the culprit's and victim's names made general
/// where the block has several.
fn fix(b: &Block) -> Option<String> {
    let first = b.members[0];
    let m = first.mechanism.first()?;
    let mut fix = m.fix.clone();
    if b.family || culprits(first).len() > 1 {
        fix = fix.replace(&m.culprit, "each polluter");
    }
    if b.members.len() > 1 {
        fix = fix.replace(&first.name, "each victim");
    }
    Some(fix)
}

/// Write the victim and brittle blocks: who (with the first failure's headline), how and the fix,
/// one reproduce line.
pub fn write_blocks(w: &mut dyn Write, entries: &[DetectEntry]) -> std::io::Result<()> {
    let all = blocks(entries);
    let (count, hidden) = (all.len(), all.iter().skip(MAX_BLOCKS).map(|b| b.members.len()).sum::<usize>());
    for b in all.into_iter().take(MAX_BLOCKS) {
        let first = b.members[0];
        let names: Vec<String> = b.members.iter().map(|e| label(e)).collect();
        let mut who = if b.family {
            format!("{} tests, each failing after any other of them: {}", names.len(), list(&names))
        } else {
            let relation = if first.verdict == OrderVerdict::Victim {
                "polluted by"
            } else {
                "state set by"
            };
            format!("{}  {relation} {}", list(&names), list(culprits(first)))
        };
        if !first.cleaners.is_empty() {
            who.push_str(&format!("; masked by {}", cleaners(first)));
        }
        if let Some(m) = first.evidence.iter().find_map(|ev| ev.message.as_deref()) {
            who.push_str(&format!(": {}", crate::model::headline(m)));
        }
        writeln!(w, "  {:<8} {who}", first.verdict.as_str())?;
        if let Some(fix) = fix(&b) {
            let kinds: BTreeSet<String> = first.mechanism.iter().map(|m| format!("{} {}", m.kind.as_str(), m.name)).collect();
            let kinds: Vec<String> = kinds.into_iter().collect();
            writeln!(w, "  {:<8} how: {}; fix: {fix}", "", kinds.join(", "))?;
        }
        if let Some(r) = b.members.iter().find_map(|e| e.reproduce.as_deref()) {
            writeln!(w, "  {:<8} {r}", "")?;
        }
    }
    if hidden > 0 {
        let more = count - MAX_BLOCKS;
        writeln!(w, "  ... {more} more findings ({hidden} scenarios) in detect.json and index.html")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn victim(i: usize) -> DetectEntry {
        DetectEntry {
            polluters: vec![format!("polluter_{i}")],
            reproduce: Some(format!("bin polluter_{i} victim_{i}")),
            ..super::super::verdicts::empty_entry(&format!("victim_{i}"), OrderVerdict::Victim)
        }
    }

    /// Thousands of unrelated victims (one polluter each) print MAX_BLOCKS blocks and a count of
    /// the rest; a few print all of theirs and no count.
    #[test]
    fn a_screen_of_many_unrelated_victims_shows_the_first_blocks_and_counts_the_rest() {
        let screen = |n: usize| {
            let entries: Vec<DetectEntry> = (0..n).map(victim).collect();
            let mut out = Vec::new();
            write_blocks(&mut out, &entries).unwrap();
            String::from_utf8(out).unwrap()
        };
        let many = screen(1000);
        assert_eq!(many.lines().filter(|l| l.contains("polluted by")).count(), MAX_BLOCKS);
        assert!(
            many.contains("victim_39  polluted by polluter_39") && !many.contains("victim_40 "),
            "{many}"
        );
        assert!(
            many.ends_with("  ... 960 more findings (960 scenarios) in detect.json and index.html\n"),
            "{many}"
        );
        assert_eq!(many.lines().count(), 2 * MAX_BLOCKS + 1);
        let few = screen(3);
        assert_eq!((few.lines().count(), few.contains("more findings")), (6, false), "{few}");
    }
}
