//! `compare.md`: the comparison as a Markdown PR comment: a status table, host facts, warnings,
//! and "what this cannot catch" (rows whose minimal detectable effect exceeds a stated size).

use std::fmt::Write;

use crate::model::{CompareEntry, CompareRun, CompareVerdict, SideStats};
use crate::report::format_value;

/// Neutralise Markdown table syntax in text a scenario chose (names, notes): `|`, backticks,
/// angle brackets and line breaks.
pub(crate) fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('`', "\\`")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}

fn status(v: CompareVerdict) -> &'static str {
    match v {
        CompareVerdict::Regressed => "🔴",
        CompareVerdict::Improved => "🟢",
        CompareVerdict::Unchanged => "⚪",
        CompareVerdict::Inconclusive => "🟡",
    }
}

fn side(s: &Option<SideStats>, e: &CompareEntry) -> String {
    // An allocation row's side is a count per call (`1 alloc`, `4096 B`), not `1.00 count`.
    let value = |v: f64| {
        if crate::allocs::cell::is_alloc_source(e.source.as_deref()) {
            crate::allocs::cell::count_cell(&e.metric, v)
        } else {
            format_value(v, &e.unit)
        }
    };
    match s {
        Some(s) if s.high > s.low => {
            let rel = (s.high - s.low) / 2.0 / s.center.abs().max(f64::MIN_POSITIVE) * 100.0;
            format!("{} ±{rel:.1}%", value(s.center))
        }
        Some(s) => value(s.center),
        None => "—".into(),
    }
}

fn pct(r: f64) -> String {
    format!("{:+.1}%", (r - 1.0) * 100.0)
}

fn change(e: &CompareEntry) -> String {
    let level = e.level.map_or(String::new(), |l| format!(" ({:.1}% CI)", l * 100.0));
    if let Some(p) = &e.per_call {
        return escape(p);
    }
    match (e.ratio, e.low, e.high) {
        (Some(r), Some(l), Some(h)) => format!("{} [{}, {}]{level}", pct(r), pct(l), pct(h)),
        _ => "—".into(),
    }
}

/// Per row, where the noise came from: within process, between processes, drift, outliers.
fn noise_sources(entries: &[CompareEntry]) -> String {
    let rows: Vec<&CompareEntry> = entries.iter().filter(|e| e.noise.is_some() && e.derived_from.is_none()).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "\n<details><summary>Where the noise came from</summary>\n\n| scenario | metric | within process | between processes | per pair | drift / 100 pairs | outliers cut |\n|---|---|---|---|---|---|---|\n",
    );
    for e in rows {
        let n = e.noise.as_ref().expect("filtered");
        let sd = |x: f64| format!("{:.1}%", x.exp_m1() * 100.0);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {:+.1}% | {} |",
            escape(&e.name),
            escape(&e.metric),
            n.within_process.map_or("—".into(), sd),
            sd(n.between_processes),
            sd(n.per_pair),
            n.drift_per_100_pairs * 100.0,
            n.outliers_set_aside
        );
    }
    md + "\n</details>\n"
}

fn verdict(e: &CompareEntry) -> String {
    let mut s = e.verdict.as_str().to_owned();
    if let Some(q) = e.p_adjusted {
        let _ = write!(s, " (q={q:.2e})");
    }
    if let Some(n) = e.runs_needed {
        let _ = write!(s, "; ~{n} pairs would decide");
    }
    if let Some(m) = &e.derived_from {
        let _ = write!(s, "; shares {}'s verdict", escape(m));
    }
    s
}

/// The null control's judgement and what the sequential run did.
fn run_notes(run: &CompareRun) -> String {
    let mut md = String::new();
    if let Some(c) = &run.null_control {
        let _ = writeln!(
            md,
            "\n**Null control** (baseline against itself, up to {} pairs a scenario): {} of {} rows at p <= {} (chance: {:.1}){}.",
            c.pairs,
            c.significant,
            c.rows,
            run.alpha,
            c.expected,
            if c.too_noisy {
                format!(
                    " — **beyond chance: the machine was too noisy, regressed/improved verdicts were downgraded**{}",
                    if c.moved.is_empty() {
                        String::new()
                    } else {
                        format!(" (moved: {})", escape(&c.moved.join(", ")))
                    }
                )
            } else {
                String::new()
            }
        );
    }
    if let Some(q) = &run.sequential {
        let _ = writeln!(
            md,
            "\n**Sequential:** {} look(s) of at most {} pairs a scenario, {} pairs in {:.0}s of a {:.0}s budget{}. About {:.0}s more would likely decide the inconclusive rows.",
            q.looks,
            q.horizon,
            q.pairs,
            q.spent_s,
            q.budget_s,
            if q.cut_by_budget.is_empty() {
                String::new()
            } else {
                format!("; {} scenario(s) stopped by the budget", q.cut_by_budget.len())
            },
            q.seconds_to_decide_rest.max(0.0)
        );
    }
    if let Some(b) = run.build_s {
        let _ = writeln!(md, "\n**Build** (`--base-ref`): {b:.0}s, apart from the measuring above.");
    }
    if let (Some(source), Some(margin)) = (&run.counters, run.counter_margin) {
        let _ = writeln!(
            md,
            "\n**Counters:** rows counted by {} come first; their margin is ±{:.1}% (`--counter-margin`), \
             wall time stays beside them and decides the rows without a counter.{}",
            escape(source),
            margin * 100.0,
            match (run.counter_pairs, run.counting_s) {
                (Some(p), Some(t)) => format!(" {p} counting pair(s) a scenario in {t:.0}s, before the wall-time pairs."),
                _ => String::new(),
            }
        );
    }
    md
}

/// "What this cannot catch": rows whose minimal detectable effect exceeds `mde_report`.
fn cannot_catch(entries: &[CompareEntry], mde_report: f64) -> String {
    let mut md = String::new();
    let blind: Vec<&CompareEntry> = entries.iter().filter(|e| e.mde.is_none_or(|m| m > mde_report)).collect();
    let _ = writeln!(
        md,
        "\n### What this cannot catch\n\nRows whose minimal detectable effect (80% power, this run count, this verdict rule) \
         is larger than {:.0}%: a real change of {:.0}% there would most likely pass unseen.\n",
        mde_report * 100.0,
        mde_report * 100.0
    );
    if blind.is_empty() {
        md += "None.\n";
    }
    for e in blind {
        let mde = e.mde.map_or("unknown".to_owned(), |m| format!("{:.1}%", m * 100.0));
        let _ = writeln!(md, "- {} {}: MDE {mde}", escape(&e.name), escape(&e.metric));
    }
    md
}

/// The table header compare.md's rows go under.
pub(crate) const TABLE_HEAD: &str =
    "| status | scenario | metric | base | candidate | change [95% CI] | verdict |\n|---|---|---|---|---|---|---|\n";

/// One table row (no line break); scenario and metric names longer than `max_name` characters
/// are cut with an ellipsis so that one hostile name cannot fill a size-bounded comment.
pub(crate) fn row(e: &CompareEntry, max_name: usize) -> String {
    format!(
        "| {} | `{}` | {} | {} | {} | {} | {} |",
        status(e.verdict),
        escape(&cut(&e.name, max_name)).replace("\\`", "'"),
        escape(&cut(&e.metric, max_name)),
        side(&e.baseline, e),
        side(&e.candidate, e),
        change(e),
        verdict(e)
    )
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    s.chars().take(max.saturating_sub(1)).chain(['…']).collect()
}

/// The whole comment. `mde_report` is the size (fraction) "what this cannot catch" is stated for.
pub(crate) fn render(entries: &[CompareEntry], run: &CompareRun, mde_report: f64) -> String {
    render_for(entries, run, mde_report, false)
}

/// The comment as the terminal shows it: each explained row's top 3 functions right under the
/// row (a plain-text reader sees them beside the number), instead of compare.md's section.
pub(crate) fn render_terminal(entries: &[CompareEntry], run: &CompareRun, mde_report: f64) -> String {
    render_for(entries, run, mde_report, true)
}

fn render_for(entries: &[CompareEntry], run: &CompareRun, mde_report: f64, terminal: bool) -> String {
    let mut md = String::from("## Performance comparison\n\n");
    let count = |v| entries.iter().filter(|e| e.verdict == v).count();
    let _ = writeln!(
        md,
        "**{} regressed, {} improved, {} unchanged, {} inconclusive** of {} scenario × metric rows.\n",
        count(CompareVerdict::Regressed),
        count(CompareVerdict::Improved),
        count(CompareVerdict::Unchanged),
        count(CompareVerdict::Inconclusive),
        entries.len()
    );
    for w in &run.warnings {
        let _ = writeln!(md, "> ⚠️ {}\n", escape(w));
    }
    if run.design == "result-dirs" {
        md += "> ⚠️ Design: two saved result directories, compared unpaired (Welch on logs). A saved baseline is the \
               blocked design: drift between the sessions looks like a change, so false positives are far likelier \
               than with interleaved binaries (simulated: 30% against 5% at alpha 0.05).\n\n";
    }
    md += TABLE_HEAD;
    for e in entries {
        md += &row(e, usize::MAX);
        md.push('\n');
        for line in e
            .explain
            .iter()
            .filter(|_| terminal)
            .flat_map(|x| crate::explain::terminal_lines(x, 3))
        {
            md += &line;
            md.push('\n');
        }
    }
    if !terminal {
        md += &crate::explain::markdown_section(entries);
    }
    let notes: Vec<&CompareEntry> = entries.iter().filter(|e| e.note.is_some()).collect();
    if !notes.is_empty() {
        md += "\n<details><summary>Notes</summary>\n\n";
        for e in notes {
            let note = escape(e.note.as_deref().unwrap_or(""));
            let _ = writeln!(md, "- {} {}: {note}", escape(&e.name), escape(&e.metric));
        }
        md += "\n</details>\n";
    }
    md += &noise_sources(entries);
    md += &run_notes(run);
    md += &cannot_catch(entries, mde_report);
    let h = &run.host;
    let _ = writeln!(
        md,
        "\n### Method and host\n\n- design: {}{}; alpha {} after Benjamini-Hochberg over all rows; band = max(floor {:.1}%, margin {}, calibration{}); per process the median of iterations, across pairs Yuen's 20% trimmed mean of log ratios\n- host: {} ({} logical cores), {}, kernel {}, {}\n- commit: {}; load {} → {}\n- baseline: `{}`\n- candidate: `{}`",
        run.design,
        match (run.runs, run.seed) {
            (Some(n), Some(s)) => format!(" ({n} pairs, seed {s})"),
            _ => String::new(),
        },
        run.alpha,
        run.noise_floor * 100.0,
        run.margin.map_or("none".to_owned(), |m| format!("{:.1}%", m * 100.0)),
        run.calibration
            .as_deref()
            .map_or(" (none)".to_owned(), |c| format!(" from {}", escape(c))),
        escape(&h.cpu),
        h.logical_cores,
        escape(&h.os),
        escape(&h.kernel),
        escape(&h.rustc),
        h.git_commit.as_deref().map_or("unknown".to_owned(), escape),
        h.load_start.map_or("?".into(), |l| format!("{l:.2}")),
        h.load_end.map_or("?".into(), |l| format!("{l:.2}")),
        escape(&run.baseline).replace("\\`", "'"),
        escape(&run.candidate).replace("\\`", "'"),
    );
    if let (Some(b), Some(c)) = (&run.baseline_commit, &run.candidate_commit) {
        let _ = write!(
            md,
            "\n- built with `--base-ref`: baseline at commit {}, candidate at {}",
            escape(b),
            escape(c)
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_cannot_break_the_table() {
        assert_eq!(escape("a|b`c<script>\nx"), "a\\|b\\`c&lt;script&gt; x");
    }
}
