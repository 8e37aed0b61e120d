//! The service example (`examples/service.rs`) driven over HTTP: concurrent requests on one
//! project and on many, and a graceful shutdown with runs in flight.

mod common;

#[path = "../examples/service.rs"]
mod service;

use std::time::Duration;

use project_lanes_pg::{AsyncPgLanes, PgConfig, journal};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use common::{fresh_schema, url};

/// `POST path` over a connection of its own: the status code and the body.
async fn post(address: std::net::SocketAddr, path: String) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let code = response
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_owned());
    (code, body)
}

/// Starts the service on a free port; returns its address, a trigger for its shutdown, and
/// its task.
async fn start(
    schema: &str,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let lanes = AsyncPgLanes::connect(&url(), schema).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(service::serve(listener, lanes, async {
        let _ = stopped.await;
    }));
    (address, stop, server)
}

async fn audit(schema: &str) -> u64 {
    let config = PgConfig::new(&url(), schema);
    tokio::task::spawn_blocking(move || {
        let audit = journal::audit(&config, None).unwrap();
        assert_eq!(audit.mismatch, None);
        audit.transitions
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn concurrent_requests_on_one_project_take_turns() {
    let schema = fresh_schema();
    let (address, stop, server) = start(&schema).await;
    let requests: Vec<_> = (0..20)
        .map(|n| tokio::spawn(post(address, format!("/runs/docs/r{n}?ms=100"))))
        .collect();
    let mut ok = 0;
    let mut busy = 0;
    for request in requests {
        match request.await.unwrap() {
            (200, body) => {
                assert!(body.contains("succeeded"), "{body}");
                ok += 1;
            }
            (409, body) => {
                assert!(body.contains("PROJECT_BUSY"), "{body}");
                busy += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(ok >= 1 && ok + busy == 20, "{ok} ran, {busy} busy");
    // Waiting for the lane instead: all of them run, one at a time.
    let waiting: Vec<_> = (0..5)
        .map(|n| tokio::spawn(post(address, format!("/runs/docs/w{n}?ms=20&wait=30"))))
        .collect();
    for request in waiting {
        assert_eq!(request.await.unwrap().0, 200);
    }
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
    // Claims refused while waiting are journaled too: at least these many.
    assert!(audit(&schema).await >= 2 * (ok + 5) + busy);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn requests_on_many_projects_all_run_and_shutdown_waits_for_them() {
    let schema = fresh_schema();
    let (address, stop, server) = start(&schema).await;
    let requests: Vec<_> = (0..50)
        .map(|n| tokio::spawn(post(address, format!("/runs/p{n}/r?ms=300"))))
        .collect();
    // Shut down while the runs are in flight: they end, release, and answer first.
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    for request in requests {
        let (code, body) = request.await.unwrap();
        assert_eq!(code, 200, "{body}");
    }
    server.await.unwrap().unwrap();
    assert_eq!(audit(&schema).await, 100);
    let lanes = AsyncPgLanes::connect(&url(), &schema).await.unwrap();
    for n in 0..50 {
        let view = lanes.view(&format!("p{n}")).await.unwrap();
        assert!(view.run.is_none(), "p{n} is still held");
    }
}
