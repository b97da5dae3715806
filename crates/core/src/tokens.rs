//! Counting text in the tokens of the model it goes to, so that a result can be fitted to
//! a budget the way the model's context window will count it.
//!
//! | dialect | how a result is counted | why |
//! |---|---|---|
//! | OpenAI (Chat, Responses) | exactly, in `o200k_base` (with the `tokenizer` feature; otherwise the estimate) | the encoding of GPT-4o, GPT-4.1, GPT-5 and the o-series, public in `tiktoken` |
//! | Anthropic | the estimate | Claude's tokenizer is not public (Anthropic offers counting only as an API call) |
//! | Gemini | the estimate | Gemini's tokenizer is not public for the hosted models |
//! | MCP, or none named | the estimate | the model behind the client is not known |
//!
//! The estimate is **one token per three bytes of UTF-8**, rounded up. Providers' own rules
//! of thumb are about four characters of English per token (OpenAI, Google) and three and
//! a half (Anthropic); three bytes also covers code and JSON, which tokenize more densely
//! than prose, and CJK text, about one token per character (three bytes). A budget is a
//! ceiling, so the estimate errs towards counting too many: a result fitted by it
//! leaves room rather than overflowing. What the estimate does not see is a model whose
//! tokenizer is much denser than that (a token every byte or two: long runs of digits or
//! punctuation in some encodings); budgets should keep a margin below the context window.

use crate::dialect::Dialect;

/// Bytes of UTF-8 per token in the estimate (see the [module docs](self)).
pub const ESTIMATE_BYTES_PER_TOKEN: usize = 3;

/// How text is counted for one dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenCounting {
    /// Exactly, in OpenAI's `o200k_base` encoding (the `tokenizer` feature).
    #[cfg(feature = "tokenizer")]
    O200kBase,
    /// One token per [`ESTIMATE_BYTES_PER_TOKEN`] bytes, rounded up.
    Estimate,
}

impl TokenCounting {
    /// The counting for results going to `dialect` (`None`: not known); see the table in
    /// the [module docs](self).
    pub fn for_dialect(dialect: Option<Dialect>) -> Self {
        match dialect {
            #[cfg(feature = "tokenizer")]
            Some(Dialect::OpenAiChat | Dialect::OpenAiResponses) => TokenCounting::O200kBase,
            _ => TokenCounting::Estimate,
        }
    }

    /// How many tokens `text` is.
    pub fn count(self, text: &str) -> usize {
        match self {
            #[cfg(feature = "tokenizer")]
            TokenCounting::O200kBase => bpe_openai::o200k_base().count(text),
            TokenCounting::Estimate => text.len().div_ceil(ESTIMATE_BYTES_PER_TOKEN),
        }
    }

    /// Whether counting is exact, rather than the estimate.
    pub fn is_exact(self) -> bool {
        !matches!(self, TokenCounting::Estimate)
    }

    /// How a note names the counting: `o200k_base`, or `estimated tokens`.
    pub fn describe(self) -> &'static str {
        match self {
            #[cfg(feature = "tokenizer")]
            TokenCounting::O200kBase => "o200k_base tokens",
            TokenCounting::Estimate => "estimated tokens",
        }
    }
}

/// What a call's result may take of the model's context: tokens (counted by
/// [`counting`](Self::counting)) and, when the client named a cap, characters. The registry
/// fits every result to it; a tool that pages its own output (`read_file`) can size its
/// pages by it ([`ToolContext::result_budget`](crate::ToolContext::result_budget)) and so
/// say itself where to go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultBudget {
    tokens: Option<usize>,
    chars: Option<usize>,
    counting: TokenCounting,
}

impl ResultBudget {
    /// A budget of `tokens` and `chars` (either may be absent), counted by `counting`;
    /// `None` when neither is given.
    pub fn new(tokens: Option<usize>, chars: Option<usize>, counting: TokenCounting) -> Option<Self> {
        (tokens.is_some() || chars.is_some()).then_some(Self {
            tokens,
            chars,
            counting,
        })
    }

    /// The most tokens, if tokens are limited.
    pub fn tokens(&self) -> Option<usize> {
        self.tokens
    }

    /// The most characters, if the client capped them.
    pub fn chars(&self) -> Option<usize> {
        self.chars
    }

    /// How tokens are counted for the call's dialect.
    pub fn counting(&self) -> TokenCounting {
        self.counting
    }

    /// About how many bytes of text a tool should return to fit: nine tenths of the tokens
    /// at [`ESTIMATE_BYTES_PER_TOKEN`] bytes each, and of the characters at a byte each
    /// (a character is at least a byte). Text of this size fits the estimate with room for
    /// a note; in `o200k_base`, ordinary text does too (it averages about four bytes a
    /// token), and what does not is cut by the registry as any result is.
    pub fn text_bytes(&self) -> usize {
        let by_tokens = self.tokens.map_or(usize::MAX, |tokens| {
            tokens.saturating_mul(ESTIMATE_BYTES_PER_TOKEN) / 10 * 9
        });
        let by_chars = self.chars.map_or(usize::MAX, |chars| chars / 10 * 9);
        by_tokens.min(by_chars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_rounds_up_and_counts_bytes_not_characters() {
        let estimate = TokenCounting::for_dialect(Some(Dialect::Anthropic));
        assert_eq!(estimate, TokenCounting::Estimate);
        assert_eq!(estimate.count(""), 0);
        assert_eq!(estimate.count("abcd"), 2);
        // Three characters of CJK are nine bytes: about a token each.
        assert_eq!(estimate.count("日本語"), 3);
        assert!(!estimate.is_exact());
    }

    #[test]
    fn a_budget_says_how_much_text_fits() {
        assert!(ResultBudget::new(None, None, TokenCounting::Estimate).is_none());
        let budget = ResultBudget::new(Some(1000), None, TokenCounting::Estimate).unwrap();
        assert_eq!(budget.text_bytes(), 2700);
        let both = ResultBudget::new(Some(1000), Some(2000), TokenCounting::Estimate).unwrap();
        assert_eq!(both.text_bytes(), 1800);
    }

    #[cfg(feature = "tokenizer")]
    #[test]
    fn openai_dialects_count_in_o200k_base() {
        for dialect in [Dialect::OpenAiChat, Dialect::OpenAiResponses] {
            let counting = TokenCounting::for_dialect(Some(dialect));
            assert_eq!(counting, TokenCounting::O200kBase);
            assert!(counting.is_exact());
        }
        // "Hello, world!" is four tokens in o200k_base: "Hello", ",", " world", "!".
        assert_eq!(TokenCounting::O200kBase.count("Hello, world!"), 4);
        assert_eq!(TokenCounting::for_dialect(None), TokenCounting::Estimate);
        assert_eq!(
            TokenCounting::for_dialect(Some(Dialect::Gemini)),
            TokenCounting::Estimate
        );
    }
}
