"""Every shell example in README.md and docs/*.md runs, and shows what it prints.

The convention (docs/examples.md):

- A fenced block in `sh`, `shell`, `bash` or `console` is an example, and
  this test runs it from the repository root with `.build/debug` first on PATH.
- In a *session* (lines starting with `$ `), each `$ ` line is a command and the
  lines after it, up to the next `$ `, are exactly what it prints on stdout.
  `…` in an expected line stands for any text; a line `[exit N]` says the
  command exits N (otherwise it must exit 0).
- `<!-- illustrative -->` (or `<!-- illustrative: why -->`) on the line before
  the fence skips a block that cannot run here: it needs hardware, root, the
  system's daemon, or runs until stopped.
- A block that is neither a session nor marked is an error, and is not run:
  commands are only run when a `$ ` says they are meant to be (so an unmarked
  `make install` or `systemctl` line never runs on a build machine). Nor is a
  session command that starts with `sudo`.
- Commands of one block share one shell: a command ending in `&` runs in the
  background (until the block ends), and when it names `--socket PATH` the next
  command waits until PATH is a socket. Paths under `/tmp/` are moved to a
  private directory, so runs never collide.

Run: /usr/bin/python3 -m unittest discover -s Tests/docs -v
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # orientd_harness
from orientd_harness import BUILD, REPO  # noqa: E402

LANGUAGES = {"sh", "shell", "bash", "console"}
MARKER = re.compile(r"^<!--\s*illustrative\b.*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w-]*)")
BLOCK_TIMEOUT_S = 60
HOW_TO_MARK = ("If this example cannot run here (hardware, root, the system's daemon, a command that runs until "
               "stopped), put <!-- illustrative --> on the line before its fence; see docs/examples.md.")


class Block:
    def __init__(self, path, line, language, lines, illustrative):
        self.path = path
        self.line = line  # 1-based line of the opening fence
        self.language = language
        self.lines = lines
        self.illustrative = illustrative

    @property
    def where(self):
        return f"{self.path.relative_to(REPO)}:{self.line}"

    @property
    def session(self):
        return any(line.startswith("$ ") for line in self.lines)

    def commands(self):
        """[(command, expected lines, expected exit status)] in order."""
        result = []
        if self.session:
            for line in self.lines:
                if line.startswith("$ "):
                    result.append([line[2:], [], 0])
                elif result:
                    exit_line = re.fullmatch(r"\[exit (\d+)\]", line.strip())
                    if exit_line:
                        result[-1][2] = int(exit_line.group(1))
                    else:
                        result[-1][1].append(line)
        # A command continued with a trailing backslash takes the next command's text.
        merged = []
        for command, expected, status in result:
            if merged and merged[-1][0].endswith("\\"):
                merged[-1][0] = merged[-1][0][:-1] + " " + command
                merged[-1][1] = expected
                merged[-1][2] = status
            else:
                merged.append([command, expected, status])
        for entry in merged:
            while entry[1] and not entry[1][-1].strip():
                entry[1].pop()
        return merged


def blocks(path):
    """The fenced shell blocks of a Markdown file."""
    lines = path.read_text().splitlines()
    found = []
    index = 0
    previous = ""
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            if lines[index].strip():
                previous = lines[index]
            index += 1
            continue
        indent, fence, language = match.groups()
        start = index
        body = []
        index += 1
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index][len(indent):] if lines[index].startswith(indent) else lines[index].lstrip())
            index += 1
        index += 1
        if language in LANGUAGES:
            found.append(Block(path, start + 1, language, body, bool(MARKER.match(previous.strip()))))
        previous = ""
    return found


def documents():
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def matches(expected, actual):
    """Whether one output line is as shown; `…` stands for any text."""
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


def is_background(command):
    """Whether the command line runs in the background (ends with `&`, not `&&`)."""
    text = command.rstrip()
    return text.endswith("&") and not text.endswith("&&")


def run_block(commands, work):
    """Runs a block's commands in one shell; returns [(command, stdout, stderr, status)]."""
    out = Path(work) / "out"
    out.mkdir()
    script = ["set -u", f"cd {shlex.quote(str(REPO))}", "trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT"]
    for number, (command, _, _) in enumerate(commands):
        text = command.replace("/tmp/", f"{work}/tmp/")
        files = f">{out}/{number}.out 2>{out}/{number}.err"
        if is_background(text):
            script.append(f"{text.rstrip()[:-1]} {files} &")
            socket = re.search(r"--socket[ =](\S+)", text)
            if socket:
                script.append(f"for i in $(seq 250); do [ -S {socket.group(1)} ] && break; sleep 0.02; done")
            script.append(f"echo 0 > {out}/{number}.rc")
        else:
            script.append(f"{{ {text}\n}} {files} </dev/null; echo $? > {out}/{number}.rc")
    env = dict(os.environ, PATH=f"{BUILD}:{os.environ.get('PATH', '')}", LC_ALL="C.UTF-8")
    env.pop("ORIENTD_SOCKET", None)
    (Path(work) / "tmp").mkdir()
    # Its own process group, so a block that hangs is stopped with everything it started.
    shell = subprocess.Popen(["bash", "-c", "\n".join(script)], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        shell.wait(timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(shell.pid, signal.SIGKILL)
        shell.wait()
    results = []
    for number, (command, _, _) in enumerate(commands):
        def read(suffix):
            path = out / f"{number}.{suffix}"
            return path.read_text(errors="replace") if path.exists() else None
        status = read("rc")
        results.append((command, read("out") or "", read("err") or "", int(status) if status else None))
    return results


def check_block(block):
    """None when the block runs as shown; otherwise what differs."""
    if not block.session:
        return "  it is not a session (no `$ ` lines), so it is not run; write each command as `$ command` followed by what it prints"
    commands = block.commands()
    for command, _, _ in commands:
        if command.lstrip().startswith("sudo"):
            return f"  $ {command}\n  needs root, so it is not run"
    work = tempfile.mkdtemp(prefix="orientd-docs-")
    try:
        results = run_block(commands, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for (command, expected, status), (_, stdout, stderr, actual) in zip(commands, results):
        shown = f"  $ {command}\n"
        if actual is None:
            return shown + f"  did not finish within {BLOCK_TIMEOUT_S} s (or an earlier command of the block hung)"
        lines = stdout.splitlines()
        if actual != status:
            return (shown + f"  exited {actual}, the block says {status}\n"
                    + "  stderr: " + (stderr.strip()[-600:] or "(empty)"))
        if not is_background(command) and not (len(expected) == len(lines) and all(map(matches, expected, lines))):
            return (shown + "  shows:\n" + "".join(f"    {line}\n" for line in expected)
                    + "  prints:\n" + "".join(f"    {line}\n" for line in lines)
                    + ("  stderr: " + stderr.strip()[-600:] + "\n" if stderr.strip() else ""))
    return None


class DocumentExamplesTests(unittest.TestCase):
    def test_every_shell_example_in_the_docs_runs_and_prints_what_it_shows(self):
        """every sh/console block of README.md and docs/*.md runs and prints what it shows, unless marked illustrative"""
        for binary in ("orientd", "orientctl"):
            if not os.access(BUILD / binary, os.X_OK):
                self.fail(f"{BUILD / binary} is missing: run `swift build` first (or set ORIENTD_BUILD_DIR)")
        checked = 0
        failures = []
        for path in documents():
            for block in blocks(path):
                if block.illustrative:
                    continue
                checked += 1
                problem = check_block(block)
                if problem:
                    failures.append(f"{block.where}: the ```{block.language} block does not run as shown:\n"
                                    f"{problem}\n  {HOW_TO_MARK}")
        self.assertFalse(failures, "\n\n" + "\n\n".join(failures))
        self.assertGreater(checked, 0, "no example was checked")


class ReadmeTests(unittest.TestCase):
    """The README, a newcomer's first five minutes."""

    def test_every_block_of_the_readme_is_run(self):
        """README.md has no illustrative block: every command block in it is one this test runs"""
        found = blocks(REPO / "README.md")
        self.assertTrue(found, "README.md has no example")
        self.assertEqual([b.where for b in found if b.illustrative or not b.session], [])

    def test_the_readme_is_short(self):
        """README.md stays within about 150 lines"""
        self.assertLessEqual(len((REPO / "README.md").read_text().splitlines()), 150)


class ConventionTests(unittest.TestCase):
    """The parser that finds the examples, on made-up Markdown."""

    def parse(self, text):
        directory = Path(tempfile.mkdtemp(prefix="orientd-docs-parse-"))
        self.addCleanup(shutil.rmtree, directory, True)
        path = directory / "x.md"
        path.write_text(text)
        return blocks(path)

    def test_a_marker_on_the_line_before_the_fence_makes_a_block_illustrative(self):
        """<!-- illustrative --> before a fence marks that block only, and other languages are not examples"""
        found = self.parse("<!-- illustrative: needs root -->\n```sh\nsudo make install\n```\n\n```sh\necho hi\n```\n"
                           "```json\n{}\n```\n")
        self.assertEqual([(b.line, b.illustrative) for b in found], [(2, True), (6, False)])

    def test_a_session_pairs_each_command_with_the_lines_it_prints(self):
        """in a session, output lines belong to the $ line before them; [exit N] sets the status"""
        block = self.parse("```console\n$ echo a\na\n$ false\n[exit 1]\n$ true \\\n$ --x\n```\n")[0]
        self.assertEqual(block.commands(), [["echo a", ["a"], 0], ["false", [], 1], ["true  --x", [], 0]])

    def test_an_ellipsis_stands_for_any_text(self):
        """… in an expected line matches any text, and nothing else is loose"""
        self.assertTrue(matches('{"t_ms":…}', '{"t_ms":1850}'))
        self.assertFalse(matches('{"t_ms":1900}', '{"t_ms":1850}'))
        self.assertFalse(matches("a.c", "abc"))

    def test_a_wrong_output_is_reported_with_the_file_line_and_how_to_mark_it(self):
        """a block that prints something else fails with its file:line, what it shows and what it printed"""
        block = self.parse("text\n\n```console\n$ echo 1850\n1900\n```\n")[0]
        problem = check_block(block)
        self.assertIn("shows:\n    1900\n  prints:\n    1850", problem)
        self.assertEqual(block.line, 3)

    def test_an_unmarked_block_that_is_not_a_session_is_an_error_and_is_not_run(self):
        """a plain command listing is neither run nor passed: it must be a session or be marked"""
        marker = Path(tempfile.mkdtemp(prefix="orientd-docs-ran-")) / "ran"
        self.addCleanup(shutil.rmtree, marker.parent, True)
        block = self.parse(f"```sh\ntouch {marker}\n```\n")[0]
        self.assertIn("it is not a session", check_block(block))
        self.assertFalse(marker.exists(), "the block ran")
        self.assertIn("needs root", check_block(self.parse("```console\n$ sudo true\n```\n")[0]))


if __name__ == "__main__":
    unittest.main()
