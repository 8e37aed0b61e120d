//! The names a version 3 record gives the system's leases and reservations, kept compactly: a
//! later step may name any of them again (a stale release, a cancel of a finished run), so
//! every one issued is kept, as a few numbers, never as a view.

use std::collections::{BTreeMap, HashMap};

use crate::Label;
use crate::dispatch::ReservationId;

/// Lease handles by (project, generation) and record ids by the system's reservation id, in
/// about 16 and 24 bytes each.
#[derive(Default)]
pub(super) struct Issued {
    /// Projects by index, and the index of each.
    projects: Vec<Label>,
    index: HashMap<Label, u32>,
    /// Each project's lease handles, by generation.
    handles: Vec<Keyed<u64>>,
    leases: u64,
    /// Reservations: (record id, project index) by system id.
    ids: Keyed<(u64, u32)>,
    reservations: u64,
}

impl Issued {
    fn project(&mut self, project: &Label) -> u32 {
        if let Some(&p) = self.index.get(project) {
            return p;
        }
        let p = self.projects.len() as u32;
        self.projects.push(project.clone());
        self.handles.push(Keyed::default());
        self.index.insert(project.clone(), p);
        p
    }

    /// Issues the next handle to `project`'s lease of `generation`: its number (one more
    /// than the leases named so far; a lease named again takes it too).
    pub(super) fn issue_lease(&mut self, project: &Label, generation: u64) -> u64 {
        let handle = self.leases + 1;
        let p = self.project(project) as usize;
        if self.handles[p].insert(generation, handle) {
            self.leases += 1;
        }
        handle
    }

    /// The handle of `project`'s lease of `generation`, if one was issued.
    pub(super) fn lease(&self, project: &str, generation: u64) -> Option<u64> {
        self.handles[*self.index.get(project)? as usize]
            .get(generation)
            .copied()
    }

    /// Issues the next record id to the system's reservation `system`, of `project` (one
    /// more than the reservations named so far; one named again takes it too).
    pub(super) fn issue_id(&mut self, system: ReservationId, project: &Label) -> ReservationId {
        let record = self.reservations + 1;
        let p = self.project(project);
        if self.ids.insert(system.number(), (record, p)) {
            self.reservations += 1;
        }
        ReservationId::from_number(record).unwrap_or_else(|| unreachable!("numbers start at 1"))
    }

    /// The record id of the system's reservation `system`, and its project, if one was issued.
    pub(super) fn id(&self, system: ReservationId) -> Option<(ReservationId, &Label)> {
        let &(record, p) = self.ids.get(system.number())?;
        Some((
            ReservationId::from_number(record)?,
            self.projects.get(p as usize)?,
        ))
    }

    /// The system's id of the record's reservation `record` (a scan: for messages only).
    pub(super) fn system_id(&self, record: ReservationId) -> Option<ReservationId> {
        let system = self.ids.find(|&(r, _)| r == record.number())?;
        ReservationId::from_number(system)
    }
}

/// Values by number, for numbers that come mostly in increasing order (a sequence's ids, a
/// project's generations): those in order are appended to a sorted list, 8 bytes and the
/// value each; the few that come late go to a tree, so no order makes inserting slow.
struct Keyed<V> {
    sorted: Vec<(u64, V)>,
    late: BTreeMap<u64, V>,
}

impl<V> Default for Keyed<V> {
    fn default() -> Keyed<V> {
        Keyed {
            sorted: Vec::new(),
            late: BTreeMap::new(),
        }
    }
}

impl<V> Keyed<V> {
    /// Sets `key`'s value; whether the key is new.
    fn insert(&mut self, key: u64, value: V) -> bool {
        if self.sorted.last().is_none_or(|&(last, _)| last < key) {
            self.sorted.push((key, value));
            return true;
        }
        if let Ok(i) = self.sorted.binary_search_by_key(&key, |&(k, _)| k) {
            self.sorted[i].1 = value;
            return false;
        }
        self.late.insert(key, value).is_none()
    }

    fn get(&self, key: u64) -> Option<&V> {
        match self.sorted.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => Some(&self.sorted[i].1),
            Err(_) => self.late.get(&key),
        }
    }

    /// The first key whose value fits.
    fn find(&self, fits: impl Fn(&V) -> bool) -> Option<u64> {
        self.sorted
            .iter()
            .find(|(_, v)| fits(v))
            .map(|&(k, _)| k)
            .or_else(|| self.late.iter().find(|(_, v)| fits(v)).map(|(&k, _)| k))
    }
}

/// A set of reservation ids as sorted, disjoint ranges: the system's ids come from a
/// sequence, so a journal's take a few ranges however many there are.
#[derive(Default)]
pub(super) struct IdSet {
    /// (first, last), sorted, with a gap between neighbours.
    ranges: Vec<(u64, u64)>,
}

impl IdSet {
    pub(super) fn insert(&mut self, id: ReservationId) {
        let n = id.number();
        // The first range that ends at or after n - 1 (could take n at its end).
        let i = self
            .ranges
            .partition_point(|&(_, last)| last.saturating_add(1) < n);
        match self.ranges.get(i).copied() {
            Some((first, last)) if first <= n && n <= last => {}
            Some((first, last)) if last.saturating_add(1) == n => {
                self.ranges[i].1 = n;
                // It may now touch the next range.
                if let Some(&(next, next_last)) = self.ranges.get(i + 1)
                    && next == n + 1
                {
                    self.ranges[i] = (first, next_last);
                    self.ranges.remove(i + 1);
                }
            }
            Some((first, last)) if n.saturating_add(1) == first => self.ranges[i] = (n, last),
            _ => self.ranges.insert(i, (n, n)),
        }
    }

    pub(super) fn contains(&self, id: ReservationId) -> bool {
        let n = id.number();
        let i = self.ranges.partition_point(|&(_, last)| last < n);
        self.ranges.get(i).is_some_and(|&(first, _)| first <= n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> ReservationId {
        ReservationId::from_number(n).unwrap()
    }

    #[test]
    fn an_id_set_holds_what_was_inserted_in_any_order_and_nothing_else() {
        let mut set = IdSet::default();
        let order = [5, 3, 4, 9, 1, 2, 7, 8, 20, 6, 19];
        for n in order {
            set.insert(id(n));
        }
        for n in 1..=22 {
            assert_eq!(set.contains(id(n)), order.contains(&n), "{n}");
        }
        assert_eq!(set.ranges, [(1, 9), (19, 20)]);
    }

    #[test]
    fn keyed_values_are_found_whatever_the_order_of_their_keys() {
        let mut keyed = Keyed::default();
        let keys = [5, 9, 3, 12, 9, 1, 40, 3];
        let news: Vec<bool> = keys.iter().map(|&k| keyed.insert(k, k * 10)).collect();
        assert_eq!(news, [true, true, true, true, false, true, true, false]);
        for k in 0..45 {
            assert_eq!(keyed.get(k), keys.contains(&k).then_some(&(k * 10)), "{k}");
        }
        assert_eq!(keyed.find(|&v| v == 30), Some(3));
        assert_eq!(keyed.find(|&v| v == 7), None);
        // Late keys never shift the sorted list.
        assert_eq!(keyed.sorted.len(), 4);
    }

    #[test]
    fn issued_names_are_found_again_whatever_the_order_of_issue() {
        let mut issued = Issued::default();
        let docs = Label::new("docs").unwrap();
        let site = Label::new("site").unwrap();
        assert_eq!(issued.issue_lease(&docs, 3), 1);
        assert_eq!(issued.issue_lease(&site, 1), 2);
        assert_eq!(issued.issue_lease(&docs, 1), 3);
        assert_eq!(
            (issued.lease("docs", 1), issued.lease("docs", 3)),
            (Some(3), Some(1))
        );
        assert_eq!(
            (issued.lease("docs", 2), issued.lease("web", 1)),
            (None, None)
        );
        assert_eq!(issued.issue_id(id(40), &site), id(1));
        assert_eq!(issued.issue_id(id(12), &docs), id(2));
        assert_eq!(issued.id(id(12)), Some((id(2), &docs)));
        assert_eq!(issued.id(id(40)), Some((id(1), &site)));
        assert_eq!(issued.id(id(13)), None);
        assert_eq!(issued.system_id(id(2)), Some(id(12)));
    }
}
