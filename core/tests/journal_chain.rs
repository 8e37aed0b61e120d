//! The journal's hash chain: a journal forgetting its first entries keeps the chain it had, and
//! changing, removing or moving any entry changes the chain from there on.

use project_lanes::journal::{Answer, Entry, Journal, link};
use project_lanes::record::chain::ChainHead;
use project_lanes::{Outcome, ProjectLanes};

fn journal() -> Journal {
    let lanes = ProjectLanes::new().with_journal(None);
    for i in 0..20 {
        let lease = lanes
            .claim(&format!("p{}", i % 3), &format!("r{i}"))
            .unwrap();
        let _ = lanes.claim(&format!("p{}", i % 3), "late");
        if i % 4 == 0 {
            lanes.request_stop(&lease).unwrap();
        }
        lanes.release(&lease, Outcome::Succeeded).unwrap();
    }
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    journal
}

fn chain_of(entries: &[Entry]) -> ChainHead {
    entries
        .iter()
        .fold(ChainHead::GENESIS, |head, entry| head.next(&link(entry)))
}

#[test]
fn forgetting_keeps_the_chain() {
    let whole = journal();
    let head = whole.chain();
    assert_eq!(head.links, whole.entries().len() as u64);
    assert_eq!(head, chain_of(whole.entries()));
    let mut pruned = whole.clone();
    pruned.forget_first(17);
    assert_eq!(pruned.chain_start(), chain_of(&whole.entries()[..17]));
    assert_eq!(pruned.chain(), head);
    // A journal continued elsewhere from the pruned point has the same chain.
    let mut continued = Journal::lanes().chained_from(pruned.chain_start());
    continued.extend(whole.entries()[17..].iter().cloned());
    assert_eq!(continued.chain(), head);
}

#[test]
fn an_edit_a_removal_or_a_swap_changes_every_link_after_it() {
    let whole = journal();
    let entries = whole.entries().to_vec();
    let heads: Vec<ChainHead> = (0..=entries.len())
        .map(|n| chain_of(&entries[..n]))
        .collect();
    let first_differing = |changed: &[Entry]| {
        (0..=changed.len().min(entries.len()))
            .find(|&n| chain_of(&changed[..n]) != heads[n])
            .expect("the chain changed")
    };
    // An outcome changed after the fact.
    let mut edited = entries.clone();
    let i = edited
        .iter()
        .position(|e| matches!(e.answer, Answer::Receipt(_)))
        .unwrap();
    if let project_lanes::journal::Call::Release { outcome, .. } = &mut edited[i].call {
        *outcome = Outcome::Failed;
    }
    assert_eq!(first_differing(&edited), i + 1);
    // A row removed in the middle.
    let mut removed = entries.clone();
    removed.remove(10);
    assert_eq!(first_differing(&removed), 11);
    // Two rows swapped.
    let mut swapped = entries.clone();
    swapped.swap(5, 6);
    assert_eq!(first_differing(&swapped), 6);
    // The last rows removed: a shorter chain, equal up to where it ends.
    let cut = &entries[..entries.len() - 10];
    assert_eq!(chain_of(cut), heads[cut.len()]);
    assert_ne!(chain_of(cut), heads[entries.len()]);
}
