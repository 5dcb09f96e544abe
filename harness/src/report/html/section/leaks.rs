//! The leaks (`--allocs`): scenarios whose calls left memory allocated (`leaked_bytes` > 0),
//! listed apart from the summary so that a leak is never one row among many.

use std::fmt::Write;

use super::super::escape::escape as e;

/// The `leaks` section: `(scenario, leaked_bytes per call)`.
pub(crate) fn leaks(out: &mut String, leaks: &[(String, String)]) {
    out.push_str(
        "<section id=\"leaks\"><h2>Leaks</h2><p class=\"muted\">Measured calls that left memory allocated at their end \
         (leaked_bytes &gt; 0; under the preload, bytes are malloc_usable_size).</p><table><thead><tr><th>scenario</th>\
         <th>leaked_bytes</th></tr></thead><tbody>",
    );
    for (scenario, per_call) in leaks {
        let _ = write!(out, "<tr><td>{}</td><td>{}</td></tr>", e(scenario), e(per_call));
    }
    out.push_str("</tbody></table></section>");
}
