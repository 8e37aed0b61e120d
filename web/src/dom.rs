//! Small DOM helpers. Record strings only ever reach the page through `set_text` (textContent)
//! and attribute values: never as markup.

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, Event, EventTarget};

/// Creates `<tag class=…>` with optional text.
pub fn el(doc: &Document, tag: &str, class: &str, text: Option<&str>) -> Element {
    let element = doc.create_element(tag).unwrap_throw();
    if !class.is_empty() {
        element.set_class_name(class);
    }
    if let Some(text) = text {
        element.set_text_content(Some(text));
    }
    element
}

/// Sets an attribute (values are never interpreted as markup).
pub fn attr(element: &Element, name: &str, value: &str) {
    element.set_attribute(name, value).unwrap_throw();
}

/// Appends `child` to `parent`.
pub fn append(parent: &Element, child: &Element) {
    parent.append_child(child).unwrap_throw();
}

/// Appends a text node.
pub fn append_text(parent: &Element, doc: &Document, text: &str) {
    parent
        .append_child(&doc.create_text_node(text))
        .unwrap_throw();
}

/// Removes every child of `element`.
pub fn clear(element: &Element) {
    element.set_text_content(None);
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
