"""deploy/compose.yaml brought up with podman-compose as an operator would (PostgreSQL, the
migration, two replicas, the worker, HAProxy with TLS; the test provider added by
tests/deploy/provider/compose.yaml): a learner signs in through the provider and gets one
answer graded through HAProxy over HTTPS, the answer lands in PostgreSQL, the compose file's
backup service writes a backup, and `down -v` leaves nothing behind."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ..e2e.e2e_helpers import free_port
from .browserless import Browser
from .conftest import OUTPUT, ROOT, operator_tool, record
from .test_haproxy import certificate

COMPOSE = [str(Path(sys.executable).parent / "podman-compose")]
FILES = [ROOT / "deploy" / "compose.yaml", ROOT / "tests" / "deploy" / "provider" / "compose.yaml"]
ADA = {"sub": "ada", "name": "Ada Lovelace", "email": "ada@class.test", "email_verified": True}
UP_TIMEOUT = 600  # seconds for every part to answer on a busy machine
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]  # the image's build comes first


def provider_lock(folder: Path) -> Path:
    """Write the dev lock's entries (with hashes) of the test provider and what it needs that
    the app's lock lacks."""
    import importlib.metadata as metadata

    from packaging.requirements import Requirement

    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    needed, todo = set(), ["oidc-provider-mock"]
    while todo:
        name = norm(todo.pop())
        if name not in needed:
            needed.add(name)
            reqs = [Requirement(r) for r in metadata.requires(name) or []]
            todo += [r.name for r in reqs if not r.marker or r.marker.evaluate({"extra": ""})]
    app = (ROOT / "requirements.lock").read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / "requirements-dev.lock").read_text())
    wanted = [b for b in blocks if "==" in b and norm(b.split("==")[0]) in needed]
    wanted = [b for b in wanted if f"\n{b.split(' ')[0]}" not in f"\n{app}"]
    path = folder / "provider.lock"
    path.write_text("\n".join(line for b in wanted for line in b.splitlines()
                              if not line.strip().startswith("#")) + "\n")  # fmt: skip
    return path


def build_provider(image, folder: Path) -> str:
    """Build the provider's image on the app's, from wheels fetched with the app's."""
    lock = provider_lock(folder)
    wheels = operator_tool("image").wheels(image.cache, lock)
    tag = f"localhost/backprop-ninja-test-provider:{image.version}"
    image.podman.run(
        "build", "--file", str(ROOT / "tests" / "deploy" / "provider" / "Containerfile"),
        "--tag", tag, "--build-arg", f"IMAGE={image.tag}", "--build-context",
        f"wheels={wheels}", str(folder), timeout=900,
    )  # fmt: skip
    return tag


def secrets(folder: Path, https: int) -> Path:
    """Write the stack's secrets as docs/operations.md says (a folder only root may enter)."""
    folder.mkdir(mode=0o700)
    password = uuid.uuid4().hex
    (folder / "database-password").write_text(password + "\n")
    (folder / "database-url").write_text(f"postgresql://ninja:{password}@postgres:5432/ninja\n")
    (folder / "auth.toml").write_text(
        "[auth]\n"
        f'redirect_uri = "https://127.0.0.1:{https}/oauth2callback"\n'
        f'cookie_secret = "{uuid.uuid4().hex}"\n'
        'client_id = "backprop-ninja"\n'
        f'client_secret = "{uuid.uuid4().hex}"\n'
        'server_metadata_url = "http://provider:9400/.well-known/openid-configuration"\n'
    )
    (folder / "site.pem").write_bytes(certificate(folder.parent).read_bytes())
    for path in folder.iterdir():
        path.chmod(0o644)  # bind-mounted: read by the containers' users; the folder is 0700
    return folder


def distinct_ports(count: int) -> list[int]:
    """Return count loopback ports that nothing listens on, all different."""
    found: list[int] = []
    while len(found) < count:
        port = free_port()
        if port not in found:
            found.append(port)
    return found


class Stack:
    """One compose project of this test: its command, environment and addresses."""

    def __init__(self, image, folder: Path):
        self.project = f"bpn-test-{uuid.uuid4().hex[:8]}"
        provider_image = build_provider(image, folder)  # first: the ports are taken just after
        self.https, self.http, self.provider = distinct_ports(3)
        self.base = f"https://127.0.0.1:{self.https}"
        self.site = folder / "site.pem"
        self.env = {
            **image.podman.env,
            "SECRETS_DIR": str(secrets(folder / "secrets", self.https)),
            "IMAGE_TAG": image.version,
            "HTTP_PUBLISH": f"127.0.0.1:{self.http}",
            "HTTPS_PUBLISH": f"127.0.0.1:{self.https}",
            "PROVIDER_IMAGE": provider_image,
            "PROVIDER_PORT": str(self.provider),
            "PROVIDER_CLAIMS": json.dumps(ADA),
        }
        self.podman = image.podman

    def compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        files = [arg for path in FILES for arg in ("-f", str(path))]
        return subprocess.run(
            [*COMPOSE, "-p", self.project, *files, *args], env=self.env, cwd=ROOT,
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def browser(self) -> Browser:
        """Return a new browser that trusts the stack's certificate and finds the provider."""
        return Browser(self.site, {"provider:9400": f"127.0.0.1:{self.provider}"})

    def psql(self, sql: str) -> str:
        done = self.podman.run("exec", f"{self.project}_postgres_1", "psql", "-U", "ninja",
                               "-d", "ninja", "-tAc", sql)  # fmt: skip
        return done.stdout.strip()

    def leftovers(self) -> list[str]:
        """Return the containers and volumes of this project that still exist."""
        label = f"label=io.podman.compose.project={self.project}"
        found = []
        for kind in ("ps", "volume"):
            listed = ["ps", "-a", "-q"] if kind == "ps" else ["volume", "ls", "-q"]
            found += self.podman.run(*listed, "--filter", label).stdout.split()
        return found


def wait_until_served(stack: Stack) -> None:
    """Wait until HAProxy serves both replicas over HTTPS and the provider answers (each probe
    a new browser: without the affinity cookie, round robin shows both replicas)."""
    deadline, seen = time.monotonic() + UP_TIMEOUT, set()
    discovery = "http://provider:9400/.well-known/openid-configuration"
    while True:
        browser = stack.browser()
        health = browser.answer(f"{stack.base}/_stcore/health")
        if health is not None and health.status == 200:
            seen.add(health.replica)
        provider = browser.answer(discovery)
        if len(seen) == 2 and provider is not None and provider.status == 200:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the stack did not serve within {UP_TIMEOUT} s: {seen}")
        time.sleep(1)


@pytest.fixture(scope="module")
def stack(image, tmp_path_factory):
    """Yield the running stack; take it down with its volumes after."""
    folder = tmp_path_factory.mktemp("compose")
    stack = Stack(image, folder)
    started = time.monotonic()
    up = stack.compose("up", "-d")
    (OUTPUT / "compose-up.log").write_text(up.stdout + up.stderr)
    try:
        assert up.returncode == 0, up.stderr[-3000:]
        wait_until_served(stack)
        record("compose up until served", time.monotonic() - started)
        yield stack
    finally:
        logs = stack.compose("logs", timeout=120)
        (OUTPUT / "compose.log").write_text(logs.stdout + logs.stderr)
        started = time.monotonic()
        down = stack.compose("down", "-v", timeout=300)
        record("compose down -v", time.monotonic() - started)
        image.podman.run("rmi", stack.env["PROVIDER_IMAGE"], check=False, timeout=300)
    assert down.returncode == 0, down.stderr[-3000:]
    assert stack.leftovers() == []


def test_a_learner_signs_in_and_gets_an_answer_graded_through_haproxy(stack):
    browser = stack.browser()
    browser.sign_in(stack.base, "ada")
    code = (ROOT / "solutions" / "01_mlp" / "dlogprobs.py").read_text()
    verdict = browser.submit(stack.base, "dlogprobs", code)
    assert verdict.kind == "solved", verdict.text
    assert stack.psql("SELECT count(*) FROM attempts WHERE exercise_id = 'dlogprobs'") == "1"
    assert browser.set_cookies and all("; Secure" in c for c in browser.set_cookies)


def test_the_backup_service_writes_a_backup_into_its_volume(stack):
    done = stack.compose("--profile", "backup", "run", "--rm", "backup", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    written = r"backed up to /var/backups/backprop-ninja/progress-\d+T\d+Z\.pgdump"
    assert re.search(written, done.stdout), done.stdout
