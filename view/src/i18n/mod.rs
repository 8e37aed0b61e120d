//! Every string the viewer shows, in English and Japanese, and the two helpers that fill them
//! in: [`fill`] (numbered placeholders, `{0}`, `{1}`, …) and [`group`] (counts).
//!
//! - `viewer.rs`: the viewer's messages ([`Msg`]); `timeline.rs`: the timeline's ([`TlMsg`]);
//!   `find.rs`: the find box's ([`FindMsg`]); `diff.rs`: a comparison's ([`DiffMsg`]); all written with `catalog!` (`catalog.rs`), once per message with both languages side by
//!   side, which also derives the list of every message the tests walk.
//! - `terms.rs`: the domain's words ([`Term`]): operations, states, outcomes, error codes.
//!
//! Japanese terms follow `GLOSSARY.md` beside this file.

mod catalog;
mod diff;
mod find;
mod terms;
mod timeline;
mod viewer;

pub use diff::DiffMsg;
pub use find::FindMsg;
pub use terms::Term;
pub use timeline::TlMsg;
pub use viewer::Msg;

/// A display language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Japanese.
    Ja,
}

impl Lang {
    /// Both languages, in switcher order.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ja];

    /// The BCP 47 tag: `en` or `ja`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
        }
    }

    /// `en` or `ja` exactly; nothing else.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        match tag {
            "en" => Some(Lang::En),
            "ja" => Some(Lang::Ja),
            _ => None,
        }
    }

    /// The language of a browser preference such as `ja-JP` or `en-GB`, if it is one of ours.
    pub fn from_preference(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
        Lang::from_tag(&primary)
    }

    /// The language's own name, for the switcher.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Ja => "日本語",
        }
    }
}

/// A message of the catalog.
pub trait Message: Copy {
    /// Its text in `lang`.
    fn text(self, lang: Lang) -> &'static str;
}

/// The text of `msg` in `lang`.
pub fn text(lang: Lang, msg: impl Message) -> &'static str {
    msg.text(lang)
}

/// Every message of the catalog in both languages' order: the viewer's, the timeline's, the find
/// box's and the domain's words.
pub fn every_text(lang: Lang) -> Vec<&'static str> {
    let mut all: Vec<&str> = Msg::ALL.iter().map(|m| text(lang, *m)).collect();
    all.extend(TlMsg::ALL.iter().map(|m| text(lang, *m)));
    all.extend(FindMsg::ALL.iter().map(|m| text(lang, *m)));
    all.extend(DiffMsg::ALL.iter().map(|m| text(lang, *m)));
    all.extend(Term::all().into_iter().map(|t| text(lang, t)));
    all
}

/// Replaces `{0}`, `{1}`, … in `template` with `values` (a placeholder without a value stays;
/// values are never searched for placeholders themselves).
pub fn fill(template: &str, values: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        // `get` rather than indexing, so no slicing panic (and its formatting code) is linked.
        let (head, tail) = (
            rest.get(..at).unwrap_or_default(),
            rest.get(at..).unwrap_or_default(),
        );
        out.push_str(head);
        let bytes = tail.as_bytes();
        let value = match (bytes.get(1), bytes.get(2)) {
            (Some(d @ b'0'..=b'9'), Some(b'}')) => values.get(usize::from(d - b'0')),
            _ => None,
        };
        match value {
            Some(value) => {
                out.push_str(value);
                rest = tail.get(3..).unwrap_or_default();
            }
            None => {
                out.push('{');
                rest = tail.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    out
}

/// `n` with its digits grouped by three (`10,000`), as both languages write counts.
pub fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A size in bytes in the largest binary unit, with one decimal: "64 MiB", "1.5 GiB", "900
/// bytes" (written so in both languages).
pub fn binary_size(bytes: u64) -> String {
    const UNITS: [(&str, u32); 3] = [("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if bytes >= 1 << shift {
            let tenths = ((u128::from(bytes) * 10 + (1 << shift) / 2) >> shift) as u64;
            return match tenths % 10 {
                0 => format!("{} {unit}", tenths / 10),
                d => format!("{}.{d} {unit}", tenths / 10),
            };
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ViewerError;
    use project_lanes::LaneError;

    #[test]
    fn a_size_is_written_in_the_largest_binary_unit() {
        assert_eq!(binary_size(64 << 20), "64 MiB");
        assert_eq!(binary_size(3 << 29), "1.5 GiB");
        assert_eq!(binary_size(1_000), "1000 bytes");
        assert_eq!(binary_size(1_024), "1 KiB");
        assert_eq!(binary_size(1_000_000), "976.6 KiB");
        assert_eq!(binary_size(9_007_199_254_740_991), "8388608 GiB");
    }

    /// Every message: (name, English, Japanese).
    fn every_message() -> Vec<(String, &'static str, &'static str)> {
        let pair =
            |name: String, m: &dyn Fn(Lang) -> &'static str| (name, m(Lang::En), m(Lang::Ja));
        let mut all = Vec::new();
        for &m in Msg::ALL {
            all.push(pair(format!("{m:?}"), &|l| text(l, m)));
        }
        for &m in TlMsg::ALL {
            all.push(pair(format!("{m:?}"), &|l| text(l, m)));
        }
        for &m in FindMsg::ALL {
            all.push(pair(format!("Find{m:?}"), &|l| text(l, m)));
        }
        for m in Term::all() {
            all.push(pair(format!("{m:?}"), &|l| text(l, m)));
        }
        all
    }

    #[test]
    fn every_message_exists_in_both_languages_with_the_same_placeholders() {
        let all = every_message();
        assert_eq!(
            all.len(),
            Msg::ALL.len() + TlMsg::ALL.len() + FindMsg::ALL.len() + 10 + 2 + 4 + 5 + 6 + 7 + 14
        );
        assert_eq!(Msg::ALL.len(), 89);
        assert_eq!(TlMsg::ALL.len(), 46);
        assert_eq!(FindMsg::ALL.len(), 15);
        for (name, en, ja) in all {
            assert!(!en.trim().is_empty() && !ja.trim().is_empty(), "{name}");
            assert_ne!(en, ja, "{name} is not translated");
            // Japanese text is written in Japanese: it has kana or kanji, except the two
            // templates of punctuation alone (`{0}：{1}`, `{0}（{1}）`, `{0}：{1}。`).
            assert!(
                ["Labelled", "Exact", "AltRow"].contains(&name.as_str())
                    || ja.chars().any(|c| ('\u{3040}'..='\u{30ff}').contains(&c)
                        || ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{name}: {ja}"
            );
            // One placeholder style: numbered, the same ones in both languages.
            for text in [en, ja] {
                assert!(!text.contains("{}"), "{name}: {text}");
            }
            for n in 0..10 {
                let p = format!("{{{n}}}");
                assert_eq!(en.matches(&p).count(), ja.matches(&p).count(), "{name} {p}");
            }
        }
    }

    #[test]
    fn label_colons_follow_each_language() {
        // Japanese text uses the full-width colon, like the timeline's legend (レーン：).
        assert_eq!(
            fill(text(Lang::Ja, Msg::QueuesLabel), &["a, b"]),
            "キュー：a, b"
        );
        assert_eq!(
            fill(text(Lang::En, Msg::QueuesLabel), &["a, b"]),
            "Queues: a, b"
        );
    }

    #[test]
    fn counts_are_grouped_by_three_digits() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000), "1,000");
        assert_eq!(group(10_000), "10,000");
        assert_eq!(group(1_234_567), "1,234,567");
    }

    #[test]
    fn numbered_placeholders_take_values_in_any_order() {
        assert_eq!(
            fill("{0} from step {1} to {2}", &["idle", "1", "3"]),
            "idle from step 1 to 3"
        );
        assert_eq!(
            fill("ステップ {1}〜{2} は{0}", &["空き", "1", "3"]),
            "ステップ 1〜3 は空き"
        );
        assert_eq!(fill("{9} and {x} and {", &["a"]), "{9} and {x} and {");
        assert_eq!(fill("{0} / {1}", &["{1}", "x"]), "{1} / x");
        assert_eq!(fill("{0} and {1}", &["a"]), "a and {1}");
    }

    #[test]
    fn languages_come_from_exact_tags_or_browser_preferences() {
        assert_eq!(Lang::from_tag("ja"), Some(Lang::Ja));
        assert_eq!(Lang::from_tag("JA"), None);
        assert_eq!(Lang::from_preference("ja-JP"), Some(Lang::Ja));
        assert_eq!(Lang::from_preference("en_GB"), Some(Lang::En));
        assert_eq!(Lang::from_preference("fr-FR"), None);
    }

    #[test]
    fn viewer_error_codes_are_distinct_from_lane_codes() {
        for v in ViewerError::ALL {
            assert!(LaneError::from_code(v.code()).is_none());
        }
    }
}
