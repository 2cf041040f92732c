use edgecheck_core::views::Application;
use edgecheck_core::Value;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD `Application` with `spec.ignoreDifferences` and an automated sync policy, whose
    /// `syncPolicy.syncOptions` lacks `RespectIgnoreDifferences=true`.
    ///
    /// ## Why it matters
    /// `ignoreDifferences` only hides the fields from the diff: when a sync runs (and automated sync runs
    /// on every other change), Argo CD still applies the whole manifest from Git and reverts the ignored
    /// fields — the replica count an autoscaler set, the defaults a controller wrote, a CA bundle a webhook
    /// injected. The Application looks Synced while it keeps undoing those changes.
    ///
    /// ## Example
    /// `ignoreDifferences: [{group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}]` with
    /// `syncPolicy: {automated: {selfHeal: true}}` and no sync options.
    ///
    /// ## How to fix
    /// Add `RespectIgnoreDifferences=true` to `spec.syncPolicy.syncOptions`.
    pub(crate) struct IgnoreDifferencesNotRespected {
        code: "GIT006", name: "ignore-differences-not-respected", layer: Layer::Gitops, severity: Severity::Warning,
    }
}

impl IgnoreDifferencesNotRespected {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, app) in cx.graph.each::<Application>() {
            if app.spec.ignore_differences.is_empty() {
                continue;
            }
            // `automated: {}` is enabled; `automated: {enabled: false}` (Argo CD 3.x) and null are not.
            let automated = app.spec.sync_policy.as_ref().and_then(|p| p.automated).is_some_and(|a| a.on());
            if !automated || app.spec.has_sync_option("RespectIgnoreDifferences=true") {
                continue;
            }
            let mut targets: Vec<String> = app
                .spec
                .ignore_differences
                .iter()
                .map(|d| {
                    let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("");
                    let g = s("group");
                    format!("{}{}", if g.is_empty() { String::new() } else { format!("{g}/") }, s("kind"))
                })
                .collect();
            targets.dedup();
            out.at(obj, "spec.ignoreDifferences")
                .message(format!(
                    "{} ignores differences on {} but syncs automatically without RespectIgnoreDifferences=true: \
                     each sync reverts the ignored fields",
                    obj.to_ref(),
                    targets.join(", ")
                ))
                .evidence(format!("ignoreDifferences entries: {}", app.spec.ignore_differences.len()))
                .evidence(format!(
                    "syncOptions: [{}]",
                    app.spec.sync_policy.as_ref().map(|p| p.sync_options.join(", ")).unwrap_or_default()
                ))
                .fix("add RespectIgnoreDifferences=true to spec.syncPolicy.syncOptions")
                .emit();
        }
    }
}
