//! The deep link: `#record=<id>&lang=<en|ja>[&step=<n>[&root=<hex>]][&find=<query>][&compare=<a>,<b>[&diff=<k>]]`
//! in the page's address. `root` pins the step to a chained record: the first hex digits of its
//! root hash (the viewer writes [`ROOT_PINNED`]); a link whose root is not the record's says so
//! and selects no step.
//! Ids and queries are percent-encoded (`encodeURIComponent`), so a value with `&`, `=`, `#` or
//! a space stays one value and comes back as it was; steps are counted from 1, as readers count.
//! The page's `decodeURIComponent` and `encodeURIComponent` are passed in.

use crate::i18n::Lang;

/// What a deep link asks for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// The record's id, decoded.
    pub record: Option<String>,
    /// The language.
    pub lang: Option<Lang>,
    /// The step, from 0.
    pub step: Option<usize>,
    /// The root hash the link was made for (hex, as written; [`root_matches`] compares it).
    pub root: Option<String>,
    /// The find box's query, decoded ([`crate::find`]).
    pub find: Option<String>,
    /// The two records compared (A, B), decoded.
    pub compare: Option<[String; 2]>,
    /// The current difference of the comparison, from 0.
    pub diff: Option<usize>,
}

/// What the viewer shows, as the deep link writes it.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    /// The selected record's id.
    pub id: &'a str,
    /// The language.
    pub lang: Lang,
    /// The current step, from 0.
    pub step: Option<usize>,
    /// The record's root hash (64 hex digits), if it is chained: a step link pins it.
    pub root: Option<&'a str>,
    /// The find box's query (none when empty).
    pub find: &'a str,
    /// The records compared (A, B) and the current difference (from 0), if comparing.
    pub compare: Option<([&'a str; 2], Option<usize>)>,
}

/// The keys the deep link writes; a page's other keys are kept.
const KEYS: [&str; 7] = ["record", "lang", "step", "root", "find", "compare", "diff"];

/// How many hex digits of the root a written step link carries.
pub const ROOT_PINNED: usize = 16;

/// The fewest hex digits of a root a link must give to pin it.
pub const ROOT_MIN: usize = 12;

/// Whether a link's `root` (hex, at least [`ROOT_MIN`] digits, any case) is the start of the
/// record's root (`full`, 64 hex digits); a shorter or malformed one pins nothing it could prove.
pub fn root_matches(given: &str, full: &str) -> bool {
    given.len() >= ROOT_MIN
        && given.len() <= full.len()
        && given.bytes().all(|b| b.is_ascii_hexdigit())
        && full
            .get(..given.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(given))
}

/// Parses a deep link, decoding values with `decode`; unknown keys, languages and steps are
/// ignored.
pub fn parse(hash: &str, decode: impl Fn(&str) -> String) -> Link {
    let mut link = Link::default();
    for pair in hash.trim_start_matches('#').split('&') {
        match pair.split_once('=') {
            Some(("record", id)) if !id.is_empty() => link.record = Some(decode(id)),
            Some(("lang", tag)) => link.lang = Lang::from_tag(tag).or(link.lang),
            Some(("step", n)) => link.step = parse_step(n).or(link.step),
            Some(("root", hex)) if !hex.is_empty() => link.root = Some(decode(hex)),
            Some(("find", query)) if !query.is_empty() => link.find = Some(decode(query)),
            Some(("compare", ids)) => {
                link.compare = ids
                    .split_once(',')
                    .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                    .map(|(a, b)| [decode(a), decode(b)])
                    .or(link.compare);
            }
            Some(("diff", n)) => link.diff = parse_step(n).or(link.diff),
            _ => {}
        }
    }
    link
}

/// `step=<n>`'s value (from 1) as a step from 0.
fn parse_step(n: &str) -> Option<usize> {
    if n.is_empty() || n.len() > 9 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse::<usize>().ok()?.checked_sub(1)
}

/// The page's hash with `record`, `lang`, `step` and `find` set: the page's other keys (such as
/// the standalone page's `src=`) are kept, first. `encode` percent-encodes the id and the query
/// (`encodeURIComponent` in the page).
pub fn write(current: &str, shown: Shown<'_>, encode: impl Fn(&str) -> String) -> String {
    let Shown {
        id,
        lang,
        step,
        root,
        find,
        compare,
    } = shown;
    let mut hash = String::from("#");
    for pair in current.trim_start_matches('#').split('&') {
        let key = pair.split('=').next().unwrap_or_default();
        if !pair.is_empty() && !KEYS.contains(&key) {
            hash.push_str(pair);
            hash.push('&');
        }
    }
    hash.push_str("record=");
    hash.push_str(&encode(id));
    hash.push_str("&lang=");
    hash.push_str(lang.tag());
    if let Some(n) = step {
        hash.push_str("&step=");
        hash.push_str(&(n + 1).to_string());
        if let Some(root) = root.and_then(|r| r.get(..ROOT_PINNED)) {
            hash.push_str("&root=");
            hash.push_str(root);
        }
    }
    if !find.is_empty() {
        hash.push_str("&find=");
        hash.push_str(&encode(find));
    }
    if let Some(([a, b], at)) = compare {
        // `encodeURIComponent` writes a comma in an id as `%2C`: the one comma splits.
        hash.push_str("&compare=");
        hash.push_str(&encode(a));
        hash.push(',');
        hash.push_str(&encode(b));
        if let Some(k) = at {
            hash.push_str("&diff=");
            hash.push_str(&(k + 1).to_string());
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(hash: &str) -> Link {
        parse(hash, |v| v.to_string())
    }

    #[test]
    fn deep_links_name_a_record_a_language_and_a_step() {
        assert_eq!(
            plain("#record=busy-project&lang=ja"),
            Link {
                record: Some("busy-project".into()),
                lang: Some(Lang::Ja),
                step: None,
                root: None,
                find: None,
                compare: None,
                diff: None,
            }
        );
        assert_eq!(plain("#lang=fr&record="), Link::default());
        assert_eq!(plain(""), Link::default());
        assert_eq!(plain("#x=1&record=a").record.as_deref(), Some("a"));
    }

    #[test]
    fn record_values_are_decoded() {
        let link = parse("#record=bad%20name.json&lang=en", |v| v.replace("%20", " "));
        assert_eq!(link.record.as_deref(), Some("bad name.json"));
    }

    #[test]
    fn written_links_keep_the_pages_other_keys_first() {
        let upper = |v: &str| v.to_uppercase();
        let shown = |id, lang, step, find| Shown {
            id,
            lang,
            step,
            root: None,
            find,
            compare: None,
        };
        assert_eq!(
            write(
                "#src=x.json&record=old&step=3&find=old",
                shown("a b", Lang::Ja, Some(0), ""),
                upper
            ),
            "#src=x.json&record=A B&lang=ja&step=1"
        );
        assert_eq!(
            write("", shown("a", Lang::En, None, ""), upper),
            "#record=A&lang=en"
        );
        assert_eq!(
            write("#x=1", shown("a", Lang::En, Some(4), "op:claim"), upper),
            "#x=1&record=A&lang=en&step=5&find=OP:CLAIM"
        );
    }

    #[test]
    fn the_query_comes_back_decoded() {
        let decode = |v: &str| v.replace("%20", " ").replace("%3A", ":");
        let link = parse("#record=a&find=op%3Aclaim%20docs", decode);
        assert_eq!(link.find.as_deref(), Some("op:claim docs"));
        assert_eq!(plain("#record=a&find=").find, None);
    }

    #[test]
    fn deep_links_count_steps_from_one() {
        let step = |hash: &str| plain(hash).step;
        assert_eq!(step("#record=a&lang=en&step=5"), Some(4));
        assert_eq!(step("#step=1"), Some(0));
        assert_eq!(step("#step=0"), None);
        assert_eq!(step("#step=-1"), None);
        assert_eq!(step("#step=2x"), None);
        assert_eq!(step("#record=a"), None);
        assert_eq!(step("#step=99999999999"), None);
    }

    #[test]
    fn a_comparison_is_two_ids_and_its_current_difference() {
        let link = parse("#record=a&compare=x%2Cy,b%20c&diff=3", |v| {
            v.replace("%2C", ",").replace("%20", " ")
        });
        assert_eq!(link.compare, Some(["x,y".into(), "b c".into()]));
        assert_eq!(link.diff, Some(2));
        for bad in ["#compare=a", "#compare=,b", "#compare=a,", "#compare="] {
            assert_eq!(plain(bad).compare, None, "{bad}");
        }
        let shown = Shown {
            id: "a",
            lang: Lang::En,
            step: None,
            root: None,
            find: "",
            compare: Some((["x,y", "b"], Some(0))),
        };
        let encode = |v: &str| v.replace(',', "%2C");
        let hash = write("#compare=old,older&diff=9&src=s", shown, encode);
        assert_eq!(hash, "#src=s&record=a&lang=en&compare=x%2Cy,b&diff=1");
        let back = parse(&hash, |v| v.replace("%2C", ","));
        assert_eq!(
            (back.compare, back.diff),
            (Some(["x,y".into(), "b".into()]), Some(0))
        );
    }

    #[test]
    fn a_step_link_of_a_chained_record_pins_its_root() {
        let full = "0123456789abcdef".repeat(4);
        let shown = Shown {
            id: "a",
            lang: Lang::En,
            step: Some(2),
            root: Some(&full),
            find: "",
            compare: None,
        };
        let hash = write("#root=old&step=9", shown, |v| v.to_string());
        assert_eq!(hash, "#record=a&lang=en&step=3&root=0123456789abcdef");
        let back = plain(&hash);
        assert_eq!(
            (back.step, back.root.as_deref()),
            (Some(2), Some("0123456789abcdef"))
        );
        let no_step = Shown {
            step: None,
            ..shown
        };
        assert_eq!(write("", no_step, |v| v.to_string()), "#record=a&lang=en");
    }

    #[test]
    fn a_pinned_root_matches_only_as_a_long_enough_start() {
        let full = "0123456789abcdef".repeat(4);
        assert!(root_matches("0123456789ab", &full));
        assert!(root_matches("0123456789ABCDEF", &full));
        assert!(root_matches(&full, &full));
        assert!(!root_matches("0123456789a", &full), "11 digits pin nothing");
        assert!(!root_matches("1123456789ab", &full));
        assert!(!root_matches("0123456789ag", &full));
        assert!(!root_matches(&format!("{full}0"), &full));
    }
}
