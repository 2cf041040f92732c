//! Checks of the `dns` layer.

// --- classic ingress / dns (DNS001–DNS019)
mod coredns_forward_stub;
pub(crate) mod hostname_malformed;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- classic ingress / dns (DNS001–DNS019)
    &hostname_malformed::HostnameMalformed,
    &coredns_forward_stub::CorednsForwardStub,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("dns");
        crate::test_support::assert_coverage("dns", &cases);
    }
}
