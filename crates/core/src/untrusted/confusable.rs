//! Tool names that look like another tool's: a mounted `rеad_file` (with a Cyrillic `е`),
//! `Read_File`, `read-file` or `read_fi1e` next to the local `read_file` is there to be
//! called instead of it.
//!
//! [`skeleton`] maps a name to what it looks like; two names with one skeleton are
//! confusable ([`confusable_with`]). The mapping is a small table written here, not
//! Unicode's confusables data: the Cyrillic and Greek letters that look like Latin ones,
//! the fullwidth forms of ASCII (U+FF01–FF5E), and the ASCII look-alikes `1`/`i`/`I`/`|`
//! and `l`, `0` and `o`, `rn` and `m`, `vv` and `w`; case and the separators `_`, `-`,
//! `.` and spaces are ignored.
//!
//! What it does not catch: look-alikes from other scripts (Armenian `օ`, Cherokee,
//! mathematical alphanumerics), accented letters (`réad_file`), and names that differ
//! but mean the same (`read_file` and `file_read`, `fs_read_file`): a skeleton compares
//! how a name looks, not what it says. It flags some innocent pairs too (`list1` and
//! `listl`).

/// A name that looks like another tool's: which, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Confusable {
    /// The other tool's name.
    pub other: String,
    /// What makes them look alike: "`а` (U+0430 CYRILLIC SMALL LETTER A) looks like `a`",
    /// "differs only in case", "differs only in `_`/`-`".
    pub reason: String,
}

/// What `name` looks like: its confusable characters mapped to Latin letters, lowercased,
/// without `_`, `-`, `.` and spaces, with `1`, `i` and `|` as `l`, `0` as `o`, `rn` as
/// `m` and `vv` as `w`.
pub fn skeleton(name: &str) -> String {
    let mut letters = String::with_capacity(name.len());
    for c in name.chars() {
        let c = look_alike(c).map_or(c, |entry| entry.latin);
        for c in c.to_lowercase() {
            match c {
                '_' | '-' | '.' | ' ' => {}
                '1' | 'i' | '|' => letters.push('l'),
                '0' => letters.push('o'),
                c => letters.push(c),
            }
        }
    }
    letters.replace("rn", "m").replace("vv", "w")
}

/// The first of `others` that `name` looks like (their [`skeleton`]s are equal), and why;
/// `None` when none does. An other equal to `name` is passed over: two tools with one
/// name is the registry's business, not a look-alike.
pub fn confusable_with<'a>(name: &str, others: impl IntoIterator<Item = &'a str>) -> Option<Confusable> {
    let looks = skeleton(name);
    if looks.is_empty() {
        return None;
    }
    others
        .into_iter()
        .find(|other| *other != name && skeleton(other) == looks)
        .map(|other| Confusable {
            other: other.to_owned(),
            reason: reason(name, other),
        })
}

/// Why `name` and `other`, which have one skeleton, look alike.
fn reason(name: &str, other: &str) -> String {
    let separators: &[char] = &['_', '-', '.', ' '];
    let bare = |name: &str| name.replace(separators, "");
    if name.eq_ignore_ascii_case(other) {
        return "differs only in case".to_owned();
    }
    if bare(name) == bare(other) {
        return "differs only in `_`/`-`".to_owned();
    }
    if bare(name).eq_ignore_ascii_case(&bare(other)) {
        return "differs only in `_`/`-` and case".to_owned();
    }
    let unusual = name
        .chars()
        .chain(other.chars())
        .find_map(|c| look_alike(c).map(|entry| (c, entry)));
    if let Some((c, entry)) = unusual {
        let latin = entry.latin;
        return format!(
            "`{c}` (U+{:04X} {}) looks like `{latin}`",
            u32::from(c),
            entry.name
        );
    }
    for (lookalike, latin) in [
        ("rn", "m"),
        ("vv", "w"),
        ("1", "l"),
        ("|", "l"),
        ("0", "o"),
        ("I", "l"),
        ("i", "l"),
    ] {
        if name.contains(lookalike) != other.contains(lookalike) {
            return format!("`{lookalike}` looks like `{latin}`");
        }
    }
    "looks alike once look-alike characters are mapped".to_owned()
}

/// A character outside ASCII that looks like a Latin letter or ASCII character.
struct LookAlike {
    latin: char,
    name: &'static str,
}

/// The entry for `c`, if it looks like an ASCII character.
fn look_alike(c: char) -> Option<LookAlike> {
    if c.is_ascii() {
        return None;
    }
    if let Some(ascii) = fullwidth(c) {
        return Some(LookAlike {
            latin: ascii,
            name: "a fullwidth form",
        });
    }
    LOOK_ALIKES
        .iter()
        .find(|&&(look_alike, _, _)| look_alike == c)
        .map(|&(_, latin, name)| LookAlike { latin, name })
}

/// The ASCII character the fullwidth form `c` (U+FF01–FF5E) stands for.
fn fullwidth(c: char) -> Option<char> {
    ('\u{ff01}'..='\u{ff5e}')
        .contains(&c)
        .then(|| char::from_u32(u32::from(c) - 0xfee0))
        .flatten()
}

/// Cyrillic and Greek letters that look like Latin ones (in common fonts), with the Latin
/// letter and the Unicode name.
const LOOK_ALIKES: &[(char, char, &str)] = &[
    // Cyrillic small letters.
    ('\u{0430}', 'a', "CYRILLIC SMALL LETTER A"),
    ('\u{0432}', 'b', "CYRILLIC SMALL LETTER VE"),
    ('\u{0435}', 'e', "CYRILLIC SMALL LETTER IE"),
    ('\u{043a}', 'k', "CYRILLIC SMALL LETTER KA"),
    ('\u{043c}', 'm', "CYRILLIC SMALL LETTER EM"),
    ('\u{043d}', 'h', "CYRILLIC SMALL LETTER EN"),
    ('\u{043e}', 'o', "CYRILLIC SMALL LETTER O"),
    ('\u{0440}', 'p', "CYRILLIC SMALL LETTER ER"),
    ('\u{0441}', 'c', "CYRILLIC SMALL LETTER ES"),
    ('\u{0442}', 't', "CYRILLIC SMALL LETTER TE"),
    ('\u{0443}', 'y', "CYRILLIC SMALL LETTER U"),
    ('\u{0445}', 'x', "CYRILLIC SMALL LETTER HA"),
    ('\u{0455}', 's', "CYRILLIC SMALL LETTER DZE"),
    ('\u{0456}', 'i', "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I"),
    ('\u{0458}', 'j', "CYRILLIC SMALL LETTER JE"),
    ('\u{04bb}', 'h', "CYRILLIC SMALL LETTER SHHA"),
    ('\u{04cf}', 'l', "CYRILLIC SMALL LETTER PALOCHKA"),
    ('\u{0501}', 'd', "CYRILLIC SMALL LETTER KOMI DE"),
    ('\u{051b}', 'q', "CYRILLIC SMALL LETTER QA"),
    ('\u{051d}', 'w', "CYRILLIC SMALL LETTER WE"),
    ('\u{04af}', 'y', "CYRILLIC SMALL LETTER STRAIGHT U"),
    // Cyrillic capital letters.
    ('\u{0410}', 'A', "CYRILLIC CAPITAL LETTER A"),
    ('\u{0412}', 'B', "CYRILLIC CAPITAL LETTER VE"),
    ('\u{0415}', 'E', "CYRILLIC CAPITAL LETTER IE"),
    ('\u{041a}', 'K', "CYRILLIC CAPITAL LETTER KA"),
    ('\u{041c}', 'M', "CYRILLIC CAPITAL LETTER EM"),
    ('\u{041d}', 'H', "CYRILLIC CAPITAL LETTER EN"),
    ('\u{041e}', 'O', "CYRILLIC CAPITAL LETTER O"),
    ('\u{0420}', 'P', "CYRILLIC CAPITAL LETTER ER"),
    ('\u{0421}', 'C', "CYRILLIC CAPITAL LETTER ES"),
    ('\u{0422}', 'T', "CYRILLIC CAPITAL LETTER TE"),
    ('\u{0425}', 'X', "CYRILLIC CAPITAL LETTER HA"),
    ('\u{0405}', 'S', "CYRILLIC CAPITAL LETTER DZE"),
    (
        '\u{0406}',
        'I',
        "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I",
    ),
    ('\u{0408}', 'J', "CYRILLIC CAPITAL LETTER JE"),
    ('\u{04ae}', 'Y', "CYRILLIC CAPITAL LETTER STRAIGHT U"),
    ('\u{04c0}', 'I', "CYRILLIC LETTER PALOCHKA"),
    ('\u{051a}', 'Q', "CYRILLIC CAPITAL LETTER QA"),
    ('\u{051c}', 'W', "CYRILLIC CAPITAL LETTER WE"),
    // Greek small letters.
    ('\u{03b1}', 'a', "GREEK SMALL LETTER ALPHA"),
    ('\u{03b3}', 'y', "GREEK SMALL LETTER GAMMA"),
    ('\u{03b5}', 'e', "GREEK SMALL LETTER EPSILON"),
    ('\u{03b9}', 'i', "GREEK SMALL LETTER IOTA"),
    ('\u{03ba}', 'k', "GREEK SMALL LETTER KAPPA"),
    ('\u{03bd}', 'v', "GREEK SMALL LETTER NU"),
    ('\u{03bf}', 'o', "GREEK SMALL LETTER OMICRON"),
    ('\u{03c1}', 'p', "GREEK SMALL LETTER RHO"),
    ('\u{03c4}', 't', "GREEK SMALL LETTER TAU"),
    ('\u{03c5}', 'u', "GREEK SMALL LETTER UPSILON"),
    ('\u{03c7}', 'x', "GREEK SMALL LETTER CHI"),
    // Greek capital letters.
    ('\u{0391}', 'A', "GREEK CAPITAL LETTER ALPHA"),
    ('\u{0392}', 'B', "GREEK CAPITAL LETTER BETA"),
    ('\u{0395}', 'E', "GREEK CAPITAL LETTER EPSILON"),
    ('\u{0396}', 'Z', "GREEK CAPITAL LETTER ZETA"),
    ('\u{0397}', 'H', "GREEK CAPITAL LETTER ETA"),
    ('\u{0399}', 'I', "GREEK CAPITAL LETTER IOTA"),
    ('\u{039a}', 'K', "GREEK CAPITAL LETTER KAPPA"),
    ('\u{039c}', 'M', "GREEK CAPITAL LETTER MU"),
    ('\u{039d}', 'N', "GREEK CAPITAL LETTER NU"),
    ('\u{039f}', 'O', "GREEK CAPITAL LETTER OMICRON"),
    ('\u{03a1}', 'P', "GREEK CAPITAL LETTER RHO"),
    ('\u{03a4}', 'T', "GREEK CAPITAL LETTER TAU"),
    ('\u{03a5}', 'Y', "GREEK CAPITAL LETTER UPSILON"),
    ('\u{03a7}', 'X', "GREEK CAPITAL LETTER CHI"),
];

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: &[&str] = &["read_file", "write_file", "exec", "git_stash", "web_fetch"];

    fn reason(name: &str) -> Option<(String, String)> {
        confusable_with(name, LOCAL.iter().copied()).map(|found| (found.other, found.reason))
    }

    fn found(other: &str, reason: &str) -> Option<(String, String)> {
        Some((other.to_owned(), reason.to_owned()))
    }

    #[test]
    fn cyrillic_and_greek_look_alikes_are_named() {
        assert_eq!(
            reason("r\u{0435}ad_file"),
            found(
                "read_file",
                "`е` (U+0435 CYRILLIC SMALL LETTER IE) looks like `e`"
            )
        );
        assert_eq!(
            reason("\u{0435}x\u{0435}c"),
            found("exec", "`е` (U+0435 CYRILLIC SMALL LETTER IE) looks like `e`")
        );
        assert_eq!(
            reason("w\u{03b5}b_fetch"),
            found(
                "web_fetch",
                "`ε` (U+03B5 GREEK SMALL LETTER EPSILON) looks like `e`"
            )
        );
        assert_eq!(
            reason("\u{ff52}ead_file"),
            found("read_file", "`ｒ` (U+FF52 a fullwidth form) looks like `r`")
        );
    }

    #[test]
    fn case_separators_and_ascii_look_alikes_are_named() {
        assert_eq!(reason("Read_File"), found("read_file", "differs only in case"));
        assert_eq!(reason("read-file"), found("read_file", "differs only in `_`/`-`"));
        assert_eq!(reason("readfile"), found("read_file", "differs only in `_`/`-`"));
        assert_eq!(
            reason("Read-File"),
            found("read_file", "differs only in `_`/`-` and case")
        );
        assert_eq!(reason("read_fi1e"), found("read_file", "`1` looks like `l`"));
        assert_eq!(reason("wrlte_flle"), found("write_file", "`i` looks like `l`"));
        assert_eq!(reason("git_st4sh"), None);
        assert_eq!(reason("vvrite_file"), found("write_file", "`vv` looks like `w`"));
        assert_eq!(
            confusable_with("rnodel", ["model"]).map(|c| c.reason),
            Some("`rn` looks like `m`".into())
        );
        assert_eq!(
            confusable_with("t0ols", ["tools"]).map(|c| c.reason),
            Some("`0` looks like `o`".into())
        );
    }

    #[test]
    fn equal_and_different_names_are_not_confusable() {
        assert_eq!(
            reason("read_file"),
            None,
            "an equal name is a collision, not a look-alike"
        );
        assert_eq!(reason("fs_read_file"), None);
        assert_eq!(reason("git_status"), None);
        assert_eq!(reason("execute"), None);
        assert_eq!(confusable_with("___", ["--"]), None);
        assert_eq!(skeleton("Read_Fi1e"), "readflle");
        assert_eq!(skeleton("r\u{0435}ad_file"), skeleton("read_file"));
    }

    #[test]
    fn the_table_maps_to_ascii_and_names_each_character_once() {
        for (index, &(c, latin, name)) in LOOK_ALIKES.iter().enumerate() {
            assert!(!c.is_ascii() && latin.is_ascii_alphabetic(), "{name}");
            assert!(
                LOOK_ALIKES[index + 1..].iter().all(|&(other, _, _)| other != c),
                "{name}"
            );
        }
    }
}
