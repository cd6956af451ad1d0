"""PIAS thresholds that leave queues empty (docs/schemes.md, "PIAS
thresholds"; issue 50): on the CDF '100 0; 1000 0.5; 10000 0.8; 1000000
0.95; 30000000 1' at 60% load, `thresholds = "pias"` (Eq. 1's optimum)
puts one threshold at 1 MB and six at the largest flow: two queues in
effect. Each line: the (0, 1KB] flows' mean and 99th-percentile slowdown
and all flows' mean, 4,000 flows on the default fabric, for
- PIAS with its scripts' agents (K = 65 packets of port marking, initial
  window 70) and Eq. 1's, equal-split and one-queue thresholds;
- DCTCP with its defaults (pFabric Table 1: K = 21.9 KB, window 12) and
  with PIAS's initial window;
- PIAS given DCTCP's K and window, with the same three thresholds.
It separates what the empty queues cost from what the two schemes'
defaults (from two papers) cost. About three minutes on one core.

Usage: .venv/bin/python docs/reproductions/evidence/pias_empty_queues.py"""

import tempfile
import warnings
from pathlib import Path

import dcsim
from dcsim.spec import spec_from_dict

warnings.simplefilter("ignore", dcsim.DcsimWarning)
cdf = Path(tempfile.mkdtemp()) / "tail.cdf"
cdf.write_text("100 0\n1000 0.5\n10000 0.8\n1000000 0.95\n30000000 1\n")
base = {"seed": 1, "workload": {"cdf": str(cdf), "load": 0.6, "flows": 4000}}
one_queue = [30_000_000] * 7
like_dctcp = {"init_cwnd_pkts": 12, "ecn_threshold_bytes": 21_900}
runs = {
    "PIAS, Eq. 1 thresholds": {"name": "pias", "thresholds": "pias"},
    "PIAS, equal-split": {"name": "pias", "thresholds": "equal_split"},
    "PIAS, one queue": {"name": "pias", "thresholds": one_queue},
    "DCTCP": {"name": "dctcp"},
    "DCTCP, window 70": {"name": "dctcp", "init_cwnd_pkts": 70},
    "PIAS with DCTCP's K and window, Eq. 1": {"name": "pias", "thresholds": "pias", **like_dctcp},
    "PIAS with DCTCP's K and window, equal-split": {"name": "pias", "thresholds": "equal_split", **like_dctcp},
    "PIAS with DCTCP's K and window, one queue": {"name": "pias", "thresholds": one_queue, **like_dctcp},
}
for label, scheme in runs.items():
    f = dcsim.run(spec_from_dict({**base, "scheme": scheme}))
    tiny = f[f.size_bytes <= 1000].slowdown
    print(f"{label:45s} (0, 1KB] mean {tiny.mean():.2f} p99 {tiny.quantile(0.99):.2f}; all flows mean "
          f"{f.slowdown.mean():.2f}", flush=True)
