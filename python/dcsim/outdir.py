"""Output directories: checked before any simulation runs, written through
temporary directories renamed into place, with the permissions the user's
umask gives (results are meant to be shared)."""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import SpecError


def check_output_dir(out: Path, *, force: bool = False, replace: bool = False) -> None:
    """Fail now, before any simulation, if `out` cannot be (or hold) the
    results. `replace`: `out` is written as a whole (`dcsim run`), so an
    existing one is replaced only with `force`; otherwise (a sweep's
    resumable store) an existing directory is reused."""
    out = Path(out)
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise SpecError(f"--out {out}: exists and is not a directory; choose another path")
        if replace and not force:
            raise SpecError(f"output directory {out} already exists (use --force to replace it)")
        if not os.access(out, os.W_OK | os.X_OK):
            raise SpecError(f"--out {out}: the directory is not writable")
        if not replace:
            return
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise SpecError(f"--out {out}: cannot create it ({parent} is a file, not a directory)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SpecError(f"--out {out}: cannot create it ({parent} is not writable)")


def umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def make_tmp_dir(parent: Path, prefix: str) -> Path:
    """A temporary directory in `parent`, to be renamed into place, with the
    mode a new directory gets under the umask (mkdtemp's 0700 would make
    the results private)."""
    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    os.chmod(tmp, 0o777 & ~umask())
    return tmp


@contextmanager
def replacing(out: Path) -> Iterator[Path]:
    """A temporary directory beside `out` to write a run's files into; on
    success it replaces `out` (renamed into place, never half-written), on
    any failure or Ctrl-C it is removed and `out` is left as it was."""
    out = Path(out)
    try:
        tmp = make_tmp_dir(out.parent, f".{out.name}.")
    except OSError as e:
        raise SpecError(f"--out {out}: cannot create it ({e.strerror})") from None
    try:
        yield tmp
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
