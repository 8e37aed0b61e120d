//! The viewer's messages (the record selector, the panel, the steps, loading and replay), in
//! English and Japanese. The timeline's are in `timeline.rs`; the domain's words (operations,
//! states, outcomes, error codes) in `terms.rs`.

use super::catalog::catalog;

catalog! {
    /// The viewer's messages. Variants are the keys of the catalog.
    pub enum Msg {
        /// The viewer's region, named by what it shows; `{0}`: the record's title.
        ViewerLabel {
            en: "Project lanes: {0}",
            ja: "プロジェクトレーン：{0}",
        }
        /// The record selector's name, and the region's before a record has a title.
        RecordsLabel {
            en: "Records",
            ja: "記録",
        }
        /// The language switcher's name.
        LanguageLabel {
            en: "Language",
            ja: "言語",
        }
        /// Shown while records load.
        Loading {
            en: "Loading records…",
            ja: "記録を読み込んでいます…",
        }
        /// How much of the file being read has arrived; `{0}`: so far, `{1}`: its size.
        LoadingOf {
            en: "{0} of {1} read",
            ja: "{1} のうち {0} を読みました",
        }
        /// Over the overview of a version 3 record being read; `{0}`: the steps read so far.
        OverviewSoFar {
            en: "The first {0} steps, each replayed on the core as it was read; the rest is being read and verified…",
            ja: "最初の {0} ステップです。各ステップは読み込んだ時点でコアで再生しました。残りを読み込んで検証しています…",
        }
        /// The same once a step read does not match; `{0}`: the steps read so far, `{1}`: that
        /// step (from 1).
        OverviewMismatch {
            en: "The first {0} steps: step {1} does not match the core. The rest is being read…",
            ja: "最初の {0} ステップです。ステップ {1} がコアと一致しません。残りを読み込んでいます…",
        }
        /// How much of a file of unknown size has arrived; `{0}`: so far.
        LoadingSoFar {
            en: "{0} read",
            ja: "{0} を読みました",
        }
        /// Under `RECORD_TOO_LARGE` for a record with more steps than the viewer holds; `{0}`:
        /// the most steps it holds, `{1}`: about how much memory they take.
        StepLimit {
            en: "This record has more steps than this viewer holds: at most {0} steps, about {1} of memory.",
            ja: "この記録は、このビューアが保持できるステップ数を超えています。保持できるのは {0} ステップまで（メモリで約 {1}）です。",
        }
        /// Under every record: the viewer shows saved metadata and runs nothing.
        NothingExecuted {
            en: "Nothing was executed here. This viewer shows saved records of lane metadata; it runs no work and does not drive the lanes.",
            ja: "ここでは何も実行されていません。このビューアは保存されたレーンのメタデータの記録を表示するだけで、処理を実行したりレーンを操作したりはしません。",
        }
        /// The heading above the step cards.
        StepsHeading {
            en: "Steps",
            ja: "ステップ",
        }
        /// Above a long record's window of cards; `{0}`–`{1}`: the listed steps (from 1),
        /// `{2}`: the number of steps.
        StepsWindow {
            en: "Steps {0}–{1} of {2} are listed here; the timeline, its keys and Find reach every step.",
            ja: "全 {2} ステップのうち、ステップ {0}〜{1} をここに表示しています。タイムラインとそのキー、検索で、どのステップにも移れます。",
        }
        /// The button that lists the steps before the window.
        StepsEarlier {
            en: "Show earlier steps",
            ja: "これより前のステップを表示",
        }
        /// The button that lists the steps after the window.
        StepsLater {
            en: "Show later steps",
            ja: "これより後のステップを表示",
        }
        /// A step card's number; `{0}`: the step, from 1.
        StepLabel {
            en: "Step {0}",
            ja: "ステップ {0}",
        }
        /// The name of a step card's list of lanes.
        LanesAfterStep {
            en: "Lanes after this step",
            ja: "このステップ後のレーン",
        }
        /// The heading above the lanes after the last step.
        FinalLanesHeading {
            en: "Lanes after the last step",
            ja: "最後のステップ後のレーン",
        }
        /// A lanes table's project column.
        ProjectColumn {
            en: "Project",
            ja: "プロジェクト",
        }
        /// A lanes table's state column.
        StateColumn {
            en: "State",
            ja: "状態",
        }
        /// A lanes table's run column.
        RunColumn {
            en: "Run",
            ja: "実行",
        }
        /// The state of a lane nobody holds.
        Idle {
            en: "idle",
            ja: "空き",
        }
        /// The badge of a project no step claims.
        Untouched {
            en: "untouched",
            ja: "手つかず",
        }
        /// Why a project is untouched; `{0}`: the project.
        UntouchedExplained {
            en: "{0} is untouched: no step claims it, and it stays idle throughout.",
            ja: "{0} はどのステップでも取得されず、最初から最後まで空きのままです。",
        }
        /// The badge of a step the core accepted.
        Accepted {
            en: "accepted",
            ja: "受理",
        }
        /// The badge of a step the core refused.
        Refused {
            en: "refused",
            ja: "拒否",
        }
        /// A step card's inputs.
        Inputs {
            en: "Inputs",
            ja: "入力",
        }
        /// A step card's response.
        Response {
            en: "Response",
            ja: "応答",
        }
        /// A claim's response; `{0}`: the lease's handle (`L1`).
        LeaseIssued {
            en: "lease {0} issued",
            ja: "リース {0} を発行",
        }
        /// A lane view in a step's response.
        ViewReturned {
            en: "lane view",
            ja: "レーンの状態",
        }
        /// A receipt in a step's response.
        ReceiptReturned {
            en: "receipt",
            ja: "受領証",
        }
        /// A receipt whose run was asked to stop.
        StopRequestedYes {
            en: "a stop was requested",
            ja: "停止要求あり",
        }
        /// A receipt whose run was not asked to stop.
        StopRequestedNo {
            en: "no stop was requested",
            ja: "停止要求なし",
        }
        /// On every receipt: the lanes executed no work.
        WorkExecutedNo {
            en: "no work was executed by the lanes",
            ja: "レーンは処理を実行していません",
        }
        /// The summary of the record's raw JSON.
        RawJson {
            en: "Raw JSON of this record",
            ja: "この記録の JSON",
        }
        /// The link to the record's file; `{0}`: the file name.
        Download {
            en: "Download {0}",
            ja: "{0} をダウンロード",
        }
        /// A dispatcher record's queues; `{0}`: their names, comma-separated.
        QueuesLabel {
            en: "Queues: {0}",
            ja: "キュー：{0}",
        }
        /// The name of a step card's list of reservations.
        ReservationsAfterStep {
            en: "Reservations after this step",
            ja: "このステップ後の予約",
        }
        /// A reservation in a response; `{0}`: its id (`R1`).
        ReservationEntered {
            en: "reservation {0}",
            ja: "予約 {0}",
        }
        /// A reservation `dispatch` gave the lane; `{0}`: its id.
        JobDispatched {
            en: "{0} given the lane",
            ja: "{0} にレーンを割り当て",
        }
        /// A `dispatch` step that started nothing; `{0}`: how many reservations wait in the queue.
        NothingDispatched {
            en: "no reservation can start · waiting in this queue: {0}",
            ja: "開始できる予約はありません · このキューで待機中の予約：{0} 件",
        }
        /// A `finish` step's response; `{0}`: the reservation's id.
        SavingFinalState {
            en: "saving the final state of {0}; the lane stays held",
            ja: "{0} の最終状態を保存中。レーンは使用中のまま",
        }
        /// A `persist` step whose save succeeded; `{0}`: the reservation's id.
        SettledSaved {
            en: "{0} saved, lane released",
            ja: "{0} を保存、レーンを解放",
        }
        /// A `persist` step whose save failed; `{0}`: the reservation's id.
        SettledSaveFailed {
            en: "saving {0} failed, lane released",
            ja: "{0} の保存に失敗、レーンを解放",
        }
        /// A labelled value; `{0}`: the label, `{1}`: the value.
        Labelled {
            en: "{0}: {1}",
            ja: "{0}：{1}",
        }
        /// A value with the code it stands for; `{0}`: the words, `{1}`: the code.
        Exact {
            en: "{0} ({1})",
            ja: "{0}（{1}）",
        }
        /// The label of a queue's name.
        LabelQueue {
            en: "queue",
            ja: "キュー",
        }
        /// The label of a project's name.
        LabelProject {
            en: "project",
            ja: "プロジェクト",
        }
        /// The label of a run's name.
        LabelRun {
            en: "run",
            ja: "実行",
        }
        /// The label of a state.
        LabelState {
            en: "state",
            ja: "状態",
        }
        /// The label of an outcome.
        LabelOutcome {
            en: "outcome",
            ja: "結果",
        }
        /// The button that opens record files.
        OpenRecords {
            en: "Open records…",
            ja: "記録を開く…",
        }
        /// By the open button: opened files are read in the browser, never uploaded.
        OpenNote {
            en: "Open or drop record files (.json) to view them: they are read in this browser and never uploaded.",
            ja: "記録ファイル（.json）を開くかここにドロップすると表示できます。ファイルはこのブラウザの中で読み込まれ、アップロードされません。",
        }
        /// On the tab of a record that could not be shown, for screen readers.
        TabFailed {
            en: "(could not be shown)",
            ja: "（表示できません）",
        }
        /// While replaying; `{0}`: the steps that matched so far, `{1}`: all steps.
        Verifying {
            en: "Replaying on the core in this browser: {0} of {1} steps match so far…",
            ja: "このブラウザ上のコアで再生しています：{0} / {1} ステップが一致…",
        }
        /// A replay of several steps that matched; `{0}`: how many.
        Verified {
            en: "Replayed on the core in this browser: all {0} steps match",
            ja: "このブラウザ上のコアで再生しました：全 {0} ステップが一致します",
        }
        /// A replay of a single step that matched; `{0}`: that one step, `1`.
        VerifiedOne {
            en: "Replayed on the core in this browser: its {0} step matches",
            ja: "このブラウザ上のコアで再生しました：{0} ステップが一致します",
        }
        /// On a record without an index: no hash to compare.
        NoHash {
            en: "No index came with this record, so there is no SHA-256 to compare its file with; it is checked and replayed all the same.",
            ja: "この記録には記録の一覧がないため、ファイルと照合する SHA-256 はありません。検査と再生はほかの記録と同じく行います。",
        }
        /// A chained record whose checkpoint's signature verified; `{0}`: the key's
        /// fingerprint.
        ChainSigned {
            en: "Chained and signed by {0}: every step's hash recomputes to the root, and the checkpoint's signature verifies.",
            ja: "ハッシュチェーンがつながり、{0} の署名を検証しました。各ステップのハッシュはルートハッシュまで再計算どおりで、チェックポイントの署名も正しいものです。",
        }
        /// A chained record without a verified signature.
        ChainUnsigned {
            en: "Chained, unsigned: every step's hash recomputes to the root; no signature vouches for it.",
            ja: "ハッシュチェーンはつながっていますが、署名はありません。各ステップのハッシュはルートハッシュまで再計算どおりですが、それを保証する署名はありません。",
        }
        /// A chained record whose checkpoint is signed by keys it does not give; `{0}`: their
        /// fingerprints.
        ChainUnsignedOther {
            en: "Chained, unsigned: every step's hash recomputes to the root; its checkpoint is signed by {0}, a key the record does not give, so the signature is not verified.",
            ja: "ハッシュチェーンはつながっていますが、署名は検証していません。各ステップのハッシュはルートハッシュまで再計算どおりです。チェックポイントには {0} の署名がありますが、その鍵が記録に含まれていないため、署名を検証できません。",
        }
        /// The record's root hash (its identity); `{0}`: its first 12 hex digits.
        RootShort {
            en: "Root hash: {0}",
            ja: "ルートハッシュ：{0}",
        }
        /// The button that copies the whole root hash.
        CopyRoot {
            en: "Copy",
            ja: "コピー",
        }
        /// The copy button's name for assistive technology.
        CopyRootLabel {
            en: "Copy the record's whole root hash",
            ja: "記録のルートハッシュ全体をコピー",
        }
        /// The copy button once the root hash is copied.
        CopiedRoot {
            en: "Copied",
            ja: "コピーしました",
        }
        /// A deep link pinned to another root; `{0}`: the link's root, `{1}`: the record's.
        RootMismatch {
            en: "This link was made for another record: root {0} expected, {1} found. The link's step is not selected.",
            ja: "このリンクは別の記録に対して作られたものです。ルートハッシュは {0} のはずですが、この記録は {1} です。リンクのステップは選んでいません。",
        }
        /// A deep link pinned to a root, for a record without a chain; `{0}`: the link's root.
        RootMissing {
            en: "This link was made for another record: root {0} expected, and this record has no hash chain. The link's step is not selected.",
            ja: "このリンクは別の記録に対して作られたものです。ルートハッシュは {0} のはずですが、この記録にはハッシュチェーンがありません。リンクのステップは選んでいません。",
        }
        /// On a static picture, before the viewer has replayed it.
        NotYetVerified {
            en: "A static picture of this record, not yet checked or replayed: the viewer replays it on the core in this browser when it starts.",
            ja: "この記録の静的な表示です。まだ検査も再生もしていません。ビューアが起動すると、このブラウザ上のコアで再生します。",
        }
        /// A replay that found a step wrong; `{0}`: the step, from 1, `{1}`: its operation.
        MismatchStep {
            en: "Step {0} ({1}) does not match the core:",
            ja: "ステップ {0}（{1}）がコアと一致しません：",
        }
        /// A replay whose lanes after the last step are wrong.
        MismatchFinal {
            en: "The lanes after the last step do not match the core:",
            ja: "最後のステップ後のレーンがコアと一致しません：",
        }
        /// A mismatched response; `{0}`: the saved one, `{1}`: the core's.
        SavedVsCore {
            en: "saved {0}, the core returns {1}",
            ja: "保存された応答は {0}、コアの応答は {1}",
        }
        /// A mismatched lane; `{0}`: its project, `{1}`: its saved state, `{2}`: the core's.
        LaneSavedVsCore {
            en: "lane {0}: saved {1}, the core shows {2}",
            ja: "レーン {0}：保存された状態は {1}、コアでは {2}",
        }
        /// A mismatched reservation; `{0}`: its id, `{1}`: its saved state, `{2}`: the core's.
        ReservationSavedVsCore {
            en: "reservation {0}: saved {1}, the core shows {2}",
            ja: "予約 {0}：保存された状態は {1}、コアでは {2}",
        }
        /// A record that breaks the format; its code and the problem follow.
        InvalidLine {
            en: "This record breaks the record format, so it was not replayed:",
            ja: "この記録は形式の規則に合っていないため、再生していません：",
        }
        /// A step's time (version 2 records).
        StepTime {
            en: "Time",
            ja: "時刻",
        }
        /// Who called, in the system's words (version 2 records).
        StepActor {
            en: "Caller",
            ja: "呼び出し元",
        }
        /// A record exported from a system's journal; `{0}`: the system's name.
        FromSystem {
            en: "Recorded from a running system: {0}.",
            ja: "稼働中のシステム「{0}」から記録したものです。",
        }
        /// The window a journal's record was cut from; `{0}`, `{1}`: its first and end times.
        WindowBoth {
            en: "Transitions from {0} until {1}.",
            ja: "{0}から{1}までの遷移です。",
        }
        /// The window of a journal's record without an end; `{0}`: its first time.
        WindowSince {
            en: "Transitions from {0}.",
            ja: "{0}以降の遷移です。",
        }
        /// The window of a journal's record without a start; `{0}`: its end time.
        WindowUntil {
            en: "Transitions until {0}.",
            ja: "{0}までの遷移です。",
        }
        /// `{0}`: the reader's zone as an offset (`UTC+09:00`).
        TimesInZone {
            en: "Times are shown in your time zone ({0}).",
            ja: "時刻は閲覧環境のタイムゾーン（{0}）で表示しています。",
        }
        /// What replay checks, and what is shown unchecked; `{0}`: the list of
        /// `UncheckedTimes`, `UncheckedCallers` and `UncheckedWindow` the record has.
        Unchecked {
            en: "Replay checks each step's result and the state after it. Shown as recorded, not checked: {0}.",
            ja: "再生で確かめるのは、各ステップの応答とその後の状態です。{0}は記録のまま表示しており、確かめていません。",
        }
        /// In `Unchecked`: the steps' times.
        UncheckedTimes {
            en: "times",
            ja: "時刻",
        }
        /// In `Unchecked`: the steps' callers.
        UncheckedCallers {
            en: "callers",
            ja: "呼び出し元",
        }
        /// In `Unchecked`: the record's window.
        UncheckedWindow {
            en: "the window",
            ja: "記録の期間",
        }
        /// `{1}`: the step whose time stands out (`StepLabel`).
        TimeStandsOut {
            en: "The time of {1} stands out: it is earlier than the step before it or outside the record's window.",
            ja: "{1} の時刻は、直前のステップより前か、記録の期間の外にあります。",
        }
        /// `{0}`: how many steps' times stand out; `{1}`: the first of them (`StepLabel`).
        TimesStandOut {
            en: "The times of {0} steps stand out, earlier than the step before or outside the record's window: {1}.",
            ja: "{0} ステップの時刻が、直前のステップより前か、記録の期間の外にあります：{1}。",
        }
        /// After `TimesStandOut` when a time is earlier than the one before: not an error.
        OutOfOrder {
            en: "Callers running at the same time can record times a millisecond or so out of order: the order of the steps is the one that replays.",
            ja: "同時に動く呼び出し元の時刻は、1 ミリ秒ほど前後することがあります。ステップの順序は、再生で確かめた順序です。",
        }
        /// On a step's card; `{0}`: the step before it.
        EarlierThan {
            en: "earlier than step {0}",
            ja: "ステップ {0} より前の時刻",
        }
        /// On a step's card: its time is outside the record's window.
        OutsideWindow {
            en: "outside the record's window",
            ja: "記録の期間の外",
        }
    }
}
