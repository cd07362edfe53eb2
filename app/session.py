"""Who is learning in this browser, and on which dataset."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app import classroom, services
from app.config import identity
from app.services import metrics
from app.storage import ATTEMPTED, SOLVED, Attempt, Profile

if TYPE_CHECKING:
    from grader import Grader
    from grader.training import Trainer

PROFILE_KEY = "profile"
FIRST_PROFILE = "learner"
PROFILES = "profiles"  # the once_per_run key of the identity's profiles
# The once_per_run key that says a profile was made in this run and nothing was written for it
# since: its statuses, setting, attempts and events are then known to be none (a new browser's
# first page would read each).
NEW = "new"
DATASET_SETTING = "dataset"


def profile() -> Profile:
    """Return this browser's profile: the one picked, else its last used, else a new one.

    In the classroom mode the signed-in person has one profile, and never adopts the progress
    recorded before identities (that belongs to whoever used the app locally).
    """
    chosen = st.session_state.get(PROFILE_KEY)
    if chosen is None or (classroom.enabled() and chosen.owner != _identity()):
        store, owner = services.store(), _identity()
        chosen, owned, made = store.learners.open_profile(
            owner, FIRST_PROFILE, adopt=not classroom.enabled()
        )
        services.once_per_run(f"{PROFILES}:{owner}", lambda: owned)  # the sidebar's list
        services.once_per_run(f"{NEW}:{chosen.id}", lambda: made)
        st.session_state[PROFILE_KEY] = chosen
        if classroom.enabled():  # the dashboard names the person and knows their groups
            who = classroom.current()
            view = classroom.ClassView(store)
            view.note_person(who.identity, who.name, who.verified_email, who.groups, who.role)
            metrics.signed_in()  # a sign-in as recorded today (issue 34: its sessions table)
    return chosen


def profiles() -> list[Profile]:
    """Return the profiles of this browser's identity, oldest first (read once per script run;
    a new profile reads them again)."""
    owner = _identity()
    return services.once_per_run(
        f"{PROFILES}:{owner}", lambda: services.store().learners.profiles(owner)
    )


def switch_profile(chosen: Profile) -> None:
    """Make chosen (one of this browser's profiles) its profile now and next time."""
    services.store().learners.use_profile(chosen)
    st.session_state[PROFILE_KEY] = chosen


def new_profile(name: str) -> Profile:
    """Return this browser's profile called name, creating it if new."""
    owner = _identity()
    made = services.store().learners.add_profile(name, owner)
    services.forget(f"{PROFILES}:{owner}")
    return made


def dataset_source() -> str:
    """Return the dataset source the profile uses: "default", "names" or "upload:<path>" (read
    once per script run)."""
    chosen = profile()
    return services.once_per_run(
        f"dataset:{chosen.id}",
        lambda: (
            services.DEFAULT_SOURCE
            if _new(chosen)
            else services.store().learners.setting(chosen, DATASET_SETTING, services.DEFAULT_SOURCE)
        ),
    )


def use_dataset(source: str) -> None:
    """Make source the profile's dataset."""
    services.store().learners.set_setting(profile(), DATASET_SETTING, source)
    services.forget(f"dataset:{profile().id}")
    services.forget(f"{NEW}:{profile().id}")


def statuses() -> dict[str, str]:
    """Return "solved" or "attempted" per exercise the profile has submitted, read once per
    script run (a page asked for them up to six times a run); an attempt recorded in the run
    brings them up to date (`recorded`). Read it, do not change it."""
    chosen = profile()
    return services.once_per_run(
        f"statuses:{chosen.id}",
        lambda: {} if _new(chosen) else services.store().work.statuses(chosen),
    )


def forget_statuses() -> None:
    """Read the statuses and the attempts again at their next call in this run (an attempt
    was recorded)."""
    chosen = profile()
    for key in ("statuses", "attempts", NEW):
        services.forget(f"{key}:{chosen.id}")


def recorded(exercise_id: str, solved: bool) -> None:
    """Note that an attempt at exercise_id was recorded: the statuses this run read are
    brought up to date without reading them again (the attempt makes it "attempted", or
    "solved" if it or an earlier one passed); the attempts are read again at their next call."""
    chosen = profile()
    services.revise(f"statuses:{chosen.id}", lambda known: _after(known, exercise_id, solved))
    for key in ("attempts", NEW):
        services.forget(f"{key}:{chosen.id}")


def _after(known: dict[str, str], exercise_id: str, solved: bool) -> dict[str, str]:
    """Return the statuses known, with one more attempt at exercise_id (a new dict)."""
    was_solved = solved or known.get(exercise_id) == SOLVED
    return {**known, exercise_id: SOLVED if was_solved else ATTEMPTED}


def attempts(exercise_id: str) -> list[Attempt]:
    """Return the profile's attempts at an exercise, oldest first, read once per script run
    (an exercise page asked twice); recording an attempt reads them again (`forget_statuses`).
    Read the list, do not change it."""
    chosen = profile()
    found = services.once_per_run(f"attempts:{chosen.id}", dict)
    if exercise_id not in found:
        found[exercise_id] = (
            [] if _new(chosen) else services.store().work.attempts(chosen, exercise_id)
        )
    return found[exercise_id]


def events(exercise_id: str) -> dict[str, int]:
    """Return how many hints and reveals ("hint", "reveal") the profile has had for an
    exercise, read once per script run (an exercise page asked twice)."""
    chosen = profile()
    return services.once_per_run(
        f"events:{chosen.id}:{exercise_id}",
        lambda: {} if _new(chosen) else services.store().work.event_counts(chosen, exercise_id),
    )


def record_event(exercise_id: str, kind: str) -> None:
    """Record a hint shown or a solution revealed; the run's next `events` reads them again."""
    chosen = profile()
    services.store().work.record_event(chosen, exercise_id, kind)
    services.forget(f"events:{chosen.id}:{exercise_id}")
    services.forget(f"{NEW}:{chosen.id}")


def _new(chosen: Profile) -> bool:
    """Return whether chosen was made in this run with nothing written for it since."""
    return services.once_per_run(f"{NEW}:{chosen.id}", lambda: False)


def grader() -> Grader:
    """Return the grader for the profile's dataset, falling back to the default dataset."""
    source = dataset_source()
    try:
        return services.grader(source)
    except ValueError as err:  # data.DatasetError: a cached file went missing or was damaged
        st.warning(f"{err} Using the embedded default dataset instead.")
        use_dataset(services.DEFAULT_SOURCE)
        return services.grader(services.DEFAULT_SOURCE)


def trainer() -> Trainer:
    """Return Exercise 4's trainer for the profile's dataset (the default one if it is gone)."""
    source = dataset_source()
    try:
        return services.trainer(source)
    except ValueError as err:  # data.DatasetError, as in grader()
        st.warning(f"{err} Using the embedded default dataset instead.")
        use_dataset(services.DEFAULT_SOURCE)
        return services.trainer(services.DEFAULT_SOURCE)


def _identity() -> str:
    """Return who is learning: the signed-in person's issuer and subject in the classroom mode,
    else this browser's identity, proven with the installation's secret."""
    if classroom.enabled():
        return classroom.current().identity
    return identity.current(services.identity_secret())
