"""The classroom mode's settings, and the check that refuses a bad configuration before the
server starts (`python -m app.config`, run for real in a subprocess, as scripts/run runs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.config import ConfigError, check_secrets, from_env

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "a long random string",
    "client_id": "ninja",
    "client_secret": "s3cret",
    "server_metadata_url": "https://id.uni.edu/.well-known/openid-configuration",
}


def test_the_local_mode_is_the_default_and_has_no_roles():
    config = from_env({})
    assert config.mode == "local" and not config.classroom
    assert config.instructors == () and config.instructor_claim is None
    check_secrets(config, {})  # the local mode needs no [auth]


def test_the_classroom_mode_reads_its_roles():
    config = from_env(
        {
            "NINJA_MODE": "classroom",
            "NINJA_INSTRUCTORS": " Ada@Uni.edu, bob@uni.edu ,",
            "NINJA_INSTRUCTOR_CLAIM": "groups = staff",
        }
    )
    assert config.classroom
    assert config.instructors == ("ada@uni.edu", "bob@uni.edu")
    assert config.instructor_claim == ("groups", "staff")
    check_secrets(config, {"auth": AUTH})


REFUSED = [
    ({"NINJA_MODE": "class"}, "`NINJA_MODE` must be one of local, classroom: got 'class'."),
    ({"NINJA_INSTRUCTORS": "a@uni.edu"}, "`NINJA_INSTRUCTORS` needs `NINJA_MODE=classroom`"),
    ({"NINJA_INSTRUCTOR_CLAIM": "groups=staff"}, "`NINJA_INSTRUCTOR_CLAIM` needs `NINJA_MODE="),
    (
        {"NINJA_MODE": "classroom", "NINJA_INSTRUCTORS": "ada"},
        "`NINJA_INSTRUCTORS` must be e-mail addresses separated by commas: got 'ada'.",
    ),
    (
        {"NINJA_MODE": "classroom", "NINJA_INSTRUCTOR_CLAIM": "staff"},
        "`NINJA_INSTRUCTOR_CLAIM` must be claim=value (e.g. groups=staff): got 'staff'.",
    ),
]


@pytest.mark.parametrize(("environ", "message"), REFUSED, ids=[m[:28] for _, m in REFUSED])
def test_a_bad_mode_or_role_setting_is_refused(environ, message):
    with pytest.raises(ConfigError) as refused:
        from_env(environ)
    assert str(refused.value).startswith(message)


BAD_SECRETS = [
    ({}, "`NINJA_MODE=classroom` needs an [auth] section in .streamlit/secrets.toml"),
    ({"auth": "x"}, "`NINJA_MODE=classroom` needs an [auth] section in .streamlit/secrets.toml"),
    (
        {"auth": {**AUTH, "client_secret": "", "cookie_secret": None}},
        "The [auth] section of .streamlit/secrets.toml lacks cookie_secret, client_secret",
    ),
    (
        {"auth": {**AUTH, "redirect_uri": "http://localhost:8501/"}},
        "[auth] redirect_uri must end with /oauth2callback: got 'http://localhost:8501/'.",
    ),
]


@pytest.mark.parametrize(("secrets", "message"), BAD_SECRETS, ids=["none", "text", "keys", "uri"])
def test_the_classroom_mode_needs_a_whole_auth_section(secrets, message):
    with pytest.raises(ConfigError) as refused:
        check_secrets(from_env({"NINJA_MODE": "classroom"}), secrets)
    assert str(refused.value).startswith(message)


def check(
    folder: Path, settings: dict, secrets: str | None = None, args: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """Run `python -m app.config [args]` from folder (its .streamlit/secrets.toml, if given),
    with the NINJA_* settings given and no others, and a home of its own (no global secrets)."""
    home = folder / "home"
    home.mkdir(exist_ok=True)
    if secrets is not None:
        (folder / ".streamlit").mkdir(exist_ok=True)
        (folder / ".streamlit" / "secrets.toml").write_text(secrets)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NINJA_", "STREAMLIT_"))}
    env = {**clean, "HOME": str(home), **settings}
    command = [sys.executable, "-m", "app.config", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def auth_toml(**changes) -> str:
    """Return an [auth] section for secrets.toml: AUTH with changes."""
    lines = [f'{key} = "{value}"' for key, value in {**AUTH, **changes}.items()]
    return "[auth]\n" + "\n".join(lines) + "\n"


# The classroom mode runs on PostgreSQL (app/config/settings.py check_database); not reached here.
CLASSROOM_DB = {"NINJA_MODE": "classroom", "NINJA_DATABASE_URL": "postgresql://ninja@db/class"}
CHECKS = [
    ({"NINJA_DATADIR": "/tmp"}, None, "`NINJA_DATADIR` is not a setting; known settings:"),
    ({"NINJA_TIME_LIMIT": "forever"}, None, "`NINJA_TIME_LIMIT` must be a number of seconds"),
    ({"NINJA_MODE": "school"}, None, "`NINJA_MODE` must be one of local, classroom"),
    ({"NINJA_INSTRUCTORS": "a@uni.edu"}, None, "`NINJA_INSTRUCTORS` needs `NINJA_MODE=classroom`"),
    ({"NINJA_MODE": "classroom"}, None, "`NINJA_MODE=classroom` needs an [auth] section"),
    ({"NINJA_MODE": "classroom"}, "[server]\n", "`NINJA_MODE=classroom` needs an [auth] section"),
    ({"NINJA_MODE": "classroom"}, auth_toml(client_id=""), "[auth] section of .streamlit/secr"),
    ({"NINJA_MODE": "classroom"}, "[auth\n", ".streamlit/secrets.toml is not a readable TOML"),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("settings", "secrets", "message"), CHECKS, ids=[c[2][:30] for c in CHECKS]
)
def test_the_check_command_refuses_with_one_line(tmp_path, settings, secrets, message):
    done = check(tmp_path, settings, secrets)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("Not starting: ") and message in line, line
    assert done.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("settings", "secrets"),
    [({}, None), ({"NINJA_MODE": "local"}, None), (CLASSROOM_DB, auth_toml())],
    ids=["default", "local", "classroom"],
)
def test_the_check_command_passes_a_usable_configuration_quietly(tmp_path, settings, secrets):
    done = check(tmp_path, settings, secrets)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.slow
@pytest.mark.parametrize("form", ["two words", "equals"])
def test_the_check_reads_the_secrets_file_named_on_the_command_line(tmp_path, form):
    """scripts/run passes its options on: a file named by `--secrets.files` is the one read,
    as Streamlit will read it (the checkout's .streamlit/secrets.toml here lacks [auth])."""
    named = tmp_path / "class secrets.toml"
    named.write_text(auth_toml())
    joined = (f"--secrets.files={named}",)
    option = ("--secrets.files", str(named)) if form == "two words" else joined
    args = ("--server.port", "8600", *option)
    done = check(tmp_path, CLASSROOM_DB, "[server]\n", args)
    assert (done.returncode, done.stderr) == (0, "")
    named.write_text("[server]\n")
    refused = check(tmp_path, CLASSROOM_DB, auth_toml(), args)
    assert refused.returncode == 2 and "needs an [auth] section" in refused.stderr


@pytest.mark.slow
def test_the_check_reads_the_secrets_file_named_by_the_environment(tmp_path):
    """NINJA_SECRETS_FILE names a secrets.toml outside the checkout (a systemd credential, a
    container secret): the check reads it as scripts/serve hands it to Streamlit."""
    named = tmp_path / "credentials" / "secrets.toml"
    named.parent.mkdir()
    named.write_text(auth_toml())
    settings = {**CLASSROOM_DB, "NINJA_SECRETS_FILE": str(named)}
    done = check(tmp_path, settings, "[server]\n")
    assert (done.returncode, done.stderr) == (0, "")
    named.write_text("[server]\n")
    refused = check(tmp_path, settings, auth_toml())
    assert refused.returncode == 2 and "needs an [auth] section" in refused.stderr


SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"


def commands_of(script: str) -> list[str]:
    """Return a shell script's command lines (no comments, no blank lines)."""
    lines = [line.strip() for line in (SCRIPTS / script).read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_scripts_run_checks_the_configuration_before_it_serves():
    """scripts/run is not started here (it installs the locked requirements first): it sets up,
    then hands over to scripts/serve, whose lines are the check above, then Streamlit, and
    nothing of a database server or a sign-in (and no installation: services run it)."""
    run = commands_of("run")
    assert run[-2:] == ["scripts/setup", 'exec scripts/serve "$@"']
    commands = commands_of("serve")
    check = commands.index('.venv/bin/python -m app.config "$@"')
    serve = next(i for i, c in enumerate(commands) if "-m streamlit run app/server.py" in c)
    assert commands[serve].startswith("exec ") and check < serve
    assert not any(word in c.lower() for c in commands for word in ("postgres", "auth", "login"))
    installs = ("scripts/setup", "pip", "apt-get")
    assert not any(word in c.split() for c in commands for word in installs)


def test_the_local_instructor_switch_is_refused_in_the_classroom_mode():
    assert from_env({"NINJA_INSTRUCTOR": "0"}).instructor is False
    with pytest.raises(ConfigError, match="`NINJA_INSTRUCTOR` is for the local mode"):
        from_env({"NINJA_MODE": "classroom", "NINJA_INSTRUCTOR": "0"})
