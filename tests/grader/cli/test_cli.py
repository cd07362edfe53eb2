"""The command line: check (one exercise or a whole pass), validate, list; exit codes.

Most tests call the CLI's `main` in this process (`in_process`: its stdout, stderr and exit code,
learner code graded on the process-wide sandbox); the entry point itself, `python -m grader`, is
run as a process of its own by the tests that say so (`cli`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..cli_helpers import ROOT, cli, in_process

pytestmark = pytest.mark.slow  # the CLI grades (torch, a sandbox); a few tests start its process

LECTURE_PASS = Path(__file__).parents[1] / "fixtures" / "lecture_pass.py"


def test_check_one_exercise_exit_codes(tmp_path):
    right = tmp_path / "right.py"
    right.write_text((ROOT / "solutions/01_mlp/dlogprobs.py").read_text())
    done = cli("check", right, "--exercise", "dlogprobs")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dlogprobs: solved" in done.stdout
    wrong = cli(
        "check",
        "-",
        "--exercise",
        "dcounts_sum_inv",
        stdin="dcounts_sum_inv = (counts * dprobs).sum(1)\n",
    )
    assert wrong.returncode == 1
    shape = "has the wrong shape: the values are right but a dimension was dropped; sum with"
    assert f"{shape} keepdim=True. Got (32,) = (n,), expected (32, 1) = (n, 1)." in wrong.stdout
    assert "Traceback" not in done.stderr + wrong.stderr


def test_a_lent_sandbox_runs_the_commands_code_and_outlives_the_command():
    """`lend` (what in_process relies on): the command's on-demand sandbox is the lent one, and
    closing the command's handle leaves it running. (Without a lent one the command starts and
    stops its own: test_cli_exit.py's `alone` runs.)"""
    from grader.cli.common import OnDemand, lend
    from grader.sandbox import Case, default_sandbox

    shared, case = default_sandbox(), [Case("lecture", outputs=("y",))]
    with lend(shared), contextlib.closing(OnDemand()) as command:
        assert command.run("y = 2", case).status == "ok" and command._sandbox is shared
    assert shared.run("y = 3", case).status == "ok", "the command closed the lent sandbox"


def test_check_json_is_data():
    done = in_process("check", "-", "--exercise", "dprobs", "--json", stdin="dprobs = 1 / 0\n")
    payload = json.loads(done.stdout)
    assert done.returncode == 1 and payload["solved"] is False
    assert payload["error"]["type"] == "ZeroDivisionError" and payload["error"]["line"] == 1


def test_check_whole_pass_on_names(names_dataset, tmp_path):
    names = ROOT.parent / "shared" / "data" / "names.txt"
    done = in_process("check", LECTURE_PASS, "--data", names)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "182,625 / dev 22,655 / test 22,866" in done.stdout
    assert "vocabulary 27" in done.stdout and "4,137 parameters" in done.stdout
    assert done.stdout.count("exact:") == 26
    assert "All 26 gradients match autograd." in done.stdout


def test_download_names_then_check_on_names(shared_data_url, tmp_path):
    cache = tmp_path / "cache"
    missing = in_process("check", LECTURE_PASS, "--data", "names", "--cache", cache)
    assert missing.returncode == 2
    assert "run `python -m grader download-names`" in missing.stderr
    wrong = in_process("download-names", "--url", f"{shared_data_url}/nope.txt", "--cache", cache)
    assert wrong.returncode == 2 and "HTTP 404" in wrong.stderr
    done = in_process("download-names", "--url", f"{shared_data_url}/names.txt", "--cache", cache)
    assert done.returncode == 0, done.stderr
    assert f"names.txt is verified (SHA-256 0a30b5557f19…) at {cache / 'names.txt'}" in done.stdout
    checked = in_process("check", LECTURE_PASS, "--data", "names", "--cache", cache)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "182,625 / dev 22,655 / test 22,866" in checked.stdout


def test_check_whole_pass_names_the_root_cause():
    code = LECTURE_PASS.read_text().replace("dh = dlogits @ W2.T", "dh = dlogits @ W2.T * 0.5")
    done = in_process("check", "-", stdin=code)
    assert done.returncode == 1
    assert "`dh` is the first wrong gradient in backward order" in done.stdout


def test_check_bad_data_is_a_clear_error(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    done = in_process("check", LECTURE_PASS, "--data", empty)
    assert done.returncode == 2 and done.stderr.startswith("error: ")


def test_list_names_every_exercise():
    done = in_process("list")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0].split()[0] == "dlogprobs"
    assert "dhprebn_fused" in done.stdout


def test_list_reports_a_scenario_that_raises_and_lists_the_rest(tmp_path):
    for slug in ("02_layernorm", "03_attention"):
        shutil.copytree(ROOT / "exercises" / slug, tmp_path / slug)
    scenario = tmp_path / "03_attention/scenario.toml"
    scenario.write_text(scenario.read_text().replace("k = x @ Wk  #", "k = x @ Wk.T  #"))
    done = in_process("list", tmp_path)
    assert done.returncode == 1
    assert [line.split()[0] for line in done.stdout.splitlines()] == [
        "dxhat",
        "drstd",
        "dx_ln_fused",
    ]
    assert (
        f"error: {scenario}:42: forward.code line 2: raises with sizes: `k = x @ Wk.T`"
        in done.stderr
    )
    assert (
        in_process("list", tmp_path / "02_layernorm").returncode == 2
    )  # a scenario, not a folder of them


@pytest.fixture
def raising_course(tmp_path):
    """Return a course of LayerNorm and an attention scenario whose line 2 raises."""
    course = tmp_path / "course"
    for slug in ("02_layernorm", "03_attention"):
        shutil.copytree(ROOT / "exercises" / slug, course / slug)
        shutil.copytree(ROOT / "solutions" / slug, course / "solutions" / slug)
    scenario = course / "03_attention/scenario.toml"
    scenario.write_text(scenario.read_text().replace("k = x @ Wk  #", "k = x @ Wk.T  #"))
    return course


def test_check_on_a_scenario_that_raises_names_its_line(raising_course):
    scenario = raising_course / "03_attention/scenario.toml"
    answer = ROOT / "solutions/03_attention/whole_pass.py"
    done = in_process("check", answer, "--exercises", raising_course, "--scenario", "attention")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {scenario}:42: forward.code line 2: raises with sizes: `k = x @ Wk.T`" in (
        done.stderr
    )
    assert "grader failed" not in done.stderr
    right = ROOT / "solutions/02_layernorm/dxhat.py"
    assert (
        in_process("check", right, "--exercises", raising_course, "--exercise", "dxhat").returncode
        == 0
    )


def test_grade_batch_on_a_scenario_that_raises_names_its_line(raising_course, tmp_path):
    subs = tmp_path / "class"
    (subs / "ada").mkdir(parents=True)
    shutil.copy(ROOT / "solutions/02_layernorm/dxhat.py", subs / "ada/dxhat.py")
    book = ("--exercises", raising_course, "--out", tmp_path / "book")
    assert in_process("grade-batch", subs, *book).returncode == 0
    shutil.copy(ROOT / "solutions/03_attention/dk.py", subs / "ada/dk.py")
    done = in_process("grade-batch", subs, *book)
    assert done.returncode == 2
    assert "03_attention/scenario.toml:42: forward.code line 2: raises with sizes" in done.stderr


def test_check_refuses_a_folder_that_is_not_a_course(tmp_path):
    done = in_process("check", LECTURE_PASS, "--exercises", tmp_path)
    assert done.returncode == 2 and "is not an exercises folder" in done.stderr


@pytest.fixture
def broken_copy(tmp_path):
    folder = tmp_path / "01_mlp"
    folder.mkdir()
    shutil.copy(ROOT / "exercises/01_mlp/scenario.toml", folder)
    text = (ROOT / "exercises/01_mlp/01_dlogprobs.toml").read_text()
    (folder / "01_dlogprobs.toml").write_text('level = "easy"\n' + text)
    return folder


def test_validate_names_file_and_field(broken_copy):
    done = in_process("validate", broken_copy)
    assert done.returncode == 1
    assert f"{broken_copy / '01_dlogprobs.toml'}: level: unknown key" in done.stdout


def _lecture_copy(tmp_path, edit) -> Path:
    """Copy the lecture scenario and dcounts, edited; return the exercise file."""
    folder = tmp_path / "01_mlp"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "exercises/01_mlp/scenario.toml", folder)
    path = folder / "05_dcounts.toml"
    path.write_text(edit((ROOT / "exercises/01_mlp/05_dcounts.toml").read_text()))
    return path


def _no_explain(text: str) -> str:
    start = text.index("explain = '''")
    return text[:start] + text[text.index("'''\n", start + 13) + 4 :]


def _two_hints(text: str) -> str:
    start = text.index("hints = [")
    end = text.index("]\n", start) + 2
    return text[:start] + 'hints = ["Which shape?", "Nearly there."]\n' + text[end:]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (_no_explain, "explain: a lecture exercise needs a why card"),
        (_two_hints, "hints: a lecture exercise needs at least three hints"),
    ],
)
def test_validate_fails_a_lecture_exercise_without_why_card_or_third_hint(tmp_path, edit, expected):
    path = _lecture_copy(tmp_path, edit)
    done = in_process("validate", path.parent)
    assert done.returncode == 1, done.stdout
    assert f"{path}: {expected}" in done.stdout


def test_validate_one_good_file():
    done = in_process("validate", ROOT / "exercises/01_mlp/01_dlogprobs.toml")
    assert done.returncode == 0, done.stdout
    assert "1 exercises checked, 0 problems." in done.stdout


LAYERS = ("network", "filesystem", "procfs", "ipc", "process", "environment", "workdir", "rlimits")
LAYERS += ("uid", "seccomp", "threads", "dispatch-audit", "autograd", "native-calls", "language")


def _states(stdout: str) -> dict[str, str]:
    """Return layer -> state from the doctor's table."""
    rows = [line.split(None, 1) for line in stdout.splitlines()[:-1]]
    return {name: state for name, state in rows}


def test_doctor_prints_every_layer_and_exits_by_what_is_on():
    done = cli("doctor")
    states = _states(done.stdout)
    assert set(states) == set(LAYERS), done.stdout
    assert all(s == "on" or s.startswith("unavailable: ") for s in states.values())
    on = sum(s == "on" for s in states.values())
    assert done.stdout.splitlines()[-1] == f"{on} of {len(LAYERS)} layers on."
    assert done.returncode == (0 if on == len(LAYERS) else 1)
    if os.geteuid() == 0:
        assert done.returncode == 0, done.stdout + done.stderr


def test_doctor_without_root_reports_and_logs_what_is_missing(ordinary):
    """Run the doctor as an ordinary user, from the copy it can read: each layer explained."""
    command = [*ordinary.become, ordinary.python, "-m", "grader", "doctor"]
    done = subprocess.run(
        command, cwd=ordinary.root, env=ordinary.env, capture_output=True, text=True, timeout=300
    )
    states = _states(done.stdout)
    assert set(states) == set(LAYERS), done.stdout + done.stderr
    for layer, state in states.items():
        assert state == "on" or f"sandbox layer {layer}: {state}" in done.stderr
    userns = subprocess.run([*ordinary.become, "unshare", "--user", "--map-root-user", "true"])
    if userns.returncode == 0:  # the kernel lets ordinary users have user namespaces
        assert all(states[n] == "on" for n in ("network", "filesystem", "procfs", "ipc"))
    assert states["seccomp"] == "on" and states["rlimits"] == "on"
    assert done.returncode == (0 if set(states.values()) == {"on"} else 1)


def test_learner_text_cannot_paint_the_terminal_or_crash_check(tmp_path):
    answer = tmp_path / "paint.py"
    paint = r"\x1b[2J\x1b[H\x1b[32mdprobs: solved\r\u202e"
    answer.write_text(f"print('{paint}')\nint('\\ud800{paint}')\n")  # a ValueError saying it
    done = cli("check", answer, "--exercise", "dprobs")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback (most recent call last)" not in done.stderr
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
    assert "ValueError" in done.stdout and "\\x1b[2J" in done.stdout


def _whole_passes() -> list[tuple[str, int, Path]]:
    """Return (slug, gradients, reference pass) for every shipped scenario with a whole pass."""
    from grader.course.exercises import discover

    shipped = [s for s in discover().scenarios if s.whole_pass]
    files = {s.slug: ROOT / "solutions" / s.slug / "whole_pass.py" for s in shipped}
    files["01_mlp"] = LECTURE_PASS  # the lecture's own Exercise 1 cell
    return [(s.slug, len(s.whole_pass), files[s.slug]) for s in shipped]


@pytest.mark.parametrize(
    ("slug", "count", "answer"), [pytest.param(*p, id=p[0]) for p in _whole_passes()]
)
def test_check_scenario_grades_its_whole_pass(slug, count, answer):
    done = in_process("check", answer, "--scenario", slug)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"All {count} gradients match autograd." in done.stdout
    assert done.stdout.count("exact:") == count


def test_whole_passes_cover_every_shipped_course():
    assert {slug for slug, _, _ in _whole_passes()} >= {"01_mlp", "03_attention", "04_wavenet"}


def test_check_scenario_by_short_name_names_the_root_cause():
    code = (ROOT / "solutions/03_attention/whole_pass.py").read_text()
    wrong = code.replace("dv = p.transpose(-2, -1) @ dout", "dv = p @ dout")
    assert wrong != code
    done = in_process("check", "-", "--scenario", "attention", stdin=wrong)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "A causal self-attention head" in done.stdout
    assert "`dv` is the first wrong gradient in backward order" in done.stdout


def test_check_scenario_reports_an_exception_on_its_line():
    code = (ROOT / "solutions/04_wavenet/whole_pass.py").read_text().splitlines()
    code.insert(3, "int('stop here')")  # a ValueError
    done = in_process("check", "-", "--scenario", "04_wavenet", "--json", stdin="\n".join(code))
    payload = json.loads(done.stdout)
    assert done.returncode == 1 and payload["status"] == "not_solved"
    assert payload["scenario"] == "04_wavenet" and payload["kind"] == "whole_pass"
    assert payload["error"]["type"] == "ValueError" and payload["error"]["line"] == 4
