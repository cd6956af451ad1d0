"""Fabrics from files in the HPCC simulator's topology.txt format
(`topology.kind = "file"`, `dcsim.topology_file`)."""

import subprocess
import sys

import pytest

from dcsim.errors import SpecError
from dcsim.simulate import run_all
from dcsim.spec import Spec
from dcsim.topology_file import read_hpcc

#: BFC's testbed (Fig. 6) with one host per group: hosts 0 (group 1), 1
#: (group 2), 2 (group 3), 3 (receiver 1), 4 (receiver 2); switch 5 is
#: switch 1, 6 switch 2, 7 switch 3.
TESTBED = """8 3 7
5 6 7
0 5 100Gbps 0.001ms 0
1 5 100Gbps 0.001ms 0
2 7 100Gbps 0.001ms 0
3 6 100Gbps 0.001ms 0
4 6 100Gbps 0.001ms 0
5 6 100Gbps 0.001ms 0
7 6 100Gbps 0.001ms 0
"""


def _file(tmp_path, text, name="topology.txt"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_file_gives_hosts_switches_links_and_routes(tmp_path, write_trace):
    f = read_hpcc(_file(tmp_path, TESTBED))
    assert (f.hosts, f.switches, len(f.links), f.parallel) == (5, 3, 7, 0)
    assert f.links[0] == (0, 5, 100_000_000_000, 1_000_000)
    assert f.host_rate_bps() == 100_000_000_000 and f.max_link_delay_ps() == 1_000_000
    # the core: what switches 1 and 3 send to switch 2, and switch 2 to them
    assert f.core_capacity_bps() == 4 * 100_000_000_000
    # one flow from group 1 to receiver 1 crosses three links: its ideal
    # FCT is that of three hops at 100 Gb/s
    spec = Spec.model_validate({"topology": {"kind": "file", "path": str(tmp_path / "topology.txt")},
                                "scheme": {"name": "bfc"},
                                "workload": {"matrix": "trace", "trace": write_trace([(0.0, 0, 3, 1_000_000)])}})
    r = run_all(spec)
    assert r.flows.slowdown.iloc[0] == pytest.approx(1.0, abs=1e-9)
    assert r.summary["counters"]["delivered_pkts"] > 0


def test_file_ids_map_to_host_numbers_in_order(tmp_path):
    # hosts need not come first in the file: switches 0 and 3
    f = read_hpcc(_file(tmp_path, "5 2 4\n0 3\n1 0 10Gbps 1us 0\n2 0 10Gbps 1us 0\n4 3 10Gbps 1us 0\n0 3 40Gbps 1us 0\n"))
    assert (f.host_id(1), f.host_id(2), f.host_id(4)) == (0, 1, 2)
    assert f.node_id[0] == 3 and f.node_id[3] == 4
    assert f.host_rate_bps() == 10_000_000_000


def test_parallel_links_are_kept_as_equal_cost_paths(tmp_path, write_trace, capsys):
    text = "4 2 4\n2 3\n0 2 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 3 100Gbps 1us 0\n3 2 100Gbps 1us 0\n"
    f = read_hpcc(_file(tmp_path, text))
    assert f.parallel == 1 and len(f.links) == 4
    # a run says so (the routing test in routing.rs counts the paths)
    rows = [(0.0, 0, 1, 200_000)] * 8
    spec = Spec.model_validate({"topology": {"kind": "file", "path": str(tmp_path / "topology.txt")},
                                "routing": {"load_balancing": "spray"}, "scheme": {"name": "tcp"},
                                "workload": {"matrix": "trace", "trace": write_trace(rows)}})
    r = run_all(spec)
    assert "1 parallel link(s) kept as equal-cost paths" in capsys.readouterr().err
    assert r.summary["flows_finished"] == 8
    # both links between the switches carry the data one way and the ACKs
    # the other, sprayed or hashed (eight flows)
    import json

    from dcsim._core import Sim
    from dcsim.spec import engine_config_json

    for lb in ("spray", "ecmp"):
        sim = Sim(engine_config_json(spec.model_copy(update={"routing": spec.routing.model_copy(
            update={"load_balancing": lb})})))
        while sim.run(1 << 20) == "running":
            pass
        ports = json.loads(sim.summary_json())["ports"]
        between = [p["tx_pkts"] for p in ports if {p["node"], p["peer"]} == {2, 3}]
        assert len(between) == 4 and min(between) > 0, (lb, between)


@pytest.mark.parametrize("text, line, message", [
    ("8 3 7\n5 6 7\n0 5 100Gbps 0.001ms 0\n1 5 100Gbps 0.001ms 0\n2 7 100Gbps 0.001ms 0\n3 6 100Gbps 0.001ms 0\n"
     "4 6 100Gbps 0.001ms 0\n5 6 100Gbps 0.001ms 0\n7 9 100Gbps 0.001ms 0\n", 9, "node 9 is out of range"),
    ("8 3 7\n5 6 7\n0 5 100Gbps 0.001ms 0\n1 5 100Gbps 0.001ms 0\n2 7 100Gbps 0.001ms 0\n3 6 100Gbps 0.001ms 0\n"
     "4 6 100Gbps 0.001ms 0\n5 6 100Gbps 0.001ms 0\n7 6 0Gbps 0.001ms 0\n", 9, "must be positive"),
    ("8 3 7\n5 6 7\n0 5 fast 0.001ms 0\n1 5 100Gbps 0.001ms 0\n2 7 100Gbps 0.001ms 0\n3 6 100Gbps 0.001ms 0\n"
     "4 6 100Gbps 0.001ms 0\n5 6 100Gbps 0.001ms 0\n7 6 100Gbps 0.001ms 0\n", 3, "rate 'fast' is not a number"),
    ("8 3 7\n5 6 7\n0 5 100Gbps 1 week 0\n", 3, "a link is 'a b rate delay error_rate'"),
    ("8 3 7\n5 6 7\n0 5 100Gbps 0.001ms 0\n0 6 100Gbps 0.001ms 0\n", 4, "host 0 has a second link"),
    ("8 3 7\n5 6 9\n", 2, "switch id 9 is out of range"),
    ("8 3 7\n5 6\n", 2, "3 switches announced, 2 ids listed"),
    ("8 3 7\n5 6 7\n0 5 100Gbps 0.001ms 1.5\n", 3, "must be a fraction of packets"),
    ("8 3\n5 6 7\n", 1, "'nodes switches links'"),
    # fabrics that parse but cannot be built
    ("4 2 3\n2 3\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n2 2 100Gbps 1us 0\n", 5, "to itself"),
    # hosts 0 and 1 under switch 3, host 2 under switch 4, no link between
    # the switches: the first link of the part cut off is named
    ("5 2 3\n3 4\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 4 100Gbps 1us 0\n", 5,
     r"not connected: nodes \[2, 4\] cannot reach node 0"),
    # a switch with no link at all: the line that lists it
    ("5 3 3\n2 3 4\n0 2 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 3 100Gbps 1us 0\n", 2,
     r"not connected: nodes \[4\]"),
    ("4 2 3\n2 3\n0 2 100Gbps 1us 0\n2 3 100Gbps 1us 0\n0 3 100Gbps 1us 0\n", 5, "second link"),
    ("4 2 2\n2 3\n0 2 100Gbps 1us 0\n2 3 100Gbps 1us 0\n", 2, "host 1 .* has no link"),
    ("4 2 3\n2 3\n0 2 100Gbps 1us 0\n", 1, "3 links announced, 1 link lines found"),
    ("3 1 2\n2\n0 2 0.7bps 1us 0\n1 2 1Gbps 1us 0\n", 3, "rate '0.7bps' is below 1 bps"),
    # no switches: the first line, which says so
    ("3 0 1\n0 1 1Gbps 1us 0\n", 1, "host 2 .* has no link"),
])
def test_bad_files_name_the_line(tmp_path, text, line, message):
    p = _file(tmp_path, text)
    with pytest.raises(SpecError, match=message) as e:
        read_hpcc(p)
    assert f"{p}:{line}:" in str(e.value)


def test_the_cli_exits_2_naming_the_file_and_line(tmp_path):
    _file(tmp_path, TESTBED.replace("7 6 100Gbps", "7 6 100Gbs"))
    (tmp_path / "spec.toml").write_text('[topology]\nkind = "file"\npath = "topology.txt"\n')
    r = subprocess.run([sys.executable, "-m", "dcsim", "run", str(tmp_path / "spec.toml"), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True)
    assert r.returncode == 2
    assert "topology.txt:9: rate '100Gbs'" in r.stderr


def test_units_as_ns3_writes_them(tmp_path):
    f = read_hpcc(_file(tmp_path, "3 1 2\n2\n0 2 12.5GBps 1us 0\n1 2 400Mb/s 500ns 0\n"))
    assert [l[2] for l in f.links] == [100_000_000_000, 400_000_000]
    assert [l[3] for l in f.links] == [1_000_000, 500_000]
    with pytest.raises(SpecError, match=":3: rate '1e400Gbps' is out of range"):
        read_hpcc(_file(tmp_path, "3 1 2\n2\n0 2 1e400Gbps 1us 0\n1 2 1Gbps 1us 0\n"))


def test_an_hpcc_flow_file_names_the_topology_files_nodes(tmp_path):
    # switch first in the file: host ids 1, 2, 3 are dcsim's hosts 0, 1, 2
    _file(tmp_path, "4 1 3\n0\n1 0 100Gbps 1us 0\n2 0 100Gbps 1us 0\n3 0 100Gbps 1us 0\n")
    (tmp_path / "flows.txt").write_text("1\n3 1 3 100 100000 0.0\n")
    spec = Spec.model_validate({"topology": {"kind": "file", "path": str(tmp_path / "topology.txt")},
                                "scheme": {"name": "hpcc"},
                                "workload": {"matrix": "trace", "trace": str(tmp_path / "flows.txt"),
                                             "trace_format": "hpcc"}})
    r = run_all(spec)
    assert (r.flows.src.iloc[0], r.flows.dst.iloc[0]) == (2, 0)
    (tmp_path / "flows.txt").write_text("1\n0 1 3 100 100000 0.0\n")
    with pytest.raises(SpecError, match="src 0 is not a host of the topology file"):
        run_all(spec)


def test_a_sweep_finds_the_topology_file_and_keys_it(tmp_path):
    from dcsim.spec.experiment import load_spec
    from dcsim.sweep import load_sweep, point_key

    _file(tmp_path, TESTBED, "topo.txt")
    (tmp_path / "base.toml").write_text('[topology]\nkind = "file"\npath = "topo.txt"\n[scheme]\nname = "bfc"\n')
    (tmp_path / "s.toml").write_text('base = "base.toml"\n[grid]\nseed = [1, 2]\n')
    pts = load_sweep(tmp_path / "s.toml").points()
    assert pts[0].spec.topology.host_count() == 5
    k1 = point_key(load_spec(tmp_path / "base.toml"))
    _file(tmp_path, TESTBED.replace("100Gbps", "25Gbps"), "topo.txt")
    assert point_key(load_spec(tmp_path / "base.toml")) != k1
