use edgecheck_core::views::Crd;
use edgecheck_core::{Findings, Graph, Kind, Layer, ObjId, Severity};

use crate::framework::{declare_check, CheckContext};

const WAVE: &str = "argocd.argoproj.io/sync-wave";

declare_check! {
    /// ## What it checks
    /// A `CustomResourceDefinition` that Argo CD applies after resources of the kind it defines. Waves are
    /// the `argocd.argoproj.io/sync-wave` annotation (default 0). Within one Application the CRD's wave is
    /// compared with each resource's; across Applications of one app-of-apps the waves of the child
    /// Applications that hold them are compared (the parent syncs children wave by wave). Which Application
    /// holds an object comes from the Applications' source paths in the linted checkout.
    ///
    /// ## Why it matters
    /// The resource is applied first and fails (`the server could not find the requested resource`, `no
    /// matches for kind`); the sync stops at that wave, so the later wave holding the CRD is never applied
    /// and the Application stays failed until someone applies the CRD by hand.
    ///
    /// ## Example
    /// Application `gateway-api-crds` has sync-wave `10`; Application `gateway` (wave `0`) holds the
    /// `Gateway` and `HTTPRoute` objects.
    ///
    /// ## How to fix
    /// Give the CRD (or the Application that holds it) an earlier wave than everything that uses its kinds,
    /// e.g. CRDs at `-60`, controllers at `-40`, their resources at `0` and later.
    pub(crate) struct CrdSyncWaveLate {
        code: "GIT004", name: "crd-sync-wave-late", layer: Layer::Gitops, severity: Severity::Error,
    }
}

impl CrdSyncWaveLate {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        for (cid, crd_obj, crd) in g.each::<Crd>() {
            let kind = Kind { group: crd.spec.group.clone(), kind: crd.spec.names.kind.clone() };
            let cchain = chain(g, cid);
            if cchain.len() < 2 {
                continue; // not held by any Application: no ordering known
            }
            let mut reported = false;
            for &rid in g.ids_of(&kind) {
                if reported {
                    break;
                }
                let rchain = chain(g, rid);
                // The lowest common Application, and the members just below it on each side.
                let Some((ci, ri)) = cchain
                    .iter()
                    .enumerate()
                    .skip(1)
                    .find_map(|(ci, a)| rchain.iter().position(|b| b == a).map(|ri| (ci, ri)))
                else {
                    continue;
                };
                if ri == 0 {
                    continue;
                }
                let (c_side, r_side) = (cchain[ci - 1], rchain[ri - 1]);
                let (cw, rw) = (wave(g, c_side), wave(g, r_side));
                if cw <= rw {
                    continue;
                }
                let ro = g.obj(rid);
                let common = g.obj(cchain[ci]);
                // Point at the wave that causes it: the CRD's own, or its Application's.
                let mut f = out.at(g.obj(c_side), &format!("metadata.annotations[\"{WAVE}\"]"));
                if c_side == cid {
                    f = f
                        .message(format!(
                            "{} is in sync wave {cw}, after {} (wave {rw}) of the kind it defines; the sync fails \
                             before the CRD is applied",
                            crd_obj.to_ref(),
                            ro.to_ref()
                        ))
                        .evidence(format!("both in {}", common.to_ref()));
                } else {
                    let (ca, ra) = (g.obj(c_side), g.obj(r_side));
                    f = f
                        .message(format!(
                            "{} holds {} in sync wave {cw}, after {} (wave {rw}) which holds {} of its kind; the \
                             later Application fails before the CRD exists",
                            ca.to_ref(),
                            crd_obj.to_ref(),
                            ra.to_ref(),
                            ro.to_ref()
                        ))
                        .evidence(format!("both children of {}", common.to_ref()))
                        .related(crd_obj.to_ref())
                        .related(ra.to_ref());
                }
                f = f
                    .evidence(format!("{} defines {}.{}", crd_obj.to_ref(), kind.kind, kind.group))
                    .evidence(format!("{}: wave {cw}", g.obj(c_side).to_ref()))
                    .evidence(format!("{}: wave {rw}", g.obj(r_side).to_ref()))
                    .related(ro.to_ref());
                f.fix(format!("give {} a sync wave lower than {rw}", g.obj(c_side).to_ref())).emit();
                reported = true;
            }
        }
    }
}

/// The object, the Application holding it, that Application's parent, ... (cycles cut). Shared with
/// SEC006.
pub(crate) fn chain(g: &Graph, id: ObjId) -> Vec<ObjId> {
    let mut out = vec![id];
    let mut cur = id;
    while let Some(a) = g.owning_application(cur) {
        if out.contains(&a) || out.len() > 16 {
            break;
        }
        out.push(a);
        cur = a;
    }
    out
}

/// The object's sync wave (Argo CD's default 0).
pub(crate) fn wave(g: &Graph, id: ObjId) -> i64 {
    g.obj(id).annotation(WAVE).and_then(|w| w.trim().parse().ok()).unwrap_or(0)
}

/// Where two objects are ordered against each other: the members of their chains just below the lowest
/// Application both belong to (the objects themselves when one Application holds both), and that
/// Application. `None` when no Application holds both.
pub(crate) fn ordering(a: &[ObjId], b: &[ObjId]) -> Option<(ObjId, ObjId, ObjId)> {
    let (ai, bi) = a.iter().enumerate().skip(1).find_map(|(ai, x)| b.iter().position(|y| y == x).map(|bi| (ai, bi)))?;
    (bi > 0).then(|| (a[ai - 1], b[bi - 1], a[ai]))
}
