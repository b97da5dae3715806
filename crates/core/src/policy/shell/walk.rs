//! The walk over a parsed script that collects its simple commands and notes what an
//! allow rule cannot see through (the rules are in the [module docs](super)).

use brush_parser::ast::{
    self, AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ElseClause,
    ExtendedTestExpr, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline, SeparatorOperator,
    SimpleCommand,
};
use brush_parser::{Parser, ParserOptions};

use super::words::Words;
use crate::policy::variables::is_dangerous_variable;

/// How deep scripts inside scripts (`$(…)`, `sh -c '…'`, `eval`) are read.
const MAX_DEPTH: usize = 8;

/// Programs that run the command in their arguments: deny rules also see that command.
const WRAPPERS: &[&str] = &[
    "builtin", "command", "doas", "env", "exec", "ionice", "nice", "nohup", "setsid", "stdbuf", "sudo",
    "time", "timeout", "xargs",
];

/// Programs that run a script given as `-c SCRIPT`.
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish",
];

/// Programs that run what a here-document or here-string feeds them.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "ash",
    "busybox",
    "fish",
    "python",
    "python3",
    "perl",
    "ruby",
    "node",
    "deno",
    "bun",
    "php",
    "lua",
    "tclsh",
    "osascript",
    "pwsh",
    "awk",
    "gawk",
    "sed",
    "xargs",
    "env",
    "sudo",
    "source",
    ".",
    "eval",
];

/// What the walk has found so far.
#[derive(Debug, Default)]
pub(super) struct Walk {
    pub(super) commands: Vec<String>,
    pub(super) also: Vec<String>,
    pub(super) opaque: Option<String>,
    depth: usize,
}

impl Walk {
    /// Reads `text` as a script; the error is the parser's.
    pub(super) fn script(&mut self, text: &str) -> Result<(), String> {
        if !super::within_parse_limits(text) {
            return Err("it is too long or too deeply nested to be read".to_owned());
        }
        let options = ParserOptions::default();
        let mut parser = Parser::new(text.as_bytes(), &options);
        let program = parser.parse_program().map_err(|error| error.to_string())?;
        for list in &program.complete_commands {
            self.list(list);
        }
        Ok(())
    }

    /// Notes why allow rules cannot see through the script (the first reason is kept).
    pub(super) fn opaque(&mut self, why: impl FnOnce() -> String) {
        if self.opaque.is_none() {
            self.opaque = Some(why());
        }
    }

    /// A script inside the script (a substitution, `sh -c`, `eval`): its commands count
    /// for deny rules; one that is not read (it does not parse, or scripts nest too
    /// deeply) is seen as its text and that text cut at operators.
    pub(super) fn nested(&mut self, text: &str) {
        let read = if self.depth >= MAX_DEPTH {
            Err("scripts are nested too deeply to be read".to_owned())
        } else {
            self.depth += 1;
            let read = self.script(text);
            self.depth -= 1;
            read
        };
        if let Err(problem) = read {
            self.opaque(|| format!("a script inside it is not read: {problem}"));
            self.also.push(text.to_owned());
            self.also.extend(super::rough_commands(text));
        }
    }

    fn list(&mut self, list: &CompoundList) {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, SeparatorOperator::Async) {
                self.opaque(|| "`&` runs a command in the background".to_owned());
            }
            self.pipeline(&and_or.first);
            for next in &and_or.additional {
                let (AndOr::And(pipeline) | AndOr::Or(pipeline)) = next;
                self.pipeline(pipeline);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        for command in &pipeline.seq {
            self.command(command);
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects) => {
                self.opaque(|| format!("it has {}", compound_name(compound)));
                self.compound(compound);
                self.redirects(redirects.iter().flat_map(|list| &list.0), None);
            }
            Command::Function(function) => {
                self.opaque(|| "it defines a function".to_owned());
                self.compound(&function.body.0);
                self.redirects(function.body.1.iter().flat_map(|list| &list.0), None);
            }
            Command::ExtendedTest(test, redirects) => {
                self.opaque(|| "it has a `[[ … ]]` test".to_owned());
                self.test(&test.expr);
                self.redirects(redirects.iter().flat_map(|list| &list.0), None);
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::Arithmetic(arithmetic) => self.arithmetic(&arithmetic.expr.value),
            CompoundCommand::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value);
                }
                self.list(&clause.body.list);
            }
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            CompoundCommand::ForClause(clause) => {
                for word in clause.values.iter().flatten() {
                    self.word(word);
                }
                self.list(&clause.body.list);
            }
            CompoundCommand::CaseClause(clause) => {
                self.word(&clause.value);
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.word(pattern);
                    }
                    if let Some(body) = &item.cmd {
                        self.list(body);
                    }
                }
            }
            CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition);
                self.list(&clause.then);
                for ElseClause { condition, body } in clause.elses.iter().flatten() {
                    if let Some(condition) = condition {
                        self.list(condition);
                    }
                    self.list(body);
                }
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0);
                self.list(&clause.1.list);
            }
            CompoundCommand::Coprocess(coprocess) => self.command(&coprocess.body),
        }
    }

    fn test(&mut self, expr: &ExtendedTestExpr) {
        match expr {
            ExtendedTestExpr::And(left, right) | ExtendedTestExpr::Or(left, right) => {
                self.test(left);
                self.test(right);
            }
            ExtendedTestExpr::Not(inner) | ExtendedTestExpr::Parenthesized(inner) => self.test(inner),
            ExtendedTestExpr::UnaryTest(_, word) => self.word(word),
            ExtendedTestExpr::BinaryTest(_, left, right) => {
                self.word(left);
                self.word(right);
            }
        }
    }

    /// `$(( … ))` and `(( … ))`: bash evaluates array subscripts in them, which can run
    /// commands, so allow rules step aside and deny rules see what is inside read as a
    /// script (the parser also takes `( ( cmd ) )`, two subshells, for one).
    fn arithmetic(&mut self, text: &str) {
        self.opaque(|| "it has an arithmetic expression".to_owned());
        self.nested(text);
    }

    /// A word outside a command's name and arguments (a `for` list, a `case` pattern, a
    /// test): only what it runs matters.
    fn word(&mut self, word: &ast::Word) {
        let mut words = Words::default();
        words.add(self, &word.value);
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let mut words = Words::default();
        let mut redirects = Vec::new();
        // Before the name: assignments for the command, and redirections.
        for item in simple.prefix.iter().flat_map(|prefix| &prefix.0) {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(assignment, _) => self.assignment(assignment),
                other => self.item(other, &mut words, &mut redirects),
            }
        }
        if let Some(name) = &simple.word_or_name {
            words.add_name(self, &name.value);
        }
        // After it, `X=1` is an argument (`export X=1`, `env X=1 …`).
        for item in simple.suffix.iter().flat_map(|suffix| &suffix.0) {
            self.item(item, &mut words, &mut redirects);
        }
        let braced = words.braced();
        let words = words.finish();
        let program = words.first().map(|name| last_segment(name).to_owned());
        self.redirects(redirects.into_iter(), program.as_deref());
        if words.is_empty() {
            return;
        }
        let text = words.join(" ");
        if braced {
            self.opaque(|| "it has a brace expansion".to_owned());
            self.also.push(super::words::open_braces(&text));
        }
        self.commands.push(text);
        self.look_inside(&words);
    }

    fn item<'i>(
        &mut self,
        item: &'i CommandPrefixOrSuffixItem,
        words: &mut Words,
        redirects: &mut Vec<&'i IoRedirect>,
    ) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => redirects.push(redirect),
            CommandPrefixOrSuffixItem::AssignmentWord(_, word) | CommandPrefixOrSuffixItem::Word(word) => {
                words.add(self, &word.value);
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                self.opaque(|| "it has a process substitution".to_owned());
                self.list(&subshell.list);
                words.push_text("<(…)");
            }
        }
    }

    fn assignment(&mut self, assignment: &ast::Assignment) {
        let name = match &assignment.name {
            ast::AssignmentName::VariableName(name) | ast::AssignmentName::ArrayElementName(name, _) => name,
        };
        if is_dangerous_variable(name) {
            self.opaque(|| format!("it sets `{name}`, which changes what a program runs"));
        }
        match &assignment.value {
            ast::AssignmentValue::Scalar(word) => self.word(word),
            ast::AssignmentValue::Array(items) => {
                for (key, value) in items {
                    if let Some(key) = key {
                        self.word(key);
                    }
                    self.word(value);
                }
            }
        }
    }

    fn redirects<'r>(&mut self, redirects: impl Iterator<Item = &'r IoRedirect>, program: Option<&str>) {
        let feeds_interpreter = program.is_some_and(|program| INTERPRETERS.contains(&program));
        for redirect in redirects {
            match redirect {
                IoRedirect::File(_, kind, target) => self.file_redirect(kind, target),
                IoRedirect::HereDocument(_, here) => {
                    if here.requires_expansion {
                        self.here_document(&here.doc.value);
                    }
                    if feeds_interpreter {
                        self.opaque(|| format!("a here-document feeds `{}`", program.unwrap_or_default()));
                    }
                }
                IoRedirect::HereString(_, word) => {
                    self.word(word);
                    if feeds_interpreter {
                        self.opaque(|| format!("a here-string feeds `{}`", program.unwrap_or_default()));
                    }
                }
                IoRedirect::OutputAndError(word, _) => self.output_to(word),
            }
        }
    }

    fn file_redirect(&mut self, kind: &IoFileRedirectKind, target: &IoFileRedirectTarget) {
        let writes = matches!(
            kind,
            IoFileRedirectKind::Write
                | IoFileRedirectKind::Append
                | IoFileRedirectKind::Clobber
                | IoFileRedirectKind::ReadAndWrite
                | IoFileRedirectKind::DuplicateOutput
        );
        match target {
            IoFileRedirectTarget::Filename(word) if writes => self.output_to(word),
            IoFileRedirectTarget::Filename(word) => self.word(word),
            IoFileRedirectTarget::Fd(_) => {}
            IoFileRedirectTarget::Duplicate(word) => {
                let fd_like = word.value.chars().all(|c| c.is_ascii_digit() || c == '-');
                if writes && !fd_like {
                    self.output_to(word);
                } else {
                    self.word(word);
                }
            }
            IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                self.opaque(|| "it has a process substitution".to_owned());
                self.list(&subshell.list);
            }
        }
    }

    /// Output redirected to `word`: allowed only to where an allow rule can tell it is
    /// harmless (the module docs list where).
    fn output_to(&mut self, word: &ast::Word) {
        let mut words = Words::default();
        words.add(self, &word.value);
        let expanded = words.expanded();
        let target = words.finish().join(" ");
        if expanded || !is_harmless_output(&target) {
            self.opaque(|| format!("it writes output to `{target}`"));
        }
    }

    fn here_document(&mut self, body: &str) {
        let options = ParserOptions::default();
        match brush_parser::word::parse_heredoc(body, &options) {
            Ok(pieces) => {
                let mut words = Words::default();
                words.pieces(self, body, &pieces, true);
            }
            Err(_) => {
                self.opaque(|| "a here-document does not parse".to_owned());
                self.also.extend(super::rough_commands(body));
            }
        }
    }

    /// What a command runs through its arguments: behind wrappers, `-c` scripts, `eval`,
    /// `find -exec`.
    fn look_inside(&mut self, words: &[String]) {
        let Some(first) = words.first() else {
            return;
        };
        let program = last_segment(first);
        if program != first {
            let mut renamed = words.to_vec();
            renamed[0] = program.to_owned();
            self.also.push(renamed.join(" "));
        }
        if WRAPPERS.contains(&program) {
            let rest = after_wrapper(program, &words[1..]);
            if !rest.is_empty() {
                self.also.push(rest.join(" "));
                self.look_inside(rest);
            }
        }
        match program {
            "eval" => {
                self.opaque(|| "it runs `eval`".to_owned());
                self.nested(&words[1..].join(" "));
            }
            "source" | "." => self.opaque(|| format!("`{program}` runs the commands in a file")),
            "find" => self.find_exec(words),
            _ if SHELLS.contains(&program) => {
                if let Some(script) = shell_script(words) {
                    self.opaque(|| format!("`{program}` runs a script of its own"));
                    self.nested(script);
                }
            }
            _ => {}
        }
    }

    fn find_exec(&mut self, words: &[String]) {
        let mut rest = words.iter();
        while rest
            .by_ref()
            .any(|word| matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
        {
            let command: Vec<String> = rest
                .by_ref()
                .take_while(|word| !matches!(word.as_str(), ";" | "+"))
                .cloned()
                .collect();
            if !command.is_empty() {
                self.also.push(command.join(" "));
                self.look_inside(&command);
            }
        }
    }
}

/// `/usr/bin/rm` → `rm`.
pub(super) fn last_segment(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The command a wrapper runs: its arguments after the wrapper's own options,
/// `NAME=VALUE` pairs (`env`) and a leading number or duration (`nice -n 5`, `timeout 10s`).
fn after_wrapper<'w>(wrapper: &str, mut rest: &'w [String]) -> &'w [String] {
    let takes_value = |option: &str| match wrapper {
        "nice" => option == "-n",
        "timeout" => matches!(option, "-s" | "-k" | "--signal" | "--kill-after"),
        "sudo" | "doas" => matches!(
            option,
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U"
        ),
        "env" => matches!(option, "-u" | "-C" | "-S" | "--unset" | "--chdir"),
        "xargs" => matches!(option, "-I" | "-L" | "-n" | "-P" | "-s" | "-d" | "-E" | "-a"),
        "stdbuf" | "ionice" => false,
        _ => false,
    };
    while let Some((word, after)) = rest.split_first() {
        if word == "--" {
            return after;
        }
        let is_option = word.starts_with('-') && word.len() > 1;
        let is_assignment = wrapper == "env" && word.contains('=');
        let is_count = matches!(wrapper, "timeout" | "nice")
            && word.trim_end_matches(['s', 'm', 'h', 'd']).parse::<f64>().is_ok();
        if !(is_option || is_assignment || is_count) {
            return rest;
        }
        rest = if is_option && takes_value(word) {
            after.get(1..).unwrap_or_default()
        } else {
            after
        };
    }
    rest
}

/// The script of `sh -c SCRIPT` (or `-ec`, `-lc`, …), if the words hold one.
fn shell_script(words: &[String]) -> Option<&str> {
    let mut rest = words.iter().skip(1);
    while let Some(word) = rest.next() {
        let is_option = word.starts_with('-') && !word.starts_with("--");
        if is_option && word.contains('c') {
            return rest.next().map(String::as_str);
        }
        if !word.starts_with('-') && !word.starts_with('+') {
            return None;
        }
    }
    None
}

/// Output redirected here cannot change anything an allow rule should know about.
fn is_harmless_output(target: &str) -> bool {
    if matches!(target, "/dev/null" | "/dev/stdout" | "/dev/stderr") {
        return true;
    }
    let relative = !target.is_empty() && !target.starts_with(['/', '~', '-']);
    relative
        && target
            .split('/')
            .all(|segment| segment != ".." && segment != ".git")
}

/// How a compound command is named in the reason allow rules stepped aside.
fn compound_name(compound: &CompoundCommand) -> &'static str {
    match compound {
        CompoundCommand::Arithmetic(_) => "an arithmetic command `(( … ))`",
        CompoundCommand::ArithmeticForClause(_) | CompoundCommand::ForClause(_) => "a `for` loop",
        CompoundCommand::BraceGroup(_) => "a `{ … }` group",
        CompoundCommand::Subshell(_) => "a `( … )` subshell",
        CompoundCommand::CaseClause(_) => "a `case` statement",
        CompoundCommand::IfClause(_) => "an `if` statement",
        CompoundCommand::WhileClause(_) => "a `while` loop",
        CompoundCommand::UntilClause(_) => "an `until` loop",
        CompoundCommand::Coprocess(_) => "a `coproc`",
    }
}
