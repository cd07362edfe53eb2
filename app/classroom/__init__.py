"""The classroom mode: sign-in through the school's OpenID Connect provider, and roles.

The local mode (the default) never reaches past enabled() and admitted(). Storage and the
instructor's dashboard are not built yet (docs/classroom.md).
"""

from app.classroom.people import INSTRUCTOR, LEARNER, NoIdentity, Person, person
from app.classroom.signin import (
    account_box,
    admitted,
    current,
    enabled,
    is_instructor,
    sign_in_entry,
    sign_in_page,
)

__all__ = [
    "INSTRUCTOR",
    "LEARNER",
    "NoIdentity",
    "Person",
    "account_box",
    "admitted",
    "current",
    "enabled",
    "is_instructor",
    "person",
    "sign_in_entry",
    "sign_in_page",
]
