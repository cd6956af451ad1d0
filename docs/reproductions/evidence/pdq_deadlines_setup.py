"""Why PDQ meets fewer data mining deadlines than DCTCP at a 100 us mean
(docs/reproductions/pfabric.md, "PDQ and deadlines"): the quick figure's
data mining point at a 100 us mean deadline, run by PDQ, DCTCP and
pFabric-EDF; their deadline flows split by whether a set-up round trip
puts the deadline out of reach (deadline - start < ideal FCT + one RTT,
the figure's "beyond_setup" statistic), and the share met in each part.
If the set-up RTT is the cause, PDQ meets about none of the first part
and at least as many as DCTCP of the second. About a minute on one core.

Usage: .venv/bin/python docs/reproductions/evidence/pdq_deadlines_setup.py [quick|full] [CDF]"""

import sys

from _points import point, run

mode = sys.argv[1] if len(sys.argv) > 1 else "quick"
cdf = sys.argv[2] if len(sys.argv) > 2 else "data_mining"
for variant in ("pdq", "dctcp", "pfabric_edf"):
    # DCTCP never reads a deadline: the figure runs it once; its flows are
    # the same at every mean, only their deadlines change
    spec = point("pfabric-fig10-11", mode, workload__cdf=cdf, variant=variant)
    spec["workload"]["deadline_mean_us"] = 100.0
    f = run(spec).flows
    d = f[f.deadline_s.notna()]
    met = d.finish_s <= d.deadline_s
    rtt = f.ideal_fct_s.min()
    beyond = (d.deadline_s - d.start_s) < d.ideal_fct_s + rtt
    print(f"{variant:12s} {len(d)} deadline flows: met {100 * met.mean():.1f}%; "
          f"out of reach after a set-up RTT: {100 * beyond.mean():.1f}% of them, met {100 * met[beyond].mean():.1f}%; "
          f"the others: met {100 * met[~beyond].mean():.1f}%", flush=True)
