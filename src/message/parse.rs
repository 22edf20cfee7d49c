//! Typed parsing of what the model produced: a tool call's arguments and a structured-output
//! answer, into the app's own `serde` types, with an error that says which and why.

use std::fmt;

use serde::de::DeserializeOwned;

use super::{AiMessage, ToolCall};

/// A tool call's arguments or a message's text that does not deserialise into the type asked
/// for. The `serde_json` error is its [`source`](std::error::Error::source) (line, column,
/// whether the text is no JSON at all or JSON of another shape).
#[derive(Debug)]
pub struct ParseError {
    what: String,
    source: serde_json::Error,
}

impl ParseError {
    /// The `serde_json` error: [`classify`](serde_json::Error::classify) tells a syntax error
    /// (not JSON), a data error (JSON of another shape) and an early end apart.
    pub fn serde_error(&self) -> &serde_json::Error {
        &self.source
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} does not fit the expected type: {}",
            self.what, self.source
        )
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl ToolCall {
    /// The arguments as the app's own type.
    ///
    /// ```
    /// use deltafold::ToolCall;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Weather {
    ///     city: String,
    ///     days: Option<u8>,
    /// }
    ///
    /// let call: ToolCall = serde_json::from_str(
    ///     r#"{"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}}"#,
    /// )?;
    /// let weather: Weather = call.parse_args()?;
    /// assert_eq!((weather.city.as_str(), weather.days), ("Paris", None));
    ///
    /// let error = call.parse_args::<Vec<u8>>().unwrap_err();
    /// assert!(error.to_string().starts_with("the arguments of tool call call_1 (get_weather)"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse_args<T: DeserializeOwned>(&self) -> Result<T, ParseError> {
        T::deserialize(&self.args).map_err(|source| ParseError {
            what: format!("the arguments of tool call {} ({})", self.id, self.name),
            source,
        })
    }
}

impl AiMessage {
    /// The text as the app's own type: a structured-output answer (OpenAI's
    /// `response_format`, Gemini's `responseSchema`, a JSON-mode prompt). A Markdown code fence
    /// around the JSON (```` ```json ```` … ```` ``` ````), which some models add, is ignored.
    ///
    /// ```
    /// use deltafold::AiMessage;
    /// use deltafold::ContentBlock;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Verdict {
    ///     label: String,
    ///     score: f64,
    /// }
    ///
    /// let message = AiMessage {
    ///     content: vec![ContentBlock::text("```json\n{\"label\": \"spam\", \"score\": 0.98}\n```")],
    ///     ..AiMessage::default()
    /// };
    /// let verdict: Verdict = message.parse_text()?;
    /// assert_eq!((verdict.label.as_str(), verdict.score), ("spam", 0.98));
    /// # Ok::<(), deltafold::message::ParseError>(())
    /// ```
    pub fn parse_text<T: DeserializeOwned>(&self) -> Result<T, ParseError> {
        let text = self.text();
        serde_json::from_str(without_code_fence(&text)).map_err(|source| ParseError {
            what: "the message text".to_owned(),
            source,
        })
    }
}

/// The JSON inside a Markdown code fence, or the text itself when it has none. The fence may be
/// still open (a streaming answer), and its closing backticks may have arrived in part.
pub(crate) fn without_code_fence(text: &str) -> &str {
    let trimmed = text.trim_start();
    let Some(fenced) = trimmed.strip_prefix("```") else {
        return text;
    };
    // The rest of the opening line is the language tag (`json`, or nothing).
    let body = match fenced.find('\n') {
        Some(line_end) => &fenced[line_end + 1..],
        None => "",
    };
    body.trim_end().trim_end_matches('`')
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use serde_json::json;

    use super::without_code_fence;
    use crate::message::{AiMessage, ContentBlock, ToolCall};

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct City {
        city: String,
    }

    #[test]
    fn arguments_of_another_shape_are_a_data_error_naming_the_call() {
        let call = ToolCall {
            id: "call_7".into(),
            name: "weather".into(),
            args: json!({"town": "Oslo"}).as_object().unwrap().clone(),
            ..ToolCall::default()
        };
        let error = call.parse_args::<City>().unwrap_err();
        assert_eq!(
            error.serde_error().classify(),
            serde_json::error::Category::Data
        );
        assert!(error.to_string().contains("call_7 (weather)"), "{error}");
        assert!(
            error.to_string().contains("missing field `city`"),
            "{error}"
        );
        assert!(error.source().is_some());
    }

    #[test]
    fn text_that_is_no_json_is_a_syntax_error_and_fenced_json_parses() {
        let message = |text: &str| AiMessage {
            content: vec![ContentBlock::text(text)],
            ..AiMessage::default()
        };
        let error = message("Sure! Here it is")
            .parse_text::<City>()
            .unwrap_err();
        assert_eq!(
            error.serde_error().classify(),
            serde_json::error::Category::Syntax
        );
        assert!(error.to_string().starts_with("the message text"), "{error}");
        let parsed: City = message("```json\n{\"city\": \"Lima\"}\n```")
            .parse_text()
            .unwrap();
        assert_eq!(
            parsed,
            City {
                city: "Lima".into()
            }
        );
        let parsed: City = message("{\"city\": \"Rome\"}").parse_text().unwrap();
        assert_eq!(parsed.city, "Rome");
    }

    #[test]
    fn a_fence_is_removed_whole_open_or_half_closed() {
        assert_eq!(without_code_fence("{\"a\": 1}"), "{\"a\": 1}");
        assert_eq!(
            without_code_fence("```json\n{\"a\": 1}\n```\n"),
            "{\"a\": 1}\n"
        );
        assert_eq!(without_code_fence("  ```\n[1]\n```"), "[1]\n");
        assert_eq!(without_code_fence("```json\n{\"a\": "), "{\"a\":");
        assert_eq!(
            without_code_fence("```json\n{\"a\": 1}\n``"),
            "{\"a\": 1}\n"
        );
        assert_eq!(without_code_fence("```json"), "");
    }
}
