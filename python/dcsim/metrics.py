"""Flow-level metrics: slowdown (normalized FCT) by flow-size bin."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

#: The pFabric/PIAS/BFC size bins: (0, 100KB], (100KB, 10MB], (10MB, inf).
PAPER_BINS: tuple[float, ...] = (0, 100_000, 10_000_000, np.inf)


def _label(lo: float, hi: float) -> str:
    def fmt(x: float) -> str:
        if np.isinf(x):
            return "inf"
        for unit, div in (("MB", 1e6), ("KB", 1e3)):
            if x >= div and x % div == 0:
                return f"{x / div:g}{unit}"
        return f"{x:g}B"

    return f"({fmt(lo)}, {fmt(hi)}]"


def slowdown_by_size(
    flows: pd.DataFrame,
    bins: Optional[Sequence[float]] = None,
    percentiles: Sequence[float] = (99,),
) -> pd.DataFrame:
    """Mean and percentile slowdown per size bin, plus an ``all`` row.

    ``bins`` are edges of right-closed intervals; the default is
    :data:`PAPER_BINS`. Percentiles use linear interpolation."""
    edges = list(PAPER_BINS if bins is None else bins)
    if any(b >= a for a, b in zip(edges[1:], edges)) or len(edges) < 2:
        raise ValueError(f"bins must be increasing edges, got {edges}")
    rows = []
    groups = [(_label(lo, hi), (flows.size_bytes > lo) & (flows.size_bytes <= hi)) for lo, hi in zip(edges, edges[1:])]
    groups.append(("all", pd.Series(True, index=flows.index)))
    for label, mask in groups:
        s = flows.slowdown[mask]
        row = {"bin": label, "flows": int(mask.sum()), "mean": s.mean() if len(s) else np.nan}
        for p in percentiles:
            row[f"p{p:g}"] = float(np.percentile(s, p)) if len(s) else np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("bin")
