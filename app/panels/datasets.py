"""Choose the dataset on Home: the embedded default, the lecture's names.txt, or an upload."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from app import classroom, services, session
from app.classroom import quotas
from app.panels import workbench
from app.storage import wordlists

if TYPE_CHECKING:
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    from data import Preview, Upload

CHOICES = {
    services.DEFAULT_SOURCE: "Embedded default (US baby names, works offline)",
    services.NAMES_SOURCE: "The lecture's names.txt (downloaded once, verified)",
    "upload": "My own word list (.txt or .csv)",
}


def show(slug: str) -> None:
    """Show the dataset in use, with the figures of scenario `slug` on it, and the controls
    to change it."""
    source = session.dataset_source()
    with st.spinner("Loading PyTorch and the dataset…"):
        header = session.grader().header(slug)
    st.markdown(describe(header))
    kind = "upload" if source.startswith(services.UPLOAD_PREFIX) else source
    with st.expander("Change the dataset", icon=":material/dataset:"):
        picked = st.radio(
            "Words to train on",
            list(CHOICES),
            format_func=CHOICES.get,
            index=list(CHOICES).index(kind),
            key="dataset:kind",
        )
        if picked == services.DEFAULT_SOURCE:
            _offer(services.DEFAULT_SOURCE, source)
        elif picked == services.NAMES_SOURCE:
            _names(source)
        else:
            _upload()


def describe(header: dict) -> str:
    """Return the dataset and model figures as one Markdown paragraph."""
    lines = []
    if "words" in header:
        lines.append(
            f"**Dataset:** `{header['name']}` — {header['words']:,} words, vocabulary "
            f"{header['vocab_size']}, examples train {header['train']:,} / dev "
            f"{header['dev']:,} / test {header['test']:,}."
        )
    lines.append(
        f"**Model:** {header['scenario']}, {header['parameters']:,} parameters; "
        f"loss on the lecture batch {header['loss']:.4f}."
    )
    return "  \n".join(lines)


def _offer(source: str, current: str) -> None:
    """Offer a button that switches to source, unless it is already in use."""
    if source == current:
        st.caption("This is the dataset in use.")
    elif st.button("Use this dataset", key=f"dataset:use:{source}", type="primary"):
        session.use_dataset(source)
        st.rerun()


def _names(current: str) -> None:
    """Offer the lecture's names.txt: download it (with progress) unless it is cached."""
    import data

    cache = services.config().cache_dir
    if data.cached_names(cache) is None:
        st.caption("Downloads 228 kB once from the makemore repository and checks its SHA-256.")
        if not st.button("Download names.txt", key="dataset:download"):
            return
        if not _download(cache):
            return
    words = data.cached_names(cache).read_text(encoding="utf-8").split()
    preview(data.preview(tuple(words)))  # used verbatim, as in the lecture
    _offer(services.NAMES_SOURCE, current)


def _download(cache: Path) -> bool:
    """Download names.txt with a progress bar; return whether it worked."""
    import data

    bar = st.progress(0.0, text="Downloading names.txt…")

    def progress(done: int, total: int | None) -> None:
        bar.progress(min(done / total, 1.0) if total else 0.0, text=f"{done / 1000:.0f} kB")

    try:
        data.download_names(cache_dir=cache, progress=progress)
    except data.DatasetError as err:
        bar.empty()
        st.error(err.message)
        return False
    bar.progress(1.0, text="Downloaded and verified.")
    return True


def _upload() -> None:
    """Clean an uploaded word list (in a child process), show what cleaning did, offer it;
    in the classroom, only while the learner is under their word lists a day."""
    refusal = _over_quota()
    if refusal is not None:  # nothing is read: a flood of uploads costs the class nothing
        if st.session_state.get("dataset:refused") != refusal.frees_at:
            st.session_state["dataset:refused"] = refusal.frees_at
            workbench.refuse(refusal)
        else:
            st.warning(refusal.message(), icon=":material/block:")
        return
    upload = st.file_uploader(
        "Word list: one word per line, or a CSV file with a header row",
        type=["txt", "csv", "tsv"],
        key="dataset:upload",
        max_upload_size=3,  # MiB: a little over data.upload's cap, so its refusal is shown
    )
    column = st.text_input("CSV column (default: the first)", key="dataset:column", max_chars=100)
    if upload is None:
        return
    read = _read(upload, column or None)
    if isinstance(read, str):
        st.error(read)
        return
    preview(read.preview)
    if st.button("Use this word list", key="dataset:use:upload", type="primary"):
        session.use_dataset(services.UPLOAD_PREFIX + str(_save(read.text, upload.name)))
        st.rerun()


def _over_quota() -> quotas.Refusal | None:
    """Return the refusal of one more word list in the classroom (uploaded in the last day on
    any replica, `NINJA_QUOTA_WORD_LISTS`), else None."""
    if not classroom.enabled():
        return None
    now, limit = time.time(), services.config().quota_word_lists
    counted = quotas.Quotas(services.store()).uploads_since(session.profile().id, now - quotas.DAY)
    return quotas.windowed(quotas.WORD_LISTS, *counted, limit, now)


def _read(upload: UploadedFile, column: str | None) -> Upload | str:
    """Return the upload read (data.Upload) or why not (str), read once per file and column."""
    import data

    key = (upload.file_id, column)
    kept = st.session_state.get("dataset:read")
    if kept is None or kept[0] != key:
        try:
            read = data.read_upload(upload.getvalue(), upload.name, column)
        except data.DatasetError as err:
            read = err.message
        kept = (key, read)
        st.session_state["dataset:read"] = kept
    return kept[1]


def _save(text: str, filename: str) -> Path:
    """Keep the cleaned words under the data directory and in the database (every replica and
    training worker of a class reads them from there: app/storage/wordlists.py); return the path."""
    path = wordlists.save(
        services.store().word_lists, services.config().uploads_dir, text, filename
    )
    quotas.Quotas(services.store()).note_upload(session.profile().id, path.parent.name)
    return path


def preview(shown: Preview) -> None:
    """Show a word list's preview (data.Preview): counts, word lengths, the changes made."""
    import pandas as pd  # imported here: Home's first render should not wait for it

    st.markdown(
        f"**{shown.words:,} words**, {len(shown.chars)} distinct characters "
        f"(`{shown.chars}`), e.g. {', '.join(shown.first)}."
    )
    labels = [str(a) if a == b else f"{a}-{b}" for a, b, _ in shown.lengths]
    counts = [n for _, _, n in shown.lengths]
    frame = pd.DataFrame({"length": labels, "words": counts})
    st.bar_chart(
        frame,
        x="length",
        y="words",
        height=160,
        x_label="word length",
        y_label="words",
        sort=False,
    )
    report = shown.report
    if report is not None:
        for line in report.describe() or ["Cleaning changed nothing."]:
            st.markdown(f"- {line}")
        if report.examples:
            st.dataframe(
                pd.DataFrame(report.examples, columns=["original", "cleaned"]), hide_index=True
            )
