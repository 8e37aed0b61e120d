//! `status` and `orphans`: what a schema holds now, read by `project_lanes_pg::status`, for
//! people (one line per lane and reservation) and for scripts (`--json`).

use std::io::Write;

use project_lanes::dispatch::ReservationState;
use project_lanes_pg::PgConfig;
use project_lanes_pg::status::{self, HeldLane, Pending, Status};
use serde_json::{Value, json};

use crate::{Done, err, say, say_json};

pub const STATUS_HELP: &str =
    "Reads, in one snapshot and without changing anything: each lane held now, by which run and \
generation, since when and by whom (the journal's row of its claim or dispatch; unknown once \
pruned), held directly or for which reservation, with a stop request, orphaned, and whether \
its holder's session is alive (a lane whose holder is gone and that recovery has not marked \
yet says so: lanes-pg recover marks it); then every queue with its reservations queued, \
dispatched, persisting or unresolved (an unresolved one blocks its project until lanes-pg \
resolve). A schema that holds no lanes is an error (exit 1), never created.
--json: {\"at\", \"lanes\": [{\"project\", \"run\", \"generation\", \"since\", \"actor\", \
\"reservation\", \"queue\", \"stop_requested\", \"orphaned\", \"holder_alive\", \"holder_pid\", \
\"holder_session_started\"}, ...], \"queues\": [{\"queue\", \"reservations\": [{\"id\", \
\"project\", \"run\", \"state\", \"outcome\", \"enqueued\"}, ...]}, ...]}

examples:
  lanes-pg status lanes
  lanes-pg status postgresql://ops@db/app lanes --json";

pub const ORPHANS_HELP: &str =
    "Lists the lanes recovery marked orphaned (held directly by a holder whose session ended; \
they stay held until lanes-pg resolve-orphan), and the lanes whose holder's session has ended \
that recovery has not marked yet: a lane held directly (recovery marks it orphaned) or for a \
reservation (recovery makes the reservation unresolved). It marks nothing itself: lanes-pg \
recover does. Says \"no orphaned lanes\" when there are neither.

examples:
  lanes-pg orphans lanes
  lanes-pg orphans lanes --json";

pub fn status(out: &mut impl Write, config: &PgConfig, as_json: bool) -> Done {
    let status = status::read(config).map_err(err)?;
    if as_json {
        return say_json(out, &status_json(&status));
    }
    let width = status
        .lanes
        .iter()
        .map(|l| l.project.as_str().len())
        .max()
        .unwrap_or(0);
    if status.lanes.is_empty() {
        say!(
            out,
            "no lanes held (as of {}, the server's time)",
            status.at
        )?;
    } else {
        say!(out, "lanes held (as of {}, the server's time):", status.at)?;
    }
    for lane in &status.lanes {
        say!(
            out,
            "  {:width$}  {}",
            lane.project.as_str(),
            described(lane)
        )?;
    }
    for queue in &status.queues {
        let count = |state: ReservationState| {
            queue
                .reservations
                .iter()
                .filter(|p| p.view.state == state)
                .count()
        };
        say!(
            out,
            "queue {}: {} queued, {} dispatched, {} persisting, {} unresolved",
            queue.queue,
            count(ReservationState::Queued),
            count(ReservationState::Dispatched),
            count(ReservationState::Persisting),
            count(ReservationState::Unresolved)
        )?;
        for pending in &queue.reservations {
            say!(out, "  {}", pending_line(pending))?;
        }
    }
    Ok(())
}

/// What a held lane's line says after its project.
fn described(lane: &HeldLane) -> String {
    let since = lane
        .since
        .map_or_else(|| "unknown (pruned)".to_owned(), |t| t.to_string());
    let actor = lane
        .actor
        .as_ref()
        .map(|a| format!(" actor={a}"))
        .unwrap_or_default();
    let mut line = format!(
        "run={} generation={} since={since}{actor} ",
        lane.run, lane.generation
    );
    match (lane.reservation, &lane.queue) {
        (Some(id), Some(queue)) => line.push_str(&format!("held for {id} (queue {queue})")),
        (Some(id), None) => line.push_str(&format!("held for {id}")),
        (None, _) => line.push_str("held directly"),
    }
    if lane.stop_requested {
        line.push_str(", stop requested");
    }
    if lane.orphaned {
        line.push_str(
            "; orphaned: its holder's session has ended (lanes-pg resolve-orphan, once a person \
             has looked)",
        );
    } else if !lane.holder_alive {
        line.push_str(
            "; its holder's session has ended and recovery has not marked it yet \
             (lanes-pg recover)",
        );
    }
    line
}

fn pending_line(pending: &Pending) -> String {
    let v = &pending.view;
    let outcome = v
        .outcome
        .map(|o| format!(" outcome={o}"))
        .unwrap_or_default();
    let blocks = if v.state == ReservationState::Unresolved {
        format!(" (blocks {} until lanes-pg resolve)", v.project)
    } else {
        String::new()
    };
    format!(
        "{} {} project={} run={}{outcome} enqueued={}{blocks}",
        v.id,
        v.state.as_str(),
        v.project,
        v.run,
        pending.enqueued
    )
}

fn status_json(status: &Status) -> Value {
    let time = |t: Option<project_lanes::record::Timestamp>| t.map(|t| t.to_string());
    let lanes: Vec<Value> = status
        .lanes
        .iter()
        .map(|l| {
            json!({
                "project": l.project.as_str(),
                "run": l.run.as_str(),
                "generation": l.generation,
                "since": time(l.since),
                "actor": l.actor,
                "reservation": l.reservation.map(|r| r.to_string()),
                "queue": l.queue.as_ref().map(|q| q.as_str()),
                "stop_requested": l.stop_requested,
                "orphaned": l.orphaned,
                "holder_alive": l.holder_alive,
                "holder_pid": l.holder_pid,
                "holder_session_started": time(l.holder_session_started),
            })
        })
        .collect();
    let queues: Vec<Value> = status
        .queues
        .iter()
        .map(|q| {
            let reservations: Vec<Value> = q
                .reservations
                .iter()
                .map(|p| {
                    json!({
                        "id": p.view.id.to_string(),
                        "project": p.view.project.as_str(),
                        "run": p.view.run.as_str(),
                        "state": p.view.state.as_str(),
                        "outcome": p.view.outcome.map(|o| o.as_str()),
                        "enqueued": p.enqueued.to_string(),
                    })
                })
                .collect();
            json!({"queue": q.queue.as_str(), "reservations": reservations})
        })
        .collect();
    json!({"at": status.at.to_string(), "lanes": lanes, "queues": queues})
}

pub fn orphans(out: &mut impl Write, config: &PgConfig, as_json: bool) -> Done {
    let status = status::read(config).map_err(err)?;
    let orphaned: Vec<&HeldLane> = status.lanes.iter().filter(|l| l.orphaned).collect();
    let not_marked: Vec<&HeldLane> = status
        .lanes
        .iter()
        .filter(|l| !l.orphaned && !l.holder_alive)
        .collect();
    if as_json {
        let orphaned: Vec<Value> = orphaned
            .iter()
            .map(|l| {
                json!({
                    "project": l.project.as_str(),
                    "run": l.run.as_str(),
                    "generation": l.generation,
                })
            })
            .collect();
        let not_marked: Vec<Value> = not_marked
            .iter()
            .map(|l| {
                json!({
                    "project": l.project.as_str(),
                    "run": l.run.as_str(),
                    "generation": l.generation,
                    "reservation": l.reservation.map(|r| r.to_string()),
                })
            })
            .collect();
        return say_json(
            out,
            &json!({"orphaned": orphaned, "not_marked": not_marked}),
        );
    }
    for l in &orphaned {
        say!(
            out,
            "orphaned project={} run={} generation={}",
            l.project,
            l.run,
            l.generation
        )?;
    }
    for l in &not_marked {
        let (reservation, marks) = match l.reservation {
            Some(id) => (
                format!(" reservation={id}"),
                format!("makes {id} unresolved"),
            ),
            None => (String::new(), "marks the lane orphaned".to_owned()),
        };
        say!(
            out,
            "not yet marked: project={} run={} generation={}{reservation} (its holder's session \
             has ended; lanes-pg recover {marks})",
            l.project,
            l.run,
            l.generation
        )?;
    }
    if orphaned.is_empty() && not_marked.is_empty() {
        say!(out, "no orphaned lanes")?;
    }
    Ok(())
}
