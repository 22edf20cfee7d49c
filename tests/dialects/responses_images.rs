//! Image generation in OpenAI Responses: `response.completed` repeats every generated image in
//! base64, so with a few large images it is larger than `max_event_bytes`. The closing event of
//! a Responses stream may exceed that bound by what the message already holds (counted by its
//! budget): a normal answer with four large images assembles under the default options, and
//! anything beyond stays refused.

use deltafold::message::{ContentBlock, MediaSource};
use deltafold::{ErrorKind, Options};
use serde_json::{json, Value};

use crate::{assemble, sse};

/// Base64 of a generated image, `bytes` long, different for each image.
fn image_data(image: usize, bytes: usize) -> String {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..bytes)
        .map(|at| alphabet[(at * 7 + image * 13) % 64] as char)
        .collect()
}

/// The finished `image_generation_call` item of image `image`.
fn image_item(image: usize, data: &str) -> Value {
    json!({"type": "image_generation_call", "id": format!("ig_{image}"), "status": "completed", "background": "opaque", "output_format": "png", "quality": "high", "size": "1536x1024", "revised_prompt": "a lighthouse", "result": data})
}

/// A stream that generates `images` images of `bytes` base64 bytes each; the closing event
/// lists them all again, with `padding` more bytes of output text.
fn image_stream(images: usize, bytes: usize) -> (String, Vec<String>) {
    let data: Vec<String> = (0..images).map(|image| image_data(image, bytes)).collect();
    let response = |status: &str, output: Vec<Value>| json!({"id": "resp_img", "object": "response", "created_at": 1, "status": status, "model": "gpt-5", "output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": [{"type": "image_generation"}]});
    let mut events = vec![
        json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress", vec![])}),
    ];
    for (image, data) in data.iter().enumerate() {
        let id = format!("ig_{image}");
        events.push(json!({"type": "response.output_item.added", "output_index": image, "sequence_number": 0, "item": {"type": "image_generation_call", "id": id, "status": "in_progress"}}));
        events.push(json!({"type": "response.image_generation_call.generating", "output_index": image, "item_id": id, "sequence_number": 0}));
        events.push(json!({"type": "response.output_item.done", "output_index": image, "sequence_number": 0, "item": image_item(image, data)}));
    }
    let output = data
        .iter()
        .enumerate()
        .map(|(image, data)| image_item(image, data))
        .collect();
    events.push(json!({"type": "response.completed", "sequence_number": 0, "response": response("completed", output)}));
    (sse(&events), data)
}

#[test]
fn four_large_images_assemble_under_the_default_options() {
    // Four images of 4.5 MiB of base64 each: 18 MiB in the closing event, past the default
    // 16 MiB `max_event_bytes`.
    let (body, data) = image_stream(4, 9 * 512 * 1024);
    let closing = body.rsplit("data: ").next().unwrap().len();
    assert!(
        closing > Options::new().limits().max_event_bytes,
        "{closing}"
    );
    let message = assemble(&body).unwrap().into_message();
    let images: Vec<&str> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(media) => match &media.source {
                MediaSource::Base64(data) => Some(data.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(images, data.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn the_closing_event_may_pass_the_bound_only_by_what_the_message_holds() {
    // Two images of 300 KiB under a 512 KiB event bound: the closing event (600 KiB) passes.
    let (body, _) = image_stream(2, 300 * 1024);
    let options = || Options::new().max_event_bytes(512 * 1024);
    deltafold::assemble(body.as_bytes(), options()).unwrap();
    // A closing event carrying 1 MiB the stream never showed is refused.
    let (mut body, _) = image_stream(1, 300 * 1024);
    let cut = body.rfind("data: ").unwrap();
    body.truncate(cut);
    let unseen = image_data(9, 1024 * 1024);
    body.push_str(&format!(
        "data: {}\n\n",
        json!({"type": "response.completed", "response": {"id": "resp_img", "status": "completed", "output": [image_item(9, &unseen)]}})
    ));
    let error = deltafold::assemble(body.as_bytes(), options()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
    // And the message budget still bounds what the images may hold.
    let (body, _) = image_stream(4, 300 * 1024);
    let error =
        deltafold::assemble(body.as_bytes(), options().max_message_bytes(1024 * 1024)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::LimitExceeded, "{error}");
}
