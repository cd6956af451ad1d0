"""BFC Fig. 11(b) without incast: DCTCP's long flows in the simulator the
paper ran its comparison schemes on, and dcsim on the very same flows
(docs/reproductions/bfc.md, "Fig. 11(b)", "The simulator's own DCTCP").

Usage: bfc_ns3_dctcp.py [--long] [FCT_FILE ...]

With no argument the script reads the peer simulator's outputs stored in
the repository (docs/reproductions/evidence/peers/, STORED and
STORED_LONG below; each directory's PROVENANCE.md has the fork's commit,
the exact `mix/config.txt`, the build and the command line), so it needs
no ns-3: it reruns dcsim's side and compares. STORED_LONG is the paper's
marking on 100 ms of arrivals (APP_STOP_TIME 1.1: 397,847 flows): its
ns-3 row is always printed, dcsim's side on its flows only with --long
(given FCT_FILEs, dcsim's side always runs). Each FCT_FILE (plain, .xz
or .gz) is the output of the BFC co-author's fork of the HPCC ns-3 simulator
(github.com/preeyshah/High-Precision-Congestion-Control at b9e9210),
`scratch/simple` with its `mix/config.txt` changed to the Fig. 11(b)
set-up: CREATE_INCAST 0, UTILIZATION_FACTOR 0.6, APP_STOP_TIME 1.025,
SIMULATOR_STOP_TIME 1.9, CC_MODE 8 (DCTCP) and the DCTCP fields of the
run (the paper's marking: KMIN_MAP/KMAX_MAP 400 and 1600 at 100 Gb/s
replaced by 100 and 400 KB, PMAX 0.2, EWMA_GAIN 0.0625, DCTCP_RATE_AI
615Mb/s, MIN_RATE 1000Mb/s). Build: ns-3.17's waf under Python 2.7
(`CXXFLAGS='-O3 -Wno-error -std=c++11 -fpermissive -w' ./waf configure
--build-profile=optimized --disable-examples --disable-tests
--disable-python --enable-modules=point-to-point,applications,internet`;
with gcc 12, `scratch/simple_inter_dc.cc` does not compile at b9e9210 and
is moved out of `scratch/` first). A 25 ms run takes 9 minutes of CPU,
the 100 ms one 35.
The fork's FCT file has seven columns (`sip dip sport dport size
start_ns fct_ns`); the slowdown's denominator is computed as the
upstream simulator's `third.cc` does (the pair's base RTT plus the bytes
with 48 B of headers per packet at 100 Gb/s).

The script prints, for each ns-3 run, its statistics, then, once for
each distinct set of flows (the four STORED runs have the same 97,891),
dcsim's on the same flows (the FCT file turned into a trace in the HPCC
simulator's flow-file format): `dctcp_rdma` (its defaults; and with ACKs
first at switches, as the fork serves them), `hpcc` with the fork's
maxStage 0 and 42 B telemetry header with ACKs first, `bfc` and
`ideal_fq`: the mean slowdown of all flows, of the largest 5% (size at
least the 95th percentile) and the 99th percentile of flows up to 3 KB.
About 2 minutes of CPU in all from the stored outputs (15-30 s per dcsim
run; 4 minutes on a 2-core machine busy with another job); --long adds
the five dcsim runs on the 100 ms run's flows, about 8 minutes more (10
minutes in all, 2026-11-29, on a 2-core machine busy with other jobs).
"""

import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _points import point

import dcsim
from dcsim.spec import spec_from_dict

PEERS = Path(__file__).resolve().parent / "peers"
#: the fork's stored runs of Fig. 11(b) (evidence/peers/NAME/fct.txt.xz), in the page's table order
STORED = {
    "bfc-fig11b-dctcp-paper": "ns-3 DCTCP, the paper's marking",
    "bfc-fig11b-dctcp-fork": "ns-3 DCTCP, the fork's own fields",
    "bfc-fig11b-dctcp-runpy": "ns-3 DCTCP, the upstream run.py's",
    "bfc-fig11b-hpcc": "ns-3 HPCC, the fork's configuration unchanged",
}
#: the stored run on 100 ms of arrivals (397,847 flows): its ns-3 row always, dcsim's side with --long
STORED_LONG = {
    "bfc-fig11b-dctcp-paper-100ms": "ns-3 DCTCP, the paper's marking, 100 ms of arrivals",
}
#: dcsim's runs on the same flows: (label, variant, scheme fields, buffer fields)
RUNS = [("dctcp_rdma", "dctcp", {}, {}),
        ("dctcp_rdma, ACKs first", "dctcp", {}, {"acks_high_priority": True}),
        ("hpcc, the fork's maxStage 0 and 42 B INT header, ACKs first", "hpcc",
         {"max_stage": 0, "int_header_bytes": 42}, {"acks_high_priority": True}),
        ("bfc", "bfc", {}, {}), ("ideal_fq", "ideal_fq", {}, {})]


def stored(names: dict) -> list[tuple[str, str]]:
    """(path, label) of the stored runs `names` (evidence/peers/NAME/fct.txt.xz)."""
    runs = [(PEERS / n / "fct.txt.xz", f"{n}: {label}") for n, label in names.items()]
    missing = [str(p) for p, _ in runs if not p.is_file()]
    if missing:
        raise SystemExit(f"stored runs missing: {', '.join(missing)}")
    return [(str(p), label) for p, label in runs]


def ns3_flows(path: str) -> pd.DataFrame:
    """The fork's FCT file (plain, or compressed as its suffix says) with each flow's
    source and destination host and slowdown, in trace order."""
    f = pd.read_csv(path, sep=r"\s+", header=None, dtype={"sip": str, "dip": str},
                    names=["sip", "dip", "sport", "dport", "size", "start_ns", "fct_ns"])
    # host addresses 0x0b00XX01 (XX: the node, switches and hosts numbered
    # from 0; the 128 hosts from 16 on in the fork's hard-coded topology)
    node = lambda ips: np.array([((int(s, 16) >> 8) & 0xff) + 256 * ((int(s, 16) >> 16) & 0xff) for s in ips]) - 16
    f["src"], f["dst"] = node(f.sip), node(f.dip)
    rtt = np.where(f.src // 16 == f.dst // 16, 2 * 2000 + 2 * 80, 2 * 4000 + 4 * 80)
    packets = (f["size"] - 1) // 1000 + 1
    f["slowdown"] = f.fct_ns / (rtt + (f["size"] + packets * 48) * 8 / 100.0)
    return f.sort_values(["start_ns", "src", "sport"], kind="stable").reset_index(drop=True)


def same_flows(a: pd.DataFrame | None, b: pd.DataFrame) -> bool:
    cols = ["src", "dst", "sport", "dport", "size", "start_ns"]
    return a is not None and len(a) == len(b) and (a[cols].to_numpy() == b[cols].to_numpy()).all()


def stats(size: pd.Series, slowdown: pd.Series) -> str:
    big = size >= size.quantile(0.95)
    return (f"{len(size)} flows, mean {slowdown.mean():.3f}, largest 5% mean {slowdown[big].mean():.3f}, "
            f"short (<= 3 KB) p99 {slowdown[size <= 3000].quantile(0.99):.2f}")


warnings.filterwarnings("ignore", message="scheme ideal_fq is a flow-level model")


def run_on(f: pd.DataFrame, figure: str, variant: str, scheme: dict | None = None, buffer: dict | None = None):
    """dcsim's flows (in trace order) for the figure's point of `variant`,
    fields changed, on the flows of the ns-3 run `f` (as a trace in the HPCC
    simulator's flow-file format)."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.txt"
        rows = [f"{len(f)}"] + [f"{r.src} {r.dst} 3 {r.dport} {r.size} {(r.start_ns - 1e9) / 1e9:.9f}"
                                for r in f.itertuples()]
        trace.write_text("\n".join(rows) + "\n")
        spec = point(figure, variant=variant)
        spec["workload"] = {"matrix": "trace", "trace": str(trace), "trace_format": "hpcc"}
        spec["scheme"].update(scheme or {})
        spec.setdefault("buffer", {}).update(buffer or {})
        d = dcsim.run_all(spec_from_dict(spec)).flows.sort_values("flow_id").reset_index(drop=True)
    assert (d.size_bytes.to_numpy() == f["size"].to_numpy()).all(), "not the same flows"
    return d


def groups(runs: list[tuple[str, str]]) -> list[list[tuple[str, pd.DataFrame]]]:
    """The runs read, as (label, flows), grouped where consecutive runs have the same flows."""
    out = []
    for path, label in runs:
        f = ns3_flows(path)
        if out and same_flows(out[-1][0][1], f):
            out[-1].append((label, f))
        else:
            out.append([(label, f)])
    return out


def main(runs: list[tuple[str, str]], rerun: bool = True) -> None:
    """Each run's statistics, then (if `rerun`) dcsim's on each distinct set of flows."""
    for group in groups(runs):
        for label, f in group:
            print(f"{label}\n  ns-3: {stats(f['size'], f.slowdown)}")
        f = group[0][1]
        if not rerun:
            print(f"dcsim on the same {len(f)} flows: with --long")
            continue
        print(f"dcsim on the same {len(f)} flows:")
        for name, variant, scheme, buffer in RUNS:
            d = run_on(f, "bfc-fig11b", variant, scheme=scheme, buffer=buffer)
            print(f"  dcsim {name}: {stats(d.size_bytes, d.slowdown)}")


if __name__ == "__main__":
    args = sys.argv[1:]
    long = "--long" in args
    files = [a for a in args if a != "--long"]
    if files:
        main([(p, p) for p in files])
    else:
        main(stored(STORED))
        main(stored(STORED_LONG), rerun=long)
