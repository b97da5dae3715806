//! What a plan must be: at most [`MAX_STEPS`] steps, each one line of 1 to
//! [`MAX_STEP_CHARS`] characters, at most one `in_progress` (Codex's rule: a plan says
//! what is being done now), and an explanation of at most [`MAX_EXPLANATION_CHARS`].
//!
//! The bounds keep a plan something a person reads at a glance, and keep every string of
//! it under the audit log's cut (1024 bytes a string: 256 characters are at most 1024
//! bytes), so the log holds the whole plan. Steps are one line without control
//! characters, so a checklist printed on a terminal is the text the model wrote and
//! nothing else (no escape sequences). All problems of a plan are found at once, so the
//! model fixes them in one retry.

use super::steps::{PlanStep, StepStatus};

/// Most steps a plan may have.
pub const MAX_STEPS: usize = 50;
/// Longest step, in characters.
pub const MAX_STEP_CHARS: usize = 256;
/// Longest explanation, in characters.
pub const MAX_EXPLANATION_CHARS: usize = 256;
/// Most problems one message lists; the rest are counted.
const MAX_PROBLEMS_LISTED: usize = 10;

/// Every way `explanation` and `steps` break the rules, as sentences a model can act on;
/// empty when they keep them. Steps are numbered from 1; their text is judged trimmed, as
/// it is kept.
pub(super) fn problems(explanation: Option<&str>, steps: &[PlanStep]) -> Vec<String> {
    let mut problems = Vec::new();
    if steps.len() > MAX_STEPS {
        problems.push(format!(
            "the plan has {} steps, more than {MAX_STEPS}: merge small steps, or plan the later part once you get there",
            steps.len()
        ));
    }
    for (index, step) in steps.iter().enumerate() {
        problems.extend(step_problem(index + 1, step.step.trim()));
    }
    let in_progress: Vec<usize> = steps
        .iter()
        .enumerate()
        .filter(|(_, step)| step.status == StepStatus::InProgress)
        .map(|(index, _)| index + 1)
        .collect();
    if in_progress.len() > 1 {
        problems.push(format!(
            "steps {} are all `in_progress`: at most one step is in progress at a time; mark the others \
             `pending`, or `completed` if they are done",
            numbers(&in_progress)
        ));
    }
    if let Some(explanation) = explanation {
        problems.extend(explanation_problem(explanation.trim()));
    }
    problems
}

/// What is wrong with step `number` (trimmed), if anything.
fn step_problem(number: usize, text: &str) -> Option<String> {
    let chars = text.chars().count();
    if text.is_empty() {
        Some(format!(
            "step {number} is empty: say what the step does, in a few words"
        ))
    } else if chars > MAX_STEP_CHARS {
        Some(format!(
            "step {number} is {chars} characters, more than {MAX_STEP_CHARS}: keep a step to one short line \
             (details belong in your messages)"
        ))
    } else if text.chars().any(char::is_control) {
        Some(format!(
            "step {number} has a line break or another control character: a step is one line of text"
        ))
    } else {
        None
    }
}

/// What is wrong with the explanation (trimmed), if anything: line breaks and tabs are
/// allowed, other control characters are not.
fn explanation_problem(text: &str) -> Option<String> {
    let chars = text.chars().count();
    if chars > MAX_EXPLANATION_CHARS {
        Some(format!(
            "`explanation` is {chars} characters, more than {MAX_EXPLANATION_CHARS}: say in a sentence what changed"
        ))
    } else if text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        Some("`explanation` has a control character other than a line break or tab: remove it".to_owned())
    } else {
        None
    }
}

/// `1, 3 and 4`.
fn numbers(list: &[usize]) -> String {
    match list {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(usize::to_string).collect();
            format!("{} and {last}", rest.join(", "))
        }
    }
}

/// The model's message for a refused plan: every problem (the first
/// [`MAX_PROBLEMS_LISTED`], then how many more), one a line after the first, each line
/// after the first a `- ` item (the registry puts the first under "invalid arguments
/// for `update_plan`:" as one), and what to do.
pub(super) fn refusal(problems: &[String]) -> String {
    let mut lines: Vec<String> = problems.iter().take(MAX_PROBLEMS_LISTED).cloned().collect();
    if problems.len() > MAX_PROBLEMS_LISTED {
        lines.push(format!(
            "and {} more problems like these",
            problems.len() - MAX_PROBLEMS_LISTED
        ));
    }
    lines.push(
        "the plan was not updated (the previous plan is kept): send the whole plan again with these fixed"
            .to_owned(),
    );
    lines.join("\n- ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use StepStatus::{Completed, InProgress, Pending};

    fn steps(list: &[(&str, StepStatus)]) -> Vec<PlanStep> {
        list.iter()
            .map(|(text, status)| PlanStep::new(*text, *status))
            .collect()
    }

    #[test]
    fn a_plan_within_the_rules_has_no_problems() {
        let plan = steps(&[("Read", Completed), ("Write", InProgress), ("Test", Pending)]);
        assert!(problems(Some("Added a test step.\nAnd a line."), &plan).is_empty());
        assert!(problems(None, &[]).is_empty(), "an empty plan clears it");
        let longest = "é".repeat(MAX_STEP_CHARS);
        assert!(problems(None, &steps(&[(&longest, Pending)])).is_empty());
        let full: Vec<PlanStep> = (0..MAX_STEPS)
            .map(|n| PlanStep::new(format!("Step {n}"), Pending))
            .collect();
        assert!(problems(None, &full).is_empty());
    }

    #[test]
    fn every_problem_is_named_with_its_step() {
        let long = "x".repeat(MAX_STEP_CHARS + 1);
        let plan = steps(&[
            ("Read", InProgress),
            ("   ", Pending),
            (&long, Pending),
            ("two\nlines", Completed),
            ("Write", InProgress),
            ("Test", InProgress),
        ]);
        let explanation = "y".repeat(MAX_EXPLANATION_CHARS + 1);
        let found = problems(Some(&explanation), &plan);
        assert_eq!(found.len(), 5, "{found:#?}");
        assert!(found[0].starts_with("step 2 is empty"), "{}", found[0]);
        assert!(
            found[1].starts_with("step 3 is 257 characters, more than 256"),
            "{}",
            found[1]
        );
        assert!(found[2].starts_with("step 4 has a line break"), "{}", found[2]);
        assert!(
            found[3].starts_with("steps 1, 5 and 6 are all `in_progress`: at most one"),
            "{}",
            found[3]
        );
        assert!(
            found[4].starts_with("`explanation` is 257 characters"),
            "{}",
            found[4]
        );
        assert!(explanation_problem("an \u{1b}[31m escape").is_some());
    }

    #[test]
    fn too_many_steps_is_one_problem_and_a_long_list_is_cut() {
        let plan: Vec<PlanStep> = (0..=MAX_STEPS).map(|_| PlanStep::new("", Pending)).collect();
        let found = problems(None, &plan);
        assert_eq!(found.len(), MAX_STEPS + 2);
        assert!(
            found[0].starts_with("the plan has 51 steps, more than 50"),
            "{}",
            found[0]
        );
        let message = refusal(&found);
        assert_eq!(message.lines().count(), MAX_PROBLEMS_LISTED + 2, "{message}");
        assert!(message.starts_with("the plan has 51 steps"), "{message}");
        assert!(
            message.contains("\n- and 42 more problems like these\n- the plan was not updated"),
            "{message}"
        );
    }
}
