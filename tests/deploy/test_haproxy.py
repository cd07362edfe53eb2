"""deploy/haproxy.cfg through Debian's real HAProxy: a plain request is redirected to HTTPS, an
HTTPS response carries HSTS, every cookie (a replica's, the proxy's affinity cookie) is marked
Secure, a replica whose readiness (/ready) says 503 is taken out and put back once it says 200
(with none ready, the proxy's own page says so), and learners get 404 at /ready and /metrics.
The certificate is made here with openssl; the two replicas are small HTTP servers in this
process that answer the health check as told and set a cookie as Streamlit does (the real app
behind the proxy: tests/deploy/test_compose.py, and tests/e2e/test_stack.py's readiness)."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import os
import shutil
import signal
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

from ..e2e.e2e_helpers import free_port

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "haproxy.cfg"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
HSTS = "max-age=63072000"
# The cookies Streamlit sets, as it sets them (without Secure).
STREAMLIT_COOKIES = ("_streamlit_xsrf=2|ab|cd|1; Path=/; SameSite=Lax",
                     "_streamlit_user=e30; HttpOnly; Path=/; SameSite=lax")  # fmt: skip


not_ready: set[int] = set()  # the ports of the replicas whose /ready says 503
health_checks: set[str] = set()  # the paths HAProxy's health checks asked for


class Replica(http.server.BaseHTTPRequestHandler):
    """Answer every GET with 200, Streamlit's cookies, and the forwarded scheme it was told;
    /ready with 503 while its port is in not_ready."""

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        body = (self.headers.get("X-Forwarded-Proto") or "none").encode()
        if self.headers.get("X-Forwarded-Proto") is None:  # not a learner's: the proxy's check
            health_checks.add(self.path)
        ready = self.path != "/ready" or self.server.server_port not in not_ready
        self.send_response(200 if ready else 503)
        for cookie in STREAMLIT_COOKIES:
            self.send_header("Set-Cookie", cookie)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def certificate(folder: Path) -> Path:
    """Make a self-signed certificate for 127.0.0.1 and its key in one PEM file."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    both = folder / "site.pem"
    both.write_bytes(cert.read_bytes() + key.read_bytes())
    return both


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """Yield (http port, https port, the certificate) of HAProxy started with deploy/haproxy.cfg
    in front of two replicas that answer."""
    if not Path(HAPROXY).exists() or not shutil.which("openssl"):
        pytest.skip("HAProxy or openssl is not installed (apt-get install haproxy openssl)")
    folder = tmp_path_factory.mktemp("proxy")
    site = certificate(folder)
    replicas = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), Replica) for _ in range(2)]
    for server in replicas:
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    ports = free_port(), free_port()
    env = {
        **os.environ, "PROXY_HTTP": f"127.0.0.1:{ports[0]}",
        "PROXY_HTTPS": f"127.0.0.1:{ports[1]}", "PROXY_TLS_CERT": str(site),
        **{f"REPLICA{i}": f"127.0.0.1:{s.server_port}" for i, s in enumerate(replicas, 1)},
    }  # fmt: skip
    log = (folder / "haproxy.log").open("wb")
    process = subprocess.Popen([HAPROXY, "-db", "-f", str(CONFIG)], env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    try:
        wait_for_replicas(ports[1], site)
        yield ports[0], ports[1], site, [server.server_port for server in replicas]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        for server in replicas:
            server.shutdown()


def wait_for_replicas(port: int, site: Path, timeout: float = 30) -> None:
    """Wait until HAProxy answers over TLS with both replicas up (its health checks passed)."""
    deadline = time.monotonic() + timeout
    seen = set()
    while len(seen) < 2:
        with contextlib.suppress(OSError, http.client.HTTPException):
            seen.add(get_tls(port, site, "/").getheader("X-Ninja-Replica"))
        seen.discard(None)
        assert time.monotonic() < deadline, f"HAProxy did not serve both replicas: {seen}"
        time.sleep(0.2)


def get_tls(port: int, site: Path, path: str) -> http.client.HTTPResponse:
    """GET path over HTTPS, trusting only the test's certificate."""
    context = ssl.create_default_context(cafile=str(site))
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    return response


def test_plain_http_is_redirected_to_https(proxy):
    http_port, _, _, _ = proxy
    connection = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
    connection.request("GET", "/dlogprobs?x=1")
    response = connection.getresponse()
    assert response.status == 301
    assert response.getheader("Location") == f"https://127.0.0.1:{http_port}/dlogprobs?x=1"
    assert response.getheader("Strict-Transport-Security") is None  # only over HTTPS


def test_https_answers_with_hsts_and_tells_the_replica_it_is_https(proxy):
    _, https_port, site, _ = proxy
    context = ssl.create_default_context(cafile=str(site))
    connection = http.client.HTTPSConnection("127.0.0.1", https_port, context=context)
    connection.request("GET", "/")
    response = connection.getresponse()
    assert (response.status, response.read()) == (200, b"https")
    assert response.getheader("Strict-Transport-Security") == HSTS
    assert connection.sock.version() in ("TLSv1.2", "TLSv1.3")


def test_every_cookie_is_marked_secure_over_https(proxy):
    _, https_port, site, _ = proxy
    cookies = get_tls(https_port, site, "/").headers.get_all("Set-Cookie")
    names = sorted(cookie.split("=", 1)[0] for cookie in cookies)
    assert names == ["NINJA_REPLICA", "_streamlit_user", "_streamlit_xsrf"]
    for cookie in cookies:
        flags = [part.strip().lower() for part in cookie.split(";")[1:]]
        assert flags.count("secure") == 1, cookie


def test_learners_get_404_at_the_replicas_readiness_and_metrics(proxy):
    _, https_port, site, _ = proxy
    for path in ("/ready", "/metrics", "/metrics?x=1"):
        response = get_tls(https_port, site, path)
        assert response.status == 404 and response.getheader("X-Ninja-Replica") is None, path


def test_a_replica_not_ready_is_taken_out_and_put_back(proxy):
    _, https_port, site, (first, second) = proxy
    assert health_checks == {"/ready"}, "the proxy asks each replica's readiness, nothing else"
    not_ready.add(first)
    try:
        _until(https_port, site, lambda names: names == {"replica2"})  # out: all go to the other
        not_ready.add(second)
        response = _until(https_port, site, lambda names: names == {None})
        assert (
            response.status == 503 and b"The course is not answering right now" in response.read()
        )
    finally:
        not_ready.clear()
    wait_for_replicas(https_port, site)  # both back


def _until(port: int, site: Path, done, timeout: float = 60) -> http.client.HTTPResponse:
    """Ask the proxy (new connections, no cookie) until the replicas that answer six requests in
    a row satisfy done(names); return the last response, its body unread."""
    deadline = time.monotonic() + timeout  # a wait, not a bound: checks are 2 s apart
    while True:
        names, last = set(), None
        for _ in range(6):
            last = _get(port, site, "/")
            names.add(last.getheader("X-Ninja-Replica"))
        if done(names):
            return last
        assert time.monotonic() < deadline, f"the proxy still sends to {names}"
        time.sleep(0.5)


def _get(port: int, site: Path, path: str) -> http.client.HTTPResponse:
    """GET path over HTTPS; the body is left to read."""
    context = ssl.create_default_context(cafile=str(site))
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    connection.request("GET", path)
    return connection.getresponse()
