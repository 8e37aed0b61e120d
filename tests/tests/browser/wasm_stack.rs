//! The viewer leaves WebAssembly's stack where it found it. Rust compiled to wasm32 keeps its
//! stack frames in linear memory, below `__stack_pointer` (the first MiB; the data follows). A
//! function puts the pointer back when it returns, but a JavaScript exception that leaves the
//! module from a task the browser started (a timer, a promise job, an event) skips that, and the
//! frames it crossed are lost for good: enough of them and the pointer runs below address 0,
//! and the next call traps ("Out of bounds memory access"). So, measured from a fresh task, the
//! pointer stands at the same address before and after any amount of work the viewer does, in
//! every engine.

use lane_viewer_tests::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

fn verification(root: &web_sys::Element) -> Option<String> {
    attr(&one(root, "[role=tabpanel]"), "data-verification")
}

#[wasm_bindgen_test]
async fn loading_opening_verifying_and_events_leave_the_wasm_stack_where_they_found_it() {
    let before = entry_stack_pointer().await;
    {
        // Fetches (promise jobs), then a record verified and built on later tasks (timers).
        let m = mount(&[("lang", s("en"))]).await;
        let root = m.root();
        m.viewer
            .open_text("large.json", views_record("large", 5_000));
        JsFuture::from(m.viewer.settled()).await.unwrap();
        assert!(eventually(|| verification(&root).as_deref() == Some("verified")).await);
        // Files that fail, and files read by the browser (promise jobs).
        m.viewer.open_text("bad.json", "not json".into());
        m.viewer.open_text("deep.json", "[".repeat(10_000));
        drop_files(
            &root,
            vec!["dropped.json".into()],
            vec![s(&views_record("dropped", 3))],
        );
        assert!(eventually(|| m.viewer.selected().as_deref() == Some("dropped")).await);
        // Events and calls, then the deep link's `hashchange` arriving on its own task.
        click(&one(&root, "[data-lang-choice=ja]"));
        key(&one(&root, "[role=tab][aria-selected=true]"), "ArrowLeft");
        assert!(m.viewer.select("busy-project"));
        assert!(m.viewer.select_step(JsValue::from(1_u32)));
        sleep(50).await;
    }
    // After `destroy`, events on the page and the work still queued.
    sleep(50).await;
    assert_eq!(
        entry_stack_pointer().await,
        before,
        "the viewer's work moved WebAssembly's stack pointer for good: a JavaScript exception \
         left the module from a task"
    );
}

#[wasm_bindgen_test]
async fn an_exception_thrown_through_wasm_from_a_task_is_seen_as_a_lower_stack_pointer() {
    // The measurement itself: a timer whose Rust callback throws loses the callback's frames.
    let before = entry_stack_pointer().await;
    fn throw() {
        // A local whose address escapes lives on the shadow stack, in an optimised build too.
        let frame = [0u8; 64];
        std::hint::black_box(&frame);
        wasm_bindgen::throw_str("thrown on purpose")
    }
    let throws = Closure::once_into_js(throw);
    window()
        .set_timeout_with_callback_and_timeout_and_arguments_0(throws.unchecked_ref(), 0)
        .unwrap();
    sleep(20).await;
    let after = entry_stack_pointer().await;
    assert!(after < before, "{after} should be below {before}");
}
