//! `lanes-pg`: operator commands for lanes and queues on PostgreSQL. Run `lanes-pg --help`.

fn main() -> std::process::ExitCode {
    lanes_pg::main()
}
