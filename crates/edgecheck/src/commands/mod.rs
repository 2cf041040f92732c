//! Commands.

mod catalogue;
mod lint;
mod probe;
mod scan;
mod trace;

use crate::cli::{Cli, Command};

/// Runs a command; returns the exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Lint(args) => lint::run(&args),
        Command::Probe(args) => probe::run(&args),
        Command::Checks { format } => catalogue::list(format),
        Command::Explain { check } => catalogue::explain(&check),
        Command::Scan(args) => scan::run(&args),
        Command::Trace(args) => trace::run(&args),
        Command::Rbac(args) => scan::rbac(&args),
    }
}

/// Renders a report to stdout through a buffer (JSON is streamed, not built in memory first), failing on
/// a broken pipe (which `main` turns into exit 0).
pub fn write_report(
    report: &edgecheck_report::Report<'_>,
    format: edgecheck_report::Format,
    color: bool,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    edgecheck_report::render_to(report, format, color, &mut out)?;
    out.flush()?;
    Ok(())
}

/// Writes to stdout, failing on a broken pipe (which `main` turns into exit 0).
pub fn write_stdout(s: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(())
}
