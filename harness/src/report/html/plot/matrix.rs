//! `matrix`: detect's order dependences as a grid: a row per affected scenario (victim or
//! brittle), a column per scenario that affects it, the cell coloured by the relation.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Area, BLUE, DrawResult, FONT, GREEN, GREY, INK, LABEL_SIZE, RED, short_label, svg};

const CELL: i32 = 28;
const LABEL_CHARS: usize = 36;
/// Rows or columns beyond this are left out of the chart (the table lists them all).
pub(crate) const MAX_SIDE: usize = 40;

/// The colour of a relation: `polluter`, `state-setter` or `cleaner`.
pub(crate) fn relation_colour(relation: &str) -> RGBColor {
    match relation {
        "polluter" => RED,
        "state-setter" => BLUE,
        "cleaner" => GREEN,
        _ => GREY,
    }
}

/// The matrix of `edges` (`(affected, cause, relation)`), as an SVG string; `marks`
/// (`(affected, cause, letters)`) write how the cause acts into its cell.
pub(crate) fn matrix(edges: &[(String, String, &'static str)], marks: &[(String, String, String)]) -> String {
    let mut rows: Vec<&str> = Vec::new();
    let mut cols: Vec<&str> = Vec::new();
    for (affected, cause, _) in edges {
        if !rows.contains(&affected.as_str()) && rows.len() < MAX_SIDE {
            rows.push(affected);
        }
        if !cols.contains(&cause.as_str()) && cols.len() < MAX_SIDE {
            cols.push(cause);
        }
    }
    let longest = |names: &[&str]| names.iter().map(|n| n.chars().count().min(LABEL_CHARS)).max().unwrap_or(4) as i32;
    let left = 20 + 7 * longest(&rows);
    let top = 20 + 7 * longest(&cols);
    let width = (left + CELL * cols.len() as i32 + 20).max(400);
    let height = top + CELL * rows.len() as i32 + 40 + if marks.is_empty() { 0 } else { 18 };
    svg(width as u32, height as u32, |root| {
        root.fill(&WHITE)?;
        let font = (FONT, LABEL_SIZE).into_font().color(&INK);
        let row_label = font.clone().pos(Pos::new(HPos::Right, VPos::Center));
        let col_label = TextStyle::from((FONT, LABEL_SIZE).into_font().transform(FontTransform::Rotate270))
            .color(&INK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (r, name) in rows.iter().enumerate() {
            let y = top + CELL * r as i32;
            root.draw(&Text::new(
                short_label(name, LABEL_CHARS),
                (left - 6, y + CELL / 2),
                row_label.clone(),
            ))?;
        }
        for (c, name) in cols.iter().enumerate() {
            let x = left + CELL * c as i32;
            root.draw(&Text::new(
                short_label(name, LABEL_CHARS),
                (x + CELL / 2, top - 6),
                col_label.clone(),
            ))?;
        }
        for r in 0..rows.len() {
            for c in 0..cols.len() {
                let (x, y) = (left + CELL * c as i32, top + CELL * r as i32);
                root.draw(&Rectangle::new([(x, y), (x + CELL, y + CELL)], GREY.mix(0.35).stroke_width(1)))?;
            }
        }
        for (affected, cause, relation) in edges {
            let (Some(r), Some(c)) = (rows.iter().position(|n| n == affected), cols.iter().position(|n| n == cause)) else {
                continue;
            };
            let (x, y) = (left + CELL * c as i32, top + CELL * r as i32);
            root.draw(&Rectangle::new(
                [(x + 3, y + 3), (x + CELL - 3, y + CELL - 3)],
                relation_colour(relation).filled(),
            ))?;
        }
        let mark_font = (FONT, LABEL_SIZE)
            .into_font()
            .color(&WHITE)
            .pos(Pos::new(HPos::Center, VPos::Center));
        for (affected, cause, letters) in marks {
            let (Some(r), Some(c)) = (rows.iter().position(|n| n == affected), cols.iter().position(|n| n == cause)) else {
                continue;
            };
            let (x, y) = (left + CELL * c as i32, top + CELL * r as i32);
            root.draw(&Text::new(letters.clone(), (x + CELL / 2, y + CELL / 2), mark_font.clone()))?;
        }
        legend(root, top + CELL * rows.len() as i32 + 20, !marks.is_empty())
    })
}

/// The relation colours under the grid, and the mechanism letters when any cell has them.
fn legend(root: &Area<'_>, y: i32, with_marks: bool) -> DrawResult {
    let font = (FONT, LABEL_SIZE).into_font().color(&INK).pos(Pos::new(HPos::Left, VPos::Center));
    let mut x = 8;
    for relation in ["polluter", "state-setter", "cleaner"] {
        root.draw(&Rectangle::new([(x, y - 6), (x + 12, y + 6)], relation_colour(relation).filled()))?;
        root.draw(&Text::new(relation, (x + 16, y), font.clone()))?;
        x += 120;
    }
    if with_marks {
        root.draw(&Text::new("E env, C cwd, F file, M memory", (8, y + 18), font))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_filled_cell_per_edge_and_labels_escaped() {
        let edges = vec![
            ("victim".to_string(), "<script>alert(1)</script>".to_string(), "polluter"),
            ("brittle".to_string(), "setter".to_string(), "state-setter"),
        ];
        let out = matrix(&edges, &[]);
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("E env"));
        let marked = matrix(
            &edges,
            &[("victim".to_string(), "<script>alert(1)</script>".to_string(), "EF".to_string())],
        );
        assert!(marked.contains("\nEF\n") && marked.contains("E env, C cwd"), "{marked}");
        // 2 x 2 grid outlines + 2 filled cells + 3 legend swatches + the background.
        assert_eq!(out.matches("<rect").count(), 4 + 2 + 3 + 1, "{out}");
    }
}
