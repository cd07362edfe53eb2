"""Build the OCI image: `deploy/image build [--all] [--base auto|registry|debootstrap]`.

The image (deploy/Containerfile) is one for the replica, the training worker and the command
line. Its base is Debian bookworm with Python 3.11:
- `registry`: python:3.11-slim-bookworm, pulled from a registry;
- `debootstrap`: made here from Debian's packages (`debootstrap --variant=minbase bookworm`,
  with the security updates, imported with `podman import`), for machines that reach Debian's
  mirror but no image registry; the tarball is kept in the cache folder and reused;
- `auto` (the default): the registry's when it answers, else one made from packages.
The lock's wheels are fetched once into the cache (`pip download --require-hashes`, from pip's
own configuration: PyPI or a mirror) and handed to the build as a build context, so the build
reaches no package index. `--all` also builds the compose file's PostgreSQL and HAProxy images
from the same base (deploy/container/*.Containerfile).

Podman (Debian's podman, buildah, runc) or a Docker whose daemon answers. With podman, the
settings in deploy/container/containers.conf are used unless CONTAINERS_CONF is set.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTAINERFILE = ROOT / "deploy" / "Containerfile"
COMPANIONS = {  # the compose file's other images: name -> Containerfile
    "backprop-ninja-postgres": ROOT / "deploy" / "container" / "postgres.Containerfile",
    "backprop-ninja-haproxy": ROOT / "deploy" / "container" / "haproxy.Containerfile",
}
PODMAN_CONF = ROOT / "deploy" / "container" / "containers.conf"
REGISTRY_BASE = "docker.io/library/python:3.11-slim-bookworm"
LOCAL_BASE = "localhost/backprop-ninja-base:bookworm"
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
# Python and what the Containerfile needs: in the base, so that its build needs no mirror.
PACKAGES = ("python3.11", "python3.11-venv", "libseccomp2", "uidmap", "tini")
PACKAGES += ("postgresql-client-15", "ca-certificates")
# The wheels the image's Python takes, whatever Python runs this script (the lock's target).
TARGET = ("--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp")
TARGET += ("--abi", "cp311")  # pip adds abi3 and none; every manylinux up to bookworm's glibc:
TARGET += tuple(f"--platform=manylinux_2_{minor}_x86_64" for minor in range(17, 37))
TARGET += ("--platform=manylinux2014_x86_64",)


class ImageError(RuntimeError):
    """A step could not be done: one line for the operator."""


@dataclass(frozen=True)
class Tool:
    """The container tool: its command and environment."""

    command: str
    env: dict

    def run(self, *args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
        """Run the tool; a failure is an ImageError carrying the end of its output."""
        done = subprocess.run(
            [self.command, *args], env=self.env, text=True, capture_output=True, **kwargs
        )
        if check and done.returncode != 0:
            raise ImageError(f"{self.command} {args[0]} failed:\n{tail(done)}")
        return done


def tail(done: subprocess.CompletedProcess, lines: int = 20) -> str:
    text = (done.stdout or "") + (done.stderr or "")
    return "\n".join(text.strip().splitlines()[-lines:])


def container_tool() -> Tool:
    """Return podman (with our containers.conf unless one is set) or a Docker that answers."""
    if shutil.which("podman"):
        env = {**os.environ}
        env.setdefault("CONTAINERS_CONF", str(PODMAN_CONF))
        return Tool("podman", env)
    if shutil.which("docker"):
        info = subprocess.run(["docker", "info"], capture_output=True, check=False)
        if info.returncode == 0:
            return Tool("docker", {**os.environ, "DOCKER_BUILDKIT": "1"})
    raise ImageError(
        "No container tool: install Debian's podman, buildah and runc"
        " (apt-get install podman buildah runc), or start Docker's daemon."
    )


def version() -> str:
    """Return the project's version (pyproject.toml)."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


# The base -------------------------------------------------------------------------------------


def base_image(tool: Tool, choice: str, cache: Path) -> str:
    """Return the base image's name, pulling or making it as choice says."""
    if choice in ("auto", "registry"):
        if has_image(tool, REGISTRY_BASE) or pulled(tool, REGISTRY_BASE):
            return REGISTRY_BASE
        if choice == "registry":
            raise ImageError(f"{REGISTRY_BASE} could not be pulled: no registry answers.")
    if not has_image(tool, LOCAL_BASE):
        tool.run("import", str(base_tarball(cache)), LOCAL_BASE)
    return LOCAL_BASE


def has_image(tool: Tool, name: str) -> bool:
    return tool.run("image", "inspect", name, check=False).returncode == 0


def pulled(tool: Tool, name: str) -> bool:
    return tool.run("pull", "--quiet", name, check=False, timeout=600).returncode == 0


def base_tarball(cache: Path) -> Path:
    """Return the cached tarball of the Debian base, made with debootstrap when missing."""
    key = hashlib.sha256(" ".join((SUITE, MIRROR, *PACKAGES)).encode()).hexdigest()[:12]
    tarball = cache / f"debian-{SUITE}-minbase-{key}.tar"
    if tarball.exists():
        return tarball
    if os.geteuid() != 0 or not shutil.which("debootstrap"):
        raise ImageError(
            "Making the Debian base needs root and debootstrap (apt-get install debootstrap),"
            f" or a registry that serves {REGISTRY_BASE}."
        )
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix="rootfs-") as work:
        rootfs = Path(work) / "root"
        debootstrap(rootfs)
        partial = tarball.with_suffix(".part")
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(partial), "."], check=True)
        partial.replace(tarball)
    return tarball


def debootstrap(rootfs: Path) -> None:
    """Make a minimal Debian in rootfs, with the security updates and PACKAGES."""
    inside = ["chroot", str(rootfs), "apt-get", "-q", "-y"]
    steps = [
        ["debootstrap", "--variant=minbase", SUITE, str(rootfs), MIRROR],
        [*inside, "update"],
        [*inside, "upgrade"],
        [*inside, "install", "--no-install-recommends", *PACKAGES],
        [*inside, "clean"],
    ]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}
    for step in steps:
        done = subprocess.run(step, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ImageError(f"{' '.join(step[:4])} failed:\n{tail(done)}")
        if step[0] == "debootstrap":  # it wrote the suite alone: add its updates
            (rootfs / "etc" / "apt" / "sources.list").write_text(sources())
    shutil.rmtree(rootfs / "var" / "lib" / "apt" / "lists", ignore_errors=True)
    (rootfs / "var" / "lib" / "apt" / "lists" / "partial").mkdir(parents=True)


def sources() -> str:
    """Return the base's apt sources: the suite, its updates and its security updates."""
    security = MIRROR.replace("/debian", "/debian-security")
    return (
        f"deb {MIRROR} {SUITE} main\n"
        f"deb {MIRROR} {SUITE}-updates main\n"
        f"deb {security} {SUITE}-security main\n"
    )


# The wheels ------------------------------------------------------------------------------------


def wheels(cache: Path, lock: Path = ROOT / "requirements.lock") -> Path:
    """Return a folder holding every wheel the lock pins (hashes checked), fetched once."""
    folder = cache / "wheels"
    stamp = folder / f".lock-{hashlib.sha256(lock.read_bytes()).hexdigest()[:16]}"
    if stamp.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes"]
    done = subprocess.run(
        [*pip, *TARGET, "-r", str(lock), "-d", str(folder)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise ImageError(f"pip could not fetch the lock's wheels:\n{tail(done)}")
    stamp.touch()
    return folder


# The images ------------------------------------------------------------------------------------


def build(tool: Tool, tag: str, base: str, wheel_dir: Path) -> None:
    """Build deploy/Containerfile from the checkout as tag."""
    tool.run(
        "build", "--file", str(CONTAINERFILE), "--tag", tag, "--build-arg", f"BASE={base}",
        "--build-context", f"wheels={wheel_dir}", str(ROOT), timeout=3600,
    )  # fmt: skip


def build_companions(tool: Tool, base: str, tag: str) -> list[str]:
    """Build the compose file's PostgreSQL and HAProxy images from the same base, tagged as
    the app's image is (localhost/backprop-ninja:T -> localhost/backprop-ninja-postgres:T)."""
    repository, _, version = tag.rpartition(":")
    tags = []
    for name, containerfile in COMPANIONS.items():
        tag = f"{repository}-{name.rpartition('-')[2]}:{version}"
        context = containerfile.parent
        tool.run(
            "build", "--file", str(containerfile), "--tag", tag, "--build-arg", f"BASE={base}",
            str(context), timeout=1800,
        )  # fmt: skip
        tags.append(tag)
    return tags


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/image", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("build",))
    parser.add_argument("--base", choices=("auto", "registry", "debootstrap"), default="auto")
    parser.add_argument("--tag", default=f"localhost/backprop-ninja:{version()}")
    parser.add_argument("--all", action="store_true", help="also the PostgreSQL and HAProxy images")
    parser.add_argument(
        "--cache", type=Path, default=ROOT / "var" / "image", help="the base tarball and wheels"
    )
    args = parser.parse_args(argv)
    try:
        tool = container_tool()
        base = base_image(tool, args.base, args.cache.resolve())
        build(tool, args.tag, base, wheels(args.cache.resolve()))
        built = [args.tag, *(build_companions(tool, base, args.tag) if args.all else [])]
    except (ImageError, subprocess.TimeoutExpired) as err:
        print(f"deploy/image {args.command}: {err}", file=sys.stderr)
        return 2
    print(f"Built {', '.join(built)} on {base} with {tool.command}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
