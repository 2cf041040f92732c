//! The engine's `Options`, built in one place for every command that checks an inventory (`lint`,
//! `scan`, `trace`): the flags, else the config, else the defaults.

use edgecheck_core::Options;

use crate::cli::InventoryArgs;
use crate::config;

/// What a live inventory says about itself.
pub struct Live {
    /// The kubeconfig context's namespace (`default` when it names none).
    pub default_namespace: String,
    /// Every served kind was listed in every namespace: what is not there is absent.
    pub complete: bool,
}

/// The options of an inventory read from files (`live: None`) or from a cluster.
pub fn options(inv: &InventoryArgs, cfg: &config::Options, live: Option<Live>) -> Options {
    let complete = if inv.complete { Some(true) } else { live.as_ref().map(|l| l.complete) };
    let default_namespace = match live {
        Some(l) => l.default_namespace,
        None => inv.namespace.clone().or_else(|| cfg.namespace.clone()).unwrap_or_else(|| "default".into()),
    };
    Options {
        default_namespace,
        api_versions: if inv.api_versions.is_empty() {
            cfg.api_versions.clone().unwrap_or_default()
        } else {
            inv.api_versions.clone()
        },
        cni: inv.cni.clone().or_else(|| cfg.cni.clone()),
        complete,
        expiry_warning_days: cfg.expiry_warning_days.unwrap_or(14),
        trust_file_status: false,
    }
}
