"""Exit codes that mean one thing each: 0 solved, 1 not solved, 2 bad input, 3 grader failed.

Bad input is refused with one `error:` line before torch or the dataset loads: each such run is
a real `python -m grader` process (the probe reports which heavy modules it imported), and so is
one run where the grader fails. Answers are graded by the CLI's `main` in this process (`alone`):
on a sandbox the command starts and stops itself, as its own process does, with everything that
sandbox's processes write to stderr read too, so that an answer refused before it runs is seen
to start no sandbox and a run to raise no false alarm.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.feedback.checkjson import EXIT_CODES, status
from grader.result import PassResult, Result

from ..cli_helpers import Ran, from_root, in_process

pytestmark = pytest.mark.slow  # the CLI grades (torch, a sandbox); some tests start its process

ROOT = Path(__file__).resolve().parents[3]
LECTURE_PASS = Path(__file__).parents[1] / "fixtures" / "lecture_pass.py"
HEAVY = ("torch", "numpy", "data")

# Run the CLI's own __main__ and report, at exit, which heavy modules it imported.
PROBE = f"""\
import atexit, runpy, sys
report = sys.argv.pop(1)
def write():
    with open(report, "w") as f:
        f.write(" ".join(m for m in {HEAVY!r} if m in sys.modules))
atexit.register(write)
runpy.run_module("grader", run_name="__main__", alter_sys=True)
"""

# Run the CLI with an interpreter path that does not exist, so no sandbox zygote can start:
# the grader itself fails, through no fault of the answer.
NO_SANDBOX = """\
import sys
sys.executable = "/nonexistent/python3"
from grader.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _env() -> dict:
    """Return the environment without proxies (the CLI never needs the network)."""
    return {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}


def _run(argv: list, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run argv from the repository root with stdin closed unless given."""
    return from_root(argv, stdin, _env())


def cli(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run `python -m grader args`."""
    return _run([sys.executable, "-m", "grader", *args], stdin)


def probe(tmp_path: Path, *args) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run `python -m grader args`; return the run and the heavy modules it imported."""
    report = tmp_path / "imported.txt"
    done = _run([sys.executable, "-c", PROBE, report, *args])
    assert report.exists(), done.stderr
    return done, set(report.read_text().split())


def without_sandbox(*args) -> subprocess.CompletedProcess:
    """Run the CLI's main where no sandbox can start."""
    return _run([sys.executable, "-c", NO_SANDBOX, *args])


def alone(capfd, *args, stdin: str | None = None) -> Ran:
    """Run the CLI's main in this process on a sandbox it starts (on its first run) and stops
    itself, as `python -m grader` does; its stderr includes what that sandbox's processes wrote
    to this process's stderr (file descriptor 2, read by capfd)."""
    capfd.readouterr()
    done = in_process(*args, stdin=stdin, lend=False)
    written = capfd.readouterr()
    return Ran(done.returncode, done.stdout + written.out, done.stderr + written.err)


@pytest.fixture
def no_interpreter(monkeypatch):
    """Make the interpreter path that sandboxes start their zygotes with one that does not
    exist (as NO_SANDBOX does in a process of its own)."""
    monkeypatch.setattr(sys, "executable", "/nonexistent/python3")


@pytest.fixture
def files(tmp_path):
    """Return answer files a newcomer might give by mistake."""
    binary = tmp_path / "answer.pyc"
    binary.write_bytes(b"\xa7\r\r\n\0\0\0\0dprobs = 1\n")
    latin = tmp_path / "latin1.py"
    latin.write_bytes('dprobs = "café"\n'.encode("latin-1"))
    folder = tmp_path / "my answers"
    folder.mkdir()
    answer = tmp_path / "answer.py"
    answer.write_text("dprobs = counts * counts_sum_inv\n")
    (tmp_path / "x.toml").write_text('title = "x"\n')
    return {"binary": binary, "latin": latin, "folder": folder, "answer": answer, "tmp": tmp_path}


BAD_INPUT = [
    ("missing file", ["check", "{tmp}/nope.py", "--exercise", "dprobs"], "no such file"),
    ("missing whole pass", ["check", "{tmp}/nope.py"], "no such file"),
    ("directory", ["check", "{folder}", "--exercise", "dprobs"], "is a directory"),
    ("binary file", ["check", "{binary}", "--exercise", "dprobs"], "binary file"),
    ("not UTF-8", ["check", "{latin}", "--exercise", "dprobs"], "not UTF-8 text"),
    ("unknown exercise", ["check", "{answer}", "--exercise", "nope"], "no exercise `nope`"),
    ("typo in exercise", ["check", "{answer}", "--exercise", "dprob"], "did you mean dprobs"),
    ("unknown scenario", ["check", "{answer}", "--scenario", "nope"], "no scenario `nope`"),
    ("no whole pass", ["check", "{answer}", "--scenario", "02_layernorm"], "has no whole pass"),
    ("both targets", ["check", "{answer}", "--exercise", "dh", "--scenario", "mlp"], "not allowed"),
    ("missing --data", ["check", "{answer}", "--data", "{tmp}/words.txt"], "no such file"),
    ("folder as --data", ["check", "{answer}", "--data", "{folder}"], "is a directory"),
    ("unknown flag", ["check", "{answer}", "--exercise", "dprobs", "--frob"], "unrecognized"),
    ("no file", ["check", "--exercise", "dprobs"], "required: file"),
    ("unknown command", ["grade", "{answer}"], "invalid choice: 'grade'"),
    ("no command", [], "required: command"),
    ("validate missing file", ["validate", "exercises/nope.toml"], "no such file"),
    ("validate a .py", ["validate", "{answer}"], "not an exercise file"),
    ("validate a stray .toml", ["validate", "{tmp}/x.toml"], "not in a scenario folder"),
    ("validate an empty folder", ["validate", "{folder}"], "holds no scenario.toml"),
    ("list with a flag", ["list", "--all"], "unrecognized arguments: --all"),
]


@pytest.mark.parametrize(
    ("args", "says"), [c[1:] for c in BAD_INPUT], ids=[c[0] for c in BAD_INPUT]
)
def test_bad_input_exits_2_with_one_line_before_torch_loads(tmp_path, files, args, says):
    done, imported = probe(tmp_path, *[a.format(**files) for a in args])
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert says in done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert imported == set(), f"refused only after importing {imported}"


def test_bad_input_from_stdin_exits_2(tmp_path):
    done = cli("check", "-", "--exercise", "dprobs", stdin="dprobs = 1\0\n")
    assert (
        done.returncode == 2
        and done.stderr == "error: standard input is a binary file, not Python code\n"
    )


def test_unknown_scenario_lists_the_known_ones(tmp_path):
    done, _ = probe(tmp_path, "check", "-", "--scenario", "lstm")
    assert done.stderr == "error: no scenario `lstm`; known: 01_mlp, 03_attention, 04_wavenet\n"


HELP = [[], ["check"], ["validate"], ["list"], ["doctor"], ["download-names"]]


@pytest.mark.parametrize("command", HELP, ids=lambda c: " ".join(c) or "top")
def test_help_does_not_import_torch(tmp_path, command):
    done, imported = probe(tmp_path, *command, "--help")
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.startswith("usage: python -m grader") and "exit codes: 0 solved" in done.stdout
    )
    assert imported == set(), f"--help imported {imported}"


def test_import_grader_is_light():
    code = "import sys, grader, grader.cli; print(sorted(set(sys.argv[1:]) & set(sys.modules)))"
    done = _run([sys.executable, "-c", code, *HEAVY])
    assert done.returncode == 0 and done.stdout == "[]\n", done.stdout + done.stderr


NOT_SOLVED = [
    ("wrong shape", "dcounts_sum_inv", "dcounts_sum_inv = (counts * dprobs).sum(1)\n"),
    ("raises", "dprobs", "dprobs = 1 / 0\n"),
    ("empty file", "dprobs", ""),
    ("syntax error", "dprobs", "dprobs = (counts\n"),
    ("autograd", "dprobs", "probs.backward()\ndprobs = probs.grad\n"),
]


@pytest.mark.parametrize(
    ("exercise", "code"), [c[1:] for c in NOT_SOLVED], ids=[c[0] for c in NOT_SOLVED]
)
def test_wrong_answers_exit_1_without_false_alarms(tmp_path, capfd, exercise, code):
    answer = tmp_path / "answer.py"
    answer.write_text(code)
    done = alone(capfd, "check", answer, "--exercise", exercise)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{exercise}: not yet" in done.stdout
    assert "Traceback (most recent call last)" not in done.stderr
    assert "Bad file descriptor" not in done.stderr
    if os.geteuid() == 0:  # every layer is on as root: nothing at all to warn about
        assert done.stderr == ""


@pytest.mark.parametrize(
    "code",
    ["dlogprobs = (\n", "import torch\nloss.backward()\ndlogprobs = logprobs.grad\n"],
    ids=["syntax error", "autograd"],
)
def test_whole_pass_refused_before_running_starts_no_sandbox(capfd, code):
    done = alone(capfd, "check", "-", stdin=code)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "sandbox layer" not in done.stderr and "Bad file descriptor" not in done.stderr
    assert "Traceback (most recent call last)" not in done.stderr


def test_grader_failure_exits_3_with_one_line(tmp_path):
    answer = tmp_path / "answer.py"
    answer.write_text((ROOT / "solutions/01_mlp/dprobs.py").read_text())
    done = without_sandbox("check", answer, "--exercise", "dprobs")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "The grader failed; this is not a problem with your code." in done.stdout
    assert done.stderr.splitlines()[-1] == (
        "error: the grader failed; this is not a problem with your code"
    )
    assert "Traceback" not in done.stderr


def test_whole_pass_grader_failure_exits_3_and_traceback_on_request(no_interpreter):
    done = in_process("check", LECTURE_PASS, lend=False)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    shown = in_process("check", LECTURE_PASS, "--traceback", lend=False)
    assert shown.returncode == 3
    assert (
        "Traceback (most recent call last)" in shown.stderr
        and "/nonexistent/python3" in shown.stderr
    )


def test_doctor_without_any_sandbox_exits_3(no_interpreter):
    done = in_process("doctor", lend=False)
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.startswith("zygote                   unavailable: [Errno 2]")
    assert done.stdout.splitlines()[-1] == "1 of 2 layers on."  # the language's check is on


def test_a_busy_grader_is_exit_3_like_a_failed_one():
    busy = Result("dprobs", "dprobs", False, (), busy=True)
    assert status(busy) == "busy" and EXIT_CODES["busy"] == EXIT_CODES["grader_failed"] == 3
    assert status(PassResult(False, {}, (), None, "The grader is busy.", busy=True)) == "busy"
    solved = PassResult(True, {}, (), None, "All 26 gradients match autograd.")
    assert status(solved) == "solved"


def test_validate_a_scenario_file_proves_its_folder():
    from grader.course.exercises import discover

    count = sum(e.scenario.slug == "02_layernorm" for e in discover().exercises)
    done = in_process("validate", "exercises/02_layernorm/scenario.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{count} exercises checked, 0 problems."
    assert count > 0
