//! A web service that runs work in project lanes: `POST /runs/{project}/{run}?ms=N&wait=S`
//! claims the project's lane (waiting up to `wait` seconds for it; `409` if it stays busy),
//! runs the work (here: N milliseconds of sleep) in a task of its own, releases the lane with
//! the work's outcome, and answers with the receipt. Every request shares one `AsyncPgLanes`.
//!
//! The lease lives in the work's task, not in the request: a client that goes away drops the
//! request's future, not the run, which still ends and releases its lane. On Ctrl-C or SIGTERM
//! the server stops taking requests and waits for the ones in flight, so every lease is
//! released before the process exits; a process killed outright leaves its lanes to recovery.
//!
//! ```text
//! LANES_PG_URL=postgresql://app@db.example/app?sslmode=verify-full \
//!     cargo run -p project-lanes-pg-tests --example service -- 127.0.0.1:8080 lanes
//! curl -X POST 'http://127.0.0.1:8080/runs/docs/nightly-7?ms=200'
//! ```

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::post;
use project_lanes::Outcome;
use project_lanes_pg::{AsyncPgLanes, PgError};
use serde::Deserialize;

/// How long the work takes, and how long to wait for a busy lane.
#[derive(Debug, Deserialize)]
pub struct Work {
    #[serde(default)]
    ms: u64,
    #[serde(default)]
    wait: u64,
}

/// The service's routes over one shared handle.
pub fn app(lanes: AsyncPgLanes) -> Router {
    Router::new()
        .route("/runs/{project}/{run}", post(run))
        .with_state(lanes)
}

async fn run(
    State(lanes): State<AsyncPgLanes>,
    Path((project, run)): Path<(String, String)>,
    Query(work): Query<Work>,
) -> (StatusCode, String) {
    let claimed = if work.wait == 0 {
        lanes.claim(&project, &run).await
    } else {
        let patience = Duration::from_secs(work.wait.min(300));
        lanes.claim_within(&project, &run, patience).await
    };
    let lease = match claimed {
        Ok(lease) => lease,
        Err(e) => return (status(&e), format!("{e}\n")),
    };
    let generation = lease.generation();
    // The run owns its lease: it ends and releases even if this request is dropped.
    let task = tokio::spawn(async move {
        let outcome = match tokio::spawn(do_the_work(work.ms)).await {
            Ok(()) => Outcome::Succeeded,
            Err(_) => Outcome::Failed,
        };
        lanes.release(&lease, outcome).await
    });
    match task.await {
        Ok(Ok(receipt)) => (
            StatusCode::OK,
            format!(
                "{} {} generation {generation}: {}\n",
                receipt.project.as_str(),
                receipt.run.as_str(),
                receipt.outcome.as_str()
            ),
        ),
        Ok(Err(e)) => (status(&e), format!("{e}\n")),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the run's task failed\n".into(),
        ),
    }
}

async fn do_the_work(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
}

fn status(e: &PgError) -> StatusCode {
    match e.code() {
        "PROJECT_BUSY" => StatusCode::CONFLICT,
        "INVALID_LABEL" => StatusCode::BAD_REQUEST,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then waits for the requests in flight.
pub async fn serve(
    listener: tokio::net::TcpListener,
    lanes: AsyncPgLanes,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app(lanes))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Ctrl-C or SIGTERM.
#[allow(dead_code)] // the test stops the service its own way
async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[allow(dead_code)] // the test drives `serve`
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let address = args.next().unwrap_or_else(|| "127.0.0.1:8080".into());
    let schema = args.next().unwrap_or_else(|| "lanes".into());
    let url = std::env::var("LANES_PG_URL")
        .map_err(|_| "set LANES_PG_URL to the database's connection string or URL")?;
    let lanes = AsyncPgLanes::connect(&url, &schema).await?;
    let listener = tokio::net::TcpListener::bind(&address).await?;
    eprintln!("listening on {}", listener.local_addr()?);
    serve(listener, lanes, signal()).await?;
    eprintln!("stopped: every run in flight ended and released its lane");
    Ok(())
}
