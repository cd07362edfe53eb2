"""The image (deploy/Containerfile, built by deploy/image): the command line's `doctor` and
`check` inside it with every sandbox layer on, given what docs/operations.md says the runtime
must allow; refusing to start in the classroom mode without them; an unprivileged user, no
compiler, and no setuid program but the uid mappers."""

from __future__ import annotations

import pytest

from .conftest import record

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]  # the image's build comes first

# What docs/operations.md and deploy/compose.yaml give the sandbox (measured: all layers on).
SANDBOX = ("--cap-drop=ALL", "--cap-add=SYS_ADMIN,SETUID,SETGID,DAC_OVERRIDE",
           "--security-opt=systempaths=unconfined")  # fmt: skip
LAYERS = 15  # the sandbox's 14 and the exercise language's check (doctor counts both)


def run(image, *args: str, timeout: float = 600):
    """Run a throwaway container of the image; return the finished process."""
    return image.podman.run("run", "--rm", *args, check=False, timeout=timeout)


def test_doctor_inside_finds_every_sandbox_layer_on(image):
    done = run(image, *SANDBOX, image.tag, "grader", "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{LAYERS} of {LAYERS} layers on." in done.stdout


def test_check_inside_grades_an_answer_in_the_sandbox(image):
    answer = "solutions/01_mlp/dcounts.py"
    done = run(image, *SANDBOX, image.tag, "grader", "check", answer, "--exercise", "dcounts")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("dcounts: solved")
    typed = "echo 'dcounts = counts * 0' | python -m grader check - --exercise dcounts"
    wrong = run(image, *SANDBOX, "--entrypoint=bash", image.tag, "-c", typed)
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr


def test_the_classroom_refuses_to_start_when_the_runtime_withholds_layers(image):
    """Without the capabilities and /proc the sandbox needs, a replica and a worker in the
    classroom mode exit at once, saying so (they never reach the database)."""
    classroom = ("--env=NINJA_MODE=classroom",
                 "--env=NINJA_DATABASE_URL=postgresql://ninja@nowhere.invalid/ninja")  # fmt: skip
    for role in ("replica", "worker"):
        done = run(image, *classroom, image.tag, role, timeout=300)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Not starting: NINJA_REQUIRE_ALL_LAYERS is set" in done.stderr
        assert f"{LAYERS - 2} of {LAYERS} layers on." in done.stderr  # ipc and uid withheld


def test_the_image_runs_as_ninja_without_a_compiler_secrets_or_stray_setuid_programs(image):
    script = (
        "id -un; command -v cc gcc c++ clang || echo no-compiler;"
        " find / -xdev -perm -4000 -type f | sort;"
        " ls -A .streamlit; test -e var && echo var || echo no-var"
    )
    done = run(image, "--entrypoint=bash", image.tag, "-c", script)
    lines = done.stdout.split()
    assert lines[:4] == ["ninja", "no-compiler", "/usr/bin/newgidmap", "/usr/bin/newuidmap"], lines
    assert lines[4:] == ["config.toml", "no-var"], "no secrets.toml, no var/ of the checkout's"
    size = image.podman.run("image", "inspect", "--format", "{{.Size}}", image.tag).stdout
    record("image size (MB)", int(size) / 1e6)
