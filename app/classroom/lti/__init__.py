"""LTI 1.3: an LMS (Canvas, Moodle, Blackboard) launches the tool and its person is signed in
(docs/lms.md). routes.py serves /lti/login, /lti/launch, /lti/jwks and /lti/config.json beside
the pages (app/server.py); adapters.py hands the maintained library (pylti1p3next) a request,
cookies and the database's state; launches.py turns a checked launch into the claims of
Streamlit's user cookie; keys.py is the tool's key pair from the secrets (rotated with an
overlap); grades.py sends scores (AGS), later.py queues a learner's score after each solve for
the classroom's worker; roster.py reads the course's roster (NRPS) and keeps SIS ids.

    >>> from app.classroom.lti import ROUTES   # app/server.py: routes=[..., *ROUTES]
"""

from app.classroom.lti.launches import LTI, user_claims
from app.classroom.lti.routes import ROUTES

__all__ = ["LTI", "ROUTES", "user_claims"]
