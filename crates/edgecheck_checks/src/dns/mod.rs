//! Checks of the `dns` layer.

// --- classic ingress / dns (DNS001–DNS019)
mod coredns_forward_stub;
pub(crate) mod hostname_malformed;
// --- gitops (GIT001–GIT059, SEC001–SEC039, DNS020–DNS029)
mod application_repo_lookup_failed;

// --- over live observations (probe, trace)
mod dns_answer_not_entry;
mod dns_name_unresolved;
mod dns_resolvers_disagree;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- classic ingress / dns (DNS001–DNS019)
    &hostname_malformed::HostnameMalformed,
    &coredns_forward_stub::CorednsForwardStub,
    // --- gitops (GIT001–GIT059, SEC001–SEC039, DNS020–DNS029)
    &application_repo_lookup_failed::ApplicationRepoLookupFailed,
    // --- over live observations (probe, trace)
    &dns_name_unresolved::DnsNameUnresolved,
    &dns_resolvers_disagree::DnsResolversDisagree,
    &dns_answer_not_entry::DnsAnswerNotEntry,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("dns");
        crate::test_support::assert_coverage("dns", &cases);
    }
}
