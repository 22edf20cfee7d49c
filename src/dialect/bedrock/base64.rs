//! Standard base64 (RFC 4648, `+/`, `=` padding), which `InvokeModelWithResponseStream` wraps
//! each of the model's own events in: `{"bytes": "<base64>"}`. Decodes into a reused buffer, so
//! a stream of chunks allocates once.

/// The 6-bit value of an alphabet byte; `None` for anything else.
fn sextet(byte: u8) -> Option<u32> {
    let value = match byte {
        b'A'..=b'Z' => byte - b'A',
        b'a'..=b'z' => byte - b'a' + 26,
        b'0'..=b'9' => byte - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

/// Decodes `text` into `out` (cleared first); `Err` with the offset of the first byte that is
/// not base64, or of the end when the length is not a whole number of bytes.
pub(super) fn decode_into(text: &str, out: &mut Vec<u8>) -> Result<(), usize> {
    out.clear();
    let bytes = text.as_bytes();
    let unpadded = bytes
        .strip_suffix(b"==")
        .or_else(|| bytes.strip_suffix(b"="))
        .unwrap_or(bytes);
    out.reserve(unpadded.len() / 4 * 3 + 2);
    let mut bits = 0u32;
    let mut held = 0;
    for (at, &byte) in unpadded.iter().enumerate() {
        bits = (bits << 6) | sextet(byte).ok_or(at)?;
        held += 6;
        if held >= 8 {
            held -= 8;
            out.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    // A last group of 2 or 3 characters leaves 4 or 2 bits of padding; a lone character
    // encodes no byte. Padding, when sent, completes the group.
    let padded = bytes.len() != unpadded.len();
    if unpadded.len() % 4 == 1 || (padded && !bytes.len().is_multiple_of(4)) {
        return Err(bytes.len());
    }
    Ok(())
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
