"""PIAS ToN'17 Table I (§III-B, Fig. 2) on dcsim's model of the testbed: 4
hosts on one 1 Gb/s switch; host 0 fetches 10 MB from hosts 1 and 2 back
to back (a new flow from each every 170 ms) and 20 KB from host 3 every
ms; 2 queues at its port, one demotion threshold (10 KB, 20 KB, 1 MB),
with and without ECN; the 20 KB flows' FCT (docs/reproductions/pias.md,
Fig. 12). Usage: pias_table1.py [seconds] [alpha]. A minute or two per
simulated second on one core."""

import copy
import sys
import tempfile
from pathlib import Path

import dcsim
from dcsim.figures import pias_testbed as tb
from dcsim.spec import apply_overrides, spec_from_dict

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
alpha = {"scheme.buffer_alpha": float(sys.argv[2])} if len(sys.argv) > 2 else {}
flows = [(0.001 * s + 0.170 * i, s, 10_000_000) for s in (1, 2) for i in range(int(seconds / 0.170) + 1)]
flows += [(0.05 + 0.001 * i, 3, 20_000) for i in range(int((seconds - 0.05) / 0.001))]
trace = Path(tempfile.mkdtemp()) / "table1.txt"
trace.write_text("".join(f"{t:.6f} {src} 0 {size}\n" for t, src, size in sorted(flows) if t < seconds))
base = copy.deepcopy(tb.TESTBED)
base["topology"]["hosts"] = 4
base.update(workload={"matrix": "trace", "trace": str(trace)}, scheme={}, seed=1)
for threshold in (10_000, 20_000, 1_000_000):
    for ecn in (False, True):
        over = {**tb.PIAS, "scheme.queues": 2, "scheme.thresholds": [threshold], "scheme.ecn": ecn, **alpha}
        df = dcsim.run(spec_from_dict(apply_overrides(copy.deepcopy(base), over)))
        us = df[df.size_bytes == 20_000].fct_s * 1e6
        print(f"threshold {threshold:>9,} B, ECN {'on ' if ecn else 'off'}: 20 KB flows ({len(us)}) "
              f"avg {us.mean():6.0f} us, 99th {us.quantile(0.99):6.0f} us", flush=True)
