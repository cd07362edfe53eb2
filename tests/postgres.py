"""A real PostgreSQL server for the storage tests, from Debian's `postgresql` package.

Started once per test session (tests/conftest.py) in a new temporary directory, listening only
on a Unix socket there, and stopped at the end. initdb refuses root, so as root the server
runs as the ordinary user of tests/grader/ordinary_user.py (through setpriv), and its
directory belongs to that user; as an ordinary user it runs as ourselves. Nothing else on the
machine changes. Each test gets a database of its own (`Server.new_database`).

    >>> server = Server.start(Path(tempfile.mkdtemp()))
    >>> url = server.new_database()   # postgresql://ninja@/t1?host=...
    >>> server.restart(); server.stop()
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

SUPERUSER = "ninja"  # the database role the tests connect as (trust on the socket)
PORT = 5432  # only names the socket file (.s.PGSQL.5432) in our own directory: no TCP


def binaries() -> Path | None:
    """Return the newest installed PostgreSQL's bin directory (Debian's layout), if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_major)
    return Path(found[-1]).parent if found else None


def _major(path: str) -> int:
    """Return the major version in a /usr/lib/postgresql/<major>/bin path."""
    part = Path(path).parts[-3]
    return int(part) if part.isdigit() else 0


@dataclass
class Server:
    """A PostgreSQL server of our own: its bin directory, data and socket directories."""

    bin: Path
    top: Path
    become: list[str]  # the setpriv prefix as root, [] as an ordinary user
    names: itertools.count = field(default_factory=lambda: itertools.count(1))

    @classmethod
    def start(cls, top: Path) -> Server:
        """Create a cluster in top (a new, empty directory) and start it."""
        bin = binaries()
        assert bin is not None, "no /usr/lib/postgresql/*/bin/pg_ctl"
        become = []
        if os.geteuid() == 0:
            from .grader.ordinary_user import USER, ensure_user

            become = ensure_user()
            shutil.chown(top, USER, USER)
        top.chmod(0o700)
        server = cls(bin, top, become)
        server._run("initdb", "-D", server.data, "-U", SUPERUSER, "--auth=trust", "-E", "UTF8")
        server._start()
        return server

    @property
    def data(self) -> Path:
        """Return the cluster's data directory."""
        return self.top / "data"

    @property
    def socket(self) -> Path:
        """Return the directory that holds the server's socket."""
        return self.top

    def url(self, database: str) -> str:
        """Return the URL of one of the server's databases (over the socket)."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket}&port={PORT}"

    def new_database(self) -> str:
        """Create an empty database; return its URL."""
        name = f"t{next(self.names)}"
        self.sql("postgres", f"CREATE DATABASE {name}")
        return self.url(name)

    def sql(self, database: str, statement: str) -> None:
        """Run one SQL statement with psql as the superuser."""
        psql = [self.bin / "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"]
        where = ["-h", str(self.socket), "-p", str(PORT), "-U", SUPERUSER, "-d", database]
        subprocess.run([*psql, *where, "-c", statement], check=True, capture_output=True)

    def restart(self) -> None:
        """Restart the server (fast: open connections are cut), waiting until it is back."""
        log = self.top / "server.log"  # the server's output: not our pipe, which it would hold
        self._run(
            "pg_ctl", "restart", "-D", self.data, "-l", log, "-m", "fast", "-w", *self._options()
        )

    def stop(self) -> None:
        """Stop the server, cutting open connections."""
        self._run("pg_ctl", "stop", "-D", self.data, "-m", "fast", "-w")

    def start_again(self) -> None:
        """Start the server again after stop()."""
        self._start()

    def _start(self) -> None:
        """Start the server and wait until it accepts connections."""
        log = self.top / "server.log"
        self._run("pg_ctl", "start", "-D", self.data, "-l", log, "-w", *self._options())

    def _options(self) -> list[str]:
        """Return pg_ctl's -o: no TCP, the socket in our directory, room for the tests, and no
        waiting for the disk (a test's cluster is thrown away: a crash need not find it whole).
        Each CREATE DATABASE and commit otherwise waits for fsync, on a disk the other jobs share;
        a restart is a clean shutdown, which writes everything out either way."""
        durable = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        where = f"-c listen_addresses='' -k {self.socket} -p {PORT}"
        return ["-o", f"{where} -c max_connections=200 {durable}"]

    def _run(self, program: str, *args) -> None:
        """Run one of PostgreSQL's programs as the server's user; fail with its output."""
        command = [*self.become, str(self.bin / program), *map(str, args)]
        done = subprocess.run(command, cwd=self.top, capture_output=True, text=True)
        assert done.returncode == 0, f"{program} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}"
