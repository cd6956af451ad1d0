import pytest

import dcsim
from dcsim.spec import Spec


@pytest.fixture
def write_trace(tmp_path):
    """Write a trace file of (time_s, src, dst, size) rows; return its path."""

    def write(rows, name="trace.txt"):
        p = tmp_path / name
        p.write_text("".join(f"{t} {s} {d} {b}\n" for t, s, d, b in rows))
        return str(p)

    return write


def run_checked(spec: Spec):
    """Run a spec and check the invariants every run must keep."""
    df = dcsim.run(spec)
    s = df.attrs["summary"]
    assert s["conservation_holds"], s["conservation"]
    c = s["conservation"]
    assert c["injected_pkts"] == c["delivered_pkts"] + c["dropped_pkts"] + c["queued_pkts"] + c["in_flight_pkts"]
    return df


#: DCQCN as the HPCC simulator's own run.py sets it (`--cc dcqcn`: no
#: window, the 300 us increase timer); `dcqcn`'s defaults are a BFC
#: co-author's configuration of that simulator, whose window keeps an
#: incast from overflowing a buffer: the tests of losses and pauses use
#: this one.
HPCC_SIM_DCQCN = {"name": "dcqcn", "window": "none", "increase_interval_us": 300.0, "ai_mbps": 20.0,
                  "hai_mbps": 200.0, "min_rate_mbps": 1000.0}
