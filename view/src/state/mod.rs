//! One viewer's state and its transitions, apart from any page: the records ([`Entry`]), which
//! one is selected, the language, the timeline's axis, the current step and the step a deep link asked for before
//! its record arrived, and the error boxes. Each transition changes the state and returns
//! [`Changes`]: what a view must show again. Nothing here touches a page, so native tests
//! drive it step by step (`state/tests.rs`). The find box's query and its matches are kept
//! here too (`state/find.rs`).

use crate::deep_link::{self, Link, Shown, root_matches};
use crate::entry::{Content, Entry};
use crate::error::{LoadError, ViewerError};
use crate::find::{Found, QueryError};
use crate::i18n::Lang;
use crate::timeline::{Axis, MAX_ROWS, Rows, Window, Zoom, rows};

pub use compare::Comparison;

mod compare;
mod find;
#[cfg(test)]
mod tests;

/// Where a change came from: one the deep link asked for is not written back to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The person or the page (clicks, keys, the handle's methods).
    User,
    /// The deep link (`hashchange`).
    Link,
}

/// How the deep link is written after a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// A new history entry.
    Push,
    /// In place of the current one (at mount, and when the linked record arrives).
    Replace,
}

/// What a transition changed, for a view to show again, in this order: everything, the error
/// boxes, one tab, which tab is selected, the loading state, the panel, the timeline, the
/// current step, the find box, the deep link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Everything: the language or the records changed.
    pub all: bool,
    /// The error boxes.
    pub status: bool,
    /// The tab of the record that arrived.
    pub tab: Option<usize>,
    /// Which tab is selected.
    pub tabs: bool,
    /// No record is loading any more.
    pub loaded: bool,
    /// The panel shows another record (or the selected one arrived).
    pub panel: bool,
    /// The timeline is drawn again (on another axis).
    pub timeline: bool,
    /// The current step is shown again; `true` to scroll it into view.
    pub step: Option<bool>,
    /// The find box's query or its matches.
    pub find: bool,
    /// The comparison (which records, their differences, the current one).
    pub compare: bool,
    /// The deep link is written.
    pub link: Option<Write>,
}

impl std::ops::BitOrAssign for Changes {
    fn bitor_assign(&mut self, other: Changes) {
        self.all |= other.all;
        self.status |= other.status;
        self.tab = other.tab.or(self.tab);
        self.tabs |= other.tabs;
        self.loaded |= other.loaded;
        self.panel |= other.panel;
        self.timeline |= other.timeline;
        self.step = match (self.step, other.step) {
            (Some(a), Some(b)) => Some(a || b),
            (a, b) => a.or(b),
        };
        self.find |= other.find;
        self.compare |= other.compare;
        self.link = match (self.link, other.link) {
            (Some(Write::Push), _) | (_, Some(Write::Push)) => Some(Write::Push),
            (a, b) => a.or(b),
        };
    }
}

/// A deep link made for another record: the root hash it gives, and the first digits of the
/// selected record's (`None`: the record has no hash chain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    /// The link's `root`, as written.
    pub expected: String,
    /// The record's root in short form ([`crate::entry::ROOT_SHOWN`] digits).
    pub found: Option<String>,
}

/// One viewer's state. `T` is the file's text as the page keeps it.
pub struct State<T> {
    /// The language shown.
    pub lang: Lang,
    /// The timeline's axis for records whose steps have times (others have one column per
    /// step whatever it is).
    pub axis: Axis,
    /// Follows and writes the deep link.
    pub follows_link: bool,
    /// The index (or the single record `src` names) is still loading.
    pub loading: bool,
    /// The records, one per tab, in the tabs' order.
    pub entries: Vec<Entry<T>>,
    /// The position of the selected record in `entries`.
    pub selected: usize,
    /// Why the index could not be shown.
    pub index_error: Option<LoadError<T>>,
    /// An id that names no record, until the next selection.
    pub notice: Option<LoadError<T>>,
    /// The current step of the selected record (from 0), if any.
    pub current_step: Option<usize>,
    /// The deep link's step for a selected record that is still loading.
    pub wanted_step: Option<usize>,
    /// The root hash the deep link pinned that step to, kept with it.
    pub wanted_root: Option<String>,
    /// A deep link pinned to a root that is not the selected record's (its step was not
    /// selected), until another record is selected or the link changes.
    pub pin: Option<Pin>,
    /// How much of the file being read has arrived, and its size if known (the loading line
    /// says so); `None` when no file is being read.
    pub read: Option<(u64, Option<u64>)>,
    /// The steps the timeline draws, when zoomed in (`None`: the whole record); kept until
    /// another record is selected, and moved to hold the current step.
    pub zoom: Option<Window>,
    /// The first row the timeline draws (of a record of more than [`MAX_ROWS`] rows); kept
    /// until another record is selected, and moved to show the current step's lane.
    pub rows: usize,
    /// The find box's text.
    pub query: String,
    /// The query's matches in the selected record, or why it was not taken; `None` while the
    /// query is empty or the record is not loaded.
    pub found: Option<Result<Found, QueryError>>,
    /// Two records compared, if any.
    pub compare: Option<Comparison>,
}

impl<T> State<T> {
    /// A viewer whose index is loading.
    pub fn new(lang: Lang, follows_link: bool) -> State<T> {
        State {
            lang,
            axis: Axis::Steps,
            follows_link,
            loading: true,
            entries: Vec::new(),
            selected: 0,
            index_error: None,
            notice: None,
            current_step: None,
            wanted_step: None,
            wanted_root: None,
            pin: None,
            read: None,
            zoom: None,
            rows: 0,
            query: String::new(),
            found: None,
            compare: None,
        }
    }

    /// The selected record, if any.
    pub fn selected_entry(&self) -> Option<&Entry<T>> {
        self.entries.get(self.selected)
    }

    /// The selected record's id, if any.
    pub fn selected_id(&self) -> Option<&str> {
        self.selected_entry().map(|e| e.id.as_str())
    }

    /// Steps of the selected record (0 unless it loaded).
    pub fn steps(&self) -> usize {
        self.selected_entry().map_or(0, Entry::steps)
    }

    /// The position in `entries` of the first record with this id, if any.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    /// The index or a record is still loading.
    pub fn busy(&self) -> bool {
        self.loading || self.entries.iter().any(|e| e.content.is_pending())
    }

    /// The link's push, if the change came from the person and the viewer follows the link.
    fn push(&self, origin: Origin) -> Option<Write> {
        (origin == Origin::User && self.follows_link).then_some(Write::Push)
    }

    /// The index arrived with its records (still loading, or read), or could not be shown;
    /// `initial` is the record the page asked for and `link` the deep link now (it wins over
    /// the one at mount: it may have been followed while the index loaded).
    pub fn loaded(
        &mut self,
        result: Result<Vec<Entry<T>>, LoadError<T>>,
        initial: Option<String>,
        link: Link,
    ) -> Changes {
        self.loading = false;
        self.read = None;
        match result {
            Ok(entries) => {
                // Records opened while the index loaded stay, after the index's.
                let opened = std::mem::replace(&mut self.entries, entries);
                self.add_entries(opened);
            }
            Err(error) => self.index_error = Some(error),
        }
        if let Some(id) = initial.or(link.record) {
            match self.position(&id) {
                Some(i) => self.selected = i,
                None if !self.entries.is_empty() => self.notice = Some(unknown(&id)),
                None => {}
            }
        }
        // The deep link's step, if it names a step of the selected record (kept until that
        // record arrives, if it is still loading).
        if let Some(n) = link.step {
            if self
                .selected_entry()
                .is_some_and(|e| e.content.is_pending())
            {
                self.wanted_step = Some(n);
                self.wanted_root = link.root;
            } else if n < self.steps() && self.pin_holds(link.root.as_deref()) {
                self.current_step = Some(n);
                self.show_step(n);
            }
        }
        if let Some(query) = link.find {
            self.query = query;
        }
        self.refind();
        if link.compare.is_some() {
            self.set_compare(link.compare, Origin::Link);
            if let Some(k) = link.diff {
                self.select_diff(k, Origin::Link);
            }
        }
        Changes {
            all: true,
            step: self.current_step.map(|_| true),
            link: (self.follows_link && !self.entries.is_empty()).then_some(Write::Replace),
            ..Changes::default()
        }
    }

    /// Record `i` of the index arrived (or failed).
    pub fn arrived(&mut self, i: usize, content: Content<T>) -> Changes {
        let Some(entry) = self.entries.get_mut(i).filter(|e| e.content.is_pending()) else {
            return Changes::default();
        };
        entry.content = content;
        self.read = None;
        let mut changes = Changes {
            tab: Some(i),
            loaded: !self.busy(),
            compare: self.recompare(),
            ..Changes::default()
        };
        if i == self.selected {
            changes.panel = true;
            changes.find = self.refind();
            let root = self.wanted_root.take();
            if let Some(n) = self.wanted_step.take().filter(|&n| n < self.steps()) {
                if !self.pin_holds(root.as_deref()) {
                    changes.status = true;
                    return changes;
                }
                self.current_step = Some(n);
                self.show_step(n);
                changes.step = Some(true);
                changes.link = self.follows_link.then_some(Write::Replace);
            }
        }
        changes
    }

    /// Selects the record `id`; an unknown id shows `UNKNOWN_RECORD` and keeps the selection
    /// (`false`).
    pub fn select(&mut self, id: &str, origin: Origin) -> (bool, Changes) {
        match self.position(id) {
            Some(i) => (true, self.select_index(i, origin)),
            None => {
                self.notice = Some(unknown(id));
                let changes = Changes {
                    status: true,
                    ..Changes::default()
                };
                (false, changes)
            }
        }
    }

    /// Selects the `i`-th record; a new record starts with no step.
    pub fn select_index(&mut self, i: usize, origin: Origin) -> Changes {
        let changed = i != self.selected;
        self.selected = i;
        let mut changes = Changes {
            status: self.notice.take().is_some(),
            link: self.push(origin),
            ..Changes::default()
        };
        if changed {
            self.wanted_step = None;
            self.wanted_root = None;
            changes.status |= self.pin.take().is_some();
            self.current_step = None;
            self.zoom = None;
            self.rows = 0;
            changes.tabs = true;
            changes.panel = true;
            changes.find = self.refind();
        }
        changes
    }

    /// Switches language, keeping the selected record.
    pub fn set_lang(&mut self, lang: Lang, origin: Origin) -> Changes {
        let all = lang != self.lang;
        self.lang = lang;
        Changes {
            all,
            link: self.push(origin),
            ..Changes::default()
        }
    }

    /// Draws the timeline on `axis`, keeping the record and its current step.
    pub fn set_axis(&mut self, axis: Axis) -> Changes {
        let changed = axis != self.axis;
        self.axis = axis;
        Changes {
            timeline: changed,
            step: (changed && self.current_step.is_some()).then_some(false),
            ..Changes::default()
        }
    }

    /// The steps the timeline draws.
    pub fn window(&self) -> Window {
        let steps = self.steps();
        self.zoom.map_or(Window::whole(steps), |w| w.within(steps))
    }

    /// Zooms the timeline in (around the current step), out, or to the whole record.
    pub fn set_zoom(&mut self, zoom: Zoom) -> Changes {
        let (steps, window) = (self.steps(), self.window());
        let next = window.zoom(zoom, self.current_step, steps);
        if next == window {
            return Changes::default();
        }
        self.zoom = (!next.is_whole(steps)).then_some(next);
        Changes {
            timeline: true,
            step: self.current_step.map(|_| false),
            ..Changes::default()
        }
    }

    /// Makes step `n` (from 0) current; `None` if the selected record has no such step. A
    /// zoomed timeline moves to show it.
    pub fn select_step(&mut self, n: usize, origin: Origin) -> Option<Changes> {
        let steps = self.steps();
        if n >= steps {
            return None;
        }
        let mut changes = Changes {
            link: self.push(origin),
            ..Changes::default()
        };
        if self.current_step != Some(n) {
            self.current_step = Some(n);
            changes.step = Some(origin == Origin::User);
        }
        changes.timeline = self.show_step(n);
        Some(changes)
    }

    /// Moves the timeline's window and rows to show step `n`; returns whether they moved.
    fn show_step(&mut self, n: usize) -> bool {
        let steps = self.steps();
        let mut moved = false;
        if let Some(window) = self.zoom {
            let follows = window.within(steps).follow(n, steps);
            moved |= follows != window;
            self.zoom = Some(follows);
        }
        // The rows drawn hold the step's lane (lanes are the first rows, so the count of rows
        // is needed only to move them).
        if let Some(loaded) = self.selected_entry().and_then(|e| e.content.loaded())
            && let Some(row) = rows::row_of(&loaded.record, n)
            && !(self.rows..self.rows + MAX_ROWS).contains(&row)
        {
            self.rows = rows::following(self.rows, row, loaded.rows());
            moved = true;
        }
        moved
    }

    /// Shows the rows above or below those the timeline draws.
    pub fn page_rows(&mut self, which: Rows) -> Changes {
        let Some(record) = self.selected_entry().and_then(|e| e.content.loaded()) else {
            return Changes::default();
        };
        let first = which.first(self.rows, record.rows());
        if first == self.rows {
            return Changes::default();
        }
        self.rows = first;
        Changes {
            timeline: true,
            step: self.current_step.map(|_| false),
            ..Changes::default()
        }
    }

    /// Files a person opened (read into entries): they become tabs after the others, and the
    /// first is selected, unless the index is still loading (it shows them when it arrives).
    pub fn open(&mut self, entries: Vec<Entry<T>>) -> Changes {
        let first = self.entries.len();
        self.add_entries(entries);
        if first >= self.entries.len() || self.loading {
            return Changes::default();
        }
        self.selected = first;
        self.notice = None;
        self.current_step = None;
        self.zoom = None;
        self.rows = 0;
        self.refind();
        Changes {
            all: true,
            link: self.push(Origin::User),
            ..Changes::default()
        }
    }

    /// Follows the deep link after the page's address changed.
    pub fn follow(&mut self, link: Link) -> Changes {
        let mut changes = Changes::default();
        if let Some(lang) = link.lang {
            changes |= self.set_lang(lang, Origin::Link);
        }
        // While the index loads, `loaded` reads the link itself: no record can be selected yet.
        if self.loading {
            return changes;
        }
        if let Some(id) = link.record
            && self.selected_id() != Some(id.as_str())
        {
            changes |= self.select(&id, Origin::Link).1;
        }
        changes.status |= self.pin.take().is_some();
        match link.step {
            Some(_) if !self.pin_holds(link.root.as_deref()) => changes.status = true,
            Some(n) => changes |= self.select_step(n, Origin::Link).unwrap_or_default(),
            None if self.current_step.is_some() => {
                self.current_step = None;
                changes.step = Some(changes.step.unwrap_or(false));
            }
            None => {}
        }
        changes |= self.set_query(link.find.as_deref().unwrap_or_default(), Origin::Link);
        changes |= self.set_compare(link.compare, Origin::Link);
        if let Some(k) = link.diff {
            changes |= self.select_diff(k, Origin::Link);
        }
        changes
    }

    /// The deep link for what is shown (`current` is the page's hash now), or `None` when it
    /// is already that or no record is selected.
    pub fn link(&self, current: &str, encode: impl Fn(&str) -> String) -> Option<String> {
        let root = self
            .selected_entry()
            .and_then(|e| e.content.loaded())
            .and_then(|l| l.proof.root())
            .map(|r| r.to_hex());
        let shown = Shown {
            id: self.selected_id()?,
            lang: self.lang,
            step: self.current_step,
            root: root.as_deref(),
            find: &self.query,
            compare: self.compare.as_ref().map(|c| {
                let [a, b] = c.ids.each_ref();
                ([a.as_str(), b.as_str()], c.at)
            }),
        };
        let hash = deep_link::write(current, shown, encode);
        (hash != current).then_some(hash)
    }

    /// Whether a deep link's `root`, if it gives one, is the selected record's (a record not
    /// loaded yet is checked when it arrives); if not, [`pin`](State::pin) says so.
    fn pin_holds(&mut self, root: Option<&str>) -> bool {
        let Some(given) = root else {
            return true;
        };
        let Some(loaded) = self.selected_entry().and_then(|e| e.content.loaded()) else {
            return true;
        };
        let found = loaded.proof.root().map(|r| r.to_hex());
        if found.as_deref().is_some_and(|f| root_matches(given, f)) {
            return true;
        }
        self.pin = Some(Pin {
            expected: given.to_string(),
            found: found.map(|f| f[..crate::entry::ROOT_SHOWN].to_string()),
        });
        false
    }

    /// `bytes` of the file being read have arrived, of `size` if known: the loading line shows
    /// it while records load.
    pub fn reading(&mut self, bytes: u64, size: Option<u64>) -> Changes {
        self.read = Some((bytes, size));
        Changes {
            status: self.busy(),
            ..Changes::default()
        }
    }

    /// Forgets every record (the viewer is destroyed).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.compare = None;
    }

    /// Appends entries; an opened record whose id is already shown becomes an error tab, named
    /// by its file name. An opened file that could not be read is named by its file name too,
    /// and gives that name up to a record whose id it is.
    fn add_entries(&mut self, entries: Vec<Entry<T>>) {
        for mut entry in entries {
            if entry.content.loaded().is_some()
                && let Some(i) = self.position(&entry.id)
            {
                if self.entries[i].named_by_file {
                    let name = self.free_name(&self.entries[i].file, Some(&entry.id));
                    self.entries[i].id = name;
                } else {
                    let error = LoadError::new(
                        ViewerError::DuplicateRecord,
                        format!("a record with the id \"{}\" is already shown", entry.id),
                    );
                    entry = Entry::failed(&entry.file, error);
                }
            }
            if entry.named_by_file || self.position(&entry.id).is_some() {
                entry.id = self.free_name(&entry.file, None);
            }
            self.entries.push(entry);
        }
    }

    /// `name`, or `name (2)`, `name (3)`, … : the first that no entry has, other than `taken`.
    fn free_name(&self, name: &str, taken: Option<&str>) -> String {
        let mut id = name.to_string();
        let mut n = 1;
        while self.position(&id).is_some() || taken == Some(id.as_str()) {
            n += 1;
            id = format!("{name} ({n})");
        }
        id
    }
}

fn unknown<T>(id: &str) -> LoadError<T> {
    LoadError::new(ViewerError::UnknownRecord, format!("record \"{id}\""))
}
