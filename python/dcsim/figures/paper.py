"""A paper's whole evaluation in one command: `dcsim reproduce pfabric`
runs every registered figure of the paper, each into OUT/<figure>, in the
registry's order. The figures of a paper share runs (pFabric's Figs. 16,
17, 18 and 23 contain Figs. 7-9's pFabric runs), so each figure reuses
the complete points of the figures before it (`run_sweep`'s `reuse`:
same key, same result) instead of running them again."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from ..errors import SpecError
from .core import REGISTRY, refuse_reuse_with_redraw, reproduce


def papers() -> list[str]:
    """The papers with registered figures (the names' first part)."""
    return sorted({name.split("-")[0] for name in REGISTRY})


def figures_of(paper: str) -> list[str]:
    names = [name for name in REGISTRY if name.split("-")[0] == paper]
    if not names:
        raise SpecError(f"unknown paper {paper!r} (papers: {', '.join(papers())})")
    return names


@dataclass
class PaperResult:
    out: Path
    #: each drawn figure's sweep result (`runner.SweepResult`)
    results: dict[str, Any] = field(default_factory=dict)
    #: figures that could not be drawn, with why
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed and all(r.ok for r in self.results.values())


def reproduce_paper(paper: str, out: str | Path, *, mode: str = "quick", jobs: Optional[int] = None,
                    scheduler: Any = None, quiet: bool = False, reuse: Sequence[str | Path] = (),
                    log=None, redraw: bool = False) -> PaperResult:
    """Reproduce every figure of `paper` into `out`/<figure> (each
    resumable). A figure that fails to draw is reported and the others go
    on; Ctrl-C stops at once, keeping every complete point."""
    refuse_reuse_with_redraw(redraw, reuse)
    names = figures_of(paper)
    out = Path(out)
    say = log or (lambda msg: None if quiet else print(msg, file=sys.stderr))
    result = PaperResult(out)
    done: list[Path] = []
    for i, name in enumerate(names, 1):
        say(f"[{i}/{len(names)}] {name}")
        fig_out = out / name
        try:
            result.results[name], _ = reproduce(name, fig_out, mode=mode, jobs=jobs, scheduler=scheduler,
                                                quiet=quiet, reuse=[] if redraw else [*reuse, *done],
                                                redraw=redraw)
        except SpecError as e:
            result.failed[name] = str(e)
            print(f"dcsim: {name} not drawn: {e}", file=sys.stderr)
        if (fig_out / "points").is_dir():
            done.append(fig_out)
    return result
