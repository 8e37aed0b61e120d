//! The timeline's messages, in English and Japanese. State names are not repeated here: the
//! timeline uses the domain's (`terms.rs`).

use super::catalog::catalog;

catalog! {
    /// The timeline's messages.
    pub enum TlMsg {
        /// The heading above the timeline.
        Heading {
            en: "Timeline",
            ja: "タイムライン",
        }
        /// The previous-step button.
        Previous {
            en: "Previous step",
            ja: "前のステップ",
        }
        /// The next-step button.
        Next {
            en: "Next step",
            ja: "次のステップ",
        }
        /// `{0}`: the current step (from 1), `{1}`: the number of steps.
        Position {
            en: "Step {0} of {1}",
            ja: "ステップ {0}（全 {1} ステップ）",
        }
        /// No step selected yet; `{0}`: the number of steps.
        NoPosition {
            en: "{0} steps · select a step in the timeline",
            ja: "全 {0} ステップ · タイムラインでステップを選べます",
        }
        /// No step selected yet in a record of one step; `{0}`: 1.
        NoPositionOne {
            en: "{0} step · select it in the timeline",
            ja: "全 {0} ステップ · タイムラインで選べます",
        }
        /// The keys of the timeline, for assistive technologies.
        KeysHint {
            en: "Choose a step with the arrow keys, Home and End, and the next or previous refusal or recovery with ] and [; its card below is highlighted.",
            ja: "矢印キーと Home・End でステップを、] と [ で次または前の拒否・復旧を選べます。選んだステップは下のカードで強調されます。",
        }
        /// The visible note that the drawing scrolls sideways.
        ScrollHint {
            en: "The timeline scrolls sideways →",
            ja: "タイムラインは横にスクロールできます →",
        }
        /// The accessible name of the timeline (a slider over the steps).
        SliderLabel {
            en: "Timeline: current step",
            ja: "タイムライン：現在のステップ",
        }
        /// Legend: the mark of refused steps close together, with their count.
        RefusedBucket {
            en: "refused steps close together, with their count",
            ja: "近接する拒否されたステップ（件数付き）",
        }
        /// Group heading of the lane rows.
        LanesGroup {
            en: "Lanes",
            ja: "レーン",
        }
        /// Group heading of one queue's reservations; `{0}`: the queue.
        QueueGroup {
            en: "Queue {0}",
            ja: "キュー {0}",
        }
        /// The band under the rows that marks refused steps.
        RefusedBand {
            en: "Refused",
            ja: "拒否",
        }
        /// Legend: the mark of a refused step.
        RefusedMark {
            en: "refused step, with its error code",
            ja: "拒否されたステップ（エラーコード付き）",
        }
        /// Legend: the current step's column.
        CurrentMark {
            en: "current step",
            ja: "現在のステップ",
        }
        /// Legend: the prefix of the lane states.
        LegendLanes {
            en: "Lanes:",
            ja: "レーン：",
        }
        /// Legend: the prefix of the reservation states.
        LegendReservations {
            en: "Reservations:",
            ja: "予約：",
        }
        /// Legend: the label of the legend itself.
        Legend {
            en: "Legend",
            ja: "凡例",
        }
        /// Text alternative: the opening sentence; `{0}`: the number of steps.
        AltIntro {
            en: "Timeline of {0} steps.",
            ja: "全 {0} ステップのタイムライン。",
        }
        /// Text alternative of a record of one step.
        AltIntroOne {
            en: "Timeline of {0} step.",
            ja: "{0} ステップのタイムライン。",
        }
        /// Text alternative: one row's name and what happened in it; `{0}`: name, `{1}`: spans.
        AltRow {
            en: "{0}: {1}.",
            ja: "{0}：{1}。",
        }
        /// The untouched project's row label and name in the text alternative; `{0}`: the project.
        AltUntouched {
            en: "{0} (untouched)",
            ja: "{0}（手つかず）",
        }
        /// A reservation's name in the text alternative; `{0}`: id, `{1}`: queue, `{2}`: project.
        AltReservation {
            en: "Reservation {0} ({1}, {2})",
            ja: "予約 {0}（{1}、{2}）",
        }
        /// A span of several steps; `{0}`: state, `{1}`: first step, `{2}`: last step.
        AltSpan {
            en: "{0} from step {1} to {2}",
            ja: "ステップ {1}〜{2} は{0}",
        }
        /// A span of one step; `{0}`: state, `{1}`: the step.
        AltSpanOne {
            en: "{0} at step {1}",
            ja: "ステップ {1} は{0}",
        }
        /// A row in one state from start to end; `{0}`: state.
        AltThroughout {
            en: "{0} throughout",
            ja: "最初から最後まで{0}",
        }
        /// Between two spans of one row.
        AltThen {
            en: ", then ",
            ja: "、その後",
        }
        /// After the spans shown when a row has more; `{0}`: how many more.
        AltMore {
            en: ", and {0} more changes",
            ja: "、ほかに {0} 回の変化",
        }
        /// Text alternative: the refused steps; `{0}`: the list.
        AltRefused {
            en: "Refused: {0}.",
            ja: "拒否：{0}。",
        }
        /// One refused step; `{0}`: the step, `{1}`: the code.
        AltRefusedStep {
            en: "step {0} ({1})",
            ja: "ステップ {0}（{1}）",
        }
        /// The switch between the two scales (records whose steps have times).
        AxisLabel {
            en: "Timeline scale",
            ja: "タイムラインの横軸",
        }
        /// The scale with one column per step.
        AxisSteps {
            en: "One column per step",
            ja: "1 ステップ 1 列",
        }
        /// The scale by the steps' times.
        AxisTime {
            en: "Time axis",
            ja: "時間軸",
        }
        /// The keys of the timeline of a record that can be zoomed, for assistive technologies.
        KeysHintZoom {
            en: "Choose a step with the arrow keys, Home and End, and the next or previous refusal or recovery with ] and [; zoom in with +, out with − and to the whole record with 0. The step's card below is highlighted.",
            ja: "矢印キーと Home・End でステップを、] と [ で次または前の拒否・復旧を選べます。+ で拡大、- で縮小、0 で記録全体を表示します。選んだステップは下のカードで強調されます。",
        }
        /// The zoom buttons, as a group.
        ZoomLabel {
            en: "Zoom",
            ja: "ズーム",
        }
        /// Zooms in around the current step.
        ZoomIn {
            en: "Zoom in",
            ja: "拡大",
        }
        /// Zooms out.
        ZoomOut {
            en: "Zoom out",
            ja: "縮小",
        }
        /// Shows the whole record.
        ZoomWhole {
            en: "Whole record",
            ja: "記録全体",
        }
        /// The steps drawn; `{0}` and `{1}`: the first and last (from 1), `{2}`: every step.
        ZoomWindow {
            en: "Steps {0}–{1} of {2}",
            ja: "全 {2} ステップ中 {0}〜{1}",
        }
        /// Text alternative of a zoomed timeline: the steps drawn; `{0}`, `{1}`: the first and
        /// last (from 1).
        AltSteps {
            en: "Shown: steps {0}–{1}.",
            ja: "表示中：ステップ {0}〜{1}。",
        }
        /// Text alternative of a timeline that draws some of its rows; `{0}`, `{1}`: the first
        /// and last (from 1), `{2}`: every row.
        AltRows {
            en: "Shown: rows {0}–{1} of {2}.",
            ja: "表示中：全 {2} 行中 {0}〜{1} 行目。",
        }
        /// The buttons that show other rows, as a group.
        RowsLabel {
            en: "Rows",
            ja: "行",
        }
        /// Shows the rows above those drawn.
        RowsEarlier {
            en: "‹ Earlier rows",
            ja: "‹ 前の行",
        }
        /// Shows the rows below those drawn.
        RowsLater {
            en: "Later rows ›",
            ja: "次の行 ›",
        }
        /// The rows drawn; `{0}` and `{1}`: the first and last (from 1), `{2}`: every row.
        RowsWindow {
            en: "Rows {0}–{1} of {2}",
            ja: "全 {2} 行中 {0}〜{1} 行目",
        }
        /// Legend: runs too close together to draw apart, counted as one mark.
        DenseMark {
            en: "runs too close together to draw apart (darker: the lane held longer)",
            ja: "間隔が狭く個別に描けない実行（濃いほどレーンの使用中が長い）",
        }
    }
}
