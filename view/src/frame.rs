//! The viewer's frame around the panel, as [`Tree`] operations: the language switcher, the
//! "Open records…" controls, the record selector's tabs, the error boxes and the loading line.
//!
//! DOM contract (docs/src/dom-contract.md): `[role=tab][data-record-id][aria-selected]` tabs (with
//! `[data-opened-file]` and `[data-tab-error]`), `[data-lang-choice]` buttons,
//! `[data-open-records]`, `[data-viewer-error]` and `[data-root-mismatch]`.

use project_lanes::record::Text;

use crate::entry::{Content, Entry};
use crate::error::LoadError;
use crate::i18n::{Lang, Msg, Term, binary_size, fill, group, text};
use crate::state::Pin;
use crate::tree::{N, Tree, isolated};

/// The accessible name of a viewer's region (`role="region"`): what it shows, the title of
/// the record (`title`, or "Records" before there is one), so that several viewers on a page
/// have distinct names.
pub fn region_label(lang: Lang, title: Option<&Text>) -> String {
    let shown = title.map_or(text(lang, Msg::RecordsLabel), |t| t.get(lang.tag()));
    fill(text(lang, Msg::ViewerLabel), &[shown])
}

/// A code shown verbatim (`<code translate="no">`).
pub fn code(t: &mut Tree, parent: N, value: &str) -> N {
    let c = t.el_text(parent, "code", "lv-code", value);
    t.attr(c, "translate", "no");
    c
}

/// The error box for a failed load: the message in `lang`, the code verbatim, and the detail.
pub fn error_box<T>(t: &mut Tree, parent: N, lang: Lang, error: &LoadError<T>) -> N {
    let code_text = error.kind.code();
    let wrap = t.el(parent, "div", "lv-error");
    t.attr(wrap, "role", "alert");
    t.attr(wrap, "data-viewer-error", code_text);
    let message = t.el(wrap, "p", "lv-error-message");
    t.text(message, text(lang, Term::Viewer(error.kind)));
    t.text(message, " ");
    code(t, message, code_text);
    if let Some(held) = error.held {
        // The step limit the record went past, in the reader's language (`[data-max-steps]`).
        let steps = group(usize::try_from(held.steps).unwrap_or(usize::MAX));
        let said = fill(
            text(lang, Msg::StepLimit),
            &[&steps, &binary_size(held.memory)],
        );
        let line = t.el_text(wrap, "p", "lv-error-held", &said);
        t.attr_number(line, "data-max-steps", held.steps);
    }
    if !error.detail.is_empty() {
        // The detail may quote file contents: text only. It is English in either language.
        let detail = t.el_text(wrap, "p", "lv-error-detail", &error.detail);
        t.attr(detail, "lang", "en");
    }
    wrap
}

/// The warning that a deep link was made for another record (`[data-root-mismatch]`, the
/// link's root): its step is not selected.
pub fn pin_warning(t: &mut Tree, parent: N, lang: Lang, pin: &Pin) -> N {
    let wrap = t.el(parent, "div", "lv-error lv-pin");
    t.attr(wrap, "role", "alert");
    t.attr(wrap, "data-root-mismatch", &pin.expected);
    let message = t.el(wrap, "p", "lv-error-message");
    match &pin.found {
        Some(found) => isolated(
            t,
            message,
            text(lang, Msg::RootMismatch),
            &[&pin.expected, found],
        ),
        None => isolated(t, message, text(lang, Msg::RootMissing), &[&pin.expected]),
    }
    wrap
}

/// The line that says records are loading.
pub fn loading(t: &mut Tree, parent: N, lang: Lang, read: Option<(u64, Option<u64>)>) -> N {
    let line = t.el_text(parent, "p", "lv-loading", text(lang, Msg::Loading));
    let Some((bytes, size)) = read else {
        return line;
    };
    // How much of the file being read has arrived: words, and a bar when its size is known.
    t.attr_number(line, "data-load-progress", bytes);
    let words = match size {
        Some(size) => fill(
            text(lang, Msg::LoadingOf),
            &[&binary_size(bytes), &binary_size(size)],
        ),
        None => fill(text(lang, Msg::LoadingSoFar), &[&binary_size(bytes)]),
    };
    t.text(line, " ");
    t.text(line, &words);
    if let Some(size) = size {
        t.text(line, " ");
        let bar = t.el(line, "progress", "");
        t.attr_number(bar, "max", size);
        t.attr_number(bar, "value", bytes.min(size));
    }
    line
}

/// The language switcher's buttons, `lang` pressed.
pub fn languages(t: &mut Tree, parent: N, lang: Lang) {
    for choice in Lang::ALL {
        let button = t.el_text(parent, "button", "lv-lang", choice.name());
        t.attr(button, "type", "button");
        t.attr(button, "lang", choice.tag());
        t.attr(button, "data-lang-choice", choice.tag());
        let pressed = if choice == lang { "true" } else { "false" };
        t.attr(button, "aria-pressed", pressed);
    }
}

/// The "Open records…" button, its hidden file input and the note that nothing is uploaded.
pub fn open_controls(t: &mut Tree, parent: N, lang: Lang) {
    let button = t.el_text(parent, "button", "lv-open", text(lang, Msg::OpenRecords));
    t.attr(button, "type", "button");
    t.attr(button, "data-open-records", "");
    let input = t.el(parent, "input", "");
    t.attr(input, "type", "file");
    t.attr(input, "accept", ".json,application/json");
    t.attr(input, "multiple", "");
    t.attr(input, "hidden", "");
    t.attr(input, "data-open-input", "");
    t.el_text(parent, "p", "lv-open-note", text(lang, Msg::OpenNote));
}

/// The ids a tab needs: its own and its panel's.
pub struct TabIds<'a> {
    /// The tab's `id`.
    pub tab: &'a str,
    /// The `id` of the panel it controls (`aria-controls`).
    pub panel: &'a str,
}

/// The record selector's tab for `entry`: its title, the file name for opened files, and for a
/// record that could not be shown, a text saying so (not only a colour).
pub fn tab<T>(t: &mut Tree, parent: N, lang: Lang, entry: &Entry<T>, ids: &TabIds) -> N {
    let failed = match &entry.content {
        Content::Failed(error) => Some(error.kind.code()),
        _ => None,
    };
    let class = if failed.is_some() {
        "lv-tab lv-tab-error"
    } else {
        "lv-tab"
    };
    let tab = t.el(parent, "button", class);
    t.el_text(tab, "span", "lv-tab-title", entry.title.get(lang.tag()));
    t.attr(tab, "type", "button");
    t.attr(tab, "role", "tab");
    t.attr(tab, "id", ids.tab);
    t.attr(tab, "aria-controls", ids.panel);
    t.attr(tab, "data-record-id", &entry.id);
    if entry.opened {
        t.attr(tab, "data-opened-file", &entry.file);
        t.text(tab, " ");
        t.el_text(tab, "span", "lv-tab-file", &entry.file);
    }
    if entry.content.is_pending() {
        t.attr(tab, "aria-busy", "true");
    } else if let Some(code) = failed {
        t.attr(tab, "data-tab-error", code);
        t.text(tab, " ");
        t.el_text(tab, "span", "lv-sr", text(lang, Msg::TabFailed));
    }
    tab
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{ROOT, html};

    #[test]
    fn the_loading_line_says_how_much_of_the_file_has_arrived() {
        let line = |lang, read| {
            let mut t = Tree::new();
            loading(&mut t, ROOT, lang, read);
            html::write(&t)
        };
        assert_eq!(
            line(Lang::En, None),
            "<p class=\"lv-loading\">Loading records…</p>"
        );
        let known = line(Lang::En, Some((12 << 20, Some(80 << 20))));
        assert!(known.contains("data-load-progress=\"12582912\""), "{known}");
        assert!(known.contains("12 MiB of 80 MiB read"), "{known}");
        assert!(
            known.contains("<progress max=\"83886080\" value=\"12582912\">"),
            "{known}"
        );
        let ja = line(Lang::Ja, Some((3 << 19, None)));
        assert!(ja.contains("1.5 MiB を読みました"), "{ja}");
        assert!(!ja.contains("<progress"), "{ja}");
    }
}
