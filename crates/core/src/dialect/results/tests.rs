use std::time::Duration;

use serde_json::json;

use crate::{
    audit::Outcome,
    dialect::Dialect,
    output::{Audience, Content, ContentAnnotations, Image, ResourceContents, ToolOutput},
    registry::ToolResult,
};

fn result(output: ToolOutput) -> ToolResult {
    ToolResult {
        call_id: "call_1".into(),
        name: "shot".into(),
        output,
        outcome: Outcome::Ok,
        duration: Duration::ZERO,
        repairs: Vec::new(),
        pending: None,
    }
}

fn with_image() -> ToolResult {
    result(ToolOutput::text("Took it.").with_content(Image::png(vec![1, 2, 3]).into()))
}

fn for_user() -> ContentAnnotations {
    ContentAnnotations::new().audience([Audience::User])
}

fn audio() -> Content {
    Content::Audio {
        mime_type: "audio/wav".into(),
        data: "UklG".into(),
        annotations: None,
    }
}

fn link() -> Content {
    Content::ResourceLink {
        uri: "file:///reports/q3.pdf".into(),
        name: "q3.pdf".into(),
        title: Some("Q3 report".into()),
        description: None,
        mime_type: Some("application/pdf".into()),
        size: Some(2048),
        annotations: None,
    }
}

const AUDIO_NOTE: &str =
    "[audio (audio/wav, 3 bytes) not shown: this provider's tool results cannot carry audio]";
const LINK_LINE: &str = "Resource link: [Q3 report](file:///reports/q3.pdf) (application/pdf, 2 KB)";
const USER_IMAGE_NOTE: &str = "[image (image/png, 3 bytes) for the user only, not shown to the model]";

/// Text, audio, a link, an image for the user only and text for both.
fn rich() -> ToolResult {
    let both = ContentAnnotations::new()
        .audience([Audience::User, Audience::Assistant])
        .priority(0.5);
    result(
        ToolOutput::text("Recorded.")
            .with_content(audio())
            .with_content(link())
            .with_content(Content::from(Image::png(vec![1, 2, 3])).with_annotations(for_user()))
            .with_content(Content::text("For both.").with_annotations(both)),
    )
}

#[test]
fn openai_chat_is_text() {
    assert_eq!(
        Dialect::OpenAiChat.tool_result(&with_image()),
        json!({"role": "tool", "tool_call_id": "call_1", "content":
            "Took it.\n[image (image/png, 3 bytes) not shown: this provider's tool results cannot carry image/png images]"})
    );
    assert_eq!(
        Dialect::OpenAiChat.tool_result(&rich())["content"],
        ["Recorded.", AUDIO_NOTE, LINK_LINE, USER_IMAGE_NOTE, "For both."].join("\n")
    );
}

#[test]
fn responses_carries_images_and_pdfs() {
    assert_eq!(
        Dialect::OpenAiResponses.tool_result(&with_image()),
        json!({"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "Took it."},
            {"type": "input_image", "image_url": "data:image/png;base64,AQID"}
        ]})
    );
    let text = result(ToolOutput::text("ok"));
    assert_eq!(Dialect::OpenAiResponses.tool_result(&text)["output"], "ok");
    let pdf = result(ToolOutput::default().with_content(Content::blob_resource(
        "file:///reports/q3.pdf",
        Some("application/pdf".into()),
        &[1, 2, 3],
    )));
    assert_eq!(
        Dialect::OpenAiResponses.tool_result(&pdf)["output"],
        json!([{"type": "input_file", "filename": "q3.pdf", "file_data": "data:application/pdf;base64,AQID"}])
    );
}

#[test]
fn responses_without_native_parts_is_a_string_with_notes() {
    // The image is for the user only, so nothing needs an item: one string.
    assert_eq!(
        Dialect::OpenAiResponses.tool_result(&rich())["output"],
        ["Recorded.", AUDIO_NOTE, LINK_LINE, USER_IMAGE_NOTE, "For both."].join("\n")
    );
}

#[test]
fn anthropic_blocks_and_errors() {
    assert_eq!(
        Dialect::Anthropic.tool_result(&with_image()),
        json!({"type": "tool_result", "tool_use_id": "call_1", "content": [
            {"type": "text", "text": "Took it."},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}}
        ]})
    );
    let failed = result(ToolOutput::error("no screen"));
    assert_eq!(Dialect::Anthropic.tool_result(&failed)["is_error"], true);
}

#[test]
fn anthropic_notes_what_it_cannot_carry() {
    let texts: Vec<serde_json::Value> = ["Recorded.", AUDIO_NOTE, LINK_LINE, USER_IMAGE_NOTE, "For both."]
        .iter()
        .map(|text| json!({"type": "text", "text": text}))
        .collect();
    assert_eq!(Dialect::Anthropic.tool_result(&rich())["content"], json!(texts));
}

#[test]
fn images_a_provider_does_not_take_become_notes() {
    let svg =
        result(ToolOutput::default().with_content(Image::new("image/svg+xml", b"<svg/>".to_vec()).into()));
    let note = "[image (image/svg+xml, 6 bytes) not shown: this provider's tool results cannot carry image/svg+xml images]";
    assert_eq!(
        Dialect::Anthropic.tool_result(&svg)["content"],
        json!([{"type": "text", "text": note}])
    );
    assert_eq!(Dialect::OpenAiResponses.tool_result(&svg)["output"], note);
    let gemini = Dialect::Gemini.tool_result(&svg);
    assert_eq!(gemini["functionResponse"]["response"]["output"], note);
    assert!(gemini["functionResponse"].get("parts").is_none(), "{gemini}");
    // GIF: Anthropic and OpenAI take it, Gemini's function responses do not.
    let gif = result(ToolOutput::default().with_content(Image::new("image/gif", vec![1, 2, 3]).into()));
    assert_eq!(
        Dialect::Anthropic.tool_result(&gif)["content"][0]["type"],
        "image"
    );
    assert_eq!(
        Dialect::OpenAiResponses.tool_result(&gif)["output"][0]["type"],
        "input_image"
    );
    assert!(
        Dialect::Gemini.tool_result(&gif)["functionResponse"]
            .get("parts")
            .is_none()
    );
}

#[test]
fn parts_for_the_user_only_are_withheld_from_every_provider() {
    let secret = result(
        ToolOutput::text("Shown.")
            .with_content(Content::text("the user's eyes only").with_annotations(for_user())),
    );
    for dialect in [
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
    ] {
        let rendered = Dialect::tool_result(dialect, &secret).to_string();
        assert!(!rendered.contains("eyes only"), "{dialect}: {rendered}");
        assert!(
            rendered.contains("[text for the user only, not shown to the model]"),
            "{dialect}: {rendered}"
        );
    }
    let mcp = Dialect::Mcp.tool_result(&secret);
    assert_eq!(
        mcp["content"][1],
        json!({"type": "text", "text": "the user's eyes only", "annotations": {"audience": ["user"]}})
    );
}

#[test]
fn gemini_function_response() {
    let structured = result(ToolOutput::text("{\"n\":1}").with_structured(json!({"n": 1})));
    assert_eq!(
        Dialect::Gemini.tool_result(&structured),
        json!({"functionResponse": {"id": "call_1", "name": "shot", "response": {"output": {"n": 1}}}})
    );
    let failed = result(ToolOutput::error("bad"));
    assert_eq!(
        Dialect::Gemini.tool_result(&failed)["functionResponse"]["response"],
        json!({"error": "bad"})
    );
    let image = Dialect::Gemini.tool_result(&with_image());
    assert_eq!(
        image["functionResponse"],
        json!({"id": "call_1", "name": "shot", "response": {"output": "Took it."},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "AQID"}}]})
    );
}

#[test]
fn gemini_keeps_what_has_no_part_in_the_response() {
    let rendered = Dialect::Gemini.tool_result(&rich());
    assert_eq!(
        rendered["functionResponse"]["response"]["output"],
        ["Recorded.", AUDIO_NOTE, LINK_LINE, USER_IMAGE_NOTE, "For both."].join("\n")
    );
    assert!(rendered["functionResponse"].get("parts").is_none(), "{rendered}");
    // With structured output, the text parts are its mirror; the rest goes along.
    let structured = result(
        ToolOutput::text("{\"n\":1}")
            .with_structured(json!({"n": 1}))
            .with_content(link())
            .with_content(audio())
            .with_content(Content::blob_resource(
                "file:///a.pdf",
                Some("application/pdf".into()),
                &[1],
            )),
    );
    assert_eq!(
        Dialect::Gemini.tool_result(&structured)["functionResponse"],
        json!({"id": "call_1", "name": "shot",
            "response": {"output": {"n": 1}, "content": [LINK_LINE, AUDIO_NOTE]},
            "parts": [{"inlineData": {"mimeType": "application/pdf", "data": "AQ=="}}]})
    );
}

#[test]
fn mcp_call_tool_result() {
    let output = ToolOutput::text("{\"n\":1}")
        .with_structured(json!({"n": 1}))
        .with_content(Content::Resource {
            uri: "file:///a.txt".into(),
            mime_type: Some("text/plain".into()),
            contents: ResourceContents::Text("hi".into()),
            annotations: None,
        });
    assert_eq!(
        Dialect::Mcp.tool_result(&result(output)),
        json!({
            "content": [
                {"type": "text", "text": "{\"n\":1}"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi"}}
            ],
            "structuredContent": {"n": 1},
            "isError": false
        })
    );
}

#[test]
fn mcp_carries_audio_links_and_annotations() {
    let annotated = ContentAnnotations::new()
        .audience([Audience::Assistant])
        .priority(0.25)
        .last_modified("2025-01-12T15:00:58Z");
    let output = ToolOutput::default()
        .with_content(audio().with_annotations(annotated))
        .with_content(Content::ResourceLink {
            uri: "file:///reports/q3.pdf".into(),
            name: "q3.pdf".into(),
            title: Some("Q3 report".into()),
            description: Some("The numbers.".into()),
            mime_type: Some("application/pdf".into()),
            size: Some(2048),
            annotations: None,
        })
        .with_content(Content::resource_link("file:///b", "b"))
        .with_content(Content::blob_resource("file:///c", None, &[1]).with_annotations(for_user()));
    assert_eq!(
        Dialect::Mcp.tool_result(&result(output))["content"],
        json!([
            {"type": "audio", "data": "UklG", "mimeType": "audio/wav", "annotations":
                {"audience": ["assistant"], "priority": 0.25, "lastModified": "2025-01-12T15:00:58Z"}},
            {"type": "resource_link", "uri": "file:///reports/q3.pdf", "name": "q3.pdf", "title": "Q3 report",
                "description": "The numbers.", "mimeType": "application/pdf", "size": 2048},
            {"type": "resource_link", "uri": "file:///b", "name": "b"},
            {"type": "resource", "resource": {"uri": "file:///c", "blob": "AQ=="}, "annotations": {"audience": ["user"]}}
        ])
    );
}
