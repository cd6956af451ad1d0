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
