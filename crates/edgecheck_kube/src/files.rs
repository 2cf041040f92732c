//! The files a kubeconfig names are read by kube itself: before it does, each must be a regular file
//! (links followed) within the loader's size limit, so that a kubeconfig, `certificate-authority`,
//! `client-certificate`, `client-key` or `tokenFile` pointing at a FIFO or `/dev/zero` fails at once
//! instead of hanging or reading gigabytes.

use std::path::{Path, PathBuf};

use kube::config::Kubeconfig;

use crate::ScanError;

/// Checks the kubeconfig files `scan` would read (`explicit`, else `KUBECONFIG`'s list, else
/// `~/.kube/config` when it exists) and every file they name.
pub(crate) fn check_kubeconfig_files(explicit: Option<&Path>) -> Result<(), ScanError> {
    let paths: Vec<PathBuf> = match (explicit, std::env::var_os("KUBECONFIG")) {
        (Some(p), _) => vec![p.to_path_buf()],
        (None, Some(list)) => std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()).collect(),
        (None, None) => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".kube/config")).into_iter().collect(),
    };
    for kubeconfig in paths {
        // A missing file is kube's to report (or to skip, in a `KUBECONFIG` list).
        if explicit.is_none() && !kubeconfig.exists() {
            continue;
        }
        check(&kubeconfig, "kubeconfig")?;
        let Ok(kc) = Kubeconfig::read_from(&kubeconfig) else { continue };
        for c in kc.clusters.iter().filter_map(|c| c.cluster.as_ref()) {
            if let Some(p) = &c.certificate_authority {
                check(Path::new(p), "certificate-authority")?;
            }
        }
        for a in kc.auth_infos.iter().filter_map(|a| a.auth_info.as_ref()) {
            for (field, p) in [
                ("client-certificate", &a.client_certificate),
                ("client-key", &a.client_key),
                ("tokenFile", &a.token_file),
            ] {
                if let Some(p) = p {
                    check(Path::new(p), field)?;
                }
            }
        }
    }
    Ok(())
}

fn check(path: &Path, what: &str) -> Result<(), ScanError> {
    edgecheck_load::read::check_regular_file(path, edgecheck_load::DEFAULT_MAX_FILE_SIZE)
        .map(|_| ())
        .map_err(|e| ScanError::Config(format!("{what} {}: {e}", path.display())))
}
