//! Pages built to break an HTML converter: nesting a hundred thousand deep of each kind
//! of element a converter treats differently, a million elements side by side, and
//! attributes of megabytes. Shared by the facade's `hostile_web` test and the
//! `html` bench of `agent-tools-builtins`.

/// Depth of the nested pages: the "at least 10^5".
pub const DEPTH: usize = 100_000;
/// Elements of the flat page.
pub const FLAT: usize = 1_000_000;

/// A hostile page and a piece of its text that a converted page must still hold.
pub struct HostilePage {
    /// What the page is, for a test's or bench's name.
    pub name: &'static str,
    /// The page.
    pub html: String,
    /// Text of the page that survives conversion.
    pub marker: &'static str,
}

const MARKER: &str = "bottom of the page";
/// Text after the nesting, for the pages whose nested text is not content (an `<svg>`'s).
const AFTER: &str = "after the nesting";

fn page(body: &str) -> String {
    format!("<!doctype html><html><head><title>Hostile</title></head><body>{body}</body></html>")
}

/// `open` `n` times, the marker, then `close` `n` times.
fn nested(name: &'static str, open: &str, close: &str, n: usize) -> HostilePage {
    nested_in(name, ("", ""), open, close, n)
}

/// As [`nested`], inside the `outer` pair of tags (an `<svg>`, a `<math>`), followed by a
/// paragraph of [`AFTER`].
fn nested_in(name: &'static str, outer: (&str, &str), open: &str, close: &str, n: usize) -> HostilePage {
    let mut body = String::with_capacity(n * (open.len() + close.len()) + 64);
    body.push_str(outer.0);
    for _ in 0..n {
        body.push_str(open);
    }
    body.push_str(MARKER);
    for _ in 0..n {
        body.push_str(close);
    }
    body.push_str(outer.1);
    body.push_str(&format!("<p>{AFTER}</p>"));
    HostilePage {
        name,
        html: page(&body),
        marker: if outer.0 == "<svg>" { AFTER } else { MARKER },
    }
}

/// `unit` `n` times, then the marker: elements the parser closes or reopens itself.
fn repeated(name: &'static str, unit: &str, n: usize) -> HostilePage {
    HostilePage {
        name,
        html: page(&format!("{}{MARKER}", unit.repeat(n))),
        marker: MARKER,
    }
}

/// Every nested page, [`DEPTH`] deep.
pub fn nested_pages() -> Vec<HostilePage> {
    let n = DEPTH;
    vec![
        nested("div", "<div>", "</div>", n),
        nested("blockquote", "<blockquote>", "</blockquote>", n),
        nested("ul-li", "<ul><li>", "</li></ul>", n),
        nested("table", "<table><tr><td>", "</td></tr></table>", n),
        nested("span-b-i", "<span><b><i>", "</i></b></span>", n / 3 + 1),
        nested_in("svg-g", ("<svg>", "</svg>"), "<g>", "</g>", n),
        nested_in("math-mrow", ("<math>", "</math>"), "<mrow>", "</mrow>", n),
        // Never closed: `<p>` closes the one before (a flat page), `<b>` nests, and
        // `<b>` closed by `</p>` is reopened in the next paragraph (the formatting
        // elements the parser reconstructs).
        repeated("unclosed-p", "<p>text", n),
        repeated("unclosed-b", "<b>", n),
        reopened(n),
    ]
}

/// Paragraphs each leaving an open `<b>` (distinct, so none is merged) that the parser
/// reopens in every later paragraph.
fn reopened(n: usize) -> HostilePage {
    let body: String = (0..n).map(|i| format!("<p><b id=b{i}>x</p>")).collect();
    HostilePage {
        name: "reopened-formatting",
        html: page(&format!("{body}{MARKER}")),
        marker: MARKER,
    }
}

/// [`FLAT`] elements side by side.
pub fn flat_page() -> HostilePage {
    repeated("flat", "<i>x</i>", FLAT)
}

/// Attributes of megabytes, on an element, a link and an image.
pub fn huge_attributes_page() -> HostilePage {
    let big = "A".repeat(2 << 20);
    let body = format!(
        "<div class=\"{big}\" data-x=\"{big}\"><a href=\"https://example.com/{big}\">link</a>\
         <img src=\"data:image/png;base64,{big}\" alt=\"picture\"><p>{MARKER}</p></div>"
    );
    HostilePage {
        name: "huge-attributes",
        html: page(&body),
        marker: MARKER,
    }
}
