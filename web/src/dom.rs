//! Small DOM helpers. Record strings only ever reach the page through `set_text` (textContent)
//! and attribute values: never as markup.

use wasm_bindgen::prelude::*;
use web_sys::{Element, Event, EventTarget, Node};

/// Sets an attribute (values are never interpreted as markup).
pub fn attr(element: &Element, name: &str, value: &str) {
    element.set_attribute(name, value).unwrap_throw();
}

/// `value` as an element, from whichever window it comes: `instanceof` (`dyn_into`) would
/// refuse an element of another same-origin document, such as an iframe's a page mounts into.
pub fn as_element(value: JsValue) -> Option<Element> {
    if !value.is_object() {
        return None;
    }
    let node: &Node = value.unchecked_ref();
    (node.node_type() == Node::ELEMENT_NODE).then(|| value.unchecked_into())
}

/// `event` as the event type it is named for (`keydown`, `click`, `drop`), from whichever
/// window it comes (see [`as_element`]).
pub fn event_as<'a, T: JsCast>(event: &'a Event, kind: &str) -> Option<&'a T> {
    (event.type_() == kind).then(|| event.unchecked_ref::<T>())
}

/// Escapes `"` and `\` for a CSS string.
pub fn css_string(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Removes every child of `element`.
pub fn clear(element: &Element) {
    element.set_text_content(None);
}

/// Lets the browser run its other tasks (input, rendering) before going on.
pub async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        } else {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// An event listener that is removed when dropped: registered once, owned by the viewer.
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    callback: Closure<dyn FnMut(Event)>,
}

impl Listener {
    /// Listens for `kind` events on `target`.
    pub fn new(target: &EventTarget, kind: &'static str, f: impl FnMut(Event) + 'static) -> Self {
        let callback = Closure::<dyn FnMut(Event)>::new(f);
        target
            .add_event_listener_with_callback(kind, callback.as_ref().unchecked_ref())
            .unwrap_throw();
        Listener {
            target: target.clone(),
            kind,
            callback,
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.callback.as_ref().unchecked_ref());
    }
}
