"""What a screen embeds, and what the frame draws around every screen: the panels, each a
module that draws one part of a page and keeps what that part needs.

    >>> from app.panels import workbench
    >>> code = workbench.submission(key, workbench.editor_event(key, starter))

workbench.py is the editor's life on a page (drafts, submissions, the record of an attempt), on
editor.py (the code editor: Ace, or a plain text area; offline.py serves its frontend with no
web-font request) with ratelimit.py (too many submissions wait) and visits.py (time spent per
visit); scratchpad.py runs code on an exercise's inputs; whycard.py is what an exercise teaches
beyond the verdict; preview.py the instructor's view of an exercise as solved; datasets.py
Home's choice of dataset; notebook_progress.py records a graded notebook's parts as attempts;
sidebar.py (the learner's profile, or who is signed in) and safety.py (missing sandbox layers)
are drawn around every page by app/main.py. A panel imports the services, the session and the
views, never a screen.
"""

__all__ = [
    "datasets",
    "editor",
    "notebook_progress",
    "offline",
    "preview",
    "ratelimit",
    "safety",
    "scratchpad",
    "sidebar",
    "visits",
    "whycard",
    "workbench",
]
