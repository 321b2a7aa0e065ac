"""orientd(8) and orientctl(1): they render cleanly and document every option.

The options, commands and exit codes are read from the installed binaries'
own --help, so a new option without a line in its man page fails here.
"""

import re
import unittest

from support import MAN_DIR, installed_tree, require_tool, run

PAGES = {"orientd": MAN_DIR / "orientd.8", "orientctl": MAN_DIR / "orientctl.1"}


def render(page):
    """(status, text, diagnostics): the page as `man --warnings -l` shows it at 80 columns.

    The diagnostics are standard error, where man and groff put warnings
    (`troff: <standard input>:12: warning: …`). The text itself may say
    "warning": it is a log level.
    """
    result = run(["man", "--warnings", "-l", str(page)], env={"MANWIDTH": "80", "MAN_KEEP_FORMATTING": "", "PAGER": "cat"})
    return result.returncode, result.stdout, result.stderr


def render_text(page):
    """The rendered text alone."""
    return render(page)[1]


def options_in(help_text):
    """Every long option (--name) and -h in a help text."""
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-h)\b", help_text))


def exit_codes_in(help_text):
    """The exit codes a help text lists: the numbers after 'Exit codes:'/'Exit status'."""
    match = re.search(r"Exit (?:codes|status):(.*)", help_text, re.S)
    return set(re.findall(r"\b(\d{1,3})\b", match.group(1))) if match else set()


def help_entries(help_text, heading):
    """The left column of a help section's two-column lines: `lock [ORIENTATION|current]`, `--socket PATH`.

    The section runs from its heading line (`Commands:`, `Options:`) to the
    next blank line; without a heading, every indented line that starts with
    a dash is an entry (orientd's and the command helps' option lists).
    """
    if heading:
        match = re.search(rf"^{heading}\n(.*?)(?:\n\n|\Z)", help_text, re.M | re.S)
        lines = match.group(1).splitlines() if match else []
    else:
        lines = [line for line in help_text.splitlines() if re.match(r"^ {2,}-", line)]
    entries = []
    for line in lines:
        entry = re.match(r"^  (\S.*?)(?: {2,}|$)", line)
        if entry and not line.startswith("   "):
            entries.append(entry.group(1))
        elif not heading and re.match(r"^ +(-\S.*?)(?: {2,}|$)", line):
            entries.append(re.match(r"^ +(-\S.*?)(?: {2,}|$)", line).group(1))
    return entries


def has_entry(text, entry):
    """Whether the rendered page has an indented entry that starts with exactly `entry`, as its own tag."""
    return re.search(rf"^ +{re.escape(entry)}(?:\n| +\S)", text, re.M) is not None


def first_sentence(text, title="DESCRIPTION"):
    """The first sentence of a rendered section, on one line."""
    body = " ".join(section(text, title).split())
    return body.split(". ")[0]


def section(text, title):
    """The rendered text of one man page section (from its title to the next one)."""
    match = re.search(rf"^{title}\n(.*?)(?=^[A-Z][A-Z ]+\n|\Z)", text, re.M | re.S)
    return match.group(1) if match else ""


class RenderingTests(unittest.TestCase):
    """Both pages render without a warning."""

    def setUp(self):
        require_tool(self, "man")

    def test_orientd_8_renders_without_warnings(self):
        """MANWIDTH=80 man --warnings -l man/orientd.8 prints the page and no warning."""
        status, text, diagnostics = render(PAGES["orientd"])
        self.assertEqual(status, 0, diagnostics)
        self.assertEqual(diagnostics, "")
        self.assertNotIn("warning:", text)
        self.assertIn("ORIENTD(8)", text)

    def test_orientctl_1_renders_without_warnings(self):
        """MANWIDTH=80 man --warnings -l man/orientctl.1 prints the page and no warning."""
        status, text, diagnostics = render(PAGES["orientctl"])
        self.assertEqual(status, 0, diagnostics)
        self.assertEqual(diagnostics, "")
        self.assertNotIn("warning:", text)
        self.assertIn("ORIENTCTL(1)", text)

    def test_groff_finds_nothing_to_warn_about_at_any_level(self):
        """groff -man -ww (every warning) is silent on both pages."""
        require_tool(self, "groff")
        for name, page in PAGES.items():
            result = run(["groff", "-man", "-Tutf8", "-ww", "-z", str(page)])
            self.assertEqual(result.stderr, "", name)

    def test_option_names_and_paths_are_never_hyphenated(self):
        """No option or path is broken across lines: --exit-at-end and /etc/orientd/orientd.conf stay whole."""
        for name, page in PAGES.items():
            _, text, _ = render(page)
            self.assertNotIn("\u2010\n", text, name)  # groff's hyphenation mark
            self.assertNotRegex(text, r"(?:^|\s)(?:--|/)\S*-\n", name)

    def test_the_installed_pages_render_too(self):
        """The pages make install wrote (paths substituted) render without warnings, and name the installed doc directory."""
        tree = installed_tree()
        for page in (tree.path(f"{tree.mandir}/man8/orientd.8"), tree.path(f"{tree.mandir}/man1/orientctl.1")):
            status, text, diagnostics = render(page)
            self.assertEqual(status, 0, diagnostics)
            self.assertEqual(diagnostics, "")
            self.assertIn(tree.docdir, text.replace("\u2010", "-"), page)
            self.assertNotIn("/usr/local/share/doc", text, page)


class OpeningTests(unittest.TestCase):
    """Each page's DESCRIPTION opens with a sentence about its program."""

    def setUp(self):
        require_tool(self, "man")

    def test_each_description_opens_with_a_sentence_about_the_program(self):
        """DESCRIPTION's first sentence starts with the program's name, says what it is, and cites no other page but orientd(8)."""
        for name, page in PAGES.items():
            sentence = first_sentence(render_text(page))
            self.assertTrue(sentence.startswith(f"{name} "), f"{name}: {sentence!r}")
            self.assertRegex(sentence, r"orientation", f"{name}: {sentence!r}")
            cited = set(re.findall(r"([\w-]+)\(\d\)", sentence))
            self.assertLessEqual(cited, {"orientd"}, f"{name}: {sentence!r} cites {cited}")
            self.assertLess(len(sentence.split()), 30, f"{name}: {sentence!r}")

    def test_the_parser_sees_a_garbled_opening(self):
        """A DESCRIPTION that opens with SEE ALSO pasted in is caught."""
        garbled = ("DESCRIPTION\n       orientctl talks to orientd(8), sway-output(5), xrandr(1) over its Unix socket.  It can\n"
                   "       print.\n\nOPTIONS\n")
        sentence = first_sentence(garbled)
        self.assertEqual(set(re.findall(r"([\w-]+)\(\d\)", sentence)), {"orientd", "sway-output", "xrandr"})


class CompletenessTests(unittest.TestCase):
    """Every command, option and exit code of --help is in its page, with the help's own words for arguments."""

    @classmethod
    def setUpClass(cls):
        tree = installed_tree()
        cls.orientd = str(tree.path(f"{tree.sbindir}/orientd"))
        cls.orientctl = str(tree.path(f"{tree.bindir}/orientctl"))

    def setUp(self):
        require_tool(self, "man")

    def test_orientctl_commands_are_entries_in_the_words_of_the_help(self):
        """`lock [ORIENTATION|current]`, `hold MASK -- COMMAND...`: each Commands line of --help is a COMMANDS entry as written."""
        help_text = run([self.orientctl, "--help"]).stdout
        entries = help_entries(help_text, "Commands:")
        self.assertIn("lock [ORIENTATION|current]", entries)
        commands = section(render_text(PAGES["orientctl"]), "COMMANDS")
        for entry in entries:
            self.assertTrue(has_entry(commands, entry), f"COMMANDS has no entry '{entry}' (as `orientctl --help` lists it)")

    def test_orientctl_options_are_entries_in_the_words_of_the_help(self):
        """Each option line of `orientctl --help` and of `orientctl COMMAND --help` is an entry of the page, as written."""
        text = render_text(PAGES["orientctl"])
        help_text = run([self.orientctl, "--help"]).stdout
        entries = help_entries(help_text, "Options:")
        self.assertIn("--socket PATH", entries)
        for command in ("calibrate", "follow"):
            entries += help_entries(run([self.orientctl, command, "--help"]).stdout, None)
        self.assertIn("--hwdb-file FILE", entries)
        self.assertIn("--compositor-timeout SECONDS", entries)
        for entry in entries:
            self.assertTrue(has_entry(text, entry), f"orientctl(1) has no entry '{entry}' (as the help lists it)")

    def test_orientd_options_are_entries_in_the_words_of_the_help(self):
        """Each option line of `orientd --help` (`--speed X|max`, `--log-level LEVEL`) is an OPTIONS entry as written."""
        entries = help_entries(run([self.orientd, "--help"]).stdout, None)
        self.assertIn("--speed X|max", entries)
        self.assertIn("--log-level LEVEL", entries)
        options = section(render_text(PAGES["orientd"]), "OPTIONS")
        for entry in entries:
            self.assertTrue(has_entry(options, entry), f"OPTIONS has no entry '{entry}' (as `orientd --help` lists it)")

    def test_the_parser_sees_a_different_word(self):
        """An entry whose argument is named otherwise than in the help is not the same entry."""
        self.assertFalse(has_entry("       --socket FILE\n              The socket.\n", "--socket PATH"))
        self.assertTrue(has_entry("       --socket PATH\n              The socket.\n", "--socket PATH"))
        self.assertTrue(has_entry("       --json Print JSON.\n", "--json"))
        self.assertEqual(help_entries("Options:\n  --json          print JSON\n  --socket PATH   the socket\n\nx", "Options:"),
                         ["--json", "--socket PATH"])

    def test_orientd_8_documents_every_option(self):
        """Each option of `orientd --help` has its own entry in OPTIONS."""
        help_text = run([self.orientd, "--help"]).stdout
        options = options_in(help_text)
        self.assertGreaterEqual(len(options), 12, help_text)
        text = render_text(PAGES["orientd"])
        entries = set(re.findall(r"^       (--[a-z-]+)", section(text, "OPTIONS"), re.M))
        self.assertEqual(entries, options)

    def test_orientd_8_documents_every_exit_code(self):
        """Each exit code of `orientd --help` has an entry in EXIT STATUS."""
        codes = exit_codes_in(run([self.orientd, "--help"]).stdout)
        self.assertTrue(codes)
        text = render_text(PAGES["orientd"])
        entries = set(re.findall(r"^       (\d+)\s", section(text, "EXIT STATUS"), re.M))
        self.assertLessEqual(codes, entries)

    def test_orientd_8_documents_the_environment_systemd_passes(self):
        """ENVIRONMENT explains ORIENTD_SOCKET, STATE_DIRECTORY, NOTIFY_SOCKET, LISTEN_FDS and JOURNAL_STREAM."""
        text = render_text(PAGES["orientd"])
        environment = section(text, "ENVIRONMENT")
        for variable in ("ORIENTD_SOCKET", "STATE_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "LISTEN_FDS", "JOURNAL_STREAM"):
            self.assertIn(variable, environment)

    def test_orientd_8_documents_the_signals(self):
        """SIGNALS covers SIGTERM, SIGINT and SIGHUP, as `orientd --help` names them."""
        text = render_text(PAGES["orientd"])
        signals = section(text, "SIGNALS")
        for name in ("SIGTERM", "SIGINT", "SIGHUP"):
            self.assertIn(name, signals)

    def test_orientctl_1_documents_every_command_and_option(self):
        """Each command of `orientctl --help`, and each option of every `orientctl CMD --help`, is in the page."""
        help_text = run([self.orientctl, "--help"]).stdout
        commands = re.findall(r"^  ([a-z]+)\s", help_text.split("Commands:")[1].split("Options:")[0], re.M)
        self.assertEqual(commands, ["get", "watch", "lock", "unlock", "hold", "record", "status", "calibrate", "follow", "help"])
        text = render_text(PAGES["orientctl"])
        command_entries = set(re.findall(r"^       ([a-z]+)\b", section(text, "COMMANDS"), re.M))
        self.assertEqual(command_entries, set(commands))
        options = options_in(help_text)
        for command in commands:
            options |= options_in(run([self.orientctl, command, "--help"]).stdout)
        self.assertIn("--duration", options)
        for option in options:
            self.assertRegex(text, rf"(?<![\w-]){re.escape(option)}\b", option)

    def test_orientctl_1_documents_every_exit_code(self):
        """Each exit code of `orientctl --help` has an entry in EXIT STATUS."""
        codes = exit_codes_in(run([self.orientctl, "--help"]).stdout)
        self.assertTrue(codes)
        text = render_text(PAGES["orientctl"])
        entries = set(re.findall(r"^       (\d+)\s", section(text, "EXIT STATUS"), re.M))
        self.assertLessEqual(codes, entries)


if __name__ == "__main__":
    unittest.main()
