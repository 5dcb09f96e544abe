//! Self (exclusive) instructions by function, read from a Callgrind dump: what `explain` diffs.
//!
//! The format (Callgrind's "Callgrind Format Specification"): `fn=`, `ob=`, `fl=` (and `cfn=`,
//! `cob=`, ...) may compress a name as `(id) name` on first use and `(id)` after; `fn=` sets
//! the function the following cost lines belong to; a cost line is the `positions:` columns
//! then the `events:` columns (trailing zeros dropped). A `calls=` line's following cost line is
//! the call's INCLUSIVE cost, charged to the caller's call site: it is skipped here, so each
//! function's sum is its self cost and the sums add up to the dump's total. Inlined code counts
//! in the function it was inlined into.

use std::collections::HashMap;

use crate::model::Profile;

/// Instructions (`Ir`) per function of one dump, unsorted, and the objects that had code
/// without a symbol (named by address, `<object>+0x<offset>`).
pub(crate) fn self_costs(text: &str) -> Result<(HashMap<String, u64>, Vec<String>), String> {
    let mut positions = 1;
    let mut ir_column = None;
    let mut fns: HashMap<String, String> = HashMap::new();
    let mut obs: HashMap<String, String> = HashMap::new();
    let mut object = String::new();
    let mut current: Option<String> = None;
    let mut skip_next_cost = false;
    let mut costs: HashMap<String, u64> = HashMap::new();
    let mut unnamed: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        let at = || format!("line {}", i + 1);
        if let Some(p) = line.strip_prefix("positions:") {
            positions = p.split_whitespace().count();
        } else if let Some(e) = line.strip_prefix("events:") {
            ir_column = e.split_whitespace().position(|e| e == "Ir");
        } else if let Some(v) = line.strip_prefix("ob=").or_else(|| line.strip_prefix("cob=")) {
            let name = resolve(&mut obs, v).map_err(|e| format!("{}: {e}", at()))?;
            if line.starts_with("ob=") {
                object = name;
            }
        } else if let Some(v) = line.strip_prefix("fn=") {
            let raw = resolve(&mut fns, v).map_err(|e| format!("{}: {e}", at()))?;
            let name = function_name(&raw, &object);
            if is_address(&raw) && !unnamed.contains(&object) {
                unnamed.push(object.clone());
            }
            current = Some(name);
        } else if let Some(v) = line.strip_prefix("cfn=") {
            resolve(&mut fns, v).map_err(|e| format!("{}: {e}", at()))?;
        } else if line.starts_with("calls=") {
            skip_next_cost = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-' || c == '*') {
            if std::mem::take(&mut skip_next_cost) {
                continue;
            }
            let Some(col) = ir_column else {
                return Err(format!("{}: a cost line before an `events:` line with Ir", at()));
            };
            let value = match line.split_whitespace().nth(positions + col) {
                None => 0,
                Some(v) => v.parse::<u64>().map_err(|e| format!("{}: cost {v:?}: {e}", at()))?,
            };
            let Some(f) = &current else {
                return Err(format!("{}: a cost line before any `fn=`", at()));
            };
            *costs.entry(f.clone()).or_insert(0) += value;
        }
    }
    costs.retain(|_, v| *v > 0);
    Ok((costs, unnamed))
}

/// `(id) name` defines id, `(id)` refers to it, a bare `name` is itself.
fn resolve(table: &mut HashMap<String, String>, value: &str) -> Result<String, String> {
    let value = value.trim();
    let Some(rest) = value.strip_prefix('(') else {
        return Ok(value.to_owned());
    };
    let (id, name) = rest.split_once(')').ok_or_else(|| format!("unclosed name id in {value:?}"))?;
    let name = name.trim();
    if name.is_empty() {
        table
            .get(id)
            .cloned()
            .ok_or_else(|| format!("name id ({id}) used before it was defined"))
    } else {
        table.insert(id.to_owned(), name.to_owned());
        Ok(name.to_owned())
    }
}

/// Callgrind names code without a symbol by its address (`0x0000000000401a2b`).
fn is_address(name: &str) -> bool {
    name.strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Demangled without hash; a recursion depth (`'2`) dropped; code without a symbol as
/// `object+0xoffset` (Callgrind's address is the offset in its object, so `addr2line -e` on an
/// unstripped copy of the object names it).
fn function_name(raw: &str, object: &str) -> String {
    if is_address(raw) {
        let obj = object.rsplit('/').next().filter(|o| !o.is_empty()).unwrap_or("unknown object");
        let offset = raw[2..].trim_start_matches('0');
        return format!("{obj}+0x{}", if offset.is_empty() { "0" } else { offset });
    }
    let base = match raw.rsplit_once('\'') {
        Some((b, depth)) if !depth.is_empty() && depth.chars().all(|c| c.is_ascii_digit()) => b,
        _ => raw,
    };
    format!("{:#}", rustc_demangle::demangle(base))
}

/// The compact [`Profile`] of one dump's self costs.
pub(crate) fn profile(costs: HashMap<String, u64>, unnamed: &[String]) -> Profile {
    let mut all: Vec<(String, u64)> = costs.into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let keep = all.len().min(Profile::KEEP_MAX);
    let rest = all[keep..].iter().map(|(_, v)| *v as f64).sum();
    let note = (!unnamed.is_empty()).then(|| {
        format!(
            "no symbols for some code (stripped?) in {}: explained by address in its object (object+0xoffset)",
            unnamed.join(", ")
        )
    });
    Profile {
        functions: all.into_iter().take(keep).map(|(n, v)| (n, v as f64)).collect(),
        rest,
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-written with name compression, a call (inclusive cost, not self), subposition
    /// compression, trailing zeros dropped, a recursion depth, and code without a symbol.
    const DUMP: &str = "# callgrind format
version: 1
positions: line
events: Ir Dr
summary: 1111
ob=(1) /bin/app
fl=(1) src/main.rs
fn=(1) _ZN7explain8checksum17h0123456789abcdefE
3 100 4
+2 200
cfn=(2) _ZN4core3ptr13drop_in_place17hfedcba9876543210E
calls=1 10
5 1000 7
fn=(2)
10 10
fn=(3) spin'2
0 1
ob=(2) /lib/libstripped.so
fn=(4) 0x000000000001a2b0
0 400
fn=(5) 0x000000000001a300
0 300
ob=(1)
fn=(1)
7 100
";

    #[test]
    fn self_cost_skips_inclusive_call_costs_and_resolves_compressed_names() {
        let (costs, unnamed) = self_costs(DUMP).unwrap();
        assert_eq!(costs["explain::checksum"], 400, "100 + 200 + 100; the call's 1000 is inclusive");
        assert_eq!(costs["core::ptr::drop_in_place"], 10);
        assert_eq!(costs["spin"], 1, "recursion depth dropped");
        assert_eq!(costs["libstripped.so+0x1a2b0"], 400, "an address named in its object");
        assert_eq!(costs["libstripped.so+0x1a300"], 300);
        assert_eq!(costs.values().sum::<u64>(), 1111, "self costs add up to the summary");
        assert_eq!(unnamed, vec!["/lib/libstripped.so".to_owned()]);
    }

    #[test]
    fn a_profile_keeps_the_costly_functions_and_says_when_symbols_are_missing() {
        let (costs, unnamed) = self_costs(DUMP).unwrap();
        let p = profile(costs, &unnamed);
        assert_eq!(p.functions[0], ("explain::checksum".to_owned(), 400.0), "ties by name");
        assert_eq!(p.functions[1], ("libstripped.so+0x1a2b0".to_owned(), 400.0));
        assert_eq!(p.functions.iter().map(|f| f.1).sum::<f64>() + p.rest, 1111.0);
        assert!(p.note.unwrap().contains("libstripped.so"));
    }

    #[test]
    fn an_undefined_name_id_or_a_cost_without_events_is_an_error() {
        assert!(self_costs("events: Ir\nfn=(9)\n1 2\n").unwrap_err().contains("(9)"));
        assert!(self_costs("fn=x\n1 2\n").unwrap_err().contains("events"));
    }
}
