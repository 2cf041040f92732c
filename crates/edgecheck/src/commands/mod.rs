//! Commands.

mod builds;
mod catalogue;
mod diff;
mod inventory;
mod lint;
mod probe;
mod roots;
mod scan;
mod serve;
mod trace;

use anyhow::Context as _;

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
        Command::Serve(args) => serve::run(&args),
        Command::Checks { format } => catalogue::list(format),
        Command::Explain { check } => catalogue::explain(&check),
        Command::Completions { shell } => completions(shell),
        Command::Man { dir } => man(dir.as_deref()),
    }
}

/// `completions SHELL`: the script for the name the binary was invoked as.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<u8> {
    let mut cmd = crate::cli::command();
    let name = if crate::cli::invoked_as_plugin() { crate::cli::PLUGIN_NAME } else { "edgecheck" };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut out);
    write_stdout(&String::from_utf8_lossy(&out))?;
    Ok(0)
}

/// `man`: the page of `edgecheck` to stdout, or every page (`edgecheck.1`, `edgecheck-lint.1`, ...) into
/// `dir`, whose names are printed.
fn man(dir: Option<&std::path::Path>) -> anyhow::Result<u8> {
    let cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    let Some(dir) = dir else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut out)?;
        write_stdout(&String::from_utf8_lossy(&out))?;
        return Ok(0);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    clap_mangen::generate_to(cmd, dir).with_context(|| format!("cannot write the pages into {}", dir.display()))?;
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("edgecheck") && n.ends_with(".1"))
        .collect();
    names.sort();
    for n in names {
        eprintln!("{}", dir.join(n).display());
    }
    Ok(0)
}

/// Renders a report to stdout, or to `--output-file`, through a buffer (JSON is streamed, not built in
/// memory first), failing on a broken pipe (which `main` turns into exit 0).
pub fn write_report(
    report: &edgecheck_report::Report<'_>,
    format: edgecheck_report::Format,
    style: &edgecheck_report::Style,
    file: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, output(file)?);
    edgecheck_report::render_to(report, format, style, &mut out)?;
    out.flush().with_context(|| written(file))?;
    Ok(())
}

/// Writes a rendered report to stdout, or to `--output-file`.
pub fn write_output(s: &str, file: Option<&std::path::Path>) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = output(file)?;
    out.write_all(s.as_bytes()).with_context(|| written(file))?;
    out.flush().with_context(|| written(file))?;
    Ok(())
}

/// Where a report goes: the file (created, or truncated), else stdout.
fn output(file: Option<&std::path::Path>) -> anyhow::Result<Box<dyn std::io::Write>> {
    Ok(match file {
        Some(path) => Box::new(
            std::fs::File::create(path).with_context(|| format!("--output-file {}: cannot create", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    })
}

fn written(file: Option<&std::path::Path>) -> String {
    file.map_or_else(|| "writing the report".into(), |p| format!("--output-file {}: cannot write", p.display()))
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
