//! `escape`: the one function through which every scenario-provided string reaches the HTML.

use std::borrow::Cow;

/// Escapes `s` for HTML text and for double- or single-quoted attribute values alike.
///
/// `&`, `<`, `>`, `"` and `'` become entities, so no text can open a tag (`</script>`), close
/// an attribute, or end a CDATA section (`]]>`). C0 control characters other than tab and the
/// line breaks are not allowed in HTML and become U+FFFD, so a child's binary garbage cannot
/// make the page a parse error.
pub(crate) fn escape(s: &str) -> Cow<'_, str> {
    let needs = |c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || is_forbidden_control(c);
    if !s.chars().any(needs) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + s.len() / 8 + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if is_forbidden_control(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn is_forbidden_control(c: char) -> bool {
    (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{7f}'
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        assert!(matches!(escape("latency_ns [N=4]"), std::borrow::Cow::Borrowed("latency_ns [N=4]")));
    }

    #[test]
    fn script_tags_become_text() {
        let e = escape("<script>alert(1)</script>");
        assert_eq!(e, "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert!(!e.contains('<') && !e.contains('>'));
    }

    #[test]
    fn quotes_cannot_close_an_attribute() {
        let e = escape(r#"x" onmouseover="alert(1)' y='"#);
        assert!(!e.contains('"') && !e.contains('\''), "{e}");
        assert_eq!(e, "x&quot; onmouseover=&quot;alert(1)&#39; y=&#39;");
    }

    #[test]
    fn cdata_end_and_ampersands_are_neutralised() {
        assert_eq!(escape("]]>&amp;"), "]]&gt;&amp;amp;");
        assert_eq!(escape("</style><!--"), "&lt;/style&gt;&lt;!--");
    }

    #[test]
    fn control_characters_are_replaced_but_whitespace_kept() {
        assert_eq!(escape("a\u{0}b\u{1b}[31mc\td\ne\r"), "a\u{FFFD}b\u{FFFD}[31mc\td\ne\r");
    }

    #[test]
    fn non_ascii_passes_through() {
        assert_eq!(escape("ß → 日本 <"), "ß → 日本 &lt;");
    }
}
