"""Who is learning in this browser session, and on which dataset."""

from __future__ import annotations

import streamlit as st

from app import services
from app.storage import Profile

PROFILE_KEY = "profile"
FIRST_PROFILE = "learner"
DATASET_SETTING = "dataset"


def profile() -> Profile:
    """Return this session's profile: the one picked, else the last used, else a new one."""
    chosen = st.session_state.get(PROFILE_KEY)
    if chosen is None:
        store = services.store()
        chosen = store.last_profile() or store.add_profile(FIRST_PROFILE)
        st.session_state[PROFILE_KEY] = chosen
    return chosen


def switch_profile(chosen: Profile) -> None:
    """Make chosen this session's profile and the one opened next time."""
    services.store().use_profile(chosen)
    st.session_state[PROFILE_KEY] = chosen


def dataset_source() -> str:
    """Return the dataset source the profile uses: "default", "names" or "upload:<path>"."""
    return services.store().setting(profile(), DATASET_SETTING, services.DEFAULT_SOURCE)


def use_dataset(source: str) -> None:
    """Make source the profile's dataset."""
    services.store().set_setting(profile(), DATASET_SETTING, source)


def grader():
    """Return the grader for the profile's dataset, falling back to the default dataset."""
    source = dataset_source()
    try:
        return services.grader(source)
    except ValueError as err:  # data.DatasetError: a cached file went missing or was damaged
        st.warning(f"{err} Using the embedded default dataset instead.")
        use_dataset(services.DEFAULT_SOURCE)
        return services.grader(services.DEFAULT_SOURCE)


def trainer():
    """Return Exercise 4's trainer for the profile's dataset (the default one if it is gone)."""
    source = dataset_source()
    try:
        return services.trainer(source)
    except ValueError as err:  # data.DatasetError, as in grader()
        st.warning(f"{err} Using the embedded default dataset instead.")
        use_dataset(services.DEFAULT_SOURCE)
        return services.trainer(services.DEFAULT_SOURCE)
