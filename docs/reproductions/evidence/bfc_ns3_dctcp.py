"""BFC Fig. 11(b) without incast: DCTCP's long flows in the simulator the
paper ran its comparison schemes on, and dcsim on the very same flows
(docs/reproductions/bfc.md, "Fig. 11(b)", "The simulator's own DCTCP").

Usage: bfc_ns3_dctcp.py FCT_FILE [FCT_FILE ...]

Each FCT_FILE is the output of the BFC co-author's fork of the HPCC ns-3
simulator (github.com/preeyshah/High-Precision-Congestion-Control at
b9e9210), `scratch/simple` with its `mix/config.txt` changed to the
Fig. 11(b) set-up: CREATE_INCAST 0, UTILIZATION_FACTOR 0.6,
APP_STOP_TIME 1.025, SIMULATOR_STOP_TIME 1.9, CC_MODE 8 (DCTCP) and the
DCTCP fields of the run (the paper's marking: KMIN_MAP/KMAX_MAP 400 and 1600
at 100 Gb/s replaced by 100 and 400 KB, PMAX 0.2, EWMA_GAIN 0.0625,
DCTCP_RATE_AI 615Mb/s, MIN_RATE 1000Mb/s). Build: ns-3.17's waf under
Python 2.7 (`CXXFLAGS='-O3 -Wno-error -std=c++11 -fpermissive -w'
./waf configure --build-profile=optimized --disable-examples
--disable-tests --disable-python
--enable-modules=point-to-point,applications,internet`), 75 s on two
cores; a 25 ms run takes 3-4 minutes. The fork's FCT file has seven
columns (`sip dip sport dport size start_ns fct_ns`); the slowdown's
denominator is computed as the upstream simulator's `third.cc` does (the
pair's base RTT plus the bytes with 48 B of headers per packet at
100 Gb/s).

The script prints, for the ns-3 run, then for dcsim's `dctcp_rdma` (its
defaults; with ACKs first at switches, as the fork serves them), `bfc`
and `ideal_fq` on the same flows (the FCT file turned into a trace in the
HPCC simulator's flow-file format): the mean slowdown of all flows, of the
largest 5% (size at least the 95th percentile) and the 99th percentile of
flows up to 3 KB. About 15 s per dcsim run.
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _points import point

import dcsim
from dcsim.spec import spec_from_dict


def ns3_flows(path: str) -> pd.DataFrame:
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


def stats(size: pd.Series, slowdown: pd.Series) -> str:
    big = size >= size.quantile(0.95)
    return (f"{len(size)} flows, mean {slowdown.mean():.3f}, largest 5% mean {slowdown[big].mean():.3f}, "
            f"short (<= 3 KB) p99 {slowdown[size <= 3000].quantile(0.99):.2f}")


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


def main(paths: list[str]) -> None:
    for path in paths:
        f = ns3_flows(path)
        print(f"{path}\n  ns-3: {stats(f['size'], f.slowdown)}")
        for label, variant, buffer in [("dctcp_rdma", "dctcp", {}),
                                       ("dctcp_rdma, ACKs first", "dctcp", {"acks_high_priority": True}),
                                       ("bfc", "bfc", {}), ("ideal_fq", "ideal_fq", {})]:
            d = run_on(f, "bfc-fig11b", variant, buffer=buffer)
            print(f"  dcsim {label}: {stats(d.size_bytes, d.slowdown)}")


if __name__ == "__main__":
    main(sys.argv[1:])
