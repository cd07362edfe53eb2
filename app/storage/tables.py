"""The progress database's tables, declared once (SQLAlchemy Core `MetaData`).

This is the schema the Alembic revisions (alembic/versions/) must build: upgrading an empty
database to the head gives exactly these tables, columns and indexes, on SQLite and on
PostgreSQL (tests/app/storage/test_tables.py compares them with Alembic's own comparison). The
store's calls run SQL text over these tables; a new column is a field here and a revision there.
procrastinate's tables (the classroom's task queue, revision 0004) are its own, not declared here.

    >>> sorted(metadata.tables)[:3]
    ['attempts', 'drafts', 'events']
"""

from __future__ import annotations

import sqlalchemy as sa

TEXT, NUMBER, WHOLE = sa.Text(), sa.Double(), sa.Integer()
metadata = sa.MetaData()


def _profile_id() -> sa.Column:
    """Return the column that ties a row to its profile (deleted with it)."""
    return sa.Column(
        "profile_id", WHOLE, sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False
    )


def _course_id() -> sa.Column:
    """Return the course column (rows from before courses belong to the default course)."""
    return sa.Column("course_id", TEXT, nullable=False, server_default="default")


def _text(name: str, default: str | None = None) -> sa.Column:
    """Return a required text column, with a default when one is given."""
    return sa.Column(name, TEXT, nullable=False, server_default=default)


def _count(name: str) -> sa.Column:
    """Return a count column (0 unless set): an attempt's tally, for partial credit."""
    return sa.Column(name, WHOLE, nullable=False, server_default="0")


def _when(name: str, nullable: bool = False) -> sa.Column:
    """Return a time column (seconds since the epoch)."""
    return sa.Column(name, NUMBER, nullable=nullable)


meta = sa.Table("meta", metadata, sa.Column("key", TEXT, primary_key=True), _text("value"))

profiles = sa.Table(
    "profiles",
    metadata,
    sa.Column("id", WHOLE, primary_key=True),
    _text("name"),
    _when("created_at"),
    _text("owner", ""),
    sa.UniqueConstraint("owner", "name"),
)

learners = sa.Table(  # which profile an identity used last
    "learners",
    metadata,
    sa.Column("owner", TEXT, primary_key=True),
    sa.Column("last_profile", WHOLE, sa.ForeignKey("profiles.id", ondelete="SET NULL")),
)

settings = sa.Table(
    "settings",
    metadata,
    _profile_id(),
    _text("key"),
    _text("value"),
    sa.PrimaryKeyConstraint("profile_id", "key"),
)

drafts = sa.Table(
    "drafts",
    metadata,
    _profile_id(),
    _course_id(),
    _text("exercise_id"),
    _text("code"),
    _when("updated_at"),
    sa.PrimaryKeyConstraint("profile_id", "course_id", "exercise_id"),
)

attempts = sa.Table(
    "attempts",
    metadata,
    sa.Column("id", WHOLE, primary_key=True),
    _profile_id(),
    _text("exercise_id"),
    _text("code"),
    sa.Column("solved", WHOLE, nullable=False),
    _text("summary"),
    sa.Column("elapsed", NUMBER, nullable=False),
    sa.Column("time_spent", NUMBER, nullable=False),
    _text("dataset"),
    _when("created_at"),
    sa.Column("ticket", TEXT),  # names a submission once: unique where set
    sa.Column("ran", WHOLE, nullable=False, server_default="0"),
    _text("failed_check", ""),
    _text("misconception", ""),
    _text("status", ""),
    _text("facts", "graded"),
    _course_id(),
    _text("version", ""),
    _text("origin", "editor"),
    *(_count(name) for name in ("parts_right", "parts", "checks_passed", "checks")),
    sa.Index("attempts_by_exercise", "profile_id", "exercise_id"),
    sa.Index("attempts_by_course", "profile_id", "course_id", "exercise_id"),
    sa.Index(
        "attempts_by_ticket",
        "ticket",
        unique=True,
        sqlite_where=sa.text("ticket IS NOT NULL"),
        postgresql_where=sa.text("ticket IS NOT NULL"),
    ),
    sa.Index("attempts_by_class", "course_id", "exercise_id", "created_at"),
)

events = sa.Table(  # a hint shown or a solution revealed
    "events",
    metadata,
    sa.Column("id", WHOLE, primary_key=True),
    _profile_id(),
    _text("exercise_id"),
    _text("kind"),
    _when("created_at"),
    _course_id(),
    sa.CheckConstraint("kind IN ('hint', 'reveal')"),
    sa.Index("events_by_class", "course_id", "exercise_id", "profile_id"),
)

submissions = sa.Table(  # recorded before grading, replaced by their attempt
    "submissions",
    metadata,
    sa.Column("ticket", TEXT, primary_key=True),
    _profile_id(),
    _text("exercise_id"),
    _text("code"),
    _text("server"),
    _when("created_at"),
    _course_id(),
)

training_runs = sa.Table(  # Exercise 4's finished runs
    "training_runs",
    metadata,
    sa.Column("id", WHOLE, primary_key=True),
    _profile_id(),
    _text("settings"),  # JSON
    sa.Column("train_loss", NUMBER),
    sa.Column("val_loss", NUMBER),
    _text("samples"),  # JSON
    sa.Column("steps_per_s", NUMBER, nullable=False),
    sa.Column("elapsed", NUMBER, nullable=False),
    _text("curve"),  # JSON
    _text("dataset"),
    _text("code"),
    _when("created_at"),
    sa.Index("training_runs_by_profile", "profile_id"),
)

people = sa.Table(  # who a signed-in identity is (the classroom's dashboard)
    "people",
    metadata,
    sa.Column("owner", TEXT, primary_key=True),
    _text("name"),
    _text("email", ""),
    _text("groups", "[]"),  # JSON, the provider's groups and sections
    _text("role", "learner"),
    sa.Column("last_seen", sa.REAL(), nullable=False),
)

training_queue = sa.Table(  # a classroom run: its job on the task queue, progress and report
    "training_queue",
    metadata,
    sa.Column("id", WHOLE, primary_key=True),
    _profile_id(),
    sa.Column("job_id", sa.BigInteger()),  # procrastinate's job: the run's state
    _text("settings"),  # JSON
    _text("code"),
    _text("dataset"),
    sa.Column("step", WHOLE, nullable=False, server_default="0"),
    sa.Column("elapsed", NUMBER, nullable=False, server_default="0"),
    _text("curve", "[]"),  # JSON
    sa.Column("report", TEXT),  # JSON, once the run has ended
    _when("created_at"),
    sa.Index("training_queue_by_profile", "profile_id", "id"),
    sa.Index("training_queue_by_job", "job_id"),
)

word_lists = sa.Table(  # uploaded word lists, by the digest of their words
    "word_lists",
    metadata,
    sa.Column("digest", TEXT, primary_key=True),
    _text("name"),
    _text("words"),
    _when("created_at"),
)

audit_log = sa.Table(  # what instructors did with learners' data: kept when a learner is deleted
    "audit_log",
    metadata,
    sa.Column("id", WHOLE, primary_key=True),
    _when("created_at"),
    _text("actor"),  # who: a signed-in identity, or "<user>@<host>" for a command
    _text("actor_name", ""),  # their name then (a name, an e-mail address, "the command line")
    _text("action"),  # auditlog.py's ACTIONS: export, delete, regrade, gradebook, role, view
    _text("subject", ""),  # whose data: a learner's identity; "" for the whole class
    _course_id(),
    _text("detail", "{}"),  # JSON: what exactly (profiles, rows, files, old and new role)
    sa.Index("audit_log_by_subject", "subject", "id"),
    sa.Index("audit_log_by_course", "course_id", "id"),
)

sessions = sa.Table(  # a classroom sign-in, checked on every page (app/classroom/sessions.py)
    "sessions",
    metadata,
    sa.Column("id", TEXT, primary_key=True),  # a digest of the token's iss, sub, iat, nonce, sid
    _text("owner"),
    _when("issued"),
    _when("last_seen"),
    _when("revoked", nullable=True),
    _text("reason", ""),  # signed_out, ended, idle, expired
    sa.Index("sessions_by_owner", "owner"),
)

word_list_uploads = sa.Table(  # who uploaded which word list, when (a quota a day)
    "word_list_uploads",
    metadata,
    _profile_id(),
    _text("digest"),
    _when("created_at"),
    sa.PrimaryKeyConstraint("profile_id", "digest"),
    sa.Index("word_list_uploads_by_time", "profile_id", "created_at"),
)

quota_hits = sa.Table(  # who met which limit, how often, when last (the dashboard)
    "quota_hits",
    metadata,
    _profile_id(),
    _text("quota"),
    sa.Column("count", WHOLE, nullable=False),
    _when("last_at"),
    sa.PrimaryKeyConstraint("profile_id", "quota"),
)

lti_registrations = sa.Table(  # an LMS that may launch the tool (LTI 1.3): added by a command
    "lti_registrations",
    metadata,
    _text("issuer"),  # the platform's `iss`
    _text("client_id"),  # the tool's id at the platform: the id_token's audience
    _text("login_url"),  # the platform's OIDC authorization endpoint
    _text("token_url"),  # its OAuth 2 token endpoint (AGS, NRPS)
    _text("keys_url"),  # its JWKS: the keys its id_tokens are signed with
    _text("deployments", "[]"),  # JSON: the deployment ids this tool is installed as
    sa.PrimaryKeyConstraint("issuer", "client_id"),
)

lti_state = sa.Table(  # a launch's state, nonce and data: any replica may receive the launch
    "lti_state",
    metadata,
    sa.Column("key", TEXT, primary_key=True),
    _text("value"),  # JSON
    _when("expires_at"),
)

lti_links = sa.Table(  # where a launched person's scores go: their LMS's line items (AGS)
    "lti_links",
    metadata,
    _text("identity"),  # "<issuer> <subject>", as the classroom's people
    _text("resource_link"),  # the LMS's link the person launched from
    _text("issuer"),
    _text("client_id"),
    _text("user_id"),  # the person's id at the LMS (the launch's `sub`)
    _text("lineitems"),  # the line items' URL of the link's context
    _when("updated_at"),
    sa.PrimaryKeyConstraint("identity", "resource_link"),
)

lti_rosters = sa.Table(  # an LMS course's roster (NRPS), read again on demand
    "lti_rosters",
    metadata,
    sa.Column("url", TEXT, primary_key=True),  # its memberships URL, from an instructor's launch
    _text("issuer"),
    _text("client_id"),
    _text("title", ""),  # the LMS course's title
    _when("updated_at"),
)

lti_members = sa.Table(  # an LMS member's SIS id (NRPS lis_person_sourcedid): the books carry it
    "lti_members",
    metadata,
    sa.Column("owner", TEXT, primary_key=True),
    _text("sis_id"),
)

lti_pushes = sa.Table(  # each score sent to an LMS, with its answer (the dashboard lists failures)
    "lti_pushes",
    metadata,
    sa.Column("id", WHOLE, primary_key=True),
    _text("identity"),
    _text("item"),
    sa.Column("points", NUMBER, nullable=False),
    sa.Column("out_of", NUMBER, nullable=False),
    _when("at"),
    sa.Column("status", WHOLE, nullable=False),  # the LMS's HTTP status; 0: not reached
    _text("answer", ""),  # the LMS's reason, in its words, when it refused
    sa.Index("lti_pushes_by_identity", "identity", "id"),
)
