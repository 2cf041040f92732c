//! `checks` and `explain`.

use crate::cli::CatalogueFormat;

pub fn list(format: CatalogueFormat) -> anyhow::Result<u8> {
    super::write_stdout(&edgecheck_report::render_catalogue(format.into(), super::terminal_width()))?;
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
