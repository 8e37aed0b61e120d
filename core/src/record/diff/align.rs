//! Aligning two sequences of step keys: the start and the end they share first, then Myers'
//! greedy search ("An O(ND) Difference Algorithm and Its Variations", 1986) for the fewest steps
//! found in one sequence only, up to a budget of such steps.
//!
//! The budget bounds both the time (about `(n + m) × budget` comparisons at worst) and the memory
//! (about `budget²` numbers). Two records that differ in more steps than that are not aligned
//! step by step: what lies between their shared start and end is reported as found in one only,
//! and the alignment says it is approximate.

use std::ops::Range;

/// What a stretch of the alignment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The same steps in both.
    Same,
    /// Steps of the first sequence only.
    OnlyA,
    /// Steps of the second sequence only.
    OnlyB,
}

/// A stretch of the alignment: steps `a` of the first sequence and `b` of the second (one of
/// them empty unless the stretch is [`Kind::Same`]; an empty range says where the other
/// side's steps would be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stretch {
    /// What the stretch is.
    pub kind: Kind,
    /// Its steps in the first sequence.
    pub a: Range<usize>,
    /// Its steps in the second sequence.
    pub b: Range<usize>,
}

/// The alignment of `a` and `b`, in order, and whether it gave up (more than `budget` steps in
/// one only between their shared start and end).
pub fn align(a: &[u64], b: &[u64], budget: usize) -> (Vec<Stretch>, bool) {
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let end = a[start..]
        .iter()
        .rev()
        .zip(b[start..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (mid_a, mid_b) = (&a[start..a.len() - end], &b[start..b.len() - end]);
    let mut out = Stretches::default();
    out.push(Kind::Same, start);
    let given_up = match edits(mid_a, mid_b, budget) {
        Some(moves) => {
            for step in moves {
                out.push(step, 1);
            }
            false
        }
        None => {
            out.push(Kind::OnlyA, mid_a.len());
            out.push(Kind::OnlyB, mid_b.len());
            true
        }
    };
    out.push(Kind::Same, end);
    (out.list, given_up)
}

/// Stretches being built, and how far they reach in each sequence.
#[derive(Default)]
struct Stretches {
    list: Vec<Stretch>,
    a: usize,
    b: usize,
}

impl Stretches {
    /// Adds `n` steps of `kind` (of both sequences for [`Kind::Same`]).
    fn push(&mut self, kind: Kind, n: usize) {
        let (da, db) = match kind {
            Kind::Same => (n, n),
            Kind::OnlyA => (n, 0),
            Kind::OnlyB => (0, n),
        };
        if da == 0 && db == 0 {
            return;
        }
        match self.list.last_mut() {
            Some(last) if last.kind == kind => {
                last.a.end += da;
                last.b.end += db;
            }
            _ => self.list.push(Stretch {
                kind,
                a: self.a..self.a + da,
                b: self.b..self.b + db,
            }),
        }
        self.a += da;
        self.b += db;
    }
}

/// The moves from the start of `a` and `b` to their end, one step at a time, if at most
/// `budget` of them are not [`Kind::Same`].
fn edits(a: &[u64], b: &[u64], budget: usize) -> Option<Vec<Kind>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let limit = budget.min(a.len() + b.len()) as isize;
    let offset = limit + 1;
    let mut v = vec![0isize; 2 * limit as usize + 3];
    // `trace[d]`: the furthest x on each diagonal k in -d-1..=d+1 before round d.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=limit {
        let low = (offset - d - 1) as usize;
        let high = (offset + d + 1) as usize;
        trace.push(v[low..=high].to_vec());
        for k in (-d..=d).step_by(2) {
            let at = (offset + k) as usize;
            let down = k == -d || (k != d && v[at - 1] < v[at + 1]);
            let mut x = if down { v[at + 1] } else { v[at - 1] + 1 };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at] = x;
            if x >= n && y >= m {
                return Some(back(&trace, n, m));
            }
        }
    }
    None
}

/// Walks the trace back from the end to the start: the moves, in order.
fn back(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<Kind> {
    let mut moves = Vec::with_capacity((n + m) as usize);
    let (mut x, mut y) = (n, m);
    for (d, v) in trace.iter().enumerate().rev() {
        let d = d as isize;
        // `v` holds diagonals -d-1..=d+1 from index 0.
        let get = |k: isize| v[(k + d + 1) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && get(k - 1) < get(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = get(prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y && x > 0 && y > 0 {
            moves.push(Kind::Same);
            x -= 1;
            y -= 1;
        }
        if d > 0 {
            moves.push(if x == prev_x {
                Kind::OnlyB
            } else {
                Kind::OnlyA
            });
            x = prev_x;
            y = prev_y;
        }
    }
    moves.reverse();
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequences the alignment makes of its stretches: every step of both, in order.
    fn covers(stretches: &[Stretch], a: &[u64], b: &[u64]) {
        let (mut i, mut j) = (0, 0);
        for s in stretches {
            assert_eq!((s.a.start, s.b.start), (i, j), "{stretches:?}");
            if s.kind == Kind::Same {
                assert_eq!(&a[s.a.clone()], &b[s.b.clone()]);
            }
            (i, j) = (s.a.end, s.b.end);
        }
        assert_eq!((i, j), (a.len(), b.len()));
    }

    fn only(stretches: &[Stretch]) -> usize {
        stretches
            .iter()
            .filter(|s| s.kind != Kind::Same)
            .map(|s| s.a.len() + s.b.len())
            .sum()
    }

    #[test]
    fn equal_sequences_are_one_stretch_of_the_same_steps() {
        let a = [1, 2, 3];
        let (s, gave_up) = align(&a, &a, 10);
        assert_eq!(
            s,
            [Stretch {
                kind: Kind::Same,
                a: 0..3,
                b: 0..3
            }]
        );
        assert!(!gave_up);
        assert_eq!(align(&[], &[], 10).0, []);
    }

    #[test]
    fn a_step_added_in_the_middle_is_found_alone() {
        let a = [1, 2, 3, 4];
        let b = [1, 2, 9, 3, 4];
        let (s, _) = align(&a, &b, 10);
        covers(&s, &a, &b);
        assert_eq!(
            s[1],
            Stretch {
                kind: Kind::OnlyB,
                a: 2..2,
                b: 2..3
            }
        );
        assert_eq!(only(&s), 1);
    }

    #[test]
    fn the_fewest_steps_in_one_only_are_found() {
        // Sequences whose shared start and end say nothing: the search alone aligns them.
        let a = [7, 1, 2, 3, 1, 2, 2, 1, 8];
        let b = [9, 3, 2, 1, 2, 1, 3, 6];
        let (s, gave_up) = align(&a, &b, 100);
        covers(&s, &a, &b);
        assert!(!gave_up);
        // The longest common subsequence is 5 long (e.g. 3 1 2 1 / 2 1 2 1 …): 9 + 8 - 2 × lcs.
        assert_eq!(only(&s), a.len() + b.len() - 2 * lcs(&a, &b));
    }

    #[test]
    fn random_sequences_align_with_the_fewest_edits() {
        let mut seed = 0x2545_f491_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let a: Vec<u64> = (0..next() % 30).map(|_| next() % 4).collect();
            let b: Vec<u64> = (0..next() % 30).map(|_| next() % 4).collect();
            let (s, gave_up) = align(&a, &b, 1_000);
            assert!(!gave_up);
            covers(&s, &a, &b);
            assert_eq!(only(&s), a.len() + b.len() - 2 * lcs(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn past_the_budget_the_middle_is_in_one_only_and_said_so() {
        let a = [1, 2, 3, 4, 5, 6, 1];
        let b = [1, 9, 8, 7, 6, 5, 1];
        let (s, gave_up) = align(&a, &b, 3);
        assert!(gave_up);
        covers(&s, &a, &b);
        assert_eq!(s.len(), 4);
        assert_eq!(
            s[1],
            Stretch {
                kind: Kind::OnlyA,
                a: 1..6,
                b: 1..1
            }
        );
        assert_eq!(
            s[2],
            Stretch {
                kind: Kind::OnlyB,
                a: 6..6,
                b: 1..6
            }
        );
    }

    /// The length of the longest common subsequence, the textbook way.
    fn lcs(a: &[u64], b: &[u64]) -> usize {
        let mut t = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                t[i + 1][j + 1] = if a[i] == b[j] {
                    t[i][j] + 1
                } else {
                    t[i][j + 1].max(t[i + 1][j])
                };
            }
        }
        t[a.len()][b.len()]
    }
}
