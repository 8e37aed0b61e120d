//! [`Index`]: text to a number, the one map of the comparison. Its keys are kept one after
//! another in one string, so that dropping it frees three blocks however many keys it has,
//! rather than one block a key in hash order (with the viewer's former single free list, a map
//! of 50,000 owned keys took 390 ms to drop in the browser).

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

/// Text to a number.
#[derive(Default)]
pub struct Index {
    hasher: DefaultHashBuilder,
    /// Positions in `entries`.
    table: HashTable<usize>,
    /// Every key, one after another.
    text: String,
    /// Each key's end in `text` (it starts where the one before ends) and its value.
    entries: Vec<(usize, usize)>,
}

impl Index {
    /// An empty index.
    pub fn new() -> Index {
        Index::default()
    }

    /// Key `i`, as stored.
    fn key<'t>(text: &'t str, entries: &[(usize, usize)], i: usize) -> &'t str {
        let start = i.checked_sub(1).map_or(0, |j| entries[j].0);
        &text[start..entries[i].0]
    }

    fn find(&self, key: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        (self.table)
            .find(hash, |&i| Index::key(&self.text, &self.entries, i) == key)
            .copied()
    }

    /// The value of `key`, if it has one.
    pub fn get(&self, key: &str) -> Option<usize> {
        self.find(key).map(|i| self.entries[i].1)
    }

    /// Whether `key` has a value.
    pub fn contains(&self, key: &str) -> bool {
        self.find(key).is_some()
    }

    /// The value of `key`, given `value()` first if it has none.
    pub fn get_or_insert(&mut self, key: &str, value: impl FnOnce() -> usize) -> &mut usize {
        let i = match self.find(key) {
            Some(i) => i,
            None => {
                let i = self.entries.len();
                self.text.push_str(key);
                self.entries.push((self.text.len(), value()));
                let Index {
                    hasher,
                    table,
                    text,
                    entries,
                } = self;
                let hash = hasher.hash_one(key);
                table.insert_unique(hash, i, |&j| hasher.hash_one(Index::key(text, entries, j)));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// Gives `key` the value `value`.
    pub fn insert(&mut self, key: &str, value: usize) {
        *self.get_or_insert(key, || value) = value;
    }
}

impl<'a> FromIterator<(&'a str, usize)> for Index {
    fn from_iter<I: IntoIterator<Item = (&'a str, usize)>>(pairs: I) -> Index {
        let mut index = Index::new();
        for (key, value) in pairs {
            index.insert(key, value);
        }
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_find_their_values_and_a_key_given_again_takes_the_new_one() {
        let mut index = Index::new();
        index.insert("docs", 1);
        index.insert("", 2);
        index.insert("do", 3);
        assert_eq!(
            (index.get("docs"), index.get(""), index.get("do")),
            (Some(1), Some(2), Some(3))
        );
        assert_eq!(index.get("d"), None);
        index.insert("docs", 4);
        assert_eq!((index.get("docs"), index.entries.len()), (Some(4), 3));
        *index.get_or_insert("site", || 0) += 1;
        *index.get_or_insert("site", || 0) += 1;
        assert_eq!(index.get("site"), Some(2));
        let keys: Vec<String> = (0..10_000).map(|n| format!("run-{n}")).collect();
        let many: Index = keys
            .iter()
            .enumerate()
            .map(|(n, k)| (k.as_str(), n))
            .collect();
        assert!((0..10_000).all(|n| many.get(&format!("run-{n}")) == Some(n)));
        assert!(!many.contains("run-10000"));
    }
}
