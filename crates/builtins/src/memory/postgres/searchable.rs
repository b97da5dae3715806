//! Text as PostgreSQL's full-text parser should see it, for indexing and for queries.
//!
//! The default parser recognizes far more than words: `OPS-4821` is `ops` and the signed
//! number `-4821`, `deploy_prod.sh` and `services/audit/build.toml` are single file
//! tokens, `a@b.c` an e-mail, and a run of CJK characters one word. A model searching
//! for `4821`, `prod` or a two-character Chinese word would find nothing. So before the
//! parser sees any text, [`searchable`] reduces it to plain words, the way SQLite's
//! `unicode61` tokenizer reads it: letters and digits are kept, everything else separates
//! words, accents are removed (`café` is `cafe`, and compatibility forms such as
//! full-width letters are folded), and each CJK character is a word of its own, so that a
//! CJK word is found as a phrase of adjacent characters. The same function is applied to
//! each query word, which then becomes a phrase (`phraseto_tsquery`): `OPS-4821` finds
//! exactly `ops` followed by `4821`.
//!
//! The `english` configuration then lowercases and stems (`configured` finds
//! `configure`) and drops stop words (`the`, `why`); a query of stop words only matches
//! nothing.

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

use super::super::query::is_cjk;

/// `text` as space-separated words: letters and digits without accents, each CJK
/// character a word.
pub(super) fn searchable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_cjk(c) {
            // Hangul syllables are kept whole: decomposed, they would be jamo.
            separate(&mut out);
            out.push(c);
            separate(&mut out);
            continue;
        }
        decompose_compatible(c, |part| {
            if part.is_alphanumeric() {
                out.push(part);
            } else if !is_combining_mark(part) {
                separate(&mut out);
            }
        });
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Ends the current word.
fn separate(out: &mut String) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_becomes_plain_words() {
        assert_eq!(searchable("OPS-4821: deploy_prod.sh"), "OPS 4821 deploy prod sh");
        assert_eq!(searchable("Café  naïve ＦＵＬＬ"), "Cafe naive FULL");
        assert_eq!(searchable("数据库迁移 ok"), "数 据 库 迁 移 ok");
        assert_eq!(searchable("결제 서비스"), "결 제 서 비 스");
        assert_eq!(searchable("(a)"), "a");
        assert_eq!(searchable("--"), "");
    }
}
