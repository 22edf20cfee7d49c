//! Whether `serde_json::Value` holds every number of a JSON text exactly as written. Without
//! serde_json's `arbitrary_precision` (deltafold's feature of that name), a `Value` holds a number
//! as `i64`, `u64` or `f64`: an integer beyond 64 bits (`10^29`, `2^64 + 1`) or a decimal with more
//! digits than an `f64` keeps would come out as another number. A tool must never receive a
//! value other than the one the model sent, so such arguments are refused instead (the call is
//! invalid, its text kept), and the feature keeps them exact.

/// The first number of `json` (valid JSON) that a `Value` would not hold as written.
pub(super) fn first_inexact_number(json: &str) -> Option<&str> {
    let bytes = json.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at + 1),
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, at);
                let number = &json[at..end];
                if !held_exactly(number) {
                    return Some(number);
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    None
}

/// Just past the closing quote of the string whose text starts at `at`.
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(offset) = memchr::memchr2(b'"', b'\\', &bytes[at.min(bytes.len())..]) {
        at += offset;
        if bytes[at] == b'\\' {
            at += 2;
        } else {
            return at + 1;
        }
    }
    bytes.len()
}

fn number_end(bytes: &[u8], at: usize) -> usize {
    let length = bytes[at..]
        .iter()
        .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
        .unwrap_or(bytes.len() - at);
    at + length
}

/// Whether `Value` holds `number` as written: an integer within `i64` or `u64`, or a decimal
/// whose nearest `f64`, written shortest, has the same digits and scale.
fn held_exactly(number: &str) -> bool {
    if !number.contains(['.', 'e', 'E']) {
        return number.parse::<i64>().is_ok() || number.parse::<u64>().is_ok();
    }
    match number.parse::<f64>() {
        Ok(float) if float.is_finite() => same_decimal(number, &format!("{float:e}")),
        _ => false,
    }
}

/// Whether two decimals in any notation name the same number: same sign, same significant
/// digits, same scale.
fn same_decimal(a: &str, b: &str) -> bool {
    decimal(a) == decimal(b)
}

/// A decimal as (negative, significant digits, exponent of its first digit); zero is
/// `(false, "", 0)` whatever its sign.
fn decimal(number: &str) -> (bool, String, i64) {
    let (negative, number) = match number.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, number),
    };
    let (mantissa, exponent) = match number.find(['e', 'E']) {
        Some(at) => (&number[..at], number[at + 1..].parse::<i64>().unwrap_or(0)),
        None => (number, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = whole.chars().chain(fraction.chars()).collect();
    let leading = digits.len() - digits.trim_start_matches('0').len();
    let significant = digits.trim_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    let scale = exponent + whole.len() as i64 - leading as i64;
    (negative, significant.to_owned(), scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_beyond_64_bits_are_inexact() {
        for number in ["100000000000000000000000000000", "18446744073709551617"] {
            assert_eq!(
                first_inexact_number(&format!("{{\"a\":{number}}}")),
                Some(number)
            );
        }
        assert_eq!(
            first_inexact_number("[1, -9223372036854775809]"),
            Some("-9223372036854775809")
        );
        assert_eq!(
            first_inexact_number("[-9223372036854775808, 18446744073709551615, 0, -0]"),
            None
        );
    }

    #[test]
    fn decimals_are_exact_when_their_shortest_float_reads_the_same() {
        for exact in [
            "0.1",
            "1.5",
            "-2.25e3",
            "1E-7",
            "100.0",
            "0.000",
            "3.141592653589793",
        ] {
            assert_eq!(first_inexact_number(exact), None, "{exact}");
        }
        for inexact in ["1.000000000000000000001", "1e400", "3.14159265358979323846"] {
            assert_eq!(first_inexact_number(inexact), Some(inexact));
        }
    }

    #[test]
    fn numbers_inside_strings_are_text() {
        let json = r#"{"a":"100000000000000000000000000000 \" 1e400","b\\":2}"#;
        assert_eq!(first_inexact_number(json), None);
    }
}
