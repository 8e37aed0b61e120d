//! The example scenarios, in display order. Each one is a script of operations; the results
//! and lane snapshots come from running them on the real core (see [`Recorder`]).
//!
//! Terms follow the glossary in `web/src/i18n/GLOSSARY.md` (lane = レーン, lease = リース,
//! claim = 取得, release = 解放, stop request = 停止要求, receipt = 受領証, outcome = 結果,
//! queue = キュー, reservation = 予約, dispatch = 割り当て, persist = 保存, retained = 保留,
//! unresolved = 未解決, resolve = 解決).

use std::error::Error;

use project_lanes::dispatch::DispatchError;
use project_lanes::record::{Record, Recorder, Text};

fn text(en: &str, ja: &str) -> Text {
    Text {
        en: en.into(),
        ja: ja.into(),
    }
}

/// Every scenario, in the order readers see them.
pub fn all() -> Result<Vec<Record>, Box<dyn Error>> {
    [
        independent_claims,
        busy_project,
        stop_keeps_occupancy,
        explicit_outcome,
        stale_release,
        persistence_gate,
        same_queue_retention,
        unresolved_blocks,
    ]
    .into_iter()
    .map(|scenario| scenario())
    .collect()
}

fn recorder(
    id: &str,
    title: Text,
    summary: Text,
    projects: &[&str],
    untouched: &str,
) -> Result<Recorder, DispatchError> {
    Recorder::new(id, title, summary, projects, untouched)
}

fn independent_claims() -> Result<Record, Box<dyn Error>> {
    let mut rec = recorder(
        "independent-claims",
        text("Independent claims", "プロジェクトごとに独立した取得"),
        text(
            "Two projects are claimed side by side. Each has its own lane, so a run in one never waits for a run in the other, and releasing one leaves the other running.",
            "2つのプロジェクトを同時に取得します。レーンはプロジェクトごとに1本なので、一方の実行がもう一方を待たせることはなく、片方を解放してももう片方は実行中のままです。",
        ),
        &["docs", "site", "billing"],
        "billing",
    )?;
    rec.claim("docs", "nightly-101").note(text(
        "The docs run claims its project's lane and receives lease L1.",
        "docs の実行がレーンを取得し、リース L1 を受け取ります。",
    ));
    rec.claim("site", "deploy-7").note(text(
        "The site lane is free too: a second claim in another project succeeds at once.",
        "site のレーンも空いているので、別プロジェクトでの取得はすぐに成功します。",
    ));
    rec.view("billing").note(text(
        "Billing was never claimed. Looking at a lane changes nothing.",
        "billing は一度も取得されていません。状態を確認してもレーンは変わりません。",
    ));
    rec.release("L1", "succeeded").note(text(
        "Docs finishes and releases its lane; the receipt records the outcome it was given.",
        "docs が終わってレーンを解放します。受領証には渡された結果が記録されます。",
    ));
    rec.view("site").note(text(
        "Site is still running: releasing docs did not touch it.",
        "site はまだ実行中です。docs の解放は site に影響しません。",
    ));
    rec.release("L2", "succeeded");
    Ok(rec.finish()?)
}

fn busy_project() -> Result<Record, Box<dyn Error>> {
    let mut rec = recorder(
        "busy-project",
        text("A busy project", "使用中のプロジェクト"),
        text(
            "While one run holds the docs lane, a second claim is refused with PROJECT_BUSY. Nothing is queued, and reusing the holder's run label recovers nothing.",
            "ある実行が docs のレーンを持っている間、2つ目の取得は PROJECT_BUSY で拒否されます。待ち行列には入らず、使用中の実行と同じラベルを使っても何も引き継げません。",
        ),
        &["docs", "site"],
        "site",
    )?;
    rec.claim("docs", "nightly-101");
    rec.claim("docs", "nightly-102").note(text(
        "Refused, not queued: the caller decides what to do next.",
        "拒否されます。待ち行列には入らないので、次にどうするかは呼び出し側が決めます。",
    ));
    rec.claim("docs", "nightly-101").note(text(
        "The same run label does not hand the lease back: ownership is the lease's token, not its label.",
        "同じ実行ラベルでもリースは戻りません。所有を決めるのはリースのトークンで、ラベルではありません。",
    ));
    rec.view("docs").note(text(
        "The first owner still holds the lane.",
        "レーンは最初の実行が持ったままです。",
    ));
    rec.release("L1", "succeeded");
    Ok(rec.finish()?)
}

fn stop_keeps_occupancy() -> Result<Record, Box<dyn Error>> {
    let mut rec = recorder(
        "stop-keeps-occupancy",
        text(
            "A stop request keeps the lane",
            "停止要求ではレーンは空かない",
        ),
        text(
            "Asking a run to stop is recorded, but the lane stays occupied until the run releases it: a new claim is still refused, so two runs never overlap.",
            "停止要求は記録されますが、実行が解放するまでレーンは使用中のままです。新しい取得は拒否され続けるので、2つの実行が重なることはありません。",
        ),
        &["docs", "site"],
        "site",
    )?;
    rec.claim("docs", "nightly-101");
    rec.request_stop("L1").note(text(
        "The stop request is only recorded; the lanes cannot end a process.",
        "停止要求は記録されるだけです。レーンがプロセスを止めることはできません。",
    ));
    rec.claim("docs", "nightly-102").note(text(
        "Still busy: the old run may not have stopped yet.",
        "まだ使用中です。前の実行が止まったとは限りません。",
    ));
    rec.release("L1", "cancelled").note(text(
        "The run confirms it stopped and releases the lane as cancelled.",
        "実行が停止を確認し、結果を「取り消し」としてレーンを解放します。",
    ));
    rec.claim("docs", "nightly-102").note(text(
        "Now the lane is free and the next run claims it.",
        "レーンが空いたので、次の実行が取得できます。",
    ));
    rec.release("L2", "succeeded");
    Ok(rec.finish()?)
}

fn explicit_outcome() -> Result<Record, Box<dyn Error>> {
    let mut rec = recorder(
        "explicit-outcome",
        text("Release with an explicit outcome", "結果を明示して解放する"),
        text(
            "A lane is released only with one of four outcomes, and the receipt reports it along with any stop request. An unknown outcome is refused and the lane stays occupied.",
            "レーンは4種類の結果のいずれかを指定したときだけ解放され、受領証にはその結果と停止要求の有無が記録されます。未知の結果は拒否され、レーンは使用中のままです。",
        ),
        &["docs", "site"],
        "site",
    )?;
    rec.claim("docs", "nightly-101");
    rec.release("L1", "done").note(text(
        "\"done\" is not an outcome: refused before it reaches the lane, which stays occupied.",
        "「done」は結果として認められません。レーンに届く前に拒否され、レーンは使用中のままです。",
    ));
    rec.request_stop("L1").note(text(
        "Someone asks the run to stop just as it finishes.",
        "実行が終わる直前に、停止が要求されます。",
    ));
    rec.release("L1", "succeeded").note(text(
        "The run had already succeeded. The receipt keeps both facts: succeeded, and a stop was requested.",
        "実行はすでに成功していました。受領証には「成功」と「停止要求あり」の両方が残ります。",
    ));
    rec.release("L1", "succeeded").note(text(
        "Releasing the same lease again is refused: it no longer holds the lane.",
        "同じリースでもう一度解放しようとすると拒否されます。このリースはもうレーンを持っていません。",
    ));
    rec.view("docs");
    Ok(rec.finish()?)
}

fn stale_release() -> Result<Record, Box<dyn Error>> {
    let mut rec = recorder(
        "stale-release",
        text("A late release from an old run", "古い実行からの遅れた解放"),
        text(
            "After an old run finishes and a new run claims the project, the old run's late cleanup is refused with LEASE_NOT_CURRENT. The new owner keeps its lane.",
            "古い実行が終わり、新しい実行がプロジェクトを取得した後で、古い実行の遅れた後始末は LEASE_NOT_CURRENT で拒否されます。新しい実行はレーンを持ち続けます。",
        ),
        &["docs", "site"],
        "site",
    )?;
    rec.claim("docs", "nightly-101");
    rec.release("L1", "failed").note(text(
        "The old run fails and releases its lane.",
        "古い実行が失敗し、レーンを解放します。",
    ));
    rec.claim("docs", "nightly-102").note(text(
        "A new run claims docs and receives lease L2.",
        "新しい実行が docs を取得し、リース L2 を受け取ります。",
    ));
    rec.release("L1", "cancelled").note(text(
        "The old run's cleanup arrives late. Its lease is not the current one, so it cannot erase the new owner.",
        "古い実行の後始末が遅れて届きます。そのリースは現在のものではないので、新しい実行を消すことはできません。",
    ));
    rec.request_stop("L1").note(text(
        "A late stop request from the old run is refused the same way.",
        "古い実行からの遅れた停止要求も同じように拒否されます。",
    ));
    rec.view("docs").note(text(
        "The new run still holds the lane.",
        "レーンは新しい実行が持ったままです。",
    ));
    rec.release("L2", "succeeded");
    Ok(rec.finish()?)
}

fn persistence_gate() -> Result<Record, Box<dyn Error>> {
    let mut rec = Recorder::dispatcher(
        "persistence-gate",
        text(
            "The lane stays held while the result is saved",
            "結果の保存が終わるまでレーンは空かない",
        ),
        text(
            "Two queues share the project lanes. While a general reservation's final state is still being saved, the delivery queue cannot start work in the same project, yet its item for another project runs and finishes. Once the save completes, the lane is released and the waiting item runs.",
            "2つのキューが同じプロジェクトレーンを共有します。通常キューの予約の最終状態を保存している間、配送キューは同じプロジェクトで作業を始められませんが、別のプロジェクトの項目は実行されて完了します。保存が終わるとレーンが解放され、待っていた項目が実行されます。",
        ),
        &["docs", "site", "billing"],
        "billing",
        &["general", "delivery"],
    )?;
    rec.enqueue("general", "docs", "gen-1");
    rec.enqueue("delivery", "docs", "cafe-1");
    rec.enqueue("delivery", "site", "cafe-2");
    rec.dispatch("general").note(text(
        "The general queue takes the docs lane for R1.",
        "通常キューが R1 のために docs のレーンを取得します。",
    ));
    rec.dispatch("delivery").note(text(
        "docs is held, so the delivery queue keeps R2 waiting and runs R3 in site instead.",
        "docs は使用中なので、配送キューは R2 を保留し、代わりに site で R3 を実行します。",
    ));
    rec.finish_work("R1", "succeeded").note(text(
        "R1's work succeeded. Its final state is now being saved, and the docs lane stays held.",
        "R1 の作業は成功しました。最終状態を保存している間、docs のレーンは使用中のままです。",
    ));
    rec.dispatch("delivery").note(text(
        "Nothing can start: R2 must wait until R1's result is saved.",
        "何も開始できません。R2 は R1 の結果が保存されるまで待ちます。",
    ));
    rec.finish_work("R3", "succeeded");
    rec.persist("R3", true).note(text(
        "site finishes independently: the save held in docs does not stall it.",
        "site は独立して完了します。docs で保存を待っていても影響を受けません。",
    ));
    rec.persist("R1", true).note(text(
        "The save completes, and only now is the docs lane released, with R1's own lease.",
        "保存が完了し、ここで初めて R1 自身のリースで docs のレーンが解放されます。",
    ));
    rec.dispatch("delivery").note(text(
        "The lane is free: the waiting delivery item R2 runs.",
        "レーンが空いたので、待っていた配送キューの R2 が実行されます。",
    ));
    rec.finish_work("R2", "succeeded");
    rec.persist("R2", true);
    Ok(rec.finish()?)
}

fn same_queue_retention() -> Result<Record, Box<dyn Error>> {
    let mut rec = Recorder::dispatcher(
        "same-queue-retention",
        text(
            "A waiting item keeps its place",
            "待っている項目は順番を保つ",
        ),
        text(
            "In one queue, the second item for a busy project is retained, neither dropped nor reordered, while an item for another project passes it and finishes. When the project is free, the retained item runs next.",
            "同じキューの中で、使用中のプロジェクトに対する2つ目の項目は保留されます。捨てられることも順番が入れ替わることもなく、その間に別のプロジェクトの項目が追い越して完了します。プロジェクトが空くと、保留されていた項目が次に実行されます。",
        ),
        &["docs", "site", "billing"],
        "billing",
        &["general"],
    )?;
    rec.enqueue("general", "docs", "a-1");
    rec.enqueue("general", "docs", "a-2");
    rec.enqueue("general", "site", "b-1");
    rec.dispatch("general");
    rec.dispatch("general").note(text(
        "R2 is next in line but docs is busy: it is retained, and R3 for site passes it.",
        "次は R2 ですが docs は使用中なので保留され、site の R3 が追い越します。",
    ));
    rec.dispatch("general").note(text(
        "Nothing else can start; R2 still waits, in place.",
        "ほかに開始できるものはありません。R2 は順番を保ったまま待ちます。",
    ));
    rec.finish_work("R3", "succeeded");
    rec.persist("R3", true);
    rec.finish_work("R1", "failed").note(text(
        "R1 fails. A failure is still an outcome: it is saved, then the lane is released.",
        "R1 は失敗しました。失敗も結果の一つとして保存され、その後レーンが解放されます。",
    ));
    rec.persist("R1", true);
    rec.dispatch("general").note(text(
        "docs is free and R2 runs, in the order it was enqueued.",
        "docs が空いたので、R2 が登録された順番どおりに実行されます。",
    ));
    rec.finish_work("R2", "succeeded");
    rec.persist("R2", true);
    Ok(rec.finish()?)
}

fn unresolved_blocks() -> Result<Record, Box<dyn Error>> {
    let mut rec = Recorder::dispatcher(
        "unresolved-blocks",
        text(
            "An unsaved result blocks its project until resolved",
            "保存できなかった結果は解決までプロジェクトを止める",
        ),
        text(
            "When the final state cannot be saved, nobody knows for sure how the run ended: the outcome becomes needs_review and the project takes no automatic work until a person resolves it. Nothing is replayed; other projects go on.",
            "最終状態を保存できなかった場合、実行がどう終わったのか確かなことは分かりません。結果は needs_review（要確認）となり、人が解決するまでそのプロジェクトには自動で作業が割り当てられません。再実行はされず、ほかのプロジェクトは進みます。",
        ),
        &["docs", "site", "billing"],
        "billing",
        &["general"],
    )?;
    rec.enqueue("general", "docs", "nightly-1");
    rec.enqueue("general", "docs", "nightly-2");
    rec.enqueue("general", "site", "deploy-1");
    rec.dispatch("general");
    rec.finish_work("R1", "succeeded");
    rec.persist("R1", false).note(text(
        "Saving R1's result failed. The lane is released, but the outcome is recorded as needs_review.",
        "R1 の結果を保存できませんでした。レーンは解放されますが、結果は needs_review（要確認）として記録されます。",
    ));
    rec.dispatch("general").note(text(
        "docs is blocked by the unresolved result, so R2 waits and site's R3 runs.",
        "docs は未解決の結果で止まっているため R2 は待ち、site の R3 が実行されます。",
    ));
    rec.dispatch("general").note(text(
        "Nothing is replayed automatically: R1 is not run again, and R2 keeps waiting.",
        "自動で再実行されることはありません。R1 はもう一度実行されず、R2 も待ち続けます。",
    ));
    rec.finish_work("R3", "succeeded");
    rec.persist("R3", true);
    rec.resolve("R1").note(text(
        "A person checks what R1 really did and resolves it.",
        "人が R1 の実際の結果を確認し、解決済みにします。",
    ));
    rec.dispatch("general").note(text(
        "docs is available again and R2 runs.",
        "docs が再び利用できるようになり、R2 が実行されます。",
    ));
    rec.finish_work("R2", "succeeded");
    rec.persist("R2", true);
    Ok(rec.finish()?)
}
