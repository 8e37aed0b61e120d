//! The find box above the timeline: the query's input, previous and next match, and the line
//! that counts the matches or says why the query was not taken ([`status`]). The page keeps
//! the input's text in the viewer's state; matching is [`crate::find`]'s.
//!
//! DOM contract (docs/src/dom-contract.md): `[data-find]` (`role="search"`) holds
//! `input[data-find-input]`, the buttons `[data-find-prev]` and `[data-find-next]`, and
//! `[data-find-status]` (a live region) with `data-find-count` (the number of matches) or
//! `data-find-error` (the query's code, such as `UNKNOWN_KEY`).

use crate::find::{Found, MAX_QUERY_BYTES, QueryError};
use crate::i18n::{FindMsg, Lang, fill, group, text};
use crate::tree::{N, Tree};

/// The find box under `parent`, showing `query`; `prefix` makes its ids unique per viewer.
pub fn find_box(t: &mut Tree, parent: N, lang: Lang, prefix: &str, query: &str) -> N {
    let status_id = format!("{prefix}-find-status");
    let hint_id = format!("{prefix}-find-hint");
    let find = t.el(parent, "div", "lv-find");
    t.attr(find, "role", "search");
    t.attr(find, "data-find", "");
    let input = t.el(find, "input", "lv-find-input");
    for (name, value) in [
        ("type", "search"),
        ("data-find-input", ""),
        ("aria-label", text(lang, FindMsg::Label)),
        ("placeholder", text(lang, FindMsg::Placeholder)),
        ("aria-describedby", &format!("{status_id} {hint_id}")),
        ("autocomplete", "off"),
        ("spellcheck", "false"),
        ("value", query),
    ] {
        t.attr(input, name, value);
    }
    for (key, label, arrow) in [
        ("data-find-prev", FindMsg::Previous, "‹"),
        ("data-find-next", FindMsg::Next, "›"),
    ] {
        let button = t.el(find, "button", "lv-find-step");
        t.attr(button, "type", "button");
        t.attr(button, key, "");
        t.attr(button, "aria-label", text(lang, label));
        t.attr(button, "title", text(lang, label));
        t.text(button, arrow);
    }
    let status = t.el(find, "span", "lv-find-status");
    t.attr(status, "id", &status_id);
    t.attr(status, "data-find-status", "");
    t.attr(status, "aria-live", "polite");
    let hint = t.el_text(find, "span", "lv-sr", text(lang, FindMsg::Hint));
    t.attr(hint, "id", &hint_id);
    find
}

/// What the status line shows.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// Its words (empty while the box is).
    pub text: String,
    /// How many steps match, when the query was taken.
    pub count: Option<usize>,
    /// The query's code, when it was not.
    pub error: Option<&'static str>,
}

/// The status line for `found` (the state's) with step `current` current: "12 matches",
/// "Match 3 of 12", "No step matches", or why the query was not taken.
pub fn status(
    lang: Lang,
    found: Option<&Result<Found, QueryError>>,
    current: Option<usize>,
) -> Status {
    match found {
        None => Status::default(),
        Some(Err(error)) => Status {
            text: refusal(lang, error),
            count: None,
            error: Some(error.code()),
        },
        Some(Ok(found)) => {
            let count = found.count();
            let text = match (count, current.and_then(|n| found.ordinal(n))) {
                (0, _) => text(lang, FindMsg::None).to_string(),
                (_, Some(at)) => fill(text(lang, FindMsg::Ordinal), &[&group(at), &group(count)]),
                (1, None) => fill(text(lang, FindMsg::CountOne), &[&group(1)]),
                (_, None) => fill(text(lang, FindMsg::Count), &[&group(count)]),
            };
            Status {
                text,
                count: Some(count),
                error: None,
            }
        }
    }
}

/// Why the query was not taken, in words.
pub fn refusal(lang: Lang, error: &QueryError) -> String {
    let msg = match error {
        QueryError::UnknownKey(_) => FindMsg::UnknownKey,
        QueryError::EmptyValue(_) => FindMsg::EmptyValue,
        QueryError::UnknownOp(_) => FindMsg::UnknownOp,
        QueryError::BadTime(_) => FindMsg::BadTime,
        QueryError::UnknownKind(_) => FindMsg::UnknownKind,
        QueryError::TooLong(_) => {
            return fill(text(lang, FindMsg::TooLong), &[&group(MAX_QUERY_BYTES)]);
        }
    };
    fill(text(lang, msg), &[error.word()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::find::Query;
    use crate::tree::{ROOT, html};

    #[test]
    fn the_box_is_a_named_search_with_its_status_and_hint() {
        let mut t = Tree::new();
        find_box(&mut t, ROOT, Lang::En, "lv1", "op:claim \"x\"");
        let html = html::write(&t);
        assert!(
            html.starts_with("<div class=\"lv-find\" role=\"search\" data-find=\"\">"),
            "{html}"
        );
        assert!(
            html.contains("aria-describedby=\"lv1-find-status lv1-find-hint\""),
            "{html}"
        );
        assert!(html.contains("value=\"op:claim &quot;x&quot;\""), "{html}");
        assert!(html.contains("id=\"lv1-find-status\" data-find-status=\"\" aria-live=\"polite\""));
        assert!(html.contains("data-find-prev=\"\" aria-label=\"Previous match\""));
    }

    #[test]
    fn the_status_counts_matches_and_names_the_current_one() {
        let found = |steps: &[u32]| Ok(Found::of(steps.to_vec()));
        let status = |f: &Result<Found, QueryError>, n| status(Lang::En, Some(f), n).text;
        assert_eq!(status(&found(&[]), None), "No step matches");
        assert_eq!(status(&found(&[3]), None), "1 match");
        assert_eq!(status(&found(&[3, 9]), Some(4)), "2 matches");
        assert_eq!(status(&found(&[3, 9]), Some(9)), "Match 2 of 2");
        let ja = super::status(Lang::Ja, Some(&found(&[3, 9])), Some(3));
        assert_eq!(
            (ja.text.as_str(), ja.count),
            ("該当 2 件中 1 件目", Some(2))
        );
        assert_eq!(super::status(Lang::En, None, None), Status::default());
    }

    #[test]
    fn a_refused_query_says_its_word_and_code() {
        let error = Query::parse("colour:red").unwrap_err();
        let shown = status(Lang::Ja, Some(&Err(error)), None);
        assert_eq!(shown.error, Some("UNKNOWN_KEY"));
        assert!(shown.text.starts_with("colour:red："), "{}", shown.text);
        let long = Query::parse(&"x".repeat(2_000)).unwrap_err();
        assert_eq!(
            refusal(Lang::En, &long),
            "The query is longer than 1,000 bytes"
        );
    }
}
