"""The classroom's trust settings: who is an instructor by what the provider proves, how long a
sign-in lasts, and how much one learner may ask of the class's servers (docs/settings.md).

Read by settings.py (`from_env`), checked before the server starts (`python -m app.config`):

- instructors are named by identity (`NINJA_INSTRUCTOR_IDS`, "<issuer> <subject>"), by e-mail
  (`NINJA_INSTRUCTORS`: only with `email_verified` exactly true) or by a group claim
  (`NINJA_INSTRUCTOR_CLAIM`), roles only from the issuer the [auth] section names (or
  `NINJA_ISSUER`) and, if set, the tenant `NINJA_TENANT`;
- a configuration that would trust an e-mail address nobody verified is refused: a claim a
  person sets for themselves named as the instructors' claim, or e-mail roles with a provider
  that does not verify e-mail (Microsoft Entra: the "nOAuth" class).

    >>> identities("instructor_ids", "https://id.uni.edu 42")
    ('https://id.uni.edu 42',)
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

PREFIX = "NINJA_"
DISCOVERY = "/.well-known/openid-configuration"  # OIDC Discovery: issuer + this is the address
# Claims a person sets, or their provider fills from what they typed: never an instructor's mark.
SELF_ASSERTED = frozenset(
    {"email", "email_verified", "name", "nickname", "preferred_username", "given_name",
     "family_name", "upn", "unique_name", "profile", "website"}
)  # fmt: skip
# Providers that send an `email` claim they did not verify (and no `email_verified`).
UNVERIFIED_EMAIL_HOSTS = ("login.microsoftonline.com", "sts.windows.net", "login.windows.net")
MULTI_TENANT = ("common", "organizations", "consumers")  # Entra's any-tenant endpoints
MAX_SESSION = 30 * 86400.0  # Streamlit's sign-in cookie's own lifetime: ours may only be shorter
MAX_DRAFT_KIB = 1024


class TrustError(ValueError):
    """A trust setting that cannot be used; the message names it (settings.py's ConfigError)."""


def identities(name: str, raw: str) -> tuple[str, ...]:
    """Return identities ("<issuer> <subject>") separated by commas: an issuer is an http(s)
    address, a subject holds no space, comma or control character."""
    found = tuple(" ".join(part.split()) for part in raw.split(",") if part.strip())
    for identity in found:
        issuer, _, subject = identity.partition(" ")
        scheme = urlsplit(issuer).scheme
        if scheme not in ("http", "https") or not subject or " " in subject:
            raise TrustError(
                f"`{PREFIX}{name.upper()}` must be identities `<issuer> <subject>` separated by "
                f"commas (e.g. https://id.uni.edu 42): got {identity!r}."
            )
    return found


def issuer(name: str, raw: str) -> str:
    """Return an issuer: an http(s) address without a trailing slash."""
    value = raw.strip().rstrip("/")
    if urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc:
        raise TrustError(f"`{PREFIX}{name.upper()}` must be an https:// address: got {raw!r}.")
    return value


def instructor_claim(claim: tuple[str, str] | None) -> None:
    """Refuse an instructors' claim that the person sets themselves (an e-mail, a name)."""
    if claim is not None and claim[0].lower() in SELF_ASSERTED:
        raise TrustError(
            f"`{PREFIX}INSTRUCTOR_CLAIM` names `{claim[0]}`, which a person can set for "
            "themselves: name a group or role claim the provider asserts (e.g. groups=staff), "
            f"or instructors by identity (`{PREFIX}INSTRUCTOR_IDS`)."
        )


def lifetimes(idle: float, absolute: float) -> None:
    """Refuse session lifetimes that are not above 0, or idle longer than absolute, or longer
    than the cookie that carries the sign-in (30 days)."""
    if not 0 < idle <= absolute <= MAX_SESSION:
        raise TrustError(
            f"`{PREFIX}SESSION_IDLE` and `{PREFIX}SESSION_ABSOLUTE` must be above 0, idle at most "
            f"absolute, absolute at most {MAX_SESSION:.0f} s (30 days): got {idle:g} and "
            f"{absolute:g}."
        )


def quotas(runs: int, attempts: int, draft_kib: int) -> None:
    """Refuse a quota that would refuse every learner everything (0 runs, 0 attempts, 0 KiB of
    code), and a draft limit above MAX_DRAFT_KIB; 0 word lists is allowed (no uploads)."""
    for name, value, most in (("RUNS", runs, None), ("ATTEMPTS", attempts, None),
                              ("DRAFT_KIB", draft_kib, MAX_DRAFT_KIB)):  # fmt: skip
        if value < 1 or (most is not None and value > most):
            bound = f"1 to {most}" if most else "at least 1"
            raise TrustError(f"`{PREFIX}QUOTA_{name}` must be {bound}: got {value}.")


def issuer_of(auth: Mapping) -> str:
    """Return the issuer that the [auth] section's discovery address names ('' if none):
    OIDC Discovery puts the document at the issuer followed by DISCOVERY."""
    url = str(auth.get("server_metadata_url") or "")
    return url[: -len(DISCOVERY)].rstrip("/") if url.endswith(DISCOVERY) else ""


def check_provider(emails: tuple[str, ...], claim: object, tenant: str, auth: Mapping) -> None:
    """Refuse e-mail roles with a provider that does not verify e-mail, and a claim role on a
    multi-tenant endpoint without `NINJA_TENANT` (anyone's own tenant could grant the group)."""
    url = urlsplit(str(auth.get("server_metadata_url") or ""))
    if url.hostname not in UNVERIFIED_EMAIL_HOSTS:
        return
    if emails:
        raise TrustError(
            f"`{PREFIX}INSTRUCTORS` names instructors by e-mail, but {url.hostname} sends no "
            f"`email_verified` (a person can set that address): name them by identity "
            f"(`{PREFIX}INSTRUCTOR_IDS`) or by a group claim (`{PREFIX}INSTRUCTOR_CLAIM`)."
        )
    first = url.path.strip("/").split("/")[0].lower()
    if claim is not None and not tenant and first in MULTI_TENANT:
        raise TrustError(
            f"`{PREFIX}INSTRUCTOR_CLAIM` on {url.hostname}'s `{first}` endpoint needs "
            f"`{PREFIX}TENANT` (any tenant could put a person in that group)."
        )
