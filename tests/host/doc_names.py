# The `make` targets and `uthctl` commands a Markdown text names, and which of
# them do not exist: targets against the Makefile's rules, commands,
# subcommands and options against uthctl's own argparse tree.
import argparse
import re
import shlex

# Where a command is written in the docs: an inline code span that starts
# with it, or a line of a sh/console block (console: only the `$ ` lines and
# the commands the output suggests, e.g. "next time: uthctl log export ...").
SPAN = re.compile(r"`([^`]+)`")  # a span may wrap onto the next line
FENCE = re.compile(r"^```(\w*)\s*$")
SHELL_BREAKS = {"&", "&&", "|", "||", ";", "<", ">", ">>", "2>&1"}
ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=")
RULE = re.compile(r"^([A-Za-z0-9_.-][A-Za-z0-9_. -]*)::?(?!=)")


def make_targets(makefile_text):
    # Every explicit rule's targets and every .PHONY name; $(VAR) rules and
    # assignments (`X := y`, `X ?= y`) are not targets a user types.
    targets = set()
    for line in makefile_text.splitlines():
        if line.startswith((".PHONY:", "\t", "#")):
            if line.startswith(".PHONY:"):
                targets.update(line.split(":", 1)[1].split())
            continue
        match = RULE.match(line)
        if match and not re.match(r"^\S+\s*[:?+]?=", line):
            targets.update(match.group(1).split())
    return targets


def commands(markdown):
    # Each command line written in the text, as a list of words.
    lines, prose, fence = [], [], None
    for line in markdown.splitlines():
        opened = FENCE.match(line.strip())
        if opened:
            fence = None if fence is not None else opened.group(1)
            continue
        if fence in ("sh", "console", "bash"):
            if fence == "console" and not line.startswith("$ "):
                line = line[line.find("uthctl "):] if "uthctl " in line else ""
            lines.append(line[2:] if line.startswith("$ ") else line)
        elif fence is None:
            prose.append(line)
    spans = (" ".join(span.split()) for span in SPAN.findall("\n".join(prose)))
    lines.extend(span for span in spans
                 if re.match(r"^(?:[A-Z_][A-Z0-9_]*=\S+\s+)*(make|uthctl)\s", span))
    for line in lines:
        words = _words(line.replace("\\|", "|").split(" #")[0])
        for start, word in enumerate(words):
            if word in ("make", "uthctl") and _commands_here(words, start):
                yield _until_break(words[start:])


def _words(line):
    line = re.sub(r";(\s|$)", r" ;\1", line)  # `a; b`: the `;` a word of its own
    try:
        return shlex.split(line)
    except ValueError:  # an unmatched quote in prose
        return line.split()


def _commands_here(words, start):
    # `make` or `uthctl` as the command of its line or of a shell segment.
    before = words[:start]
    while before and ENV.match(before[-1]):
        before.pop()
    return not before or before[-1] in SHELL_BREAKS | {"do", "then", "nice", "time"}


def _until_break(words):
    for end, word in enumerate(words):
        if end and (word in SHELL_BREAKS or word.startswith(">")):
            return words[:end]
    return words


def unknown_make_targets(markdown, targets):
    missing = []
    for words in commands(markdown):
        if words[0] != "make":
            continue
        for word in words[1:]:
            if word.startswith("-") or ENV.match(word):
                continue
            if word not in targets:
                missing.append("make " + word)
    return missing


def unknown_uthctl_names(markdown, parser):
    return [problem for words in commands(markdown) if words[0] == "uthctl"
            for problem in _check(words, parser)]


def uthctl_mentions(markdown):
    return [words for words in commands(markdown) if words[0] == "uthctl"]


def make_mentions(markdown):
    return [words for words in commands(markdown) if words[0] == "make"]


def _check(words, parser):
    # Walks the words down the parser tree: an option must be the parser's,
    # a word where subcommands are expected must name one (`a|b` each).
    said = " ".join(words)
    words = [word.strip("[]().,;:?") for word in words[1:]]
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if not word or "..." in word or word.startswith("$"):
            return []
        if word.startswith("--"):
            action = parser._option_string_actions.get(word.split("=")[0])
            if action is None:
                return ["%s: no option %s" % (said, word)]
            if "=" not in word and action.nargs not in (0, "?"):
                index += 1
            continue
        if word.startswith("-"):
            continue
        subparsers = _subparsers(parser)
        if subparsers is None:
            continue  # a positional argument's value
        names = word.split("|")
        unknown = [name for name in names if name not in subparsers.choices]
        if unknown:
            return ["%s: no %s %s" % (said, "command" if parser.prog == "uthctl"
                                      else "subcommand of " + parser.prog, unknown[0])]
        parser = subparsers.choices[names[0]]
    return []


def _subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None
