"""The whole classroom stack on one machine, without containers: `deploy/stack up|status|down`.

`up` starts, all on loopback: PostgreSQL (a data directory of its own), the OpenID Connect test
provider with three test accounts, two app replicas in the classroom mode, HAProxy in front
of them, and one training worker (`python -m app.training`, the task queue's); it waits until
every part answers, then prints the address and the accounts. `status` says which parts run
and answer; `down` stops every part it started, by the pid it recorded.

Everything the stack keeps (pids, logs, the secrets it made, the replicas' data) is in one folder,
`var/stack` by default (`--dir`). PostgreSQL refuses to run as root: run as root, the stack runs it
as Debian's `postgres` user, with its data in a folder that user owns.

For demos, tests and small classes; a real deployment uses the same pieces one per machine
(deploy/haproxy.cfg, deploy/systemd/, deploy/classroom.env.example; docs/classroom.md).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
HOST = "127.0.0.1"
REPLICAS = 2
START_TIMEOUT = 180.0  # seconds for every part to answer (a replica's first start sets up)
DATABASE, DB_USER = "ninja", "ninja"
# Roles come only from tokens of this tenant (`tid`, as Microsoft Entra names it): instructors
# by their verified e-mail (Ivy) or by the group `staff`, which no account here carries.
INSTRUCTORS, INSTRUCTOR_CLAIM, TENANT = "ivy@class.test", "groups=staff", "class-tenant"
ACCOUNTS = {  # the test provider's accounts: subject -> claims
    "ada": {"name": "Ada Lovelace", "email": "ada@class.test", "email_verified": True},
    "bob": {"name": "Bob Babbage", "email": "bob@class.test", "email_verified": True},
    "ivy": {"name": "Ivy Instructor", "email": "ivy@class.test", "email_verified": True},
}
ACCOUNTS = {sub: {**claims, "tid": TENANT} for sub, claims in ACCOUNTS.items()}


class StackError(RuntimeError):
    """A part could not start, or a tool it needs is missing: one line for the operator."""


@dataclass(frozen=True)
class Ports:
    proxy: int
    postgres: int
    provider: int
    replicas: tuple[int, ...]


# Where things are ------------------------------------------------------------------------------


def state_file(folder: Path) -> Path:
    return folder / "stack.json"


def load_state(folder: Path) -> dict:
    """Return what `up` recorded (pids, ports, paths), {} if nothing runs from this folder."""
    try:
        return json.loads(state_file(folder).read_text())
    except (OSError, ValueError):
        return {}


def save_state(folder: Path, state: dict) -> None:
    path = state_file(folder)
    path.with_suffix(".tmp").write_text(json.dumps(state, indent=2))
    path.with_suffix(".tmp").replace(path)


def postgres_bin() -> Path:
    """Return the folder of Debian's PostgreSQL server programs (the newest installed)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: p.parts[-3])
    if not found:
        raise StackError(
            "PostgreSQL's server is not installed: `apt-get install postgresql` (Debian)."
        )
    return found[-1].parent


def haproxy() -> str:
    found = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None
    )
    if not found:
        raise StackError("HAProxy is not installed: `apt-get install haproxy` (Debian).")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def pick_ports(proxy: int) -> Ports:
    return Ports(proxy, free_port(), free_port(), tuple(free_port() for _ in range(REPLICAS)))


# PostgreSQL ------------------------------------------------------------------------------------


def as_postgres_user() -> list[str]:
    """Return the prefix that runs a PostgreSQL program: nothing, or (as root) setpriv to the
    `postgres` user, since the server refuses to run as root."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise StackError("Run as root, the stack needs Debian's `postgres` user.") from None
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]


def postgres_home(folder: Path) -> Path:
    """Return PostgreSQL's folder: inside the stack's folder, or (as root) a folder the postgres
    user owns under /var/tmp, named after the stack's folder (which postgres may not reach)."""
    if os.geteuid() != 0:
        return folder / "postgres"
    tag = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    return Path("/var/tmp") / f"backprop-ninja-stack-{tag}"


def start_postgres(folder: Path, port: int, password: str) -> tuple[Path, str]:
    """Create the cluster on first use, start it on HOST:port, make the database; return the
    cluster's folder and the database URL."""
    home, bin_dir, prefix = postgres_home(folder), postgres_bin(), as_postgres_user()
    data = home / "data"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    if prefix:
        shutil.chown(home, "postgres", "postgres")
    if not (data / "PG_VERSION").exists():
        secret = home / "password"
        secret.write_text(password + "\n")
        secret.chmod(0o600)
        if prefix:
            shutil.chown(secret, "postgres", "postgres")
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", DB_USER, "--auth=scram-sha-256"]
        run(prefix + [*initdb, f"--pwfile={secret}", "--encoding=UTF8", "--locale=C"], home)
        secret.unlink()
    options = f"-c listen_addresses={HOST} -c port={port} -c unix_socket_directories=''"
    ctl = [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(home / "server.log"), "-w"]
    run(prefix + [*ctl, "-o", options, "start"], home)
    url = f"postgresql://{DB_USER}:{password}@{HOST}:{port}/{DATABASE}"
    env = {**os.environ, "PGPASSWORD": password}
    exists = subprocess.run(
        [str(bin_dir / "psql"), "-h", HOST, "-p", str(port), "-U", DB_USER, "-d", "postgres",
         "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'"],
        env=env, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    if exists.returncode != 0:
        raise StackError(f"PostgreSQL refused the stack's user: {exists.stderr.strip()}")
    if exists.stdout.strip() != "1":
        createdb = [str(bin_dir / "createdb"), "-h", HOST, "-p", str(port), "-U", DB_USER, DATABASE]
        made = subprocess.run(createdb, env=env, capture_output=True, text=True, timeout=60)
        if made.returncode != 0:
            raise StackError(f"createdb failed: {made.stderr.strip()}")
    return home, url


def stop_postgres(home: str) -> None:
    data = Path(home) / "data"
    if (data / "postmaster.pid").exists():
        ctl = [str(postgres_bin() / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]
        subprocess.run(as_postgres_user() + ctl, capture_output=True, check=False, timeout=120)


def run(command: list[str], cwd: Path) -> None:
    """Run a set-up command; a failure is a StackError carrying its output."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise StackError(f"{Path(command[0]).name} failed: {(done.stderr or done.stdout).strip()}")


# Processes the stack owns ----------------------------------------------------------------------


def spawn(name: str, command: list[str], folder: Path, env: dict | None = None) -> dict:
    """Start a long-running part in a session of its own, its output in <folder>/logs/<name>.log;
    return its record (pid, log)."""
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    log = logs / f"{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env or os.environ.copy(), stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    return {"pid": process.pid, "log": str(log), "started": started_at(process.pid)}


def started_at(pid: int) -> str:
    """Return the process's start time from /proc (so a recycled pid is never taken for ours)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def alive(record: dict) -> bool:
    pid = record.get("pid")
    return bool(pid) and started_at(pid) == record.get("started") and not zombie(pid)


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def stop(record: dict, grace: float = 10.0) -> None:
    """Stop a part's whole session (a replica's sandbox workers with it): TERM, then KILL."""
    if not alive(record):
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(record["pid"], sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and alive(record):
            time.sleep(0.1)
        if not alive(record):
            return


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def wait_until(parts: dict[str, tuple[dict, object]], timeout: float = START_TIMEOUT) -> None:
    """Wait until every part's health check answers; a part that exits or stays silent is a
    StackError naming it and the end of its log."""
    deadline = time.monotonic() + timeout
    waiting = dict(parts)
    while waiting:
        for name, (record, url) in list(waiting.items()):
            if url():
                del waiting[name]
            elif not alive(record):
                raise StackError(f"{name} exited while starting:\n{tail(record['log'])}")
        if waiting and time.monotonic() > deadline:
            name, (record, _) = next(iter(waiting.items()))
            raise StackError(
                f"{name} did not answer within {timeout:.0f} s:\n{tail(record['log'])}"
            )
        time.sleep(0.2)


def tail(log: str, lines: int = 15) -> str:
    try:
        return "\n".join(Path(log).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# The parts -------------------------------------------------------------------------------------


def start_provider(folder: Path, port: int) -> dict:
    claims = [json.dumps({"sub": sub, **c}) for sub, c in ACCOUNTS.items()]
    command = [str(PYTHON), "-m", "oidc_provider_mock", "--host", HOST, "--port", str(port)]
    for one in claims:
        command += ["--user-claims", one]
    return spawn("provider", command, folder)


def write_secrets(folder: Path, proxy: int, provider: int) -> Path:
    """Write the replicas' shared [auth] section (one cookie secret for all, kept across ups)."""
    path = folder / "secrets.toml"
    kept = {}
    if path.exists():
        import tomllib

        kept = tomllib.loads(path.read_text()).get("auth", {})
    auth = {
        "redirect_uri": f"http://{HOST}:{proxy}/oauth2callback",
        "cookie_secret": kept.get("cookie_secret") or secrets.token_hex(32),
        "client_id": "backprop-ninja",
        "client_secret": kept.get("client_secret") or secrets.token_hex(16),
        "server_metadata_url": f"http://{HOST}:{provider}/.well-known/openid-configuration",
    }
    path.write_text("[auth]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in auth.items()))
    path.chmod(0o600)
    return path


def start_replica(folder: Path, index: int, port: int, url: str, secrets_file: Path) -> dict:
    data = folder / f"replica{index}"
    data.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NINJA_", "STREAMLIT_"))}
    env = {
        **clean,
        "NINJA_MODE": "classroom",
        "NINJA_INSTRUCTORS": INSTRUCTORS,
        "NINJA_INSTRUCTOR_CLAIM": INSTRUCTOR_CLAIM,
        "NINJA_TENANT": TENANT,
        "NINJA_DATABASE_URL": url,
        "NINJA_DATA_DIR": str(data),
    }
    command = [
        str(ROOT / "scripts" / "run"),
        "--server.port", str(port), "--server.address", HOST, "--server.headless", "true",
        "--secrets.files", str(secrets_file),
    ]  # fmt: skip
    return spawn(f"replica{index}", command, folder, env)


def start_worker(folder: Path, url: str) -> dict:
    """Start the training worker: it takes training runs off the queue, in its own sandbox."""
    data = folder / "worker"
    data.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NINJA_", "STREAMLIT_"))}
    env = {
        **clean,
        "NINJA_MODE": "classroom",
        "NINJA_DATABASE_URL": url,
        "NINJA_DATA_DIR": str(data),
    }
    return spawn("worker", [str(PYTHON), "-m", "app.training"], folder, env)


def worker_answers(url: str, record: dict) -> bool:
    """Return whether a worker's heartbeat is in the queue's table (procrastinate's) and recent,
    and the worker process is ours and running."""
    if not alive(record):
        return False
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=2) as db:
            found = db.execute(
                "SELECT COUNT(*) FROM procrastinate_workers"
                " WHERE last_heartbeat > NOW() - INTERVAL '30 seconds'"
            ).fetchone()
    except psycopg.Error:
        return False
    return bool(found and found[0])


def start_proxy(folder: Path, ports: Ports) -> dict:
    """Start HAProxy with deploy/haproxy.cfg, in plain HTTP on loopback (the demo has no
    certificate), the replicas' addresses in its environment."""
    if len(ports.replicas) != 2:
        raise StackError("deploy/haproxy.cfg names two replicas (REPLICA1, REPLICA2).")
    config = ROOT / "deploy" / "haproxy.cfg"
    env = {**os.environ, **proxy_settings(ports)}
    check = subprocess.run(
        [haproxy(), "-c", "-f", str(config)], capture_output=True, text=True, env=env
    )
    if check.returncode != 0:
        alerts = [line for line in check.stderr.splitlines() if "ALERT" in line]
        raise StackError(f"haproxy refused {config}: {' '.join(alerts[:2])}")
    return spawn("haproxy", [haproxy(), "-db", "-f", str(config)], folder, env)


def proxy_settings(ports: Ports) -> dict[str, str]:
    """Return deploy/haproxy.cfg's settings for the loopback stack."""
    replicas = {f"REPLICA{i}": f"{HOST}:{port}" for i, port in enumerate(ports.replicas, 1)}
    return {"PROXY_PLAIN_HTTP": "1", "PROXY_HTTP": f"{HOST}:{ports.proxy}", **replicas}


# Commands --------------------------------------------------------------------------------------


def up(folder: Path, proxy_port: int) -> dict:
    """Start every part (unless this folder's stack runs already) and wait until all answer."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    state = load_state(folder)
    if state and any(alive(r) for r in state.get("parts", {}).values()):
        raise StackError(f"A stack from {folder} is running: `deploy/stack down` first.")
    haproxy(), postgres_bin()  # missing tools are said before anything starts
    ports = pick_ports(proxy_port)
    state = {"ports": ports.__dict__, "parts": {}}
    try:
        home, url = start_postgres(folder, ports.postgres, database_password(folder))
        state["postgres"] = str(home)
        save_state(folder, state)
        migrate(url)
        parts = state["parts"]
        parts["provider"] = start_provider(folder, ports.provider)
        save_state(folder, state)
        secrets_file = write_secrets(folder, ports.proxy, ports.provider)
        for i, port in enumerate(ports.replicas, start=1):
            parts[f"replica{i}"] = start_replica(folder, i, port, url, secrets_file)
            save_state(folder, state)
        parts["haproxy"] = start_proxy(folder, ports)
        save_state(folder, state)
        parts["worker"] = start_worker(folder, url)
        state["database_url"] = url
        save_state(folder, state)
        health = health_checks(state)
        wait_until({name: (parts[name], health[name]) for name in parts})
    except BaseException:
        down(folder)
        raise
    state["url"], state["database_url"] = f"http://{HOST}:{ports.proxy}", url
    save_state(folder, state)
    return state


def database_password(folder: Path) -> str:
    """Return the database password, made with the cluster and kept beside it (0600): a cluster
    outlives a stack folder made again (as root it lives under /var/tmp)."""
    home = postgres_home(folder)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = home / "stack-password"
    if not path.exists():
        path.write_text(secrets.token_hex(16))
        path.chmod(0o600)
    return path.read_text().strip()


def migrate(url: str) -> None:
    """Bring the database to the code's schema, with the project's own command."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NINJA_")}
    command = [str(PYTHON), "-m", "app.storage", "upgrade"]
    done = subprocess.run(
        command, cwd=ROOT, env={**clean, "NINJA_DATABASE_URL": url, "NINJA_MODE": "classroom"},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if done.returncode != 0:
        raise StackError(f"the database upgrade failed: {(done.stderr or done.stdout).strip()}")


def health_checks(state: dict) -> dict:
    """Return each part's health check: its health address answers (the worker: its heartbeat
    is in the database)."""
    checks = {name: functools.partial(answers, url) for name, url in health_urls(state).items()}
    record = state.get("parts", {}).get("worker", {})
    checks["worker"] = functools.partial(worker_answers, state.get("database_url", ""), record)
    return checks


def health_urls(state: dict) -> dict[str, str]:
    ports = state["ports"]
    urls = {
        "provider": f"http://{HOST}:{ports['provider']}/.well-known/openid-configuration",
        "haproxy": f"http://{HOST}:{ports['proxy']}/_stcore/health",
    }
    for i, port in enumerate(ports["replicas"], start=1):
        urls[f"replica{i}"] = f"http://{HOST}:{port}/ready"  # ready to serve, as HAProxy asks
    return urls


def status(folder: Path) -> list[tuple[str, str, str]]:
    """Return (part, running/stopped, answering/silent) for every part this folder's stack has."""
    state = load_state(folder)
    if not state:
        return []
    health = health_checks(state)
    rows = []
    if "postgres" in state:
        pid_file = Path(state["postgres"]) / "data" / "postmaster.pid"
        running = pid_file.exists() and str(state["ports"]["postgres"]) in read(pid_file)
        rows.append(
            (
                "postgres",
                "running" if running else "stopped",
                port_open(state) and "answering" or "silent",
            )
        )
    for name, record in state.get("parts", {}).items():
        rows.append(
            (
                name,
                "running" if alive(record) else "stopped",
                "answering" if health[name]() else "silent",
            )
        )
    return rows


def read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def port_open(state: dict) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((HOST, state["ports"]["postgres"])) == 0


def down(folder: Path) -> list[str]:
    """Stop every part this folder's stack started (proxy first, database last); return names."""
    state = load_state(folder)
    stopped = []
    for name in (
        "worker",
        "haproxy",
        *[n for n in state.get("parts", {}) if n.startswith("replica")],
        "provider",
    ):
        record = state.get("parts", {}).get(name)
        if record and alive(record):
            stop(record)
            stopped.append(name)
    if state.get("postgres"):
        stop_postgres(state["postgres"])
        stopped.append("postgres")
    if state:
        state["parts"] = {}
        save_state(folder, {**state, "stopped": True})
    return stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/stack", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("up", "status", "down"))
    parser.add_argument(
        "--dir", type=Path, default=ROOT / "var" / "stack", help="the stack's folder"
    )
    parser.add_argument(
        "--port", type=int, default=8600, help="the proxy's port (learners open it)"
    )
    args = parser.parse_args(argv)
    folder = args.dir.resolve()
    try:
        if args.command == "up":
            state = up(folder, args.port)
            print(f"Backprop Ninja's classroom stack is up: open {state['url']}")
            print("Test accounts (the provider's sign-in page has a button for each):")
            for sub, claims in ACCOUNTS.items():
                role = "instructor" if claims["email"] in INSTRUCTORS else "learner"
                print(f"  {sub:4} {claims['name']} <{claims['email']}>, {role}")
            print(f"Logs in {folder / 'logs'}; stop it with: deploy/stack down")
        elif args.command == "status":
            rows = status(folder)
            if not rows:
                print(f"No stack has been started from {folder}.")
                return 1
            for name, running, answering in rows:
                print(f"{name:10} {running:8} {answering}")
            return 0 if all(r[1] == "running" and r[2] == "answering" for r in rows) else 1
        else:
            stopped = down(folder)
            print("Stopped: " + (", ".join(stopped) if stopped else "nothing was running") + ".")
    except StackError as err:
        print(f"deploy/stack {args.command}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
