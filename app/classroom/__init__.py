"""The classroom mode: sign-in through the school's OpenID Connect provider and roles, the
class as a whole, and the instructor dashboard's figures.

    >>> from app import classroom
    >>> classroom.admitted()                         # the local mode, or someone signed in
    >>> view = classroom.ClassView(services.store())
    >>> classroom.classbook.class_grid(view.class_learners(), view.class_cells(), columns)

signin.py is the door (Streamlit's st.login, st.user, st.logout; the local mode never reaches
past enabled() and admitted()), sessions.py the sign-ins it keeps on the server (checked on every
run, ended by sign-out, an instructor, or their lifetimes); people.py says who a signed-in
person is and their role, from what the provider proves (claims.py checks the claims first);
quotas.py is what one learner may ask of the servers; classview.py reads the whole class from
the store; classbook.py turns it into the dashboard's grid, totals and gradebook
(app/screens/instructor.py draws them; oversight.py its sign-ins and limits section).
"""

from app.classroom import classbook, oversight, quotas, sessions
from app.classroom.classview import ClassView
from app.classroom.people import INSTRUCTOR, LEARNER, NoIdentity, Person, Trust, person
from app.classroom.signin import (
    account_box,
    admitted,
    check_session,
    current,
    enabled,
    is_instructor,
    sign_in_entry,
    sign_in_page,
)

__all__ = [
    "INSTRUCTOR",
    "LEARNER",
    "ClassView",
    "NoIdentity",
    "Person",
    "Trust",
    "account_box",
    "admitted",
    "check_session",
    "classbook",
    "current",
    "enabled",
    "is_instructor",
    "oversight",
    "person",
    "quotas",
    "sessions",
    "sign_in_entry",
    "sign_in_page",
]
