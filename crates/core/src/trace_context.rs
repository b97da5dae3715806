//! [`TraceContext`]: where a call sits in a distributed trace, as W3C Trace Context
//! carries it (`traceparent`, `tracestate`).
//!
//! A call arrives with the context of whoever made it (an MCP client's
//! `_meta.traceparent`, an application's current span); a [`CallTracer`](crate::tracer::CallTracer)
//! starts the call's own span under it; and whatever the tool calls in turn (a mounted
//! MCP server) carries the call's span as its parent, so one trace runs from the client
//! through every hop. The context comes from outside, so it is parsed strictly: a value
//! that is not a valid `traceparent` is dropped, never passed on.

use serde::{Deserialize, Serialize};

/// The longest `tracestate` kept (the W3C limit is 32 members of at most 256 characters;
/// 512 is what implementations must at least propagate).
const MAX_TRACESTATE: usize = 512;

/// A W3C trace context: a valid `traceparent` and, optionally, its `tracestate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceContext {
    traceparent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tracestate: Option<String>,
}

impl TraceContext {
    /// Parses a `traceparent` (`00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`,
    /// lowercase, ids not all zero; later versions may append fields) and keeps
    /// `tracestate` when it is printable ASCII of reasonable length. `None` when the
    /// `traceparent` is not valid.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        let traceparent = traceparent.trim();
        let mut fields = traceparent.split('-');
        let version = fields.next()?;
        let (trace_id, span_id, flags) = (fields.next()?, fields.next()?, fields.next()?);
        let valid = is_hex(version, 2)
            && version != "ff"
            && (version != "00" || fields.next().is_none())
            && is_hex(trace_id, 32)
            && is_hex(span_id, 16)
            && is_hex(flags, 2)
            && trace_id.bytes().any(|b| b != b'0')
            && span_id.bytes().any(|b| b != b'0');
        if !valid {
            return None;
        }
        let tracestate = tracestate
            .map(str::trim)
            .filter(|state| !state.is_empty() && state.len() <= MAX_TRACESTATE)
            .filter(|state| state.bytes().all(|b| (0x20..0x7f).contains(&b)))
            .map(str::to_owned);
        // Passed on in the version this code knows, as the specification asks (a
        // version 00 value is already in that form).
        let traceparent = match version {
            "00" => traceparent.to_owned(),
            _ => format!("00-{trace_id}-{span_id}-{flags}"),
        };
        Some(Self {
            traceparent,
            tracestate,
        })
    }

    /// A context for `trace_id` (32 hex digits) and `span_id` (16), sampled or not, with
    /// `tracestate` checked as [`parse`](Self::parse) does. `None` when the ids are not
    /// valid.
    pub fn from_ids(trace_id: &str, span_id: &str, sampled: bool, tracestate: Option<&str>) -> Option<Self> {
        let flags = if sampled { "01" } else { "00" };
        Self::parse(&format!("00-{trace_id}-{span_id}-{flags}"), tracestate)
    }

    /// The `traceparent` value, in version 00 form.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The `tracestate` value, if any.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// The trace id: 32 lowercase hex digits.
    pub fn trace_id(&self) -> &str {
        &self.traceparent[3..35]
    }

    /// The id of the span this context points at (the parent of what runs under it): 16
    /// lowercase hex digits.
    pub fn span_id(&self) -> &str {
        &self.traceparent[36..52]
    }

    /// Whether the trace is sampled (recorded).
    pub fn sampled(&self) -> bool {
        u8::from_str_radix(&self.traceparent[53..55], 16).is_ok_and(|flags| flags & 1 == 1)
    }
}

fn is_hex(text: &str, len: usize) -> bool {
    text.len() == len
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn valid_contexts_parse() {
        let context = TraceContext::parse(VALID, Some("congo=t61rcWkgMzE")).unwrap();
        assert_eq!(context.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(context.span_id(), "00f067aa0ba902b7");
        assert!(context.sampled());
        assert_eq!(context.tracestate(), Some("congo=t61rcWkgMzE"));
        // A later version may carry more fields; what we pass on is version 00.
        let future = format!("01-{}-extra", &VALID[3..]);
        assert_eq!(TraceContext::parse(&future, None).unwrap().traceparent(), VALID);
        let unsampled = TraceContext::from_ids(
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "00f067aa0ba902b7",
            false,
            None,
        );
        assert!(!unsampled.unwrap().sampled());
        let with_state = TraceContext::from_ids(&VALID[3..35], &VALID[36..52], true, Some(" a=1 ")).unwrap();
        assert_eq!(
            (with_state.traceparent(), with_state.tracestate()),
            (VALID, Some("a=1"))
        );
        // Surrounding whitespace is not passed on.
        assert_eq!(
            TraceContext::parse(&format!(" {VALID}\t"), None)
                .unwrap()
                .traceparent(),
            VALID
        );
    }

    #[test]
    fn anything_else_is_dropped() {
        let zeros = "00-00000000000000000000000000000000-00f067aa0ba902b7-01";
        let upper = VALID.to_uppercase();
        let extra = format!("{VALID}-extra");
        let newline = format!("{}\n{}", &VALID[..20], &VALID[20..]);
        for bad in [
            "",
            "garbage",
            zeros,
            &upper,
            &extra,
            &newline,
            &VALID[..54],
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceContext::parse(bad, None), None, "{bad:?}");
        }
        let long = "k=".repeat(300);
        for state in ["", "a\nb", &long] {
            assert_eq!(
                TraceContext::parse(VALID, Some(state)).unwrap().tracestate(),
                None
            );
        }
    }
}
