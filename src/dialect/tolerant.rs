//! Usage objects read whatever their values: `serde_json::Value` refuses a few (a number past
//! `f64`, nesting past its depth limit), and one odd count must not lose the whole report.

/// Reads a JSON object whose values `serde_json::Value` may refuse (a number such as `1e400`
/// overflows `f64`; nesting past its depth limit): such a value is kept as its JSON text in a
/// string, so the other members — and the odd one, verbatim — survive.
pub(crate) fn tolerant_object(raw: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    tolerant_object_within(raw, TOLERANT_DEPTH)
}

/// How many levels of refused objects are opened before one is kept as text: bounded, so that
/// hostile nesting cannot recurse without limit.
const TOLERANT_DEPTH: usize = 4;

fn tolerant_object_within(
    raw: &str,
    depth: usize,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    use serde_json::value::RawValue;
    use serde_json::Value;
    if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(raw) {
        return Some(object);
    }
    let depth = depth.checked_sub(1)?;
    let members =
        serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(raw).ok()?;
    Some(
        members
            .into_iter()
            .map(|(key, value)| {
                let value = match serde_json::from_str::<Value>(value.get()) {
                    Ok(value) => value,
                    Err(_) => tolerant_object_within(value.get(), depth)
                        .map_or_else(|| Value::String(value.get().to_owned()), Value::Object),
                };
                (key, value)
            })
            .collect(),
    )
}
