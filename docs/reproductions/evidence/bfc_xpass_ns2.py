"""ExpressPass's own ns-2 code and dcsim on the same flows
(docs/reproductions/bfc.md, "ExpressPass's own ns-2 code, run as the BFC
co-author ran it").

Reads the stored output of the BFC co-author's fork of the ExpressPass
authors' ns-2 code (github.com/preeyshah/ns2-xpass, ExpressPass's code
as kaist-ina/ns2-xpass has it) running its `large-scale-fattree.tcl` on
BFC's 128-host Clos with Facebook Hadoop sizes, Fig. 11(b)'s load and no
incast, 50 ms of arrivals, with `finish` 0.5 s later so that every flow
ends and is logged (peers/bfc-xpass-ns2/, PROVENANCE.md there: the
commit, the build, the script's edits): the script's flow log
(`flowfile.tr`), ns-2's `waste.out` and standard output, and a line per
flow at its receiver (`flowlog.out`: output-only lines added to
`xpass.cc`, which begin with exactly what ns-2's `fct.out` has, then the
crediting starts, the CREDIT_STOP's and the last data's arrivals). Then
runs dcsim on the same flows (the script's flow log as a trace, the
`bfc-fig11b` point) with `expresspass` and `bfc`, and prints:

1. The section's table: flows up to 3 KB, mean and 99th percentile
   slowdown; the largest 5% of flows (size at least the 95th percentile),
   mean; ExpressPass's largest 5% over BFC's, for ns-2's FCTs as it logs
   them, ns-2's flows timed as dcsim times them (from the flow's arrival
   to the later of its last data packet and its CREDIT_STOP at the
   receiver), dcsim's `expresspass` and dcsim's `bfc`. Slowdowns are
   normalized as the co-author's `script_fct.py` does (8 us + 0.08 us per
   1,000 B packet, 6 packets more; 4 us less when that exceeds the FCT).
2. By size bin (the figures' bins, the 5% quantiles of the sizes), ns-2
   timed as dcsim times flows against dcsim's `expresspass`: the ratio of
   mean FCTs, and the median, 10th and 90th percentiles of the per-flow
   FCT ratio.
3. What makes ns-2's logged FCTs low, counted from its log: flows whose
   receiver restarted crediting (a request after the stop: timed from
   then), the flow with the largest gap, flows whose CREDIT_STOP reached
   the receiver before their last data packet and by how much, and
   credits wasted at the sender (ns-2's own count) per data packet sent.

With `--incast`: the same for the co-author's own setting, the script as
the fork ships it (`linkLoad 0.65` and `createIncast 1`: the background
at 0.6, the same flows as without incasts, and every 0.5 ms an incast of
`fanIn` 100 flows of `IncastSize` 200,000 B from random hosts to one;
99 incasts, 9,900 flows), with only `finish` moved 0.5 s later
(peers/bfc-xpass-ns2-incast/, PROVENANCE.md there; the same build).
Incast flows are the log's flows with ids from the script's `NumFlow`
(its standard output's first line) on, checked to come in whole incasts.
dcsim runs every flow of the log, the incast flows included, on the
`bfc-fig11a` point (the trace replaces its workload). It prints the
run's incasts, then 1. for the background flows (incast flows left out,
as the figure's bins leave them out), then the incast flows apart (the
four rows' slowdown mean, median and 99th percentile, FCT mean and
maximum, and an incast's slowest flow), then 2. for the background flows
and 3. over all the flows.

About a minute and a half of CPU (two dcsim runs of 110,693 flows;
2 min 10 s wall on a 2-core machine busy with two other jobs); with
`--incast`, 105 s of CPU (two dcsim runs of 120,593 flows; 2 min 23 s
wall on that machine).

Usage: .venv/bin/python docs/reproductions/evidence/bfc_xpass_ns2.py [--incast] [DIR]
       (DIR: another directory with the same files; default the stored run,
       peers/bfc-xpass-ns2/, or with --incast peers/bfc-xpass-ns2-incast/)"""

import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _points import point

import dcsim
from dcsim.spec import spec_from_dict

warnings.filterwarnings("ignore", message="run.sample_us records nothing here")
HERE = Path(__file__).resolve().parent
RUN, RUN_INCAST = HERE / "peers" / "bfc-xpass-ns2", HERE / "peers" / "bfc-xpass-ns2-incast"
#: the script's incast mix (createIncast 1: fanIn, IncastSize): 100 senders of 200,000 B each to one host
FAN_IN, INCAST_BYTES = 100, 200_000
NS2_START_S = 1.0  # the script's first arrival (simStartTime)
#: the script's flow log: arrival on ns-2's clock, source and destination host, bytes, flow id
ARRIVALS = ["t_ns2", "src", "dst", "size_bytes", "fid"]
#: the receiver's line, written when its 2 ms close timer fires (fid, bytes, fct as outputs/fct.out
#: has them; then the first and the last crediting start's request time, crediting starts,
#: CREDIT_STOPs received, the last one's arrival, the last in-order data arrival, credits sent, now)
RECEIVER = ["fid", "bytes", "fct_s", "first_start", "start", "starts", "stops", "t_stop", "t_data", "credits",
            "t_logged"]
#: ns-2's outputs/waste.out: the sender's line when it closes (header line first)
SENDER = ["fid", "bytes", "wasted"]


def read(run: Path):
    arr = pd.read_csv(run / "flowfile.tr.xz", sep=" ", header=None, names=ARRIVALS)
    arr["size_bytes"] = arr.size_bytes.astype(np.int64)  # written as ceil()'s 6029.0
    rec = pd.read_csv(run / "flowlog.out.xz", header=None, names=RECEIVER)
    snd = pd.read_csv(run / "waste.out.xz", header=0, names=SENDER)
    stdout = pd.read_csv(run / "stdout.txt.xz", header=None, names=["line"], sep="\t").line
    return arr, rec, snd, stdout


def background_count(stdout: pd.Series) -> int:
    """The script's NumFlow (its standard output's first line): the
    background flows it sets up, ids 0 to NumFlow - 1; incast flows have
    the ids from NumFlow on."""
    return int(stdout[stdout.str.startswith("NumFlow ")].iloc[0].split()[1])


def incast_groups(arr: pd.DataFrame, inc: np.ndarray) -> np.ndarray:
    """Each incast flow's incast (0, 1, ...), checked: the script logs an
    incast's FAN_IN flows one after another, with consecutive ids, at one
    time, to one host, each of INCAST_BYTES (the senders drawn one by one,
    so a host may send more than one)."""
    f = arr[inc]
    assert (f.size_bytes == INCAST_BYTES).all(), "an incast flow not of IncastSize"
    assert len(f) % FAN_IN == 0 and (np.diff(f.fid.to_numpy()) == 1).all(), "incast flows not in whole incasts"
    group = np.arange(len(f)) // FAN_IN
    g = f.assign(group=group).groupby("group")
    assert (g.t_ns2.nunique() == 1).all() and (g.dst.nunique() == 1).all(), "an incast not at one time to one host"
    assert (f.src != f.dst).all()
    return group


def packets(size):
    """script_fct.py's packets: 1 up to 1,000 B, else size // 1000 + 1."""
    size = np.asarray(size)
    return np.where(size > 1000, size // 1000 + 1, 1)


def slowdown(size, fct_s):
    """script_fct.py's normalization at 100 Gb/s: 8 us plus the flow's
    packets and 6 more at 0.08 us per 1,000 B (the size itself for one
    packet), 4 us less where that exceeds the FCT."""
    size, us = np.asarray(size), np.asarray(fct_s) * 1e6
    ps = np.where(size > 1000, 1000, size)
    base = 8.0 + ps * 8.0 / 100_000.0 * (packets(size) + 6)
    base = np.where(base > us, base - 4.0, base)
    return us / base


def row(size, fct_s) -> dict:
    size, sd = pd.Series(np.asarray(size)), pd.Series(slowdown(size, fct_s))
    short, big = size <= 3000, size >= size.quantile(0.95)
    return {"short_mean": sd[short].mean(), "short_p99": sd[short].quantile(0.99), "long_mean": sd[big].mean()}


def run_dcsim(arr: pd.DataFrame, variant: str, figure: str = "bfc-fig11b") -> pd.DataFrame:
    """dcsim's flows (in the log's order) on `figure`'s point of `variant`,
    the flows of the log (incast flows included) as a trace: the trace
    replaces the point's workload (bfc-fig11a's differs from bfc-fig11b's
    in its workload only: its load and incasts)."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.txt"
        trace.write_text("".join(f"{t - NS2_START_S:.12f} {s} {d} {b}\n"
                                 for t, s, d, b in zip(arr.t_ns2, arr.src, arr.dst, arr.size_bytes)))
        spec = point(figure, variant=variant)
        spec["workload"] = {"matrix": "trace", "trace": str(trace), "trace_format": "dcsim"}
        d = dcsim.run_all(spec_from_dict(spec)).flows.sort_values("flow_id").reset_index(drop=True)
    assert len(d) == len(arr) and (d.size_bytes.to_numpy() == arr.size_bytes.to_numpy()).all(), "not the same flows"
    assert (d.src.to_numpy() == arr.src.to_numpy()).all() and (d.dst.to_numpy() == arr.dst.to_numpy()).all()
    return d


def main(run: Path, incast: bool = False) -> None:
    arr, rec, snd, stdout = read(run)
    # xpass.cc prints a line for every data packet lost (at a queue or found missing by the receiver)
    lost = stdout.str.contains("dropped|data loss").sum()
    n = len(arr)
    # a receiver would log a flow again if a request started it over after its close timer fired
    assert not rec.fid.duplicated().any() and not snd.fid.duplicated().any(), "a flow logged twice"
    r, s = rec.set_index("fid").reindex(arr.fid), snd.set_index("fid").reindex(arr.fid)
    assert r.bytes.notna().all() and s.bytes.notna().all(), "flows not logged"
    # the receiver counts a data packet's bytes as its frame less 78 B of headers, and frames are at
    # least 84 B: a last packet of under 6 B counts as 6 (sizes here are the script's, not the log's)
    extra = r.bytes.to_numpy() - arr.size_bytes.to_numpy()
    assert ((extra >= 0) & (extra < 6)).all(), "a flow not received in full"
    assert (np.abs(r.first_start.to_numpy() - arr.t_ns2.to_numpy()) < 1e-9).all(), "first request != arrival"
    end = np.maximum(r.t_stop.to_numpy(), r.t_data.to_numpy())
    timed = end - arr.t_ns2.to_numpy()
    print(f"ns-2: {n:,} flows arrived in {(arr.t_ns2.max() - NS2_START_S) * 1e3:.2f} ms, every one logged once "
          f"by its receiver and its sender ({(extra > 0).sum()} with up to 5 B more than their size: a last packet "
          f"under 6 B); the last flow ended at {(end.max() - NS2_START_S) * 1e3:.1f} ms; data packets lost: {lost}")
    # the script's incast flows have the ids from its NumFlow on (and background flows the ones below)
    inc = arr.fid.to_numpy() >= background_count(stdout)
    bg = ~inc
    assert inc.any() == incast, "incast flows in a run without incasts" if inc.any() else "no incast flows"
    if incast:
        group = incast_groups(arr, inc)
        t0 = arr.t_ns2[inc].to_numpy()[::FAN_IN] - NS2_START_S
        print(f"  of them {inc.sum():,} incast flows: {group.max() + 1} incasts of {FAN_IN} flows of "
              f"{INCAST_BYTES:,} B to one host, from {t0[0] * 1e3:.3f} to {t0[-1] * 1e3:.3f} ms, "
              f"every {np.diff(t0).mean() * 1e3:.3f} ms on average; {bg.sum():,} background flows")

    figure = "bfc-fig11a" if incast else "bfc-fig11b"
    xp, bfc = run_dcsim(arr, "expresspass", figure), run_dcsim(arr, "bfc", figure)
    size = arr.size_bytes.to_numpy()
    fcts = {"ns-2 ExpressPass, FCT as ns-2 logs it": r.fct_s.to_numpy(),
            "ns-2 ExpressPass, timed as dcsim times flows": timed,
            "dcsim `expresspass`": xp.fct_s.to_numpy(),
            "dcsim `bfc`": bfc.fct_s.to_numpy()}
    rows = {label: row(size[bg], fct[bg]) for label, fct in fcts.items()}
    b = rows["dcsim `bfc`"]["long_mean"]
    print("\n1. Slowdowns as script_fct.py normalizes them\n")
    setting = "Fig. 11(a)'s set-up (55% + 5% incast), background flows" if incast else "Fig. 11(b)'s load, no incast"
    print(f"| {setting} | short flows (<= 3 KB): mean / p99 | largest 5%: mean | ExpressPass / BFC, largest 5% |")
    print("| --- | --- | --- | --- |")
    for label, x in rows.items():
        ratio = "" if label == "dcsim `bfc`" else f"{x['long_mean'] / b:.2f}"
        print(f"| {label} | {x['short_mean']:.2f} / {x['short_p99']:.2f} | {x['long_mean']:.2f} | {ratio} |")
    if incast:
        print(f"\nThe incast flows ({inc.sum():,} of {INCAST_BYTES:,} B; an incast's flows arrive together, so its "
              f"slowest flow's FCT is its time, {FAN_IN * INCAST_BYTES * 8 / 100e3:,.0f} us at least at 100 Gb/s):\n")
        print("| incast flows | slowdown: mean / median / p99 | FCT (us): mean / max "
              "| an incast's slowest flow (us): mean / max |")
        print("| --- | --- | --- | --- |")
        for label, fct in fcts.items():
            sd, us = slowdown(size[inc], fct[inc]), fct[inc] * 1e6
            whole = pd.Series(us).groupby(group).max()
            print(f"| {label} | {sd.mean():.2f} / {np.median(sd):.2f} / {np.quantile(sd, 0.99):.2f} "
                  f"| {us.mean():.0f} / {us.max():.0f} | {whole.mean():.0f} / {whole.max():.0f} |")

    print(f"\n2. ns-2 (timed as dcsim times flows) against dcsim `expresspass`, by size bin (the figures' bins: "
          f"the 5% quantiles of the sizes{' of the background flows, incast flows left out' if incast else ''})\n")
    print("| size (bytes) | flows | ratio of mean FCTs | per-flow FCT ratio: median | 10th | 90th percentile |")
    print("| --- | --- | --- | --- | --- | --- |")
    d = xp.fct_s.to_numpy()[bg]
    ratio = timed[bg] / d
    edges = np.unique(np.quantile(size[bg], np.linspace(0, 1, 21)))
    edges[0] = 0
    bin_of = np.clip(np.searchsorted(edges, size[bg], side="left"), 1, len(edges) - 1)
    means, medians = [], []
    for k in range(1, len(edges)):
        m = bin_of == k
        q = np.quantile(ratio[m], [0.5, 0.1, 0.9])
        means.append(timed[bg][m].mean() / d[m].mean())
        medians.append(q[0])
        print(f"| ({edges[k - 1]:,.0f}, {edges[k]:,.0f}] | {m.sum():,} | {means[-1]:.3f} | {q[0]:.3f} "
              f"| {q[1]:.2f} | {q[2]:.2f} |")
    print(f"\n  ratio of mean FCTs {min(means):.3f}-{max(means):.3f} over the bins, per-flow medians "
          f"{min(medians):.3f}-{max(medians):.3f}")

    print("\n3. Why ns-2's logged FCTs are low, and its credits")
    again = r.starts.to_numpy() > 1
    gap = timed - r.fct_s.to_numpy()
    i = int(np.argmax(gap))
    print(f"  flows whose receiver started crediting again (timed from then): {again.sum():,} "
          f"(crediting starts: {int(r.starts.sum()):,} for {n:,} flows)")
    print(f"  the largest gap: flow {arr.fid.iloc[i]} of {size[i]:,} B logged at {r.fct_s.iloc[i] * 1e6:.1f} us, "
          f"timed from its arrival {timed[i] * 1e3:.2f} ms")
    lead = r.t_data.to_numpy() - r.t_stop.to_numpy()
    early = lead > 0
    once = early & ~again
    print(f"  flows whose (last) CREDIT_STOP reached the receiver before their last data: {early.sum():,}, "
          f"by {lead[early].mean() * 1e6:.2f} us on average (median {np.median(lead[early]) * 1e6:.2f} us); "
          f"of them, flows that never started again: {once.sum():,} (by {lead[once].mean() * 1e6:.2f} us), "
          f"restarted ones: {(early & again).sum():,}")
    print(f"  flows whose logged FCT is below the timed one by more than 1 ns: {(gap > 1e-9).sum():,}; "
          f"above: {(gap < -1e-9).sum():,}")
    # with no data packet lost, a flow sends one data packet per 1,460 B (go-back-N never resends)
    assert lost == 0, "data packets lost: count them from the log"
    w, dp = s.wasted.to_numpy(), np.ceil(size / 1460).astype(np.int64)
    big = size > 10_000_000
    print(f"  credits wasted (ns-2's count at the sender, waste.out): {w.sum():,} for {dp.sum():,} data packets, "
          f"{w.sum() / dp.sum():.4f} per data packet; flows above 10 MB: {w[big].sum():,} for "
          f"{dp[big].sum():,} ({w[big].sum() / dp[big].sum():.5f}); credits sent by the receivers: "
          f"{int(r.credits.sum()):,}")


if __name__ == "__main__":
    args = sys.argv[1:]
    with_incast = "--incast" in args
    args = [a for a in args if a != "--incast"]
    main(Path(args[0]) if args else RUN_INCAST if with_incast else RUN, with_incast)
