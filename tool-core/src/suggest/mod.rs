//! "Did you mean": the names close to one a model got wrong (tools, properties).

use std::borrow::Cow;

/// Up to three of `names` close to `wanted`, best first.
///
/// Catches the usual model mistakes: wrong case, a namespace prefix such as
/// `functions.read_file`, and small misspellings.
pub(crate) fn similar_names<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let wanted_lower = lowercase(wanted);
    let unqualified = wanted_lower
        .rsplit(['.', ':', '/'])
        .next()
        .unwrap_or(&wanted_lower);
    let mut scored: Vec<(f64, &str)> = names
        .filter_map(|name| {
            let lower = lowercase(name);
            let score = if *lower == *wanted_lower || *lower == *unqualified {
                2.0
            } else {
                strsim::jaro_winkler(unqualified, &lower)
            };
            (score >= 0.8).then_some((score, name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, name)| name).collect()
}

/// Names are usually lower case already; only copy the ones that are not.
fn lowercase(name: &str) -> Cow<'_, str> {
    if name.chars().any(char::is_uppercase) {
        Cow::Owned(name.to_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = ["read_file", "write_file", "list_dir", "exec"];

    #[test]
    fn finds_misspellings_case_and_prefixes() {
        assert_eq!(similar_names("reed_file", NAMES.into_iter())[0], "read_file");
        assert_eq!(similar_names("Read_File", NAMES.into_iter()), vec!["read_file"]);
        assert_eq!(similar_names("functions.exec", NAMES.into_iter()), vec!["exec"]);
        assert!(similar_names("teleport", NAMES.into_iter()).is_empty());
    }
}
