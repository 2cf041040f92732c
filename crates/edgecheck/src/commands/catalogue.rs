//! `checks` and `explain`.

use crate::cli::OutputFormat;

pub fn list(format: OutputFormat) -> anyhow::Result<u8> {
    super::write_stdout(&edgecheck_report::render_catalogue(super::lint::report_format(format)))?;
    Ok(0)
}

pub fn explain(check: &str) -> anyhow::Result<u8> {
    match edgecheck_checks::find_check(check) {
        Some(c) => {
            super::write_stdout(&edgecheck_report::render_explain(c))?;
            Ok(0)
        }
        None => {
            eprintln!("edgecheck: no check `{check}` (see `edgecheck checks`)");
            Ok(2)
        }
    }
}
