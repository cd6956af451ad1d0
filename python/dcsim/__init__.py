"""dcsim: a fast, faithful packet-level simulator of datacenter transports.

    import dcsim
    spec = dcsim.load_spec("examples/leaf_spine_web_search.toml")
    flows = dcsim.run(spec)                  # one row per flow
    dcsim.slowdown_by_size(flows)            # mean / p99 slowdown per size bin

The public names are imported on first use, so that the command line
(`dcsim --help`, `dcsim list`) does not pay for pandas and the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS = {
    "SpecError": "errors",
    "DcsimWarning": "errors",
    "Spec": "spec",
    "load_spec": "spec",
    "spec_from_dict": "spec",
    "run": "simulate",
    "run_all": "simulate",
    "run_to_dir": "simulate",
    "read_flows": "results",
    "read_sweep": "results",
    "compare": "comparison",
    "generated_flows": "simulate",
    "slowdown_by_size": "metrics",
    "summarize": "metrics",
    "PAPER_BINS": "metrics",
}

#: submodules the docs call by their dotted names (`dcsim.metrics.settling`)
_SUBMODULES = ("metrics", "sweep", "runner", "results", "figures", "simulate", "spec", "thresholds", "workloads")

__all__ = [*_EXPORTS, *_SUBMODULES, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'dcsim' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # for editors and type checkers
    from .comparison import compare
    from .errors import DcsimWarning, SpecError
    from .metrics import PAPER_BINS, slowdown_by_size, summarize
    from .results import read_flows, read_sweep
    from .simulate import generated_flows, run, run_all, run_to_dir
    from .spec import Spec, load_spec, spec_from_dict
