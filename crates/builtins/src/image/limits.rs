//! What each provider takes as an image, in one table: [`ProviderLimits::for_dialect`].
//!
//! Every figure is the provider's documented limit or the size above which the provider
//! scales an image down itself (sending more only costs bytes and latency, the model sees
//! no more). Sources, as read on 2026-12-04:
//!
//! - Anthropic, "Vision" (platform.claude.com/docs/en/build-with-claude/vision): an image
//!   whose long edge is over 1568 px, or over ~1,600 tokens, is scaled down; "resize images
//!   to no more than 1.15 megapixels (and within 1568 pixels in both dimensions)"; larger
//!   than 8000×8000 px is rejected. The 5 MB per image is measured on the base64 text: the
//!   API answers `image exceeds 5 MB maximum: 6278112 bytes > 5242880 bytes`
//!   (anthropics/claude-code#2146, #11181).
//! - OpenAI, "Images and vision" (developers.openai.com/api/docs/guides/images-vision):
//!   with `detail: high` an image is scaled to fit a 2048×2048 square, then so that its
//!   short side is 768 px; inputs up to 20 MB per image; PNG, JPEG, WebP and non-animated
//!   GIF.
//! - Gemini (ai.google.dev/gemini-api/docs/image-understanding and Vertex AI's "Image
//!   understanding"): larger images are scaled down to fit 3072×3072; inline data at most
//!   7 MB per file (Vertex AI; the Gemini API allows 20 MB per request); PNG, JPEG, WebP,
//!   HEIC and HEIF, of which function responses carry PNG, JPEG and WebP.
//! - MCP names no provider: its row, also used when a call does not say its dialect, is
//!   the strictest of the three, an image every provider takes unchanged.
//!
//! One more limit binds before the providers' byte limits: the registry cuts a result over
//! 4 MiB by default, counting base64 ([`RESULT_BYTES`]), so no image is sent larger than
//! fits under it beside its text.

use agent_tools_core::Dialect;

/// Image formats, as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Formats(u8);

impl Formats {
    pub(crate) const PNG: Formats = Formats(1);
    pub(crate) const JPEG: Formats = Formats(2);
    pub(crate) const GIF: Formats = Formats(4);
    pub(crate) const WEBP: Formats = Formats(8);

    const fn and(self, other: Formats) -> Formats {
        Formats(self.0 | other.0)
    }

    const fn common(self, other: Formats) -> Formats {
        Formats(self.0 & other.0)
    }

    /// Whether the set holds every format of `format`.
    pub(crate) fn contains(self, format: Formats) -> bool {
        self.0 & format.0 == format.0
    }
}

/// The largest image a provider takes without scaling it itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProviderLimits {
    /// Whom the image is scaled for, in messages: "for Anthropic".
    pub(crate) provider: &'static str,
    /// Longest side, in pixels.
    pub(crate) long_side: u32,
    /// Shortest side, in pixels.
    pub(crate) short_side: u32,
    /// Width × height.
    pub(crate) pixels: u64,
    /// Bytes of the encoded image, before base64: the provider's limit (at most
    /// [`RESULT_BYTES`] from [`for_dialect`](Self::for_dialect)).
    pub(crate) bytes: u64,
    /// The formats taken.
    pub(crate) formats: Formats,
}

/// No limit on that measure.
const ANY: u32 = u32::MAX;

/// Raw bytes whose standard base64 (4 characters per 3 bytes, padded) fits `limit`.
const fn raw_for_base64(limit: u64) -> u64 {
    limit / 4 * 3
}

const ANTHROPIC: ProviderLimits = ProviderLimits {
    provider: "Anthropic",
    long_side: 1568,
    short_side: ANY,
    pixels: 1_150_000,
    bytes: raw_for_base64(5 * 1024 * 1024),
    formats: Formats::PNG
        .and(Formats::JPEG)
        .and(Formats::GIF)
        .and(Formats::WEBP),
};

const OPENAI: ProviderLimits = ProviderLimits {
    provider: "OpenAI",
    long_side: 2048,
    short_side: 768,
    pixels: u64::MAX,
    bytes: 20_000_000,
    formats: Formats::PNG
        .and(Formats::JPEG)
        .and(Formats::GIF)
        .and(Formats::WEBP),
};

const GEMINI: ProviderLimits = ProviderLimits {
    provider: "Gemini",
    long_side: 3072,
    short_side: ANY,
    pixels: u64::MAX,
    bytes: 7_000_000,
    formats: Formats::PNG.and(Formats::JPEG).and(Formats::WEBP),
};

/// The registry's default cap on a result
/// ([`ToolRegistryBuilder::max_output_bytes`](agent_tools_core::registry::ToolRegistryBuilder::max_output_bytes):
/// 4 MiB, counted as base64), less 16 KiB for the text beside the image.
pub(crate) const RESULT_BYTES: u64 = raw_for_base64(4 * 1024 * 1024 - 16 * 1024);

/// What every provider above takes unchanged.
const EVERY_PROVIDER: ProviderLimits = ANTHROPIC
    .strictest(OPENAI)
    .strictest(GEMINI)
    .named("any provider");

impl ProviderLimits {
    /// The limits for results that go to `dialect`; those every provider takes when the
    /// call does not say, or goes to an MCP client (which may pass it to any model).
    /// Their byte limit is at most [`RESULT_BYTES`].
    pub(crate) fn for_dialect(dialect: Option<Dialect>) -> ProviderLimits {
        let limits = match dialect {
            Some(Dialect::Anthropic) => ANTHROPIC,
            Some(Dialect::OpenAiChat | Dialect::OpenAiResponses) => OPENAI,
            Some(Dialect::Gemini) => GEMINI,
            _ => EVERY_PROVIDER,
        };
        ProviderLimits {
            bytes: limits.bytes.min(RESULT_BYTES),
            ..limits
        }
    }

    const fn strictest(self, other: ProviderLimits) -> ProviderLimits {
        const fn min(a: u64, b: u64) -> u64 {
            if a < b { a } else { b }
        }
        ProviderLimits {
            provider: self.provider,
            long_side: min(self.long_side as u64, other.long_side as u64) as u32,
            short_side: min(self.short_side as u64, other.short_side as u64) as u32,
            pixels: min(self.pixels, other.pixels),
            bytes: min(self.bytes, other.bytes),
            formats: self.formats.common(other.formats),
        }
    }

    const fn named(mut self, provider: &'static str) -> ProviderLimits {
        self.provider = provider;
        self
    }

    /// Whether an image of `width` × `height` pixels fits.
    pub(crate) fn fits(&self, width: u32, height: u32) -> bool {
        width.max(height) <= self.long_side
            && width.min(height) <= self.short_side
            && u64::from(width) * u64::from(height) <= self.pixels
    }

    /// The largest size with the aspect ratio of `width` × `height` that fits (the size
    /// itself when it does).
    pub(crate) fn fitted(&self, width: u32, height: u32) -> (u32, u32) {
        if self.fits(width, height) {
            return (width, height);
        }
        let (long, short) = (width.max(height) as f64, width.min(height) as f64);
        let scale = (self.long_side as f64 / long)
            .min(self.short_side as f64 / short)
            .min((self.pixels as f64 / (long * short)).sqrt());
        // Rounded down, so that the result fits; a side is at least one pixel.
        let side = |length: u32| ((length as f64 * scale + 1e-6).floor() as u32).max(1);
        let (mut fitted_width, mut fitted_height) = (side(width), side(height));
        // Floating point may land one pixel over a limit; step down until it fits.
        while !self.fits(fitted_width, fitted_height) && fitted_width.max(fitted_height) > 1 {
            if fitted_width >= fitted_height {
                fitted_width -= 1;
            } else {
                fitted_height -= 1;
            }
        }
        (fitted_width, fitted_height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_is_the_strictest_of_all() {
        assert_eq!(EVERY_PROVIDER.long_side, 1568);
        assert_eq!(EVERY_PROVIDER.short_side, 768);
        assert_eq!(EVERY_PROVIDER.pixels, 1_150_000);
        assert_eq!(EVERY_PROVIDER.bytes, 3_932_160);
        assert!(!EVERY_PROVIDER.formats.contains(Formats::GIF));
        assert!(EVERY_PROVIDER.formats.contains(Formats::WEBP));
        let default = ProviderLimits::for_dialect(None);
        assert_eq!(default.provider, "any provider");
        assert_eq!(ProviderLimits::for_dialect(Some(Dialect::Mcp)), default);
    }

    #[test]
    fn no_image_outgrows_the_registrys_result_cap() {
        for dialect in [
            None,
            Some(Dialect::Anthropic),
            Some(Dialect::OpenAiChat),
            Some(Dialect::Gemini),
        ] {
            let limits = ProviderLimits::for_dialect(dialect);
            assert!(limits.bytes <= RESULT_BYTES, "{dialect:?}");
            assert!(
                limits.bytes.div_ceil(3) * 4 + 16 * 1024 <= 4 * 1024 * 1024,
                "{dialect:?}"
            );
        }
    }

    #[test]
    fn anthropic_bytes_are_measured_as_base64() {
        // The largest file whose base64 text is at most 5 MiB.
        let raw = ANTHROPIC.bytes;
        assert!(raw.div_ceil(3) * 4 <= 5 * 1024 * 1024);
        assert!((raw + 3).div_ceil(3) * 4 > 5 * 1024 * 1024);
    }

    #[test]
    fn sizes_are_fitted_keeping_the_aspect_ratio() {
        let fitted = |dialect, width, height| ProviderLimits::for_dialect(dialect).fitted(width, height);
        // Anthropic: 1.15 megapixels bind before the 1568 px edge for 4:3.
        assert_eq!(fitted(Some(Dialect::Anthropic), 4000, 3000), (1238, 928));
        assert_eq!(fitted(Some(Dialect::Anthropic), 5000, 3000), (1384, 830));
        // A long strip: the edge binds.
        assert_eq!(fitted(Some(Dialect::Anthropic), 10000, 500), (1568, 78));
        // OpenAI: the short side binds at 768.
        assert_eq!(fitted(Some(Dialect::OpenAiResponses), 5000, 3000), (1280, 768));
        assert_eq!(fitted(Some(Dialect::OpenAiChat), 3000, 5000), (768, 1280));
        assert_eq!(fitted(Some(Dialect::Gemini), 5000, 3000), (3072, 1843));
        assert_eq!(fitted(None, 5000, 3000), (1280, 768));
        // What fits stays as it is, however small.
        assert_eq!(fitted(None, 1, 1), (1, 1));
        assert_eq!(fitted(Some(Dialect::Gemini), 3072, 3072), (3072, 3072));
        // Extreme ratios keep a side of at least one pixel.
        assert_eq!(fitted(None, 100_000, 1), (1568, 1));
        for dialect in [
            None,
            Some(Dialect::Anthropic),
            Some(Dialect::OpenAiChat),
            Some(Dialect::Gemini),
        ] {
            for (width, height) in [(4000, 3000), (1569, 1569), (7, 30_000), (2049, 769), (1073, 1072)] {
                let (w, h) = fitted(dialect, width, height);
                assert!(
                    ProviderLimits::for_dialect(dialect).fits(w, h),
                    "{dialect:?} {w}x{h}"
                );
            }
        }
    }
}
