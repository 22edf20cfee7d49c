//! Standard base64 (RFC 4648, `+/`, `=` padding), which `InvokeModelWithResponseStream` wraps
//! each of the model's own events in: `{"bytes": "<base64>"}`, decoded by the `base64` crate
//! into a reused buffer, so a stream of chunks allocates once. Padding may be sent or left out
//! and the unused bits of a last group are not checked, as a lenient reader of one provider's
//! own encoding.

use ::base64::alphabet;
use ::base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use ::base64::engine::DecodePaddingMode;
use ::base64::{DecodeError, Engine};

const STANDARD: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Decodes `text` into `out` (cleared first); `Err` with the offset of the first byte that is
/// not base64, or of the end when the length is not a whole number of bytes.
pub(super) fn decode_into(text: &str, out: &mut Vec<u8>) -> Result<(), usize> {
    out.clear();
    STANDARD.decode_vec(text, out).map_err(|error| match error {
        DecodeError::InvalidByte(at, _) | DecodeError::InvalidLastSymbol(at, _) => at,
        DecodeError::InvalidLength(_) | DecodeError::InvalidPadding => text.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::decode_into;

    fn decoded(text: &str) -> Result<Vec<u8>, usize> {
        let mut out = Vec::new();
        decode_into(text, &mut out).map(|()| out)
    }

    #[test]
    fn decodes_every_padding() {
        assert_eq!(decoded(""), Ok(vec![]));
        assert_eq!(decoded("Zg=="), Ok(b"f".to_vec()));
        assert_eq!(decoded("Zm8="), Ok(b"fo".to_vec()));
        assert_eq!(decoded("Zm9v"), Ok(b"foo".to_vec()));
        assert_eq!(decoded("Zm9vYg"), Ok(b"foob".to_vec()));
        assert_eq!(
            decoded("eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0="),
            Ok(br#"{"type":"message_stop"}"#.to_vec())
        );
        assert_eq!(decoded("+/+/"), Ok(vec![0xFB, 0xFF, 0xBF]));
    }

    #[test]
    fn rejects_what_is_not_base64() {
        assert_eq!(decoded("Zm9v!"), Err(4));
        assert_eq!(decoded("Z"), Err(1));
        assert_eq!(decoded("Zm9vY"), Err(5));
        assert_eq!(decoded("Zg=A"), Err(2));
    }
}
