//! A comparison of two records as a standalone SVG file, for a README or a review
//! ([`comparison_svg`], what `lane-records diff --svg` writes).

use project_lanes::record::diff::Diff;

use super::svg::{card, escape_xml};
use crate::diff::{Compared, lines};
use crate::i18n::{DiffMsg, Lang, fill, text};
use crate::tree::{ROOT, Tree, html};

/// The card's margin, the strip's height and the height of a line of text.
const PAD: u64 = 12;
const STRIP_H: u64 = 64;
const LINE_H: u64 = 18;
/// The narrowest card.
const MIN_WIDTH: u64 = 960;

/// The comparison of `a` (named `names[0]`, e.g. its file) with `b`: a heading, the strip of
/// the viewer's comparison (where the records differ, A above, B below), and the lines
/// `lane-records diff` prints, on a card of the viewer's background. `css` is the viewer's
/// stylesheet, with light fallbacks as [`super::timeline_svg`] writes it.
pub fn comparison_svg(
    names: [&str; 2],
    records: [&dyn Compared; 2],
    diff: &Diff,
    lang: Lang,
    css: &str,
) -> String {
    let l = lang.tag();
    let [a, b] = records;
    let heading = fill(
        text(lang, DiffMsg::Comparing),
        &[a.title().get(l), b.title().get(l)],
    );
    let lines = lines(lang, names, a, b, diff);
    // Text is not measured here: about 7 px a character at 12 px, 12 px for a wide one.
    let width_of = |line: &str| -> u64 {
        line.chars()
            .map(|c| if c.is_ascii() { 7 } else { 12 })
            .sum::<u64>()
    };
    let widest = lines
        .iter()
        .map(|l| width_of(l) + 16)
        .chain([width_of(&heading) * 8 / 7])
        .max()
        .unwrap_or(0);
    let width = (widest + 2 * PAD).max(MIN_WIDTH);
    let strip_top = PAD + 24;
    let lines_top = strip_top + STRIP_H + 8;
    let height = lines_top + LINE_H * lines.len() as u64 + PAD;
    let mut strip = Tree::new();
    let items = crate::diff::items(lang, a, b, diff);
    let listed = &items[..items.len().min(crate::compare::LISTED)];
    let counts = [a.steps(), b.steps()];
    crate::compare::strip(&mut strip, ROOT, lang, (counts, diff), (listed, None), true);
    let strip = html::write(&strip);
    let strip = strip.replacen(
        "<svg ",
        &format!(
            // The stylesheet sizes the strip for a page: here the attributes do.
            "<svg x=\"{PAD}\" y=\"{strip_top}\" width=\"{w}\" height=\"{STRIP_H}\" \
             style=\"width: {w}px; height: {STRIP_H}px\" ",
            w = width - 2 * PAD
        ),
        1,
    );

    let mut out = card((width, height), lang, &heading, css);
    out.push_str(&format!(
        "<text class=\"lv-svg-key lv-svg-key-head\" x=\"{PAD}\" y=\"{}\" font-size=\"14\">",
        PAD + 14
    ));
    escape_xml(&heading, &mut out);
    out.push_str("</text>");
    out.push_str(&strip.replace("&nbsp;", "&#160;"));
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        out.push_str(&format!(
            "<text class=\"lv-svg-key\" x=\"{}\" y=\"{}\">",
            PAD + 8 * indent as u64,
            lines_top + LINE_H * i as u64 + 13
        ));
        escape_xml(line.trim_start(), &mut out);
        out.push_str("</text>");
    }
    out.push_str("</g></svg>\n");
    out
}
