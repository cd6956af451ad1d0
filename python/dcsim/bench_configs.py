"""The engine configurations docs/performance.md names (`CONFIGS/pf100k.json`
and the like), written to a directory, for `run_config`, cachegrind and
`perf` without Python (crates/engine/examples/run_config.rs):

    python -m dcsim.bench_configs CONFIGS                 # every name below
    python -m dcsim.bench_configs CONFIGS pf1500 s30k     # just these
    target/release/examples/run_config CONFIGS/pf1500.json

Names:
- `SCHEME` + flows (`tcp500`, `pf1500`, `pf100k`, `hpcc20k`, `bfc1k5`...):
  `dcsim.bench.scenario(flows, scheme=SCHEME)`, `make bench`'s set-up of
  that scheme (`pf` is pfabric; flows as 500, 1500, 1k5, 10k, 20k, 100k);
  `dctcp` + flows: DCTCP on pFabric's point as `pfabric-fig7-9` runs it
  (also `dctcppf1500`);
- `ref` + flows, `s` + flows: `dcsim.bench_scale.spec` of the 144-host
  reference fabric or of the 6,144-host one (BIG), web search;
- `bfc1k5`, `hpcc1k5` (as the page's sections use them): BFC and HPCC on
  `bfc-fig11a`'s set-up, its incasts included, with 1,500 background
  flows, not `make bench`'s;
- `pf1500_edf`, `pf1500_las`, `pf1500_nosp`: `pf1500` with pFabric-EDF
  (deadline priority, Figs. 10-11's deadlines at a 1 ms mean), with LAS
  (priority by bytes sent), or with per-flow ECMP instead of spraying.
Configurations written before the newest spec fields may differ from
these in those fields' defaults; a digest on the page is of its day's
build and configuration.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

SCHEME_NAMES = {"pf": "pfabric", "pfabric": "pfabric", "tcp": "tcp", "ideal": "ideal", "hpcc": "hpcc",
                "dcqcn": "dcqcn", "bfc": "bfc", "pdq": "pdq"}
DEFAULT = ("tcp500", "tcp20k", "pf1500", "pf10k", "pf100k", "dctcp1500", "hpcc20k", "dcqcn20k", "bfc20k",
           "bfc1k5", "hpcc1k5", "pf1500_edf", "pf1500_las", "pf1500_nosp", "ref10k", "s10k", "s30k")
NAME = re.compile(r"(?P<what>[a-z]+?)(?P<n>\d+)(?P<k>k\d*)?(?P<rest>(_[a-z]+)?)")


def flows(n: str, k: str | None) -> int:
    """'1', 'k5' -> 1500; '20', 'k' -> 20000; '500', None -> 500."""
    if not k:
        return int(n)
    return int(n) * 1000 + (int(k[1:]) * 10 ** (3 - len(k[1:])) if len(k) > 1 else 0)


def spec_of(name: str):
    """The spec a configuration name stands for (SpecError if none)."""
    from .bench import scenario
    from .bench_scale import BIG, REFERENCE, spec as scale_spec
    from .errors import SpecError
    from .figures.core import get
    from .spec import apply_overrides, spec_from_dict

    if name in ("bfc1k5", "hpcc1k5"):
        base = get("bfc-fig11a").sweep("quick").base
        return spec_from_dict(apply_overrides(base, {"scheme.name": name[:-3], "workload.flows": 1500}))
    m = NAME.fullmatch(name.replace("dctcppf", "dctcp"))
    if m is None:
        raise SpecError(f"{name}: not a configuration name (see python -m dcsim.bench_configs --help)")
    what, n, rest = m["what"], flows(m["n"], m["k"]), m["rest"]
    if what in ("ref", "s") and not rest:
        return scale_spec(REFERENCE if what == "ref" else BIG, "web_search", n)
    if what == "dctcp" and not rest:
        pf = scenario(n, scheme="pfabric").model_dump(mode="json", exclude_unset=True)
        from .profiles import PFABRIC

        data = apply_overrides({k: v for k, v in pf.items() if k != "scheme"}, PFABRIC.variant("dctcp"))
        return spec_from_dict({**data, "name": "bench-dctcp-pfabric-point"})
    if what in SCHEME_NAMES:
        spec = scenario(n, scheme=SCHEME_NAMES[what])
        changes = {"": {}, "_edf": {"scheme.priority": "deadline", "workload.deadline_mean_us": 1000},
                   "_las": {"scheme.priority": "bytes_sent"},
                   "_nosp": {"routing.load_balancing": "ecmp"}}
        if rest not in changes or (rest and what not in ("pf", "pfabric")):
            raise SpecError(f"{name}: unknown variant {rest!r} (pf1500_edf, pf1500_las, pf1500_nosp)")
        return spec.with_overrides(**changes[rest]) if changes[rest] else spec
    raise SpecError(f"{name}: not a configuration name (see python -m dcsim.bench_configs --help)")


def main(argv: list[str] | None = None) -> int:
    from .errors import SpecError
    from .spec import engine_config_json

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", type=Path, help="directory to write NAME.json into")
    p.add_argument("names", nargs="*", help=f"configurations (default: {' '.join(DEFAULT)})")
    a = p.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    for name in a.names or DEFAULT:
        try:
            text = engine_config_json(spec_of(name))
        except SpecError as e:
            print(f"dcsim.bench_configs: error: {e}", file=sys.stderr)
            return 2
        (a.out / f"{name}.json").write_text(text)
        print(a.out / f"{name}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
