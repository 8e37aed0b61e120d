//! Connecting: errors that keep their cause, and time limits for a server that does not answer.

mod common;

use project_lanes_pg::PgLanes;

/// A local TCP port where nothing listens.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn connection_errors_keep_their_cause() {
    let missing_folder = PgLanes::connect("host=/nonexistent-folder user=nobody", "lanes")
        .unwrap_err()
        .to_string();
    assert!(
        missing_folder.starts_with("DATABASE: 08000: error connecting to server: ")
            && missing_folder.contains("No such file or directory"),
        "{missing_folder}"
    );
    let refused = PgLanes::connect(
        &format!("host=127.0.0.1 port={} user=nobody", closed_port()),
        "lanes",
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("Connection refused"), "{refused}");
    let bad_port = PgLanes::connect("host=127.0.0.1 port=seventy user=nobody", "lanes")
        .unwrap_err()
        .to_string();
    assert!(
        bad_port.contains("invalid connection string") && bad_port.contains("port"),
        "{bad_port}"
    );
}

#[test]
fn connection_errors_never_show_the_password() {
    for url in [
        "host=/nonexistent-folder user=nobody password=hunter2-secret",
        "postgresql://nobody:hunter2-secret@127.0.0.1:1/db",
        "host=127.0.0.1 port=x password=hunter2-secret",
    ] {
        let error = PgLanes::connect(url, "lanes").unwrap_err();
        let text = format!("{error} {error:?}");
        assert!(!text.contains("hunter2"), "{text}");
    }
}
