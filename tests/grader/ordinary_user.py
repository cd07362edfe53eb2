"""An ordinary user who can run this checkout: a world-readable copy in a temporary directory.

The tests that run something again as an ordinary user (the sandbox suites, `grader doctor`)
cannot use the checkout and its `.venv` as they are: either may lie under a private home (root's
is mode 0700, and a pyenv interpreter lives there too), and tests never open a machine's
directories to others. So, as root, `build` makes what the user needs where it can read it,
in a new directory under the system's temporary directory:

- `checkout/`: the checkout's files (not .git, .venv, var/ or caches), hard-linked where the
  file is already readable by everyone, else copied;
- `venv/`: a virtual environment made by a Python of the same version that the user can run
  (the one behind .venv when the user can run it, else the system's `pythonX.Y`, e.g. Debian's
  /usr/bin/python3.11), holding the packages already installed in .venv (linked or copied:
  nothing is downloaded), with `checkout/` on its path in place of the editable install.

Only the directories made here get their modes set; nothing else on the machine changes. When
no interpreter of the version runs for the user, `build` raises NoInterpreter (the tests skip
and say why); anything else that goes wrong is an error.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest

USER = "ninjatest"
LEFT_OUT = (".git", ".venv", "var", "test-output", "__pycache__", ".pytest_cache", ".ruff_cache")
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


# The marks of a test that runs suites again as the ordinary user (run_suites): slow, root's only.
AS_ORDINARY_USER = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="already unprivileged: the suites run as is"),
    pytest.mark.skipif(not shutil.which("setpriv"), reason="setpriv (util-linux) is missing"),
]


class NoInterpreter(Exception):
    """No Python of this version that the ordinary user can run."""


@dataclass(frozen=True)
class Ordinary:
    """What runs as the ordinary user: the setpriv prefix, its Python, its copy, its env."""

    become: list[str]
    python: Path
    root: Path
    env: dict[str, str]

    def run_suites(self, suites: tuple[str, ...], env: dict[str, str] | None = None) -> Rerun:
        """Run test files in the user's copy as the user, in one pytest process; return each
        test's outcome (Rerun). `env` adds to the user's environment."""
        results = Path(tempfile.mkdtemp(prefix="results-", dir=self.root.parent))
        user = pwd.getpwnam(USER)
        os.chown(results, user.pw_uid, user.pw_gid)  # our own directory: the user writes there
        command = [*self.become, str(self.python), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        command += [f"--junitxml={results / 'results.xml'}", "-o", "junit_family=xunit1"]
        command += ["-o", "junit_logging=all"]  # each test's captured output, for _failures
        done = subprocess.run(
            [*command, *suites], cwd=self.root, env={**self.env, **(env or {})},
            capture_output=True, text=True,
        )  # fmt: skip
        output = done.stdout[-4000:] + done.stderr[-2000:]
        # 0: all passed; 1: some failed (each caller checks its own files' outcomes)
        assert done.returncode in (0, 1) and (results / "results.xml").exists(), output
        outcomes = _outcomes(results / "results.xml")
        failures = _failures(results / "results.xml")
        shutil.rmtree(results)
        return Rerun(outcomes, failures + output)


@dataclass(frozen=True)
class Rerun:
    """One pytest run as the ordinary user: each test's file and outcome, and what it printed:
    each failing test's report (whole, from the JUnit XML) then the output's end."""

    outcomes: tuple[tuple[str, str, str], ...]  # (file, test, passed / failed / error / skipped)
    output: str

    def of(self, suites: tuple[str, ...]) -> dict[str, str]:
        """Return the outcome of every test of these files (file::test -> outcome); fail unless
        each file ran and none of its tests failed or erred."""
        found = {f"{f}::{t}": o for f, t, o in self.outcomes if f in suites}
        ran = {key.split("::")[0] for key in found}
        assert ran == set(suites), f"not run: {set(suites) - ran}\n{self.output}"
        bad = {key: o for key, o in found.items() if o in ("failed", "error")}
        assert not bad, f"{bad}\n{self.output}"
        assert "passed" in found.values(), self.output
        return found


def _outcomes(xml: Path) -> tuple[tuple[str, str, str], ...]:
    """Return (file, test, outcome) for each test case of a JUnit XML report (xunit1)."""
    found = []
    for case in ElementTree.parse(xml).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
        outcome = {"failure": "failed"}.get(outcome, outcome)
        found.append((case.get("file", ""), case.get("name", ""), outcome))
    return tuple(found)


def _failures(xml: Path, each: int = 6000) -> str:
    """Return the report of each test case that failed or erred (its traceback and captured
    output, the last `each` characters), so that a failure seen once can be read afterwards."""
    found = []
    for case in ElementTree.parse(xml).getroot().iter("testcase"):
        for child in case:
            if child.tag in ("failure", "error"):
                text = f"{child.get('message', '')}\n{child.text or ''}"
                for part in ("system-out", "system-err"):
                    text += "".join(f"\n--- {part}\n{p.text}" for p in case.iter(part) if p.text)
                name = f"{case.get('file', '')}::{case.get('name', '')}"
                found.append(f"=== {child.tag}: {name}\n{text[-each:]}\n")
    return "".join(found)


def suites_of(items) -> tuple[str, ...]:
    """Return the test files that the session's re-run tests (their modules' SUITES) name, in
    order, once each: they run together, in one process (one start, one torch import)."""
    named = [s for item in items if "reruns" in item.fixturenames for s in item.module.SUITES]
    return tuple(dict.fromkeys(named))


def ensure_user() -> list[str]:
    """Create the ordinary user if needed; return the setpriv prefix that becomes it."""
    if subprocess.run(["id", USER], capture_output=True).returncode != 0:
        # two test processes may both find no user: the second useradd fails, and the user exists
        made = subprocess.run(["useradd", "--create-home", USER], capture_output=True, text=True)
        found = subprocess.run(["id", USER], capture_output=True).returncode == 0
        assert found, f"useradd {USER} failed: {made.stderr}"
    return ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups", "--"]


def build(root: Path, top: Path) -> Ordinary:
    """Make the user's copy of root and its venv in top (a new directory); return how to run."""
    become = ensure_user()
    home = os.path.expanduser(f"~{USER}")
    env = {"PATH": os.defpath, "HOME": home, "PYTHONDONTWRITEBYTECODE": "1"}
    base = _interpreter(become, env)
    top.chmod(0o755)
    checkout = top / "checkout"
    shutil.copytree(root, checkout, ignore=shutil.ignore_patterns(*LEFT_OUT), copy_function=_share)
    venv = top / "venv"
    subprocess.run([base, "-m", "venv", "--without-pip", venv], check=True, capture_output=True)
    python = venv / "bin" / "python"
    site = Path(_ask(python, "import sysconfig; print(sysconfig.get_path('purelib'))"))
    _copy_packages(site, checkout)
    _open_up(top)
    again = (
        "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import torch'], check=True)"
    )
    probe = [*become, "env", python, "-c", f"import grader; print(grader.__file__); {again}"]
    done = subprocess.run(probe, cwd=checkout, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().startswith(str(checkout)), done.stdout
    return Ordinary(become, python, checkout, env)


def _interpreter(become: list[str], env: dict[str, str]) -> str:
    """Return a Python of this version that the user can run (with venv), or raise."""
    candidates = [os.path.realpath(sys._base_executable)]
    candidates += [shutil.which(f"python{VERSION}", path=os.defpath) or ""]
    candidates += [shutil.which("python3", path=os.defpath) or ""]
    # setpriv itself may start a program that the user could not (seen with a pyenv Python in
    # root's 0700 home), so the probe goes through env, and the Python starts itself again as
    # the sandbox does.
    check = (
        "import subprocess, sys, venv; sys.exit(sys.version_info[:2] != "
        f"{sys.version_info[:2]} or subprocess.run([sys.executable, '-c', '']).returncode)"
    )
    for candidate in filter(None, dict.fromkeys(candidates)):
        probe = [*become, "env", candidate, "-c", check]
        if subprocess.run(probe, env=env, capture_output=True, cwd="/").returncode == 0:
            return candidate
    tried = ", ".join(filter(None, dict.fromkeys(candidates)))
    raise NoInterpreter(
        f"{USER} can run no Python {VERSION} with venv (tried {tried}):"
        f" install one it can reach, e.g. apt-get install python{VERSION}-venv"
    )


def _copy_packages(site: Path, checkout: Path) -> None:
    """Put .venv's installed packages in site, and the checkout where the editable install was."""
    ours = Path(sysconfig.get_path("purelib"))
    for entry in ours.iterdir():
        if entry.name.startswith("__editable__") or entry.name == "__pycache__":
            continue
        if entry.name.startswith("backprop_ninja") or entry.name.startswith("_backprop_ninja"):
            continue  # the project's own editable install points at the original checkout
        if entry.is_dir():
            shutil.copytree(entry, site / entry.name, symlinks=True, copy_function=_share)
        else:
            _share(entry, site / entry.name)
    (site / "backprop_ninja_checkout.pth").write_text(f"{checkout}\n")


def _share(source: str | Path, target: str | Path) -> None:
    """Hard-link source when everyone may read it already (a link shares its mode), else copy."""
    if os.stat(source).st_mode & 0o004:
        try:
            os.link(source, target)
            return
        except OSError:  # another file system, or links not allowed here
            pass
    shutil.copy2(source, target)
    mode = os.stat(target).st_mode
    os.chmod(target, mode | 0o044 | (0o011 if mode & 0o100 else 0))


def _open_up(top: Path) -> None:
    """Let everyone traverse and list the directories made under top (ours, all of them)."""
    for directory, _, _ in os.walk(top):
        os.chmod(directory, 0o755)


def _ask(python: Path, code: str) -> str:
    """Return what python prints for code."""
    done = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def temporary_top() -> Path:
    """Return a new directory for the copy, under the system's temporary directory."""
    return Path(tempfile.mkdtemp(prefix="bpn-ordinary-"))
