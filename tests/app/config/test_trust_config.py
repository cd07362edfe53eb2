"""The classroom's trust settings (app/config/trust.py): instructors by identity, issuer and
tenant, sign-in lifetimes and quotas read and checked; a configuration that would trust an
e-mail address nobody verified refused before the server starts, with the reason in one line."""

from __future__ import annotations

import pytest

from app.config import ConfigError, check_secrets, from_env

from .test_classroom_config import AUTH, CLASSROOM_DB, auth_toml, check

ENTRA = "https://login.microsoftonline.com/{}/v2.0/.well-known/openid-configuration"


def test_the_trust_settings_are_read_with_lab_defaults():
    config = from_env({"NINJA_MODE": "classroom"})
    assert (config.session_idle, config.session_absolute) == (7200.0, 43200.0)
    assert (config.quota_runs, config.quota_word_lists, config.quota_attempts) == (1, 10, 30)
    assert config.quota_draft_kib == 64
    config = from_env(
        {
            "NINJA_MODE": "classroom",
            "NINJA_INSTRUCTOR_IDS": "https://id.uni.edu 42 , http://127.0.0.1:9 ivy",
            "NINJA_ISSUER": "https://id.uni.edu/",
            "NINJA_TENANT": " t-1 ",
            "NINJA_SESSION_IDLE": "600",
            "NINJA_SESSION_ABSOLUTE": "3600",
        }
    )
    assert config.instructor_ids == ("https://id.uni.edu 42", "http://127.0.0.1:9 ivy")
    assert (config.issuer, config.tenant) == ("https://id.uni.edu", "t-1")
    assert (config.session_idle, config.session_absolute) == (600.0, 3600.0)


CLASSROOM = {"NINJA_MODE": "classroom"}
REFUSED = [
    ({**CLASSROOM, "NINJA_INSTRUCTOR_CLAIM": "email=ivy@uni.edu"}, "names `email`, which a person"),
    ({**CLASSROOM, "NINJA_INSTRUCTOR_CLAIM": "preferred_username=ivy"}, "which a person can set"),
    ({**CLASSROOM, "NINJA_INSTRUCTOR_IDS": "ivy"}, "must be identities `<issuer> <subject>`"),
    ({**CLASSROOM, "NINJA_ISSUER": "id.uni.edu"}, "`NINJA_ISSUER` must be an https:// address"),
    ({**CLASSROOM, "NINJA_SESSION_IDLE": "99999"}, "idle at most absolute"),
    ({**CLASSROOM, "NINJA_SESSION_ABSOLUTE": "3000000"}, "absolute at most 2592000 s"),
    ({**CLASSROOM, "NINJA_SESSION_IDLE": "0"}, "must be above 0"),
    ({"NINJA_QUOTA_ATTEMPTS": "0"}, "`NINJA_QUOTA_ATTEMPTS` must be at least 1"),
    ({"NINJA_QUOTA_RUNS": "0"}, "`NINJA_QUOTA_RUNS` must be at least 1"),
    ({"NINJA_QUOTA_DRAFT_KIB": "4096"}, "`NINJA_QUOTA_DRAFT_KIB` must be 1 to 1024"),
    ({"NINJA_TENANT": "t"}, "`NINJA_TENANT` needs `NINJA_MODE=classroom`"),
]


@pytest.mark.parametrize(("environ", "message"), REFUSED, ids=[m[:24] for _, m in REFUSED])
def test_a_trust_setting_the_app_would_misuse_is_refused(environ, message):
    with pytest.raises(ConfigError, match=None) as refused:
        from_env(environ)
    assert message in str(refused.value)


def test_email_roles_with_a_provider_that_does_not_verify_email_are_refused():
    config = from_env({**CLASSROOM, "NINJA_INSTRUCTORS": "ivy@uni.edu"})
    entra = {"auth": {**AUTH, "server_metadata_url": ENTRA.format("1234-tenant")}}
    with pytest.raises(ConfigError, match="sends no `email_verified`"):
        check_secrets(config, entra)
    check_secrets(config, {"auth": AUTH})  # a provider that says so: accepted
    by_group = from_env({**CLASSROOM, "NINJA_INSTRUCTOR_CLAIM": "groups=staff"})
    check_secrets(by_group, entra)  # a group claim from one tenant's endpoint: accepted
    common = {"auth": {**AUTH, "server_metadata_url": ENTRA.format("common")}}
    with pytest.raises(ConfigError, match="needs `NINJA_TENANT`"):
        check_secrets(by_group, common)
    pinned = from_env({**CLASSROOM, "NINJA_INSTRUCTOR_CLAIM": "groups=staff", "NINJA_TENANT": "t"})
    check_secrets(pinned, common)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"NINJA_INSTRUCTORS": "ivy@uni.edu"}, "sends no `email_verified`"),
        ({"NINJA_INSTRUCTOR_CLAIM": "email=ivy@uni.edu"}, "names `email`, which a person"),
    ],
    ids=["entra e-mail", "email claim"],
)
def test_the_check_command_refuses_trust_in_unverified_email_in_one_line(
    tmp_path, settings, message
):
    secrets = auth_toml(server_metadata_url=ENTRA.format("1234-tenant"))
    done = check(tmp_path, {**CLASSROOM_DB, **settings}, secrets)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("Not starting: ") and message in line, line
