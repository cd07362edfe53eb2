"""The classroom mode: sign-in through the school's OpenID Connect provider and roles, the
class as a whole, and the instructor dashboard's figures.

    >>> from app import classroom
    >>> classroom.admitted()                         # the local mode, or someone signed in
    >>> view = classroom.ClassView(services.store())
    >>> classroom.classbook.class_grid(view.class_learners(), view.class_cells(), columns)

signin.py is the door (Streamlit's st.login, st.user, st.logout; the local mode never reaches
past enabled() and admitted()); people.py says who a signed-in person is, from the provider's
claims; classview.py reads the whole class from the store; classbook.py turns it into the
dashboard's grid, totals and gradebook (app/screens/instructor.py draws them).
"""

from app.classroom import classbook
from app.classroom.classview import ClassView
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
    "ClassView",
    "NoIdentity",
    "Person",
    "account_box",
    "admitted",
    "classbook",
    "current",
    "enabled",
    "is_instructor",
    "person",
    "sign_in_entry",
    "sign_in_page",
]
