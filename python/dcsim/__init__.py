"""dcsim: a fast, faithful packet-level simulator of datacenter transports.

    import dcsim
    spec = dcsim.load_spec("examples/leaf_spine_web_search.toml")
    flows = dcsim.run(spec)                  # one row per flow
    dcsim.slowdown_by_size(flows)            # mean / p99 slowdown per size bin
"""

__version__ = "0.1.0"

from .errors import SpecError  # noqa: E402
from .spec import Spec, load_spec, spec_from_dict  # noqa: E402
from .simulate import run, run_to_dir, read_flows, generated_flows  # noqa: E402
from .metrics import slowdown_by_size, PAPER_BINS  # noqa: E402

__all__ = [
    "Spec",
    "SpecError",
    "load_spec",
    "spec_from_dict",
    "run",
    "run_to_dir",
    "read_flows",
    "generated_flows",
    "slowdown_by_size",
    "PAPER_BINS",
    "__version__",
]
