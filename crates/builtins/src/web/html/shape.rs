//! How big and how deep a parsed page is, measured without recursion — and the page's
//! text, for a tree too deep for anything that recurses.
//!
//! The converter picks its steps by the tree's shape: Readability scores nodes into
//! their ancestors and reads the text under each candidate, so its work grows with the
//! sum of all nodes' depths, not with their number (measured: about half a microsecond
//! per unit in an optimized build, deep pages and flat ones alike), and a page over
//! budget is serialized whole instead. The depth is also
//! the last guard before code that recurses: `parse` keeps trees shallow, and should it
//! ever miss (a tree builder step no one foresaw), [`text`] reads the tree with an
//! explicit stack rather than the serializers' recursion.

use dom_query::NodeRef;
use html5ever::local_name;

/// The shape of a tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Elements in it.
    pub(crate) elements: usize,
    /// The depth of the deepest node below the root (its children are at depth 1).
    pub(crate) depth: usize,
    /// The sum of every node's depth: the steps of a walk from each node to the root.
    pub(crate) ancestry: usize,
}

impl Shape {
    /// Measures the tree under `root`.
    pub(crate) fn of(root: &NodeRef<'_>) -> Self {
        let mut shape = Self::default();
        walk(root, |node, depth| {
            shape.depth = shape.depth.max(depth);
            shape.ancestry += depth;
            if node.is_element() {
                shape.elements += 1;
            }
            Visit::Children
        });
        shape
    }
}

/// Whether a walk goes into a node's children.
#[derive(PartialEq, Eq)]
enum Visit {
    Children,
    Skip,
}

/// Visits every node under `root` in document order with its depth, without recursion.
fn walk<'a>(root: &NodeRef<'a>, mut visit: impl FnMut(&NodeRef<'a>, usize) -> Visit) {
    let mut next = root.first_child();
    let mut depth = 1;
    while let Some(node) = next {
        let mut into = None;
        if visit(&node, depth) == Visit::Children {
            into = node.first_child();
        }
        if into.is_some() {
            depth += 1;
            next = into;
            continue;
        }
        // Up until a node with a next sibling, or back at the root.
        let mut at = node;
        next = loop {
            if let Some(sibling) = at.next_sibling() {
                break Some(sibling);
            }
            match at.parent() {
                Some(parent) if depth > 1 => {
                    depth -= 1;
                    at = parent;
                }
                _ => break None,
            }
        };
    }
}

/// The text of the tree under `root`, a line per block: less than Markdown, but read
/// with an explicit stack, so any depth is safe.
pub(crate) fn text(root: &NodeRef<'_>) -> String {
    let mut out = String::new();
    walk(root, |node, _| {
        let Some(name) = node.qual_name_ref().map(|name| name.local.clone()) else {
            if node.is_text() {
                out.push_str(&node.text());
            }
            return Visit::Skip;
        };
        match name {
            local_name!("script") | local_name!("style") | local_name!("template") | local_name!("head") => {
                Visit::Skip
            }
            local_name!("br")
            | local_name!("p")
            | local_name!("div")
            | local_name!("li")
            | local_name!("tr")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("blockquote")
            | local_name!("pre") => {
                out.push('\n');
                Visit::Children
            }
            _ => Visit::Children,
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use dom_query::Document;

    use super::*;

    #[test]
    fn the_shape_counts_elements_depth_and_ancestry() {
        // document > html > (head, body > div > p > "x")
        let document = Document::from("<div><p>x</p></div>");
        let shape = Shape::of(&document.root());
        assert_eq!(shape.elements, 5);
        assert_eq!(shape.depth, 5);
        assert_eq!(shape.ancestry, 1 + 2 + 2 + 3 + 4 + 5);
    }

    #[test]
    fn text_reads_any_depth_without_recursion() {
        // Built by hand: the parser would never nest this deep.
        let document = Document::from("<div id=top></div><p>after</p>");
        let mut parent = document.select("#top").nodes()[0];
        for _ in 0..200_000 {
            let child = document.tree.new_element("div");
            parent.append_child(&child);
            parent = child;
        }
        parent.append_child(&document.tree.new_text("deep down"));
        let shape = Shape::of(&document.root());
        // html > body > div#top > 200,000 divs > text
        assert_eq!(shape.depth, 200_004);
        let text = text(&document.root());
        assert!(text.contains("deep down"), "{text:.100}");
        assert!(
            text.trim_end().ends_with("after"),
            "{}",
            &text[text.len() - 100..]
        );
    }
}
