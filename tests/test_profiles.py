"""Paper profiles (dcsim/profiles.py): a spec that names one runs as the
paper's figures run the same scheme, its own fields win, and what it sets
is listed."""

import json
import subprocess
import sys
import warnings

import pytest

import dcsim
from dcsim.errors import DcsimWarning, SpecError
from dcsim.figures.core import get
from dcsim.spec import load_spec, spec_from_dict
from dcsim.spec.experiment import engine_config_json
from dcsim.profiles import PROFILES, mixed_defaults

#: (profile, figure, series of the figure -> the scheme a user names)
FIGURES = [
    ("pfabric", "pfabric-fig7-9", {"tcp": "tcp", "dctcp": "dctcp", "pdq": "pdq", "pfabric": "pfabric",
                                   "ideal": "ideal"}),
    ("pias", "pias-fig14-16", {"pias": "pias", "dctcp": "dctcp", "l2dct": "l2dct", "las": "las"}),
    ("pias", "pias-fig17", {"pfabric": "pfabric"}),
    ("bfc", "bfc-fig11a", {"bfc": "bfc", "hpcc": "hpcc", "dcqcn": "dcqcn", "dctcp": "dctcp",
                           "expresspass": "expresspass", "ideal_fq": "ideal_fq"}),
]


@pytest.mark.parametrize("profile, figure, series", FIGURES, ids=[f[1] for f in FIGURES])
def test_a_profile_runs_as_the_figures_point(profile, figure, series):
    # The same engine configuration as the figure's point, from a spec that
    # names only the profile, the scheme and the point's workload and run.
    fig = get(figure)
    points = fig.sweep("quick").points()
    for variant, scheme in series.items():
        point = next(p for p in points if p.params.get("variant") == variant)
        mine = spec_from_dict({"profile": profile, "scheme": {"name": scheme},
                               "workload": point.spec.workload.model_dump(mode="json", exclude_unset=True),
                               "run": point.spec.run.model_dump(mode="json", exclude_unset=True),
                               "seed": point.spec.seed})
        assert engine_config_json(mine) == engine_config_json(point.spec), (figure, variant)


def test_the_specs_own_fields_win_and_a_new_kind_starts_afresh():
    s = spec_from_dict({"profile": "pias", "scheme": {"name": "dctcp", "init_cwnd_pkts": 10},
                        "topology": {"host_link_delay_us": 5.0}})
    assert (s.scheme.name, s.scheme.queues, s.scheme.init_cwnd_pkts) == ("pias", 1, 10)
    assert s.topology.host_link_delay_us == 5.0 and s.routing.load_balancing == "round_robin"
    star = spec_from_dict({"profile": "bfc", "topology": {"kind": "star"}})
    assert star.topology.kind == "star" and star.topology.rate_gbps == 10.0  # the star's defaults
    assert star.workload.arrivals == "lognormal"  # the rest of the profile stays
    # packets.* sets every scheme's sizes, the profile's Ideal-FQ sizes included
    assert spec_from_dict({"profile": "bfc", "scheme": {"name": "ideal_fq"}}).scheme.mss_bytes == 1000
    sized = spec_from_dict({"profile": "bfc", "scheme": {"name": "ideal_fq"}, "packets": {"mss_bytes": 1460}})
    assert sized.scheme.mss_bytes == 1460
    # a scheme the profile does not name keeps its own defaults
    homa = spec_from_dict({"profile": "pias", "scheme": {"name": "homa"}})
    assert homa.scheme == spec_from_dict({"scheme": {"name": "homa"}}).scheme
    assert homa.topology.host_link_delay_us == 20.2


def test_a_profiled_spec_round_trips_and_changes_scheme_under_its_profile():
    s = spec_from_dict({"profile": "pfabric", "scheme": {"name": "pdq"}, "workload": {"flows": 50}})
    assert spec_from_dict(s.model_dump(mode="json")) == s
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", DcsimWarning)
        t = s.with_overrides(**{"scheme.name": "tcp"})
    assert (t.scheme.connections, t.scheme.connections_per_pair, t.scheme.fast_retransmit) == ("pool", 8, False)
    p = spec_from_dict({"profile": "pias", "scheme": {"name": "dctcp"}})
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", DcsimWarning)
        q = p.with_overrides(**{"scheme.name": "l2dct"})
    assert q.scheme.increase == "ns2_pias" and q.scheme.window == "span"
    # what the profile gives the new scheme again is not said to be dropped
    assert [str(w.message) for w in said] == ["scheme.name = 'l2dct' replaces 'pias': dropped scheme.queues, "
                                              "scheme.thresholds (the new scheme starts from its defaults)"]


def test_a_spec_object_does_not_change_profile_in_place():
    s = spec_from_dict({"workload": {"flows": 10}})
    with pytest.raises(SpecError, match="with_overrides cannot change a spec's profile"):
        s.with_overrides(profile="pias")
    # from its fields, or on the file's dict, it does
    assert spec_from_dict({"workload": {"flows": 10}, "profile": "pias"}).topology.host_link_delay_us == 20.2


def test_a_profile_file_of_your_own(tmp_path):
    (tmp_path / "lab.toml").write_text(
        'title = "our testbed"\n[topology]\nkind = "star"\nhosts = 8\n[routing]\nload_balancing = "ecmp"\n'
        '[schemes.dctcp.scheme]\necn_threshold_bytes = 30000\n')
    (tmp_path / "spec.toml").write_text('profile = "lab.toml"\n[scheme]\nname = "dctcp"\n[workload]\nflows = 30\n')
    s = load_spec(tmp_path / "spec.toml")
    assert (s.topology.kind, s.topology.hosts, s.scheme.ecn_threshold_bytes) == ("star", 8, 30000)
    assert s.profile == str(tmp_path / "lab.toml")
    (tmp_path / "bad.toml").write_text('[workload]\nload = 0.5\n')
    with pytest.raises(SpecError, match=r"workload\.load: a profile does not set the workload itself"):
        spec_from_dict({"profile": str(tmp_path / "bad.toml")})
    (tmp_path / "bad2.toml").write_text('[fabric]\nx = 1\n')
    with pytest.raises(SpecError, match="unknown section 'fabric'"):
        spec_from_dict({"profile": str(tmp_path / "bad2.toml")})
    with pytest.raises(SpecError, match=r"profile = 'pfabrc': no such profile \(did you mean 'pfabric'\?\)"):
        spec_from_dict({"profile": "pfabrc"})
    with pytest.raises(SpecError, match="profile file not found"):
        spec_from_dict({"profile": str(tmp_path / "missing.toml")})


def test_the_fabric_note_is_for_the_default_fabric_only():
    from dcsim.profiles import fabric_note

    assert "pias takes its defaults from PIAS" in fabric_note(spec_from_dict({"scheme": {"name": "pias"}}))
    assert fabric_note(spec_from_dict({"scheme": {"name": "pias"}, "topology": {"kind": "star"}})) is None
    assert fabric_note(spec_from_dict({"scheme": {"name": "pias"}, "profile": "pias"})) is None
    # LAS and L2DCT run on pfabric's and dctcp's switches and timers by default
    assert fabric_note(spec_from_dict({"scheme": {"name": "las"}})) is None
    assert fabric_note(spec_from_dict({"scheme": {"name": "l2dct"}})) is None
    assert "hpcc takes its defaults from BFC" in fabric_note(spec_from_dict({"scheme": {"name": "hpcc"}}))


def test_mixed_defaults_are_noted_only_without_a_profile():
    def spec(name, profile=None):
        return {"profile": profile, "scheme": {"name": name}}

    note = mixed_defaults([spec("dctcp"), spec("pias")])
    assert note is not None and "dctcp from pFabric" in note and "pias from PIAS" in note
    assert mixed_defaults([spec("dctcp"), spec("tcp"), spec("pfabric")]) is None  # all pFabric's
    assert mixed_defaults([spec("dctcp", "pias"), spec("pias", "pias")]) is None
    assert mixed_defaults([spec("bfc"), spec("hpcc")]) is None
    assert mixed_defaults([spec("dctcp"), spec("l2dct"), spec("las")]) is None


def test_compare_notes_mixed_defaults_and_run_notes_the_profile(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text("[workload]\nflows = 30\n")
    runs = {}
    for name, extra in (("dctcp", []), ("pias", []), ("pias_p", ["--set", "profile=pias"]),
                        ("dctcp_p", ["--set", "profile=pias"])):
        scheme = name.split("_")[0]
        r = subprocess.run([sys.executable, "-m", "dcsim", "run", str(spec), "--out", str(tmp_path / name), "-q",
                            "--set", f"scheme.name={scheme}", *extra], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        runs[name] = r.stderr
    assert "pias takes its defaults from PIAS" in runs["pias"] and "profile = \"pias\"" in runs["pias"]
    assert "takes its defaults" not in runs["dctcp"] and "takes its defaults" not in runs["pias_p"]
    mixed = dcsim.compare(tmp_path / "dctcp", tmp_path / "pias")
    assert len(mixed.attrs["notes"]) == 1 and "different papers" in mixed.attrs["notes"][0]
    assert dcsim.compare(tmp_path / "pias_p", tmp_path / "dctcp_p").attrs["notes"] == []
    assert "profile pias: dctcp runs as pias: the scripts' DCTCP" in runs["dctcp_p"]
    r = subprocess.run([sys.executable, "-m", "dcsim", "compare", str(tmp_path / "dctcp"), str(tmp_path / "pias")],
                       capture_output=True, text=True)
    assert "note: the schemes take their defaults from different papers" in r.stdout + r.stderr


def test_list_profiles_says_what_each_sets():
    r = subprocess.run([sys.executable, "-m", "dcsim", "list", "profiles", "pias"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "topology.host_link_delay_us = 20.2" in text
    assert 'dctcp: scheme.name = "pias", scheme.queues = 1' in text
    listed = subprocess.run([sys.executable, "-m", "dcsim", "list", "profiles"], capture_output=True, text=True)
    assert all(name in listed.stdout for name in PROFILES)
    from importlib import resources

    catalog = json.loads(resources.files("dcsim.data").joinpath("catalog.json").read_text())
    assert [p["name"] for p in catalog["profiles"]] == list(PROFILES)
