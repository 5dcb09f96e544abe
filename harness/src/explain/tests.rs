use super::*;

fn side(fns: &[(&str, f64)]) -> SideProfile {
    SideProfile {
        functions: fns.iter().map(|(f, v)| (f.to_string(), *v)).collect(),
        processes: 1,
        note: None,
    }
}

#[test]
fn entries_and_other_add_up_to_the_rows_change_with_new_and_gone_marked() {
    let b = side(&[("a::checksum", 1000.0), ("a::gone", 50.0), ("a::same", 400.0)]);
    let c = side(&[("a::checksum", 1600.0), ("a::fresh", 200.0), ("a::same", 400.0)]);
    // The row's centres differ a little from the profiles' sums (medians, geometric means).
    let x = explain(&b, &c, 1452.0, 2203.0);
    let names: Vec<&str> = x.iter().map(|e| e.function.as_str()).collect();
    assert_eq!(
        names,
        ["a::checksum", "a::fresh", "a::gone", "other"],
        "unchanged a::same is not listed"
    );
    assert_eq!(x[0].delta, 600.0);
    assert_eq!(
        (x[1].baseline, x[1].candidate, x[1].status),
        (None, Some(200.0), Some(ExplainStatus::New))
    );
    assert_eq!((x[2].candidate, x[2].status), (None, Some(ExplainStatus::Gone)));
    let sum: f64 = x.iter().map(|e| e.delta).sum();
    assert!((sum - (2203.0 - 1452.0)).abs() < 1e-9, "{sum}");
    let other = x.last().unwrap();
    assert_eq!((other.baseline, other.candidate, other.delta), (Some(402.0), Some(403.0), 1.0));
}

#[test]
fn at_most_fifty_entries_then_other_which_holds_the_rest() {
    let b = side(&[]);
    let fns: Vec<(String, f64)> = (0..80).map(|i| (format!("f{i:02}"), 10.0 + i as f64)).collect();
    let c = SideProfile {
        functions: fns.iter().cloned().collect(),
        processes: 1,
        note: None,
    };
    let total: f64 = fns.iter().map(|f| f.1).sum();
    let x = explain(&b, &c, 0.0, total);
    assert_eq!(x.len(), MAX_ENTRIES + 1);
    assert_eq!(x[0].function, "f79", "largest |delta| first");
    assert!(x.windows(2).take(MAX_ENTRIES - 1).all(|w| w[0].delta.abs() >= w[1].delta.abs()));
    let rest: f64 = (0..30).map(|i| 10.0 + i as f64).sum();
    assert_eq!(x[MAX_ENTRIES].delta, rest, "the 30 smallest are in other");
}

#[test]
fn a_side_is_the_mean_of_its_processes_and_shown_top_first_escaped() {
    let p = |v: f64| Profile {
        functions: vec![("a::f".into(), v), ("a::<g>`x".into(), 1.0)],
        rest: 0.0,
        note: None,
    };
    let m = SideProfile::mean([&p(100.0), &p(300.0)]).unwrap();
    assert_eq!((m.functions["a::f"], m.processes), (200.0, 2));
    assert!(SideProfile::mean(std::iter::empty::<&Profile>()).is_none());
    let x = explain(&side(&[("a::f", 100.0)]), &m, 100.0, 201.0);
    let md = markdown_lines(&x, 5);
    assert_eq!(md[0], "  - `a::f +100 instr/call, 99% of the change`");
    assert_eq!(
        md[1], "  - `a::<g>'x (new) +1 instr/call, 1% of the change`",
        "a backtick cannot end the span"
    );
    assert_eq!(terminal_lines(&x, 1), ["    a::f +100 instr/call, 99% of the change"]);
    let hostile = explain(&side(&[]), &side(&[("a::\x1b[2Jf", 5.0)]), 0.0, 5.0);
    assert_eq!(
        terminal_lines(&hostile, 3)[0],
        "    a::\\u{1b}[2Jf (new) +5 instr/call, 100% of the change",
        "an escape sequence is written out, not sent to the terminal"
    );
}

#[test]
fn the_html_view_draws_one_bar_per_entry_coloured_by_sign_with_names_escaped() {
    let mut b: Vec<(String, f64)> = (0..30).map(|i| (format!("a::f{i:02}"), 1000.0)).collect();
    let mut c: Vec<(String, f64)> = (0..30).map(|i| (format!("a::f{i:02}"), 1000.0 + i as f64)).collect();
    b.push(("alloc::vec::Vec<T>::push".into(), 900.0));
    c.push(("alloc::vec::Vec<T>::push".into(), 100.0));
    c.push(("a::<fresh>\"'&".into(), 500.0));
    let side = |f: &[(String, f64)]| SideProfile {
        functions: f.iter().cloned().collect(),
        processes: 1,
        note: None,
    };
    let (bt, ct) = (b.iter().map(|f| f.1).sum::<f64>(), c.iter().map(|f| f.1).sum::<f64>());
    let x = explain(&side(&b), &side(&c), bt, ct);
    let html = html_view("scen<x> instructions", &x);
    assert_eq!(html.matches("<rect class=\"bar\"").count(), HTML_TOP + 1, "the top 20 and other");
    assert!(
        html.contains("alloc::vec::Vec&lt;T&gt;::push") && !html.contains("Vec<T>"),
        "{html}"
    );
    assert!(
        html.contains("a::&lt;fresh&gt;&quot;&#39;&amp; (new)"),
        "new marked, escaped: {html}"
    );
    assert!(html.contains("scen&lt;x&gt;") && !html.contains("<x>"));
    // Vec::push shrank (green), the new function and a::f29 grew (red), other is grey.
    let bar = |name: &str| {
        let at = html.find(&format!("<title>{name}")).unwrap_or_else(|| panic!("{name}: {html}"));
        let rect = html[..at].rfind("<rect").unwrap();
        html[rect..at].to_owned()
    };
    assert!(bar("alloc::vec::Vec&lt;T&gt;::push").contains("#2f855a"));
    assert!(bar("a::f29").contains("#c53030"));
    assert!(bar("a::&lt;fresh&gt;").contains("stroke-dasharray"), "one side only: dashed");
    assert!(bar("other").contains("#8a94a3"));
    assert!(
        !html.contains("<title>a::f05"),
        "the 30 small changes beyond the top 20 are in other"
    );
    assert_eq!(html_section(std::iter::empty()), "", "no explained row: no section");
    assert!(html_section([("s m".to_owned(), x.as_slice())]).contains("Where the instructions changed"));
}
