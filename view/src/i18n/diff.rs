//! The words of a comparison of two records (`crate::diff`), in English and Japanese: what
//! `lane-records diff` prints.

use super::catalog::catalog;

catalog! {
    /// A comparison's messages.
    pub enum DiffMsg {
        /// A record compared; `{0}`: A or B, `{1}`: its file, `{2}`: its id, `{3}`: its steps.
        Record {
            en: "{0}: {1} ({2}, {3} steps)",
            ja: "{0}：{1}（{2}、{3} ステップ）",
        }
        /// Nothing differs.
        Same {
            en: "No differences: both records did the same, step by step, and left the same lanes.",
            ja: "違いはありません。二つの記録はステップごとに同じことをし、同じレーンの状態で終わっています。",
        }
        /// `{0}`: how many differences.
        Count {
            en: "{0} differences:",
            ja: "違いが {0} 件あります。",
        }
        /// One difference.
        CountOne {
            en: "1 difference:",
            ja: "違いが 1 件あります。",
        }
        /// The alignment gave up; `{0}`: its budget.
        Approximate {
            en: "The records differ in more than {0} steps, too many to align one by one: the steps between the start and the end they share are listed as found in one record only.",
            ja: "二つの記録は {0} を超えるステップで異なり、ステップごとには対応づけられません。共通する先頭と末尾の間のステップは、片方にだけあるものとして示します。",
        }
        /// Steps in A only; `{0}`: where (steps), `{1}`: the first one.
        OnlyA {
            en: "Only in A: {0}, starting with {1}",
            ja: "A にだけあるステップ：{0}。最初は「{1}」",
        }
        /// Steps in B only; `{0}`: where (steps), `{1}`: the first one.
        OnlyB {
            en: "Only in B: {0}, starting with {1}",
            ja: "B にだけあるステップ：{0}。最初は「{1}」",
        }
        /// One step in A only; `{0}`: where, `{1}`: the step.
        OnlyAOne {
            en: "Only in A: {0} ({1})",
            ja: "A にだけあるステップ：{0}（{1}）",
        }
        /// One step in B only; `{0}`: where, `{1}`: the step.
        OnlyBOne {
            en: "Only in B: {0} ({1})",
            ja: "B にだけあるステップ：{0}（{1}）",
        }
        /// One step, `{0}`: its number.
        Step {
            en: "step {0}",
            ja: "ステップ {0}",
        }
        /// Steps `{0}` to `{1}`, `{2}` of them.
        Steps {
            en: "steps {0}–{1} ({2})",
            ja: "ステップ {0}〜{1}（{2} 件）",
        }
        /// A step of both asked differently; `{0}`: A's step, `{1}`: B's, `{2}`: the step,
        /// `{3}`: A's input, `{4}`: B's.
        Asked {
            en: "Step {0} of A, {1} of B ({2}) was asked differently: {3} in A, {4} in B",
            ja: "A のステップ {0}・B のステップ {1}（{2}）は入力が異なります。A では {3}、B では {4}",
        }
        /// A step of both answered differently; `{0}`: A's step, `{1}`: B's, `{2}`: the step,
        /// `{3}`: A's response, `{4}`: B's.
        Answered {
            en: "Step {0} of A, {1} of B ({2}) was answered differently: {3} in A; {4} in B",
            ja: "A のステップ {0}・B のステップ {1}（{2}）は応答が異なります。A では {3}、B では {4}",
        }
        /// Project `{0}`'s holders differ from its `{1}`th hold: `{2}` in A, `{3}` in B.
        Holders {
            en: "Project {0}: its holders differ from hold {1} on: {2} in A, {3} in B",
            ja: "プロジェクト {0}：{1} 番目の保持から保持者が異なります。A では {2}、B では {3}",
        }
        /// No hold there.
        NoHold {
            en: "no more holds",
            ja: "保持なし",
        }
        /// A hold; `{0}`: the run, `{1}`: how it ended.
        Hold {
            en: "{0} ({1})",
            ja: "{0}：{1}",
        }
        /// A hold not released by the last step.
        StillHeld {
            en: "still holding",
            ja: "保持したまま",
        }
        /// A hold whose stop was requested; `{0}`: how it ended.
        StopRequested {
            en: "{0}, stop requested",
            ja: "{0}、停止要求あり",
        }
        /// A run refused in A only; `{0}`: project, `{1}`: run, `{2}`: code, `{3}`: the step.
        RefusedA {
            en: "Run {1} of {0} was refused in A ({2}, {3}) and never in B",
            ja: "{0} の実行 {1} は A で拒否され（{2}、{3}）、B では拒否されていません",
        }
        /// A run refused in B only; `{0}`: project, `{1}`: run, `{2}`: code, `{3}`: the step.
        RefusedB {
            en: "Run {1} of {0} was refused in B ({2}, {3}) and never in A",
            ja: "{0} の実行 {1} は B で拒否され（{2}、{3}）、A では拒否されていません",
        }
        /// A hold much longer or shorter; `{0}`: project, `{1}`: run, `{2}`: A's time, `{3}`: B's.
        Longer {
            en: "Run {1} held {0} for {2} in A and {3} in B",
            ja: "実行 {1} が {0} を保持した時間は A で {2}、B で {3}",
        }
        /// A project's final lane differs; `{0}`: project, `{1}`: A's lane, `{2}`: B's.
        FinalLane {
            en: "After the last step, the lane of {0} is {1} in A and {2} in B",
            ja: "最後のステップの後、{0} のレーンは A で {1}、B で {2}",
        }
        /// A project one record does not have.
        NoProject {
            en: "not in the record",
            ja: "記録になし",
        }
        /// `{0}` more of one kind are not listed.
        More {
            en: "… and {0} more (--json lists every one)",
            ja: "…ほか {0} 件（--json ですべて示します）",
        }
        /// The viewer's "Compare with…" control.
        CompareWith {
            en: "Compare with…",
            ja: "比較する記録…",
        }
        /// The control's first choice: no comparison.
        CompareNothing {
            en: "(no comparison)",
            ja: "（比較しない）",
        }
        /// The comparison's heading; `{0}`: A's title, `{1}`: B's.
        Comparing {
            en: "Comparing A, {0}, with B, {1}",
            ja: "A「{0}」と B「{1}」の比較",
        }
        /// The button that ends the comparison.
        StopComparing {
            en: "Stop comparing",
            ja: "比較をやめる",
        }
        /// The list of differences (its label).
        ListLabel {
            en: "Differences",
            ja: "違いの一覧",
        }
        /// The strip's label; `{0}`: A's steps, `{1}`: B's.
        StripLabel {
            en: "Where the records differ: A's {0} steps above, B's {1} below, aligned so that a step both did is at the same place on both; a gap where one has steps the other has not",
            ja: "記録が異なる位置。上は A の {0} ステップ、下は B の {1} ステップです。両方にあるステップは上下で同じ位置に並び、片方にしかないステップの位置では、もう片方に空きがあります",
        }
        /// More differences than the viewer lists; `{0}`: how many are not listed.
        ListMore {
            en: "… and {0} more: `lane-records diff --json` lists every one",
            ja: "…ほか {0} 件（`lane-records diff --json` ですべて示します）",
        }
        /// Waiting for a record before comparing.
        ComparePending {
            en: "The comparison is shown once both records are read.",
            ja: "両方の記録を読み込むと比較を表示します。",
        }
        /// A record to compare could not be read; `{0}`: A or B.
        CompareFailed {
            en: "Nothing to compare: record {0} could not be read.",
            ja: "記録 {0} を読み込めなかったため、比較できません。",
        }
        /// A side of the current difference; `{0}`: A or B, `{1}`: the step.
        Side {
            en: "{0} · {1}",
            ja: "{0}・{1}",
        }
        /// A side of the current difference with no step there; `{0}`: A or B.
        NoStep {
            en: "{0} has no step here",
            ja: "{0} にはこの位置のステップがありません",
        }
        /// What a step asked.
        SideAsked {
            en: "Asked: {0}",
            ja: "入力：{0}",
        }
        /// What a step answered.
        SideAnswered {
            en: "Answered: {0}",
            ja: "応答：{0}",
        }
        /// The button that shows a side's step in the record's own panel; `{0}`: the step,
        /// `{1}`: A or B.
        ShowStep {
            en: "Show {0} of {1}",
            ja: "{1} の{0} を表示",
        }
    }
}
