//! The box of record tabs: a long index scrolls inside it (`.lv-tabs` has a max-height), and
//! the selected tab is scrolled into the box, never the page.
//!
//! Below its max-height the box shows every tab, so there is nothing to scroll and nothing to
//! read. Whether the box is at its max-height is learnt from a `ResizeObserver`, which reports
//! after the browser's own layout: selecting a record in a short index reads no layout at all
//! (a read after the select's writes would force one). When the box grows to its max-height
//! (tabs wrapped to more rows, a record added), the observer reports before the frame is
//! painted and shows the selected tab then.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{Element, ResizeObserver};

/// The tabs' box, and the observer of its height (disconnected when dropped).
pub struct TabBox {
    state: Rc<BoxState>,
    observer: Option<(ResizeObserver, Closure<dyn FnMut()>)>,
}

struct BoxState {
    list: Element,
    /// The tab to show, by index.
    selected: Cell<usize>,
    /// The box may be at its max-height (some tabs out of its sight): true until measured.
    full: Cell<bool>,
}

impl TabBox {
    pub fn new(list: &Element) -> TabBox {
        let state = Rc::new(BoxState {
            list: list.clone(),
            selected: Cell::new(0),
            full: Cell::new(true),
        });
        let callback = {
            let state = state.clone();
            Closure::<dyn FnMut()>::new(move || state.show())
        };
        // Without an observer (an old browser), every reveal measures.
        let observer = ResizeObserver::new(callback.as_ref().unchecked_ref())
            .ok()
            .map(|observer| {
                observer.observe(list);
                (observer, callback)
            });
        TabBox { state, observer }
    }

    /// Scrolls the box to show tab `i`; reads layout only if the box may hide it.
    pub fn reveal(&self, i: usize) {
        self.state.selected.set(i);
        if self.observer.is_none() || self.state.full.get() {
            self.state.show();
        }
    }
}

impl Drop for TabBox {
    fn drop(&mut self) {
        if let Some((observer, _)) = &self.observer {
            observer.disconnect();
        }
    }
}

impl BoxState {
    /// Measures the box and, at its max-height, scrolls it to show the selected tab.
    fn show(&self) {
        let list = self.list.get_bounding_client_rect();
        let full = list.height() > 0.0 && list.height() + 1.0 >= max_height(&self.list);
        self.full.set(full);
        if !full {
            return;
        }
        let Some(tab) = self.list.children().item(self.selected.get() as u32) else {
            return;
        };
        let at = tab.get_bounding_client_rect();
        // With the box's padding (5 px) and a pixel to spare around the tab.
        let by =
            (at.top() - 6.0 - list.top()).min(0.0) + (at.bottom() + 6.0 - list.bottom()).max(0.0);
        if by != 0.0 {
            // Whole pixels, far enough (`f64::round` would link a libm function).
            let top = self.list.scroll_top() as f64 + by;
            let top = if by > 0.0 { top.ceil() } else { top.floor() };
            self.list.set_scroll_top(top as i32);
        }
    }
}

/// The element's max-height in whole CSS pixels (its border box: the viewer's boxes are
/// `border-box`); infinite for `none`, 0 for a value it cannot read (then it always measures).
fn max_height(element: &Element) -> f64 {
    let style = element
        .owner_document()
        .and_then(|d| d.default_view())
        .and_then(|w| w.get_computed_style(element).ok().flatten());
    let Some(value) = style.and_then(|s| s.get_property_value("max-height").ok()) else {
        return 0.0;
    };
    if value == "none" {
        return f64::INFINITY;
    }
    // "136px" or "136.5px": the whole pixels are enough beside the pixel of slack above.
    let whole = value.split(['.', 'p']).next().unwrap_or_default();
    whole.parse::<u32>().map_or(0.0, f64::from)
}
