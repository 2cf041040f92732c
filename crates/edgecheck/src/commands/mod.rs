//! Commands.

mod builds;
mod catalogue;
mod inventory;
mod lint;
mod probe;
mod roots;
mod scan;
mod trace;

use crate::cli::{Cli, Command};

/// Runs a command; returns the exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    let color = cli.color;
    match cli.command {
        Command::Lint(args) => lint::run(&args, color),
        Command::Scan(args) => scan::run(&args, color),
        Command::Trace(args) => trace::run(&args, color),
        Command::Probe(args) => probe::run(&args, color),
        Command::Rbac(args) => scan::rbac(&args),
        Command::Checks { format } => catalogue::list(format),
        Command::Explain { check } => catalogue::explain(&check),
    }
}

/// Renders a report to stdout through a buffer (JSON is streamed, not built in memory first), failing on
/// a broken pipe (which `main` turns into exit 0).
pub fn write_report(
    report: &edgecheck_report::Report<'_>,
    format: edgecheck_report::Format,
    style: &edgecheck_report::Style,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    edgecheck_report::render_to(report, format, style, &mut out)?;
    out.flush()?;
    Ok(())
}

/// The width text wraps to: the terminal's when stdout is one, else [`edgecheck_report::DEFAULT_WIDTH`].
pub fn terminal_width() -> usize {
    use std::io::IsTerminal as _;
    if !std::io::stdout().is_terminal() {
        return edgecheck_report::DEFAULT_WIDTH;
    }
    console::Term::stdout()
        .size_checked()
        .map_or(edgecheck_report::DEFAULT_WIDTH, |(_, cols)| usize::from(cols).max(40))
}

/// Writes to stdout, failing on a broken pipe (which `main` turns into exit 0).
pub fn write_stdout(s: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(())
}
