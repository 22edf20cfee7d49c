//! The binary as a newcomer first meets it: the demo's stream piped or redirected in, a
//! directory or an empty file by mistake, and the finish reason compared across providers.

use super::*;

/// The demo on disk, as a user redirects it.
fn demo_file() -> TempFile {
    TempFile::new("demo.sse", DEMO)
}

#[test]
fn json_reads_a_redirected_stdin_when_no_file_is_named() {
    let demo = demo_file();
    let output = Command::new(BIN)
        .arg("--json")
        .stdin(File::open(demo.path()).unwrap())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_demo_message(&json_line(&output));
}

#[test]
fn json_reads_a_piped_stdin_when_no_file_is_named() {
    let output = run_with_stdin(&["--json"], DEMO);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_demo_message(&json_line(&output));
}

#[test]
fn a_piped_stdin_that_is_not_a_stream_is_an_error_not_the_demo() {
    let output = run_with_stdin(&["--json"], "data: {\"choices\":[]}\n\n");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "",
        "nothing was assembled, nothing is printed"
    );
    assert!(!stdout(&output).contains("Lisbon"));
    let error = error_line(&output);
    assert!(
        error.contains("no payload of the stream was understood") && error.contains("(1 payload)"),
        "{error}"
    );
}

#[test]
fn a_directory_is_one_error_line_without_a_summary() {
    let output = run(&[std::env::temp_dir().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert!(error_line(&output).contains("it is a directory"));
}

#[test]
fn an_empty_file_is_an_error_even_when_lenient() {
    let empty = TempFile::new("empty.sse", "");
    for flags in [&["--json"][..], &["--json", "--lenient"]] {
        let output = Command::new(BIN)
            .args(flags)
            .arg(empty.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{flags:?}");
        assert_eq!(stdout(&output), "", "{flags:?}");
        let error = error_line(&output);
        assert!(error.contains("answer"), "{flags:?}: {error}");
    }
}

#[test]
fn a_truncated_stream_in_lenient_mode_still_exits_0_with_its_partial() {
    let cut = TempFile::new("cut.sse", &truncated_demo());
    let output = run(&["--json", "--lenient", cut.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(json_line(&output)["response_metadata"]["incomplete"].is_string());
}

#[test]
fn json_and_the_summary_carry_the_provider_neutral_finish_kind() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let cases = [
        ("openai/parallel_tool_calls.sse", "tool_calls", "tool_calls"),
        ("anthropic/text.sse", "end_turn", "stop"),
        ("gemini/parallel_function_calls.sse", "STOP", "tool_calls"),
        ("gemini/safety_finish.sse", "SAFETY", "content_filter"),
        (
            "openai-responses/incomplete.sse",
            "max_output_tokens",
            "length",
        ),
    ];
    for (file, reason, kind) in cases {
        let path = fixtures.join(file);
        let output = Command::new(BIN).arg("--json").arg(&path).output().unwrap();
        let message = json_line(&output);
        assert_eq!(
            message["response_metadata"]["finish_reason"], reason,
            "{file}"
        );
        assert_eq!(message["response_metadata"]["finish_kind"], kind, "{file}");
        let shown = stdout(&Command::new(BIN).arg(&path).output().unwrap());
        let row = if reason == kind {
            format!("finish       {reason}\n")
        } else {
            format!("finish       {reason} ({kind})\n")
        };
        assert!(shown.contains(&row), "{file}: missing {row:?} in\n{shown}");
    }
}

/// Empty input is no truncated stream: it says that nothing was read, and fails (exit 1) as
/// when nothing in the input was understood.
#[test]
fn empty_input_says_nothing_was_read() {
    let empty = TempFile::new("empty.sse", "");
    let runs = [
        run(&[empty.path().to_str().unwrap()]),
        run(&["/dev/null"]),
        run(&["--lenient", "/dev/null"]),
        run_with_stdin(&["--json"], ""),
    ];
    for output in runs {
        assert_eq!(output.status.code(), Some(1));
        let error = error_line(&output);
        assert!(error.contains("is empty: nothing was read"), "{error}");
        assert!(!error.contains("truncated"), "{error}");
    }
}

#[test]
fn text_without_events_and_binary_data_are_not_event_streams() {
    let output = run_with_stdin(&[], "hello\n");
    assert_eq!(output.status.code(), Some(1));
    let error = error_line(&output);
    assert!(
        error.contains("stdin is not an event stream") && error.contains("6 bytes"),
        "{error}"
    );
    assert!(!error.contains("truncated"), "{error}");
    // The binary itself: not text from its 25th byte on (ELF's entry point).
    let output = run(&[BIN]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    let error = error_line(&output);
    assert!(
        error.contains("is not an event stream: it is not text (byte ")
            && error.contains(" is not UTF-8)"),
        "{error}"
    );
    // Bytes that are not UTF-8 after an understood answer still keep the partial.
    let cut = format!("{}\u{0}", truncated_demo());
    let mut bytes = cut.into_bytes();
    *bytes.last_mut().unwrap() = 0xff;
    let file = std::env::temp_dir().join(format!("deltafold-cli-{}-bad.sse", std::process::id()));
    std::fs::write(&file, bytes).unwrap();
    let output = run(&["--json", file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(json_line(&output)["response_metadata"]["incomplete"].is_string());
    assert!(error_line(&output).contains("UTF-8"));
}

/// `--help` lists every dialect the library's registry has, which `--dialect` accepts.
#[test]
fn help_lists_every_dialect_that_dialect_accepts() {
    let help = stdout(&run(&["--help"]));
    let listed = help
        .split("[possible values: ")
        .find_map(|rest| {
            let values = rest.split(']').next()?;
            values.contains("openai-responses").then_some(values)
        })
        .expect("--dialect lists its values");
    let names: Vec<&str> = listed.split(", ").collect();
    let registry: Vec<&str> = deltafold::Dialect::ALL.map(|d| d.name()).to_vec();
    assert_eq!(names, registry);
    assert_eq!(names.len(), 7);
    for name in names {
        let output = run_with_stdin(&["--json", "--dialect", name, "-"], "");
        assert_eq!(output.status.code(), Some(1), "{name} is accepted");
    }
}

#[test]
fn a_conflict_of_outputs_shows_file_as_optional() {
    let output = run(&["--json", "--events"]);
    assert_eq!(output.status.code(), Some(2));
    let error = stderr(&output);
    assert!(
        error.contains("'--json' cannot be used with '--events'"),
        "{error}"
    );
    assert!(error.contains("deltafold [OPTIONS] [FILE]"), "{error}");
    assert!(!error.contains("<FILE>"), "{error}");
}

/// A stream cut right after a payload that was understood — Azure's first chunk, with only the
/// prompt filter results and `choices: []` — is a truncated stream, not "another provider's
/// format": its partial is printed (the prompt filter results in the metadata, choice 0's empty
/// message) with the typed error, in `--json` and in the display.
#[test]
fn a_stream_cut_after_azures_prompt_filter_results_prints_its_partial() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/azure/cut_after_prompt_filter_results.sse");
    let path = path.to_str().unwrap();
    let output = run(&["--json", path]);
    assert_eq!(output.status.code(), Some(1));
    let error = error_line(&output);
    assert!(
        error.starts_with("deltafold: truncated stream: ")
            && error.contains("while choice 0 was unfinished"),
        "{error}"
    );
    assert!(!error.contains("another provider"), "{error}");
    let partial = json_line(&output);
    let filters = &partial["response_metadata"]["prompt_filter_results"][0];
    assert_eq!(
        filters["content_filter_results"]["jailbreak"],
        json!({"filtered": false, "detected": false})
    );
    assert_eq!(partial["content"], "");
    assert!(partial["response_metadata"]["incomplete"]
        .as_str()
        .unwrap()
        .contains("truncated stream"));

    let output = run(&[path]);
    assert_eq!(output.status.code(), Some(1));
    assert!(error_line(&output).contains("truncated stream"));
    let shown = stdout(&output);
    assert!(shown.contains("── summary (incomplete)"), "{shown}");
    assert!(shown.contains("while choice 0 was unfinished"), "{shown}");
}
