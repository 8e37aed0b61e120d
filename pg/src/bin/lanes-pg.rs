//! `lanes-pg`: operator commands for lanes and queues on PostgreSQL.
//!
//! ```text
//! lanes-pg recover URL SCHEMA               mark what died with its session (prints it)
//! lanes-pg orphans URL SCHEMA               list orphaned lanes awaiting a person
//! lanes-pg resolve URL SCHEMA R<n>          clear an unresolved reservation
//! lanes-pg resolve-orphan URL SCHEMA PROJ   free an orphaned lane (receipt: needs_review)
//! ```

use std::process::ExitCode;

use project_lanes::dispatch::ReservationId;
use project_lanes_pg::{PgDispatcher, PgError, PgLanes};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["recover", url, schema] => recover(url, schema),
        ["orphans", url, schema] => orphans(url, schema),
        ["resolve", url, schema, id] => resolve(url, schema, id),
        ["resolve-orphan", url, schema, project] => resolve_orphan(url, schema, project),
        _ => Err(format!(
            "usage: lanes-pg recover|orphans URL SCHEMA | resolve URL SCHEMA R<n> | \
             resolve-orphan URL SCHEMA PROJECT (got {args:?})"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lanes-pg: {e}");
            ExitCode::FAILURE
        }
    }
}

fn err(e: PgError) -> String {
    e.to_string()
}

fn recover(url: &str, schema: &str) -> Result<(), String> {
    let lanes = PgLanes::connect(url, schema).map_err(err)?;
    let recovery = lanes.recover().map_err(err)?;
    for m in &recovery.reservations {
        let id = m.reservation.map(|r| r.to_string()).unwrap_or_default();
        println!(
            "unresolved {id} project={} run={} generation={}",
            m.project, m.run, m.generation
        );
    }
    for m in &recovery.orphans {
        println!(
            "orphaned project={} run={} generation={}",
            m.project, m.run, m.generation
        );
    }
    if recovery.is_empty() {
        println!("nothing to recover");
    }
    Ok(())
}

fn orphans(url: &str, schema: &str) -> Result<(), String> {
    let lanes = PgLanes::connect(url, schema).map_err(err)?;
    for o in lanes.orphans().map_err(err)? {
        println!(
            "orphaned project={} run={} generation={}",
            o.project, o.run, o.generation
        );
    }
    Ok(())
}

fn resolve(url: &str, schema: &str, id: &str) -> Result<(), String> {
    let id = ReservationId::parse(id).ok_or(format!("{id:?} is not a reservation id (R<n>)"))?;
    // No queues are needed to resolve; the handle declares one that already exists or is new.
    let mut d = PgDispatcher::connect(url, schema, &["general"]).map_err(err)?;
    let view = d.resolve(id).map_err(err)?;
    println!(
        "{} {} project={}",
        view.id,
        view.state.as_str(),
        view.project
    );
    Ok(())
}

fn resolve_orphan(url: &str, schema: &str, project: &str) -> Result<(), String> {
    let lanes = PgLanes::connect(url, schema).map_err(err)?;
    let receipt = lanes.resolve_orphan(project).map_err(err)?;
    println!(
        "released project={} run={} outcome={}",
        receipt.project, receipt.run, receipt.outcome
    );
    Ok(())
}
