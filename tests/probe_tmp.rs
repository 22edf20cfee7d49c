#[test]
fn probe() {
    let chunk = |t: &str| {
        format!("data: {{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{t}\"}},\"logprobs\":null,\"finish_reason\":null}}],\"usage\":null}}\n\n")
    };
    let body: String = (0..10).map(|i| chunk(&format!("abcdefghij{i}"))).collect();
    let _ = deltafold::assemble(body.as_bytes(), deltafold::Options::new());
}
