//! Cilium LB IPAM: `CiliumLoadBalancerIPPool` (cilium.io), the address pools Cilium hands to
//! LoadBalancer Services (including the Services it creates for Gateways).

use serde::Deserialize;

use super::LabelSelector;

/// A CiliumLoadBalancerIPPool.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CiliumLbIpPool {
    /// Spec.
    pub spec: CiliumLbIpPoolSpec,
}

/// CiliumLoadBalancerIPPool spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CiliumLbIpPoolSpec {
    /// `blocks` (`cidr`, or `start`/`stop`); `cidrs` in older versions. Kept raw.
    pub blocks: Vec<crate::value::Value>,
    /// `cidrs` (cilium.io/v2alpha1 spelling).
    pub cidrs: Vec<crate::value::Value>,
    /// Which Services may draw from the pool; absent: all.
    pub service_selector: Option<LabelSelector>,
    /// A disabled pool hands out no new addresses.
    pub disabled: bool,
}

impl CiliumLbIpPool {
    /// True when the pool would give an address to a Service with these labels (Cilium adds
    /// `io.kubernetes.service.namespace` and `io.kubernetes.service.name` to them).
    pub fn serves(&self, labels: &crate::labels::Labels) -> bool {
        !self.spec.disabled && self.spec.service_selector.as_ref().is_none_or(|s| s.matches(labels))
    }
}
