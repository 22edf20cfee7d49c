//! Hostile inputs through the CLI's output paths (issue 25): what is written stays linear in
//! what is read (bytes counted, never time), numbers come out exactly as sent, and nothing that
//! could drive or spoof a terminal is written raw.

use serde_json::{json, Value};

use crate::{run, stdout, TempFile};

fn event(payload: &Value) -> String {
    format!("data: {payload}\n\n")
}

fn fragment(index: u32, id: Option<&str>, name: Option<&str>, arguments: &str) -> String {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    event(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
}

const END: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";

/// Bytes written for `stream` run with `args`, and the stream's size.
fn written(args: &[&str], stream: &str) -> (usize, usize) {
    let file = TempFile::new("hostile.sse", stream);
    let mut all = args.to_vec();
    all.push(file.path().to_str().unwrap());
    let output = run(&all);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output.stdout.len(), stream.len())
}

/// One call whose arguments come in `fragments` pieces of 100 bytes.
fn one_call_in_pieces(fragments: usize) -> String {
    let mut stream = fragment(0, Some("c1"), Some("f"), "{\"a\":\"");
    for _ in 0..fragments {
        stream.push_str(&fragment(0, None, None, &"x".repeat(100)));
    }
    stream.push_str(&fragment(0, None, None, "\"}"));
    stream + END
}

#[test]
fn events_output_stays_linear_however_finely_the_arguments_are_cut() {
    let (small_out, small_in) = written(&["--events"], &one_call_in_pieces(600));
    let (large_out, large_in) = written(&["--events"], &one_call_in_pieces(1200));
    // A partial on every delta wrote 20 MB and 76 MB here: each repeats the arguments so far.
    assert!(
        large_out <= 4 * large_in,
        "{large_out} bytes out for {large_in} in"
    );
    assert!(
        large_out * small_in <= 3 * small_out * large_in,
        "doubled input: {small_out} → {large_out} bytes out"
    );
}

#[test]
fn headers_of_long_named_calls_resuming_in_turn_are_short() {
    let long = "n".repeat(64 * 1024);
    let mut stream = String::new();
    for index in 0..2 {
        let id = format!("{long}{index}");
        stream.push_str(&fragment(index, Some(&id), Some(&long), "{\"a\":\""));
    }
    for turn in 0..1000 {
        stream.push_str(&fragment(turn % 2, None, None, "x"));
    }
    stream.push_str(END);
    // Each resumption reprinted both 64 KiB labels: 132 MB for 0.37 MB.
    let (out, input) = written(&["--color", "never"], &stream);
    assert!(out <= 4 * input, "{out} bytes out for {input} in");
}

#[test]
fn numbers_past_64_bits_come_out_exactly_as_sent() {
    let arguments = r#"{"a":100000000000000000000000000000,"b":18446744073709551617,"c":-9223372036854775809,"d":1.000000000000000000001}"#;
    let stream = fragment(0, Some("c1"), Some("f"), arguments) + END;
    let file = TempFile::new("numbers.sse", &stream);
    let path = file.path().to_str().unwrap();
    let json = stdout(&run(&["--json", path]));
    let tool_call = format!(r#"{{"name":"f","args":{arguments},"id":"c1","type":"tool_call"}}"#);
    assert!(json.contains(&tool_call), "{json}");
    let events = stdout(&run(&["--events", path]));
    assert!(
        events.contains(&format!(r#""partial":{arguments}"#)),
        "{events}"
    );
    assert!(
        events.contains(&format!(r#""args":{arguments}"#)),
        "{events}"
    );
    let shown = stdout(&run(&["--color", "never", path]));
    assert!(shown.contains(arguments), "{shown}");
}

/// Bidirectional overrides and isolates, zero-width and other invisible format characters.
const SPOOFS: [char; 10] = [
    '\u{202a}',
    '\u{202e}',
    '\u{2066}',
    '\u{2069}',
    '\u{200b}',
    '\u{200f}',
    '\u{2028}',
    '\u{feff}',
    '\u{9b}',
    '\u{e0041}',
];

fn spoofed_stream() -> String {
    let spoof: String = SPOOFS.iter().collect();
    let mut stream = event(&json!({
        "id": format!("r{spoof}"), "model": format!("m{spoof}"),
        "choices": [{"index": 0, "delta": {"content": format!("text{spoof}")}}]
    }));
    let (id, name) = (format!("call{spoof}"), format!("rm{spoof}"));
    stream.push_str(&fragment(0, Some(&id), Some(&name), "{\"k\":\"v\"}"));
    stream.push_str(&event(&json!({
        "choices": [{"index": 0, "delta": {}, "finish_reason": format!("stop{spoof}")}]
    })));
    stream + "data: [DONE]\n\n"
}

#[test]
fn format_characters_never_reach_the_terminal_raw() {
    let file = TempFile::new("spoof.sse", &spoofed_stream());
    let path = file.path().to_str().unwrap();
    for args in [
        vec!["--color", "never", path],
        vec!["--json", path],
        vec!["--events", path],
    ] {
        let output = stdout(&run(&args));
        let raw: Vec<char> = output.chars().filter(|c| SPOOFS.contains(c)).collect();
        assert!(raw.is_empty(), "{args:?}: {raw:?} written raw in {output}");
    }
    // The display shows each as an escape, in the name and id of a header too.
    let shown = stdout(&run(&["--color", "never", path]));
    assert!(
        shown.contains(r"tool call 0 · rm\u{202a}\u{202e}"),
        "{shown}"
    );
    // The JSON still holds the same values.
    let message: Value = serde_json::from_str(&stdout(&run(&["--json", path]))).unwrap();
    let spoof: String = SPOOFS.iter().collect();
    assert_eq!(message["tool_calls"][0]["name"], format!("rm{spoof}"));
    assert_eq!(message["content"], format!("text{spoof}"));
}

#[test]
fn one_event_of_two_million_tiny_values_is_kept_as_text_with_a_warning() {
    let list = format!("[{}]", vec!["{}"; 2_000_000].join(","));
    let stream = format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"a\"}}}}],\"x\":{list}}}\n\n{END}"
    );
    let file = TempFile::new("dense.sse", &stream);
    let message: Value =
        serde_json::from_str(&stdout(&run(&["--json", file.path().to_str().unwrap()]))).unwrap();
    assert_eq!(message["response_metadata"]["x"], Value::String(list));
    let warning = message["response_metadata"]["warnings"][0]
        .as_str()
        .unwrap();
    assert!(warning.contains("2000001 values"), "{warning}");
}

/// Runs the CLI under a pseudo-terminal (`script` from util-linux): what a person running it in
/// a terminal sees, its line ends as written (the terminal's `\r\n` back to `\n`).
fn run_in_terminal(args: &[&str]) -> String {
    let quoted: Vec<String> = std::iter::once(crate::BIN)
        .chain(args.iter().copied())
        .map(|arg| format!("'{}'", arg.replace('\'', r"'\''")))
        .collect();
    let output = std::process::Command::new("script")
        .args(["-qefc", &quoted.join(" "), "/dev/null"])
        .output()
        .expect("script (util-linux) runs the CLI under a pseudo-terminal");
    String::from_utf8(output.stdout)
        .unwrap()
        .replace("\r\n", "\n")
}

/// The JSON values of every `data:` line of an SSE text (a whole JSON text counts as one).
fn data_values(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| {
            let data = line.strip_prefix("data: ").unwrap_or(line);
            serde_json::from_str(data).ok()
        })
        .collect()
}

/// `--to` and `--json-as`, every target: in a terminal no format or control character is written
/// raw (they are `\u` escapes inside the JSON strings, the same values); piped, the output is the
/// encoder's bytes, the characters as sent.
#[test]
fn reencoded_output_escapes_format_characters_in_a_terminal_and_is_exact_when_piped() {
    let file = TempFile::new("spoof-reencode.sse", &spoofed_stream());
    let path = file.path().to_str().unwrap();
    for flag in ["--to", "--json-as"] {
        for target in [
            "openai",
            "anthropic",
            "openai-responses",
            "gemini",
            "vercel-ui",
            "ag-ui",
        ] {
            let args = [flag, target, path];
            let shown = run_in_terminal(&args);
            let raw: Vec<char> = shown.chars().filter(|c| SPOOFS.contains(c)).collect();
            assert!(raw.is_empty(), "{args:?}: {raw:?} written raw in {shown}");
            assert!(shown.contains(r"\u202e"), "{args:?}: {shown}");
            let piped = stdout(&run(&args));
            assert!(piped.contains('\u{202e}'), "{args:?}: {piped}");
            assert!(!piped.contains(r"\u202e"), "{args:?}: {piped}");
            let (shown, piped) = (data_values(&shown), data_values(&piped));
            assert!(!piped.is_empty(), "{args:?}");
            assert_eq!(shown, piped, "{args:?}: the same values");
        }
    }
}
