//! The state's transitions, driven without a page.

use std::rc::Rc;

use project_lanes::record::{Recorder, Text};

use super::*;
use crate::entry::Loaded;

fn text(s: &str) -> Text {
    Text {
        en: s.into(),
        ja: s.into(),
    }
}

/// A loaded record `id` of `steps` steps.
fn record(id: &str, steps: usize) -> Entry<()> {
    let mut rec = Recorder::new(id, text(id), text(id), &["docs", "site"], "site").unwrap();
    for n in 0..steps {
        rec.claim("docs", &format!("run-{n}"));
    }
    let record = rec.finish().unwrap();
    Entry {
        id: id.into(),
        title: text(id),
        file: format!("{id}.json"),
        url: None,
        opened: false,
        named_by_file: false,
        hashed: true,
        verdict_told: Default::default(),
        content: Content::Loaded(Rc::new(Loaded::new(record, ()))),
    }
}

fn pending(id: &str) -> Entry<()> {
    Entry {
        content: Content::Pending,
        ..record(id, 1)
    }
}

fn opened(entry: Entry<()>, file: &str) -> Entry<()> {
    Entry {
        opened: true,
        file: file.into(),
        ..entry
    }
}

fn link(record: Option<&str>, lang: Option<Lang>, step: Option<usize>) -> Link {
    Link {
        record: record.map(String::from),
        lang,
        step,
        ..Link::default()
    }
}

fn ids(state: &State<()>) -> Vec<&str> {
    state.entries.iter().map(|e| e.id.as_str()).collect()
}

fn mounted(follows_link: bool) -> State<()> {
    let mut state = State::new(Lang::En, follows_link);
    let entries = vec![record("a", 3), record("b", 5)];
    state.loaded(Ok(entries), None, Link::default());
    state
}

#[test]
fn the_page_asks_for_a_record_before_the_link_and_an_unknown_one_is_a_notice() {
    let mut state = State::<()>::new(Lang::En, true);
    let changes = state.loaded(
        Ok(vec![record("a", 3), record("b", 5)]),
        Some("b".into()),
        link(Some("a"), None, Some(2)),
    );
    assert_eq!(state.selected_id(), Some("b"));
    assert_eq!(state.current_step, Some(2));
    assert_eq!(changes.step, Some(true));
    assert_eq!(changes.link, Some(Write::Replace));
    assert!(!state.loading);

    let mut state = State::<()>::new(Lang::En, false);
    let changes = state.loaded(
        Ok(vec![record("a", 3)]),
        Some("zzz".into()),
        Link::default(),
    );
    assert_eq!(state.selected_id(), Some("a"));
    assert_eq!(
        state.notice.as_ref().map(|n| n.kind),
        Some(ViewerError::UnknownRecord)
    );
    assert_eq!(
        changes.link, None,
        "a viewer that does not follow the link never writes it"
    );
}

#[test]
fn an_unknown_id_keeps_the_selection_until_the_next_selection_clears_the_notice() {
    let mut state = mounted(false);
    let (known, changes) = state.select("nope", Origin::User);
    assert!(!known);
    assert!(changes.status && !changes.panel);
    assert_eq!(state.selected_id(), Some("a"));
    let (known, changes) = state.select("a", Origin::User);
    assert!(known);
    assert!(changes.status, "the notice goes");
    assert!(!changes.panel, "the same record stays");
    assert!(state.notice.is_none());
}

#[test]
fn a_new_record_starts_with_no_step_and_steps_stay_inside_the_record() {
    let mut state = mounted(true);
    assert_eq!(state.select_step(3, Origin::User), None, "a has 3 steps");
    let changes = state.select_step(2, Origin::User).unwrap();
    assert_eq!(
        (changes.step, changes.link),
        (Some(true), Some(Write::Push))
    );
    assert_eq!(state.current_step, Some(2));
    let changes = state.select_step(2, Origin::User).unwrap();
    assert_eq!(changes.step, None, "the same step is not shown again");
    let changes = state.select_index(1, Origin::User);
    assert!(changes.tabs && changes.panel);
    assert_eq!(state.current_step, None);
    assert_eq!(state.steps(), 5);
}

#[test]
fn the_links_step_waits_for_its_record_and_is_dropped_for_another() {
    let mut state = State::<()>::new(Lang::En, true);
    let entries = vec![pending("a"), pending("b")];
    state.loaded(Ok(entries), None, link(Some("b"), None, Some(3)));
    assert_eq!((state.current_step, state.wanted_step), (None, Some(3)));
    assert!(state.busy());
    let changes = state.arrived(0, record("a", 9).content);
    assert_eq!(
        (changes.tab, changes.panel, changes.loaded),
        (Some(0), false, false)
    );
    let changes = state.arrived(1, record("b", 5).content);
    assert!(changes.panel && changes.loaded);
    assert_eq!(changes.step, Some(true));
    assert_eq!(changes.link, Some(Write::Replace));
    assert_eq!(state.current_step, Some(3));
    assert_eq!(
        state.arrived(1, Content::Pending),
        Changes::default(),
        "once only"
    );

    // A step past the record's end is dropped; so is a step for a record no longer selected.
    let mut state = State::<()>::new(Lang::En, true);
    state.loaded(
        Ok(vec![pending("a"), pending("b")]),
        None,
        link(None, None, Some(7)),
    );
    state.select_index(1, Origin::User);
    assert_eq!(state.wanted_step, None);
    let mut state = State::<()>::new(Lang::En, true);
    state.loaded(Ok(vec![pending("a")]), None, link(None, None, Some(7)));
    let changes = state.arrived(0, record("a", 2).content);
    assert_eq!((changes.step, state.current_step), (None, None));
}

#[test]
fn opened_records_get_free_names_and_never_replace_a_shown_record() {
    let mut state = mounted(false);
    let changes = state.open(vec![opened(record("a", 1), "mine.json")]);
    assert!(changes.all);
    assert_eq!(ids(&state), ["a", "b", "mine.json"]);
    let duplicate = &state.entries[2];
    assert!(
        matches!(&duplicate.content, Content::Failed(e) if e.kind == ViewerError::DuplicateRecord)
    );
    assert_eq!(state.selected, 2);

    // A file that could not be read is named by its file name, and gives the name up.
    let broken = Entry::failed("c", LoadError::new(ViewerError::InvalidJson, "x"));
    state.open(vec![broken]);
    assert_eq!(ids(&state), ["a", "b", "mine.json", "c"]);
    state.open(vec![opened(record("c", 1), "c.json")]);
    assert_eq!(ids(&state), ["a", "b", "mine.json", "c (2)", "c"]);
    state.open(vec![Entry::failed(
        "c",
        LoadError::new(ViewerError::InvalidJson, "x"),
    )]);
    assert_eq!(ids(&state), ["a", "b", "mine.json", "c (2)", "c", "c (3)"]);
}

#[test]
fn files_opened_while_the_index_loads_come_after_its_records() {
    let mut state = State::<()>::new(Lang::En, false);
    let changes = state.open(vec![opened(record("mine", 1), "mine.json")]);
    assert_eq!(
        changes,
        Changes::default(),
        "nothing is shown before the index"
    );
    state.loaded(Ok(vec![record("a", 1)]), None, Link::default());
    assert_eq!(ids(&state), ["a", "mine"]);
    assert_eq!(state.selected_id(), Some("a"));
}

#[test]
fn following_the_link_changes_language_record_and_step_without_writing_it_back() {
    let mut state = mounted(true);
    let changes = state.follow(link(Some("b"), Some(Lang::Ja), Some(4)));
    assert_eq!(state.lang, Lang::Ja);
    assert_eq!(
        (state.selected_id(), state.current_step),
        (Some("b"), Some(4))
    );
    assert!(changes.all && changes.panel);
    assert_eq!(
        changes.step,
        Some(false),
        "the link's step is shown, not scrolled to"
    );
    assert_eq!(changes.link, None);
    // A link without a step clears it.
    let changes = state.follow(link(Some("b"), None, None));
    assert_eq!((state.current_step, changes.step), (None, Some(false)));
    // While the index loads only the language is taken.
    let mut state = State::<()>::new(Lang::En, true);
    state.follow(link(Some("b"), Some(Lang::Ja), Some(1)));
    assert_eq!((state.lang, state.entries.len()), (Lang::Ja, 0));
}

#[test]
fn the_link_written_names_the_record_its_language_and_its_step_from_one() {
    let mut state = mounted(true);
    let encode = |v: &str| v.replace(' ', "%20");
    assert_eq!(
        state.link("#src=x", encode).as_deref(),
        Some("#src=x&record=a&lang=en")
    );
    state.select_step(1, Origin::User);
    state.set_lang(Lang::Ja, Origin::User);
    let hash = state.link("", encode).unwrap();
    assert_eq!(hash, "#record=a&lang=ja&step=2");
    assert_eq!(state.link(&hash, encode), None, "unchanged");
}

#[test]
fn the_axis_redraws_the_timeline_and_keeps_the_record_its_step_and_the_link() {
    let mut state = mounted(true);
    state.select_step(1, Origin::User).unwrap();
    let changes = state.set_axis(Axis::Time);
    assert!(changes.timeline && !changes.panel && !changes.all);
    assert_eq!(
        changes.step,
        Some(false),
        "the marker moves, nothing scrolls"
    );
    assert_eq!(changes.link, None, "the link does not name the axis");
    assert_eq!(
        (state.selected_id(), state.current_step),
        (Some("a"), Some(1))
    );
    assert_eq!(state.set_axis(Axis::Time), Changes::default());
    // Another record keeps the reader's choice.
    state.select_index(1, Origin::User);
    assert_eq!(state.axis, Axis::Time);
    let changes = state.set_axis(Axis::Steps);
    assert!(changes.timeline);
    assert_eq!(changes.step, None, "no step to show");
}

#[test]
fn zooming_draws_a_window_that_follows_the_current_step_until_another_record() {
    let mut state = State::new(Lang::En, true);
    state.loaded(
        Ok(vec![record("a", 100), record("b", 5)]),
        None,
        Link::default(),
    );
    state.select_step(60, Origin::User).unwrap();
    let changes = state.set_zoom(Zoom::In);
    assert!(changes.timeline && !changes.panel);
    assert_eq!(changes.step, Some(false), "the marker is drawn again");
    assert_eq!(changes.link, None, "the link does not name the zoom");
    assert_eq!(state.window(), Window { from: 45, to: 70 });
    assert!(state.set_zoom(Zoom::In).timeline);
    assert_eq!(state.window(), Window { from: 54, to: 64 });
    assert_eq!(
        state.set_zoom(Zoom::In),
        Changes::default(),
        "ten steps at most"
    );
    // A step inside moves nothing; one outside moves the window.
    assert!(!state.select_step(63, Origin::User).unwrap().timeline);
    assert!(state.select_step(99, Origin::User).unwrap().timeline);
    assert_eq!(state.window(), Window { from: 90, to: 100 });
    assert!(state.select_step(0, Origin::Link).unwrap().timeline);
    assert_eq!(state.window(), Window { from: 0, to: 10 });
    assert!(state.set_zoom(Zoom::Whole).timeline);
    assert_eq!((state.zoom, state.window()), (None, Window::whole(100)));
    assert_eq!(state.set_zoom(Zoom::Out), Changes::default());
    // Another record is drawn whole.
    state.set_zoom(Zoom::In);
    state.select_index(1, Origin::User);
    assert_eq!(state.window(), Window::whole(5));
}

/// The steps the state's query found.
fn found(state: &State<()>) -> Option<Vec<u32>> {
    match &state.found {
        Some(Ok(found)) => Some(found.steps().to_vec()),
        _ => None,
    }
}

#[test]
fn a_query_finds_its_steps_and_walks_them_round_both_ways() {
    let mut state = mounted(true);
    let changes = state.set_query("is:refused", Origin::User);
    assert!(changes.find);
    assert_eq!(changes.link, Some(Write::Replace), "not one entry per key");
    assert_eq!(found(&state), Some(vec![1, 2]));
    assert_eq!(
        state.set_query("is:refused", Origin::User),
        Changes::default()
    );
    let changes = state.find_step(true);
    assert!(changes.find && changes.step == Some(true));
    assert_eq!(state.current_step, Some(1));
    state.find_step(true);
    assert_eq!(state.current_step, Some(2));
    state.find_step(true);
    assert_eq!(state.current_step, Some(1), "round past the last");
    state.find_step(false);
    assert_eq!(state.current_step, Some(2), "round past the first");
    let hash = state.link("", |v| v.replace(':', "%3A")).unwrap();
    assert_eq!(hash, "#record=a&lang=en&step=3&find=is%3Arefused");
}

#[test]
fn a_refused_query_says_why_and_moves_nothing() {
    let mut state = mounted(false);
    let changes = state.set_query("colour:red", Origin::User);
    assert!(changes.find);
    assert_eq!(changes.link, None, "this viewer does not follow the link");
    let code = state
        .found
        .as_ref()
        .and_then(|f| f.as_ref().err())
        .map(|e| e.code());
    assert_eq!(code, Some("UNKNOWN_KEY"));
    assert_eq!(state.find_step(true), Changes::default());
    assert_eq!(state.current_step, None);
    state.set_query("", Origin::User);
    assert!(state.found.is_none());
}

#[test]
fn another_record_is_searched_again_and_the_link_holds_the_query() {
    let mut state = State::<()>::new(Lang::En, true);
    let mut with_find = link(Some("b"), None, None);
    with_find.find = Some("run-4".into());
    state.loaded(Ok(vec![record("a", 3), record("b", 5)]), None, with_find);
    assert_eq!(state.query, "run-4");
    assert_eq!(found(&state), Some(vec![4]));
    let changes = state.select_index(0, Origin::User);
    assert!(changes.find);
    assert_eq!(found(&state), Some(vec![]), "record a has no run-4");
    // Following a link without a query empties the box.
    let changes = state.follow(link(Some("a"), None, None));
    assert!(changes.find && state.query.is_empty() && state.found.is_none());
    assert_eq!(changes.link, None, "never written back");
}

#[test]
fn a_search_is_found_again_in_each_record_it_switches_to() {
    let mut state = mounted(true);
    state.set_query("is:refused", Origin::User);
    // a: one claim held, two refused; b: four refused.
    assert_eq!(found(&state), Some(vec![1, 2]));
    state.select("b", Origin::User);
    assert_eq!(found(&state), Some(vec![1, 2, 3, 4]));
    state.select("a", Origin::User);
    assert_eq!(found(&state), Some(vec![1, 2]), "a's matches kept");
    state.set_query("code:ok", Origin::User);
    assert_eq!(found(&state), Some(vec![0]), "a new query, searched again");
    state.select("b", Origin::User);
    state.set_query("is:refused", Origin::User);
    assert_eq!(found(&state), Some(vec![1, 2, 3, 4]));
}

#[test]
fn a_query_waits_for_its_record() {
    let mut state = State::<()>::new(Lang::En, true);
    state.loaded(Ok(vec![pending("a")]), None, Link::default());
    state.set_query("op:claim", Origin::User);
    assert!(state.found.is_none(), "nothing to search yet");
    let changes = state.arrived(0, record("a", 2).content);
    assert!(changes.find);
    assert_eq!(found(&state), Some(vec![0, 1]));
}

#[test]
fn a_comparison_waits_for_both_records_walks_its_differences_and_shows_a_side() {
    let mut state = mounted(true);
    state.loaded(
        Ok(vec![record("a", 2), pending("b")]),
        None,
        Link {
            compare: Some(["a".into(), "b".into()]),
            diff: Some(1),
            ..Link::default()
        },
    );
    let comparison = state.compare.as_ref().unwrap();
    assert_eq!(comparison.ids, ["a".to_string(), "b".to_string()]);
    assert!(comparison.diff.is_none(), "b is still loading");
    // b claims docs three times: two steps only in b, two refusals only in b.
    let changes = state.arrived(1, record("b", 4).content);
    assert!(changes.compare);
    let comparison = state.compare.as_ref().unwrap();
    assert_eq!(comparison.listed(), 3, "{:?}", comparison.diff);
    assert_eq!(comparison.at, Some(1), "the link's difference, kept");
    assert_eq!(state.step_diff(true).link, Some(Write::Push));
    assert_eq!(state.compare.as_ref().unwrap().at, Some(2));
    state.step_diff(true);
    assert_eq!(
        state.compare.as_ref().unwrap().at,
        Some(0),
        "round past the last"
    );
    state.step_diff(false);
    assert_eq!(state.compare.as_ref().unwrap().at, Some(2));
    assert!(state.select_diff(3, Origin::User) == Changes::default());
    let hash = state.link("", |v| v.to_string()).unwrap();
    assert!(hash.ends_with("&compare=a,b&diff=3"), "{hash}");

    // Difference 0: steps 3 and 4 in B only; showing B selects it at step 3.
    state.select_diff(0, Origin::User);
    state.show_side(1);
    assert_eq!(
        (state.selected_id(), state.current_step),
        (Some("b"), Some(2))
    );
    assert!(state.compare.is_some(), "the comparison stays");

    assert!(
        state
            .set_compare(Some(["a".into(), "nope".into()]), Origin::User)
            .status
    );
    assert!(state.notice.is_some() && state.compare.is_some());
    assert!(state.set_compare(None, Origin::User).compare);
    assert!(state.compare.is_none());
    let hash = state.link("", |v| v.to_string()).unwrap();
    assert!(!hash.contains("compare"), "{hash}");
}

/// What a page is told of `entry` after replaying all of it (`None`: not replayed).
fn replayed(entry: &Entry<()>) -> Option<crate::entry::Verdict> {
    use crate::entry::Verification;
    let loaded = entry.content.loaded()?;
    let outcome = project_lanes::record::Replay::new(&loaded.record)
        .and_then(|mut replay| replay.run(&loaded.record, usize::MAX));
    *loaded.verification.borrow_mut() = match outcome {
        Ok(true) => Verification::Verified,
        Ok(false) => Verification::Running(0),
        Err(mismatch) => Verification::Failed(mismatch),
    };
    entry.verdict()
}

#[test]
fn a_verdict_comes_once_the_file_is_read_and_replayed_with_its_step_and_code() {
    assert_eq!(pending("a").verdict(), None, "still loading");
    let fresh = record("a", 3);
    assert_eq!(fresh.verdict(), None, "not replayed yet");
    let verdict = replayed(&fresh).unwrap();
    assert_eq!(
        (verdict.verdict, verdict.step, verdict.code),
        ("verified", None, None)
    );

    // Step 0's saved answer changed to step 1's refusal: the core answers otherwise there.
    let tampered = record("b", 3);
    let Content::Loaded(loaded) = &tampered.content else {
        unreachable!()
    };
    let mut changed = loaded.record.clone();
    changed.steps[0].result = changed.steps[1].result.clone();
    let tampered = Entry {
        content: Content::Loaded(Rc::new(Loaded::new(changed, ()))),
        ..record("b", 3)
    };
    let verdict = replayed(&tampered).unwrap();
    assert_eq!(
        (verdict.verdict, verdict.step, verdict.code),
        ("mismatch", Some(0), Some("REPLAY_MISMATCH"))
    );

    let failed = Entry::<()>::failed(
        "x.json",
        LoadError::new(ViewerError::HashMismatch, "sha256 differs"),
    );
    let verdict = failed.verdict().unwrap();
    assert_eq!(
        (verdict.verdict, verdict.step, verdict.code),
        ("invalid", None, Some("HASH_MISMATCH"))
    );
}

/// Record `id` of `steps` steps, chained to the root `0x11…` (its hex: `1111…`).
fn chained(id: &str, steps: usize) -> Entry<()> {
    let mut entry = record(id, steps);
    let Content::Loaded(loaded) = &mut entry.content else {
        unreachable!()
    };
    Rc::get_mut(loaded).unwrap().proof = crate::entry::Proof::Chained {
        root: project_lanes::record::chain::Hash([0x11; 32]),
        signer: None,
        others: Vec::new(),
    };
    entry
}

#[test]
fn a_link_pinned_to_another_root_selects_no_step_and_says_so() {
    let pinned = |root: &str| Link {
        root: Some(root.into()),
        ..link(Some("a"), None, Some(1))
    };
    // The record's own root: its step, and the written link pins it again.
    let mut state = State::<()>::new(Lang::En, true);
    state.loaded(Ok(vec![chained("a", 3)]), None, pinned("111111111111"));
    assert_eq!((state.current_step, &state.pin), (Some(1), &None));
    let hash = state.link("", |v| v.to_string()).unwrap();
    assert_eq!(hash, "#record=a&lang=en&step=2&root=1111111111111111");
    // Another root, or too short a one: no step, a warning until the link changes.
    for other in ["111111111112", "11111111111"] {
        let mut state = State::<()>::new(Lang::En, true);
        state.loaded(Ok(vec![chained("a", 3)]), None, pinned(other));
        assert_eq!(state.current_step, None);
        let pin = state.pin.clone().unwrap();
        assert_eq!(
            (pin.expected.as_str(), pin.found.as_deref()),
            (other, Some("111111111111"))
        );
        let changes = state.follow(link(Some("a"), None, Some(2)));
        assert!(changes.status);
        assert_eq!((state.current_step, &state.pin), (Some(2), &None));
    }
    // A record without a chain: no root found.
    let mut state = State::<()>::new(Lang::En, true);
    state.loaded(Ok(vec![record("a", 3)]), None, pinned("111111111111"));
    assert_eq!(state.current_step, None);
    assert_eq!(state.pin.as_ref().unwrap().found, None);
    // A record still loading is checked when it arrives.
    let mut state = State::<()>::new(Lang::En, true);
    state.loaded(Ok(vec![pending("a")]), None, pinned("2222222222222222"));
    let content = chained("a", 3).content;
    let changes = state.arrived(0, content);
    assert!(changes.status);
    assert_eq!(state.current_step, None);
    assert!(state.pin.is_some());
}
