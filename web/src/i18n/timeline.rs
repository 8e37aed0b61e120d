//! The timeline's messages (`crate::timeline`), in English and Japanese.
//!
//! Kept apart from the main catalog so the timeline stays one self-contained feature. State
//! names are not repeated here: the timeline uses the main catalog's (`Msg::Idle`, `Msg::State`,
//! `Msg::Reservation`). Japanese terms follow `GLOSSARY.md`. Placeholders are numbered (`{0}`,
//! `{1}`, …) because the two languages put the values in different orders; see [`fill_n`].

use super::Lang;

/// The timeline's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlMsg {
    /// The heading above the timeline.
    Heading,
    /// The previous-step button.
    Previous,
    /// The next-step button.
    Next,
    /// `{0}`: the current step (from 1), `{1}`: the number of steps.
    Position,
    /// No step selected yet; `{0}`: the number of steps.
    NoPosition,
    /// No step selected yet in a record of one step; `{0}`: 1.
    NoPositionOne,
    /// The keys of the timeline, for assistive technologies.
    KeysHint,
    /// The visible note that the drawing scrolls sideways.
    ScrollHint,
    /// The accessible name of the timeline (a slider over the steps).
    SliderLabel,
    /// Legend: the mark of refused steps close together, with their count.
    RefusedBucket,
    /// Group heading of the lane rows.
    LanesGroup,
    /// Group heading of one queue's reservations; `{0}`: the queue.
    QueueGroup,
    /// The band under the rows that marks refused steps.
    RefusedBand,
    /// Legend: the mark of a refused step.
    RefusedMark,
    /// Legend: the current step's column.
    CurrentMark,
    /// Legend: the prefix of the lane states.
    LegendLanes,
    /// Legend: the prefix of the reservation states.
    LegendReservations,
    /// Legend: the label of the legend itself.
    Legend,
    /// Text alternative: the opening sentence; `{0}`: the number of steps.
    AltIntro,
    /// Text alternative of a record of one step.
    AltIntroOne,
    /// Text alternative: one row's name and what happened in it; `{0}`: name, `{1}`: spans.
    AltRow,
    /// The untouched project's row label and name in the text alternative; `{0}`: the project.
    AltUntouched,
    /// A reservation's name in the text alternative; `{0}`: id, `{1}`: queue, `{2}`: project.
    AltReservation,
    /// A span of several steps; `{0}`: state, `{1}`: first step, `{2}`: last step.
    AltSpan,
    /// A span of one step; `{0}`: state, `{1}`: the step.
    AltSpanOne,
    /// A row in one state from start to end; `{0}`: state.
    AltThroughout,
    /// Between two spans of one row.
    AltThen,
    /// After the spans shown when a row has more; `{0}`: how many more.
    AltMore,
    /// Text alternative: the refused steps; `{0}`: the list.
    AltRefused,
    /// One refused step; `{0}`: the step, `{1}`: the code.
    AltRefusedStep,
}

impl TlMsg {
    /// Every message, for the completeness test.
    pub const ALL: [TlMsg; 30] = [
        TlMsg::Heading,
        TlMsg::Previous,
        TlMsg::Next,
        TlMsg::Position,
        TlMsg::NoPosition,
        TlMsg::NoPositionOne,
        TlMsg::KeysHint,
        TlMsg::ScrollHint,
        TlMsg::SliderLabel,
        TlMsg::RefusedBucket,
        TlMsg::LanesGroup,
        TlMsg::QueueGroup,
        TlMsg::RefusedBand,
        TlMsg::RefusedMark,
        TlMsg::CurrentMark,
        TlMsg::LegendLanes,
        TlMsg::LegendReservations,
        TlMsg::Legend,
        TlMsg::AltIntro,
        TlMsg::AltIntroOne,
        TlMsg::AltRow,
        TlMsg::AltUntouched,
        TlMsg::AltReservation,
        TlMsg::AltSpan,
        TlMsg::AltSpanOne,
        TlMsg::AltThroughout,
        TlMsg::AltThen,
        TlMsg::AltMore,
        TlMsg::AltRefused,
        TlMsg::AltRefusedStep,
    ];
}

/// The text of `msg` in `lang`.
pub fn tl(lang: Lang, msg: TlMsg) -> &'static str {
    use TlMsg::*;
    match lang {
        Lang::En => match msg {
            Heading => "Timeline",
            Previous => "Previous step",
            Next => "Next step",
            Position => "Step {0} of {1}",
            NoPosition => "{0} steps · select a step in the timeline",
            NoPositionOne => "{0} step · select it in the timeline",
            KeysHint => {
                "Choose a step with the arrow keys, Home and End; its card below is highlighted."
            }
            ScrollHint => "The timeline scrolls sideways →",
            SliderLabel => "Timeline: current step",
            RefusedBucket => "refused steps close together, with their count",
            LanesGroup => "Lanes",
            QueueGroup => "Queue {0}",
            RefusedBand => "Refused",
            RefusedMark => "refused step, with its error code",
            CurrentMark => "current step",
            LegendLanes => "Lanes:",
            LegendReservations => "Reservations:",
            Legend => "Legend",
            AltIntro => "Timeline of {0} steps.",
            AltIntroOne => "Timeline of {0} step.",
            AltRow => "{0}: {1}.",
            AltUntouched => "{0} (untouched)",
            AltReservation => "Reservation {0} ({1}, {2})",
            AltSpan => "{0} from step {1} to {2}",
            AltSpanOne => "{0} at step {1}",
            AltThroughout => "{0} throughout",
            AltThen => ", then ",
            AltMore => ", and {0} more changes",
            AltRefused => "Refused: {0}.",
            AltRefusedStep => "step {0} ({1})",
        },
        Lang::Ja => match msg {
            Heading => "タイムライン",
            Previous => "前のステップ",
            Next => "次のステップ",
            Position => "ステップ {0}（全 {1} ステップ）",
            NoPosition => "全 {0} ステップ · タイムラインでステップを選べます",
            NoPositionOne => "全 {0} ステップ · タイムラインで選べます",
            KeysHint => {
                "矢印キーと Home・End でステップを選べます。選んだステップは下のカードで強調されます。"
            }
            ScrollHint => "タイムラインは横にスクロールできます →",
            SliderLabel => "タイムライン：現在のステップ",
            RefusedBucket => "近接する拒否されたステップ（件数付き）",
            LanesGroup => "レーン",
            QueueGroup => "キュー {0}",
            RefusedBand => "拒否",
            RefusedMark => "拒否されたステップ（エラーコード付き）",
            CurrentMark => "現在のステップ",
            LegendLanes => "レーン：",
            LegendReservations => "予約：",
            Legend => "凡例",
            AltIntro => "全 {0} ステップのタイムライン。",
            AltIntroOne => "{0} ステップのタイムライン。",
            AltRow => "{0}：{1}。",
            AltUntouched => "{0}（手つかず）",
            AltReservation => "予約 {0}（{1}、{2}）",
            AltSpan => "ステップ {1}〜{2} は{0}",
            AltSpanOne => "ステップ {1} は{0}",
            AltThroughout => "最初から最後まで{0}",
            AltThen => "、その後",
            AltMore => "、ほかに {0} 回の変化",
            AltRefused => "拒否：{0}。",
            AltRefusedStep => "ステップ {0}（{1}）",
        },
    }
}

/// Replaces `{0}`, `{1}`, … in `template` with `values` (a placeholder without a value stays).
pub fn fill_n(template: &str, values: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(at) = rest.find('{') {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_timeline_message_exists_in_both_languages_with_the_same_placeholders() {
        for msg in TlMsg::ALL {
            let (en, ja) = (tl(Lang::En, msg), tl(Lang::Ja, msg));
            assert!(!en.trim().is_empty() && !ja.trim().is_empty(), "{msg:?}");
            assert_ne!(en, ja, "{msg:?} is not translated");
            for n in 0..4 {
                let p = format!("{{{n}}}");
                assert_eq!(en.contains(&p), ja.contains(&p), "{msg:?} {p}");
            }
        }
    }

    #[test]
    fn numbered_placeholders_take_values_in_any_order() {
        assert_eq!(
            fill_n("{0} from step {1} to {2}", &["idle", "1", "3"]),
            "idle from step 1 to 3"
        );
        assert_eq!(
            fill_n("ステップ {1}〜{2} は{0}", &["空き", "1", "3"]),
            "ステップ 1〜3 は空き"
        );
        assert_eq!(fill_n("{9} and {x} and {", &["a"]), "{9} and {x} and {");
    }
}
