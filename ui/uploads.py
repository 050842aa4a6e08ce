"""Background uploads for the browser app: one ingest at a time on a worker thread, progress read by polling.

``Uploads.start`` returns at once; the ingest runs on its own thread, so the Gradio event that started
it finishes immediately and answers keep being served (they never wait on the upload: the store and the
keyword index are read without a lock held across an ingest). A second upload while one runs is refused
with the running one's progress. The uploaded copy (Gradio's temp file) is removed when the job ends,
whether it succeeded or failed.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Literal

import gradio.utils

from vectorstore.errors import PaperchatError

log = logging.getLogger("paperchat.ui")

State = Literal["checking", "embedding", "done", "failed"]
Progress = Callable[[int, int], None]
RunIngest = Callable[[Path, bool, Progress], Any]  # (file, skip_invalid, on_progress) -> IngestReport


@dataclass(frozen=True)
class UploadJob:
    """One upload as the page shows it; replaced (never changed) as the job advances."""

    number: int
    name: str  # the file name as uploaded (no folders): what the page shows
    path: str = ""  # where the upload was read from (error messages name it by ``name``)
    state: State = "checking"
    done: int = 0  # papers embedded and committed so far
    total: int = 0  # papers to embed (new or changed); 0 until the file is checked
    started: float = 0.0
    seconds: float = 0.0  # elapsed when it finished
    report: Any = None  # the IngestReport when done
    error: BaseException | None = None  # why it failed

    @property
    def running(self) -> bool:
        return self.state in ("checking", "embedding")

    def progress(self) -> str:
        """``embedding 1,200 / 2,634 papers`` (or the phase before it)."""
        if self.state == "checking":
            return "checking the file and the store"
        return f"embedding {self.done:,} / {self.total:,} papers"


class UploadBusy(Exception):
    """Another upload is running; ``job`` is the running one."""

    def __init__(self, job: UploadJob) -> None:
        self.job = job
        super().__init__(f"an upload is already running ({job.name}: {job.progress()}); "
                         "add this file when it has finished")


def _is_gradio_copy(path: Path) -> bool:
    """Only Gradio's own uploaded copies are removed, never a file a script passed by its path."""
    try:
        return path.resolve().is_relative_to(Path(gradio.utils.get_upload_folder()).resolve())
    except (OSError, ValueError):
        return False


def remove_upload(path: Path) -> None:
    """Delete Gradio's uploaded copy and its (now empty) per-upload folder."""
    if not _is_gradio_copy(path):
        return
    try:
        path.unlink(missing_ok=True)
        path.parent.rmdir()  # gradio keeps each upload in a folder of its own; left if anything else is in it
    except OSError:
        pass


class Uploads:
    """Runs uploads one at a time on a worker thread; ``current()`` is the latest job, for polling."""

    def __init__(self, run: RunIngest) -> None:
        self._run = run
        self._lock = threading.Lock()
        self._job: UploadJob | None = None
        self._count = 0
        self._finished = threading.Event()

    def current(self) -> UploadJob | None:
        """The running upload, else the last one (None before the first)."""
        return self._job

    def start(self, path: Path, skip_invalid: bool = False) -> UploadJob:
        """Start ingesting ``path`` in the background and return its job; ``UploadBusy`` if one is running
        (then ``path`` is removed as well, if it is Gradio's copy)."""
        with self._lock:
            if self._job is not None and self._job.running:
                remove_upload(path)
                raise UploadBusy(self._job)
            self._count += 1
            job = self._job = UploadJob(self._count, path.name, str(path), started=time.monotonic())
            self._finished.clear()
        threading.Thread(target=self._work, args=(job, path, skip_invalid), name=f"upload-{job.number}", daemon=True).start()
        return job

    def wait(self, timeout: float) -> UploadJob | None:
        """Wait up to ``timeout`` seconds for the current job to end; returns the current job."""
        self._finished.wait(timeout)
        return self._job

    def _update(self, job: UploadJob, **changes: Any) -> UploadJob:
        with self._lock:
            current = self._job if self._job is not None and self._job.number == job.number else job
            self._job = replace(current, **changes)
            return self._job

    def _work(self, job: UploadJob, path: Path, skip_invalid: bool) -> None:
        def progress(done: int, total: int) -> None:
            self._update(job, state="embedding", done=done, total=total)

        changes: dict[str, Any]
        try:
            changes = {"state": "done", "report": self._run(path, skip_invalid, progress)}
        except BaseException as exc:  # noqa: BLE001 - every failure is shown on the page, the app keeps serving
            if not isinstance(exc, PaperchatError):
                log.exception("ingesting the upload %s failed", path.name)
            changes = {"state": "failed", "error": exc}
        remove_upload(path)  # before the job reads as finished: a finished upload has left no copy behind
        self._update(job, seconds=time.monotonic() - job.started, **changes)
        self._finished.set()
