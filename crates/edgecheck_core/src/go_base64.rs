//! Base64 as the API server reads it. Secret `data` reaches Kubernetes as JSON `[]byte`, which Go decodes
//! with `encoding/base64.StdEncoding`; PEM blocks are read by Go's `encoding/pem`, which drops spaces and tabs
//! first. edgecheck must be neither stricter (a Secret the cluster accepts reported as broken) nor looser (a
//! Secret the API server rejects reported as fine) than that.

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;

/// `StdEncoding`: the standard alphabet, padding required, non-zero trailing bits accepted (Go's decoder is
/// not `Strict`).
const STD: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// Decodes `s` as Go's `base64.StdEncoding.DecodeString` does: `\r` and `\n` are skipped wherever they
/// stand; any other white space, a missing `=`, or text after the padding is an error.
pub fn decode_std(s: &str) -> Result<Vec<u8>, base64::DecodeError> {
    if s.contains(['\r', '\n']) {
        let kept: String = s.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
        STD.decode(kept.as_bytes())
    } else {
        STD.decode(s.as_bytes())
    }
}

/// Decodes the body of a PEM block as Go's `pem.Decode` does: spaces and tabs removed, then
/// [`decode_std`].
pub fn decode_pem_body(body: &str) -> Result<Vec<u8>, base64::DecodeError> {
    let kept: String = body.chars().filter(|c| !matches!(c, ' ' | '\t' | '\r' | '\n')).collect();
    STD.decode(kept.as_bytes())
}

/// Why the API server rejects a value, without quoting any of it (a Secret's bytes are never shown).
pub fn why(e: &base64::DecodeError) -> String {
    match e {
        base64::DecodeError::InvalidByte(at, b' ') => {
            format!(
                "a space at character {}: a plain scalar folded over lines? keep the value on one line or use `|`",
                at + 1
            )
        }
        base64::DecodeError::InvalidByte(at, b'\t') => format!("a tab at character {}", at + 1),
        base64::DecodeError::InvalidByte(at, b'=') => format!("`=` padding inside the value at character {}", at + 1),
        base64::DecodeError::InvalidByte(at, _) => {
            format!("a character outside the base64 alphabet at character {}", at + 1)
        }
        base64::DecodeError::InvalidLength(n) => {
            format!("{n} characters, not a multiple of 4: the `=` padding is missing (Go's StdEncoding requires it)")
        }
        base64::DecodeError::InvalidLastSymbol(at, _) => format!("an invalid last character at character {}", at + 1),
        base64::DecodeError::InvalidPadding => {
            "the `=` padding is missing or wrong (Go's StdEncoding requires it)".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case with what Go 1.22's `base64.StdEncoding.DecodeString` answers.
    #[test]
    fn decodes_as_go_std_encoding() {
        let ok: &[(&str, &[u8])] = &[
            ("", b""),
            ("YWJj", b"abc"),
            ("YQ==", b"a"),
            ("YWI=", b"ab"),
            // Newlines anywhere are skipped, CRLF too (a `|` block scalar keeps them).
            ("YW\nJj\n", b"abc"),
            ("YWJj\r\nZGVm\r\n", b"abcdef"),
            ("Y\nQ\n=\n=", b"a"),
            // Non-zero trailing bits: Go's non-strict decoder accepts `YR==` as `a`.
            ("YR==", b"a"),
            ("YWJ=", b"ab"),
        ];
        for (input, want) in ok {
            assert_eq!(decode_std(input).as_deref(), Ok(*want), "{input:?}");
        }
        let bad = [
            "YQ",         // padding is required
            "YQ=",        // half the padding
            "YWJj ZGVm",  // a space (a folded plain scalar) is not skipped
            "YWJj\tZGVm", // nor a tab
            " YWJj",
            "YQ==YQ==", // text after the padding
            "YWJj!",
            "YW_j", // the URL alphabet is another encoding
            "not base64!!",
        ];
        for input in bad {
            assert!(decode_std(input).is_err(), "{input:?} must be rejected as Go rejects it");
        }
    }

    #[test]
    fn reasons_quote_no_value() {
        let why_of = |s: &str| why(&decode_std(s).expect_err(s));
        assert!(why_of("YWJj ZGVm").starts_with("a space at character 5"), "{}", why_of("YWJj ZGVm"));
        assert!(why_of("YQ").contains("padding is missing"), "{}", why_of("YQ"));
        assert!(why_of("YWJjZA").contains("padding is missing"), "{}", why_of("YWJjZA"));
        let secretish = "c2VjcmV0!";
        assert!(!why_of(secretish).contains('!') && !why_of(secretish).contains("c2Vj"));
    }

    #[test]
    fn pem_bodies_drop_spaces_and_tabs() {
        assert_eq!(decode_pem_body(" YW Jj\n\tZGVm ").as_deref(), Ok(&b"abcdef"[..]));
        assert_eq!(decode_pem_body("YR==").as_deref(), Ok(&b"a"[..]));
        assert!(decode_pem_body("YWJj!").is_err());
    }
}
