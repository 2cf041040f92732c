//! Gateway API condition types and reasons, as types. The wire spelling (`as_str`) is the spec's and is what
//! JSON carries; code matches on the variants, so a misspelt reason is a compile error, not a silent miss.

macro_rules! wire_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vm])* $variant,)+
        }

        impl $name {
            /// Every variant.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The spec's spelling.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant),)+
                }
            }

            /// The variant spelled `s` (as a controller writes it in status).
            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $(stringify!($variant) => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

wire_enum! {
    /// A condition's `type`.
    ConditionType {
        /// The controller accepted the object (or the route on this parent).
        Accepted,
        /// The data plane is configured.
        Programmed,
        /// Every reference resolved.
        ResolvedRefs,
        /// A listener conflicts with another on its port.
        Conflicted,
        /// The Gateway accepts client certificates that fail validation (`AllowInsecureFallback`).
        InsecureFrontendValidationMode,
    }
}

wire_enum! {
    /// A condition's `reason`, in the Gateway API spelling.
    Reason {
        /// `Accepted=True`.
        Accepted,
        /// `Programmed=True`.
        Programmed,
        /// `ResolvedRefs=True`.
        ResolvedRefs,
        /// `Conflicted=False`.
        NoConflicts,
        /// The object or listener is invalid.
        Invalid,
        /// Not yet reconciled (no GatewayClass).
        Pending,
        /// The class's or the Gateway's `parametersRef` does not resolve.
        InvalidParameters,
        /// A static address of a type the implementation does not support.
        UnsupportedAddress,
        /// No listener of the Gateway is valid.
        ListenersNotValid,
        /// A field value the implementation does not support.
        UnsupportedValue,
        /// A listener protocol the implementation does not support (or a backend's `appProtocol`).
        UnsupportedProtocol,
        /// Two listeners on one port with incompatible protocols.
        ProtocolConflict,
        /// Two listeners on one port with the same hostname.
        HostnameConflict,
        /// A certificate reference that does not resolve to a usable Secret.
        InvalidCertificateRef,
        /// A cross-namespace reference no ReferenceGrant allows.
        RefNotPermitted,
        /// `allowedRoutes.kinds` names a kind the listener cannot carry.
        InvalidRouteKinds,
        /// A reference to a kind the implementation does not support.
        InvalidKind,
        /// A backend Service that does not exist.
        BackendNotFound,
        /// A parentRef that names no Gateway or listener.
        NoMatchingParent,
        /// The listener does not allow the route (namespace or kind).
        NotAllowedByListeners,
        /// No hostname of the route intersects the listener's.
        NoMatchingListenerHostname,
        /// A ListenerSet the Gateway does not allow.
        NotAllowed,
        /// A ListenerSet whose parent Gateway is not accepted.
        ParentNotAccepted,
        /// A CA certificate reference that does not resolve.
        InvalidCACertificateRef,
        /// A BackendTLSPolicy, or a listener's client certificate validation, with no usable CA
        /// certificate.
        NoValidCACertificate,
        /// A listener's client certificate validation names a CA of a kind the implementation does not
        /// support.
        InvalidCACertificateKind,
        /// The client certificate a Gateway presents to backends does not resolve to a usable Secret.
        InvalidClientCertificateRef,
        /// `InsecureFrontendValidationMode=True`: the configuration allows insecure fallback.
        ConfigurationChanged,
        /// A policy that targets what an older policy already targets.
        Conflicted,
    }
}
