//! The timeline's text alternative: what it shows, in words, for assistive technologies.

use super::labels::row_label;
use super::model::{RowKind, Timeline};
use super::zoom::Window;
use crate::i18n::{Lang, TlMsg, fill, group, text};

/// Rows beyond this many spans are summarised in the text alternative.
const ALT_SPANS: usize = 6;

/// What the timeline shows, in words: every row's spans, then the refused steps.
pub fn alt_text(lang: Lang, t: &Timeline) -> String {
    let rows = t.rows().count();
    alt_text_of(lang, t, Window::whole(t.steps), (0, rows))
}

/// What the drawing of `window` and of rows `from..to` shows, in words: the rows drawn, their
/// spans in the window, then the refused steps in it.
pub(super) fn alt_text_of(
    lang: Lang,
    t: &Timeline,
    window: Window,
    (from, to): (usize, usize),
) -> String {
    let intro = if t.steps == 1 {
        TlMsg::AltIntroOne
    } else {
        TlMsg::AltIntro
    };
    let mut out = fill(text(lang, intro), &[&group(t.steps)]);
    if !window.is_whole(t.steps) {
        out.push(' ');
        let (a, b) = (group(window.from + 1), group(window.to));
        out.push_str(&fill(text(lang, TlMsg::AltSteps), &[&a, &b]));
    }
    let rows = t.rows().count();
    if to - from < rows {
        out.push(' ');
        let (a, b, all) = (group(from + 1), group(to), group(rows));
        out.push_str(&fill(text(lang, TlMsg::AltRows), &[&a, &b, &all]));
    }
    for row in t.rows().skip(from).take(to - from) {
        let first = row.segments.partition_point(|s| s.to < window.from);
        let shown = window.part(&row.segments[first..], |s| s.from.max(window.from));
        let name = match row.kind {
            RowKind::Lane => row_label(lang, row),
            RowKind::Reservation => fill(
                text(lang, TlMsg::AltReservation),
                &[&row.id, row.queue.unwrap_or_default(), row.project],
            ),
        };
        let mut spans = String::new();
        for (n, s) in shown.iter().take(ALT_SPANS).enumerate() {
            if n > 0 {
                spans.push_str(text(lang, TlMsg::AltThen));
            }
            let state = s.state.name(lang);
            let (from, to) = (group(s.from + 1), group(s.to + 1));
            spans.push_str(&if shown.len() == 1 && s.from == 0 && s.to + 1 == t.steps {
                fill(text(lang, TlMsg::AltThroughout), &[state])
            } else if s.from == s.to {
                fill(text(lang, TlMsg::AltSpanOne), &[state, &from])
            } else {
                fill(text(lang, TlMsg::AltSpan), &[state, &from, &to])
            });
        }
        if shown.len() > ALT_SPANS {
            let more = group(shown.len() - ALT_SPANS);
            spans.push_str(&fill(text(lang, TlMsg::AltMore), &[&more]));
        }
        out.push(' ');
        out.push_str(&fill(text(lang, TlMsg::AltRow), &[&name, &spans]));
    }
    let refused = window.part(&t.refused, |&(step, _)| step);
    if !refused.is_empty() {
        let mut list = String::new();
        for (n, (step, code)) in refused.iter().take(ALT_SPANS * 4).enumerate() {
            if n > 0 {
                list.push_str(", ");
            }
            let step = group(step + 1);
            list.push_str(&fill(text(lang, TlMsg::AltRefusedStep), &[&step, code]));
        }
        if refused.len() > ALT_SPANS * 4 {
            list.push_str(", …");
        }
        out.push(' ');
        out.push_str(&fill(text(lang, TlMsg::AltRefused), &[&list]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::model::{fixtures::stop_record, timeline};
    use super::*;

    #[test]
    fn the_text_alternative_says_what_each_row_does() {
        let record = stop_record();
        let t = timeline(&record);
        let en = alt_text(Lang::En, &t);
        assert!(en.starts_with("Timeline of 5 steps."), "{en}");
        assert!(
            en.contains("docs: running from step 1 to 2, then stop requested at step 3, then idle at step 4, then running at step 5."),
            "{en}"
        );
        assert!(en.contains("site (untouched): idle throughout."), "{en}");
        assert!(en.contains("Refused: step 2 (PROJECT_BUSY)."), "{en}");
        let ja = alt_text(Lang::Ja, &t);
        assert!(
            ja.contains("docs：ステップ 1〜2 は実行中、その後ステップ 3 は停止要求済み"),
            "{ja}"
        );
        assert!(
            ja.contains("site（手つかず）：最初から最後まで空き。"),
            "{ja}"
        );
    }
}
