//! The TCP family's sender, receiver and laws against hand-worked
//! exchanges.

use super::*;
use crate::config::{Cc, Prio};
use crate::workload::FlowSpec;

/// A flow's endpoints (no deadline), on a new connection.
fn flow(spec: &FlowSpec, c: &TcpConfig, handshake: bool) -> TcpFlow {
    TcpFlow::new(&NewFlow { spec, deadline: None, seed: 0, base_rtt: 0 }, c, None, handshake)
}

fn cx<'a>(now: Time, c: &'a TcpConfig, out: &'a mut Vec<Segment>) -> Cx<'a, TcpConfig> {
    Cx { now, cfg: c, telemetry: &[], out }
}


fn cfg() -> TcpConfig {
    TcpConfig {
        mss_bytes: 1460,
        header_bytes: 40,
        ack_bytes: 40,
        init_cwnd_pkts: 4.0,
        max_cwnd_pkts: None,
        min_rto_ps: 200,
        init_rto_ps: 1000,
        max_rto_ps: 1_000_000,
        fast_retransmit: true,
        dupack_threshold: 3,
        ecn: false,
        cc: Cc::Reno,
        fixed_rto: false,
        probe_after: None,
        prio: Prio::None,
        connections_per_pair: None,
        edf_rate_bps: 10_000_000_000,
        rtt_per_window: false,
        window_span: false,
        prio_thresholds: vec![],
        handshake: false,
        ack_every: 1,
        ack_delay_ps: 0,
    }
}

#[test]
fn a_connection_opened_now_sends_its_data_at_the_syn_ack() {
    let c = cfg();
    let mut s = TcpSender::new(100, &c);
    s.handshaking = true;
    let mut out = vec![];
    s.fill(0, &mut out);
    assert_eq!(out, vec![SYN]);
    assert_eq!(s.rto_deadline, Some(1000));
    // nothing more until the SYN-ACK, whatever asks
    out.clear();
    s.fill(10, &mut out);
    assert!(out.is_empty());
    // the SYN is lost: sent again at the timeout, with backoff
    s.on_timeout(1000, &c, &mut out);
    assert_eq!((out.clone(), s.rto_deadline, s.timeouts, s.retx), (vec![SYN], Some(3000), 1, 1));
    out.clear();
    // the SYN-ACK: the initial window, the timer re-armed for data
    s.on_ack(1500, AckInfo { syn: true, ..ack(0, 0, 0) }, &c, &mut out);
    assert_eq!(out, vec![0, 1, 2, 3]);
    assert!(!s.handshaking);
    assert_eq!(s.rto_deadline, Some(3500));
    // a second SYN-ACK (for the resent SYN) changes nothing
    out.clear();
    s.on_ack(1600, AckInfo { syn: true, ..ack(0, 0, 0) }, &c, &mut out);
    assert!(out.is_empty());
    assert_eq!((s.cwnd, s.dupacks), (4.0, 0));
}

#[test]
fn a_syn_is_a_bare_urgent_packet_and_gets_a_syn_ack() {
    let c = TcpConfig { prio: Prio::RemainingSize, ..cfg() };
    let spec = FlowSpec { id: 0, src: 0, dst: 1, size: 5000, start: 0, deadline_draw: None };
    let mut f = flow(&spec, &c, true);
    let mut out = vec![];
    f.start(&mut cx(0, &c, &mut out));
    assert_eq!(out, vec![Segment { seq: 0, size: 40, flags: flags::SYN, prio: 0, kind: Kind::Data }]);
    let syn = Packet { kind: Kind::Data, flags: flags::SYN, size: 40, ..Packet::test_data(40, flags::SYN) };
    let reply = f.on_data(&mut cx(0, &c, &mut vec![]), &syn).expect("a SYN-ACK");
    assert_eq!((reply.kind, reply.flags, reply.seq, reply.sack_hi), (Kind::Ack, flags::SYN, 0, 0));
    assert_eq!(f.rcv.received(), 0);
    out.clear();
    f.on_ack(&mut cx(5, &c, &mut out), &reply);
    assert_eq!(out.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(out[0].prio, 5000);
}

#[test]
fn a_coalescing_receiver_acks_every_kth_segment_out_of_order_and_the_last_at_once() {
    let c = TcpConfig { ack_every: 3, ack_delay_ps: 1000, ..cfg() };
    let spec = FlowSpec { id: 0, src: 0, dst: 1, size: 7 * 1460, start: 0, deadline_draw: None };
    let mut f = flow(&spec, &c, false);
    assert!(f.coalesces_acks());
    let seg = |seq: u32| Packet { seq, ts: seq as u64, ..Packet::test_data(1500, 0) };
    let mut acked = vec![];
    for seq in [0, 1, 2, 4, 3, 5, 6] {
        if let Some(a) = f.on_data(&mut cx(10, &c, &mut vec![]), &seg(seq)) {
            acked.push((seq, a.seq, a.sack_lo, a.sack_hi, a.ts));
        }
    }
    assert_eq!(
        acked,
        vec![
            (2, 3, 0, 0, 0), // the third in order: covers 0-2, echoes 0's time
            (4, 3, 4, 5, 4), // out of order: at once, with SACK
            (3, 5, 0, 0, 3), // fills the hole: at once
            (6, 7, 0, 0, 5), // the last: at once, covering the held 5
        ]
    );
    assert_eq!(f.deadline(timer::DELACK), None);
    // every segment acknowledged by default
    let mut g = flow(&spec, &cfg(), false);
    assert!(!g.coalesces_acks());
    assert!((0..7).all(|s| g.on_data(&mut cx(10, &cfg(), &mut vec![]), &seg(s)).is_some()));
}

#[test]
fn with_coalesced_acks_slow_start_grows_by_the_segments_acked() {
    // Linux 3.18 tcp_slow_start: cwnd + acked, at most ssthresh + 1
    let c = TcpConfig { ack_every: 2, ..cfg() };
    let mut s = TcpSender::new(100, &c);
    let mut out = vec![];
    s.fill(0, &mut out);
    s.on_ack(10, ack(3, 0, 0), &c, &mut out);
    assert_eq!(s.cwnd, 7.0);
    s.ssthresh = 8.0;
    s.on_ack(20, ack(7, 0, 0), &c, &mut out);
    assert_eq!(s.cwnd, 9.0);
    // one per ACK without (ns-2)
    let mut r = TcpSender::new(100, &cfg());
    r.fill(0, &mut out);
    r.on_ack(10, ack(3, 0, 0), &cfg(), &mut out);
    assert_eq!(r.cwnd, 5.0);
}

#[test]
fn classes_split_at_the_thresholds_inclusive() {
    // PIAS: offsets up to alpha_1 in queue 0, up to alpha_2 in queue 1...
    let t = [10, 20, 20, 40];
    let classes: Vec<u64> = [0, 10, 11, 20, 21, 40, 41, u64::MAX].iter().map(|&v| class_of(v, &t)).collect();
    assert_eq!(classes, vec![0, 0, 1, 1, 3, 3, 4, 4]);
    assert_eq!(class_of(12345, &[]), 12345);
}

fn ack(ackno: u32, lo: u32, hi: u32) -> AckInfo {
    AckInfo { ackno, sack_lo: lo, sack_hi: hi, ts_echo: 0, ece: false, syn: false }
}

/// A sender of 100 segments that has sent its initial window at time 0,
/// and the segments it sent.
fn started(c: &TcpConfig) -> (TcpSender, Vec<u32>) {
    let mut s = TcpSender::new(100, c);
    let mut out = vec![];
    s.fill(0, &mut out);
    (s, out)
}

#[test]
fn slow_start_doubles_per_round() {
    let c = cfg();
    let (mut s, mut out) = started(&c);
    assert_eq!(out, vec![0, 1, 2, 3]);
    out.clear();
    for a in 1..=4 {
        s.on_ack(10, ack(a, 0, 0), &c, &mut out);
    }
    // each ACK frees one slot and grows cwnd by one: 8 segments sent
    assert_eq!(out, (4..12).collect::<Vec<_>>());
    assert_eq!(s.cwnd, 8.0);
}

#[test]
fn three_dupacks_retransmit_the_hole_once() {
    let c = cfg();
    let (mut s, mut out) = started(&c);
    out.clear();
    // segment 0 lost; 1, 2, 3 arrive and are SACKed
    s.on_ack(10, ack(0, 1, 2), &c, &mut out);
    s.on_ack(10, ack(0, 1, 3), &c, &mut out);
    // SACKed segments leave the pipe, so new data keeps flowing
    assert_eq!(out, vec![4, 5]);
    out.clear();
    s.on_ack(10, ack(0, 1, 4), &c, &mut out);
    // recovery: ssthresh = flight/2 = 3; pipe = 6 - 3 sacked - 1 lost
    assert_eq!(out, vec![0], "hole retransmitted first");
    assert_eq!(s.retx, 1);
    assert_eq!(s.ssthresh, 3.0);
    // the full ACK ends recovery
    out.clear();
    s.on_ack(20, ack(4, 4, 6), &c, &mut out); // partial ACK: still recovering
    assert!(s.in_recovery);
    s.on_ack(20, ack(6, 0, 0), &c, &mut out);
    assert!(!s.in_recovery);
    assert_eq!(s.retx, 1);
}

#[test]
fn a_span_window_stops_a_window_past_the_hole_and_a_pipe_keeps_sending() {
    let no_fr = TcpConfig { fast_retransmit: false, ..cfg() };
    let span = TcpConfig { window_span: true, ..no_fr.clone() };
    let sent_after_sacks = |c: &TcpConfig| {
        let (mut s, mut out) = started(c); // 0..4 in flight, cwnd 4
        out.clear();
        // segment 0 lost; 1, 2, 3 arrive and are SACKed
        for hi in 2..=4 {
            s.on_ack(10, ack(0, 1, hi), c, &mut out);
        }
        out
    };
    // RFC 6675: each SACK frees a slot of the pipe for new data
    assert_eq!(sent_after_sacks(&no_fr), vec![4, 5, 6]);
    // ns-2 FullTcp: segments 1-3 still count against the window of 4
    assert_eq!(sent_after_sacks(&span), Vec::<u32>::new());
    // after the timeout the hole goes out alone (cwnd 1), and once it
    // is acknowledged the window counts from the new cumulative ACK
    let (mut s, mut out) = started(&span);
    for hi in 2..=4 {
        s.on_ack(10, ack(0, 1, hi), &span, &mut out);
    }
    out.clear();
    s.on_timeout(300, &span, &mut out);
    assert_eq!(out, vec![0]);
    out.clear();
    s.on_ack(310, ack(4, 0, 0), &span, &mut out);
    assert_eq!(out, vec![4, 5], "cwnd 2 from the cumulative ACK at 4");
}

#[test]
fn a_span_window_uses_the_pipe_in_fast_recovery() {
    // ns-2 enters pipe control (`pipectrl_`) on fast retransmit only
    let span = TcpConfig { window_span: true, ..cfg() };
    let (mut s, mut out) = started(&span);
    out.clear();
    s.on_ack(10, ack(0, 1, 2), &span, &mut out);
    s.on_ack(10, ack(0, 1, 3), &span, &mut out);
    assert!(out.is_empty(), "before recovery the span bounds sending");
    s.on_ack(10, ack(0, 1, 4), &span, &mut out);
    // recovery: ssthresh = flight / 2 = 2 = cwnd; pipe = 4 - 3 SACKed - 1 lost = 0
    assert_eq!(out, vec![0, 4]);
}

#[test]
fn ecn_echo_halves_once_per_window() {
    let c = cfg();
    let (mut s, mut out) = started(&c);
    s.cwnd = 10.0;
    s.ssthresh = 10.0;
    let ece = |a| AckInfo { ece: true, ..ack(a, 0, 0) };
    // the first echoed ACK does not open the window (ns-2 `ecn_burst_`)
    s.on_ack(10, ece(1), &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (5.0, 5.0));
    s.on_ack(10, ece(2), &c, &mut out); // same window: no second cut
    assert_eq!(s.cwnd, 5.0);
    // once the window of the cut is acknowledged, the next echo cuts again
    let sent = s.snd_nxt;
    for a in 3..=sent {
        s.on_ack(10, ack(a, 0, 0), &c, &mut out);
    }
    let before = s.cwnd;
    s.on_ack(10, ece(sent + 1), &c, &mut out);
    assert_eq!(s.cwnd, before / 2.0);
}

fn dctcp() -> TcpConfig {
    TcpConfig { ecn: true, cc: Cc::Dctcp { g: 1.0 / 16.0 }, ..cfg() }
}

fn l2dct(double: bool) -> TcpConfig {
    let cc = Cc::L2dct { g: 1.0 / 16.0, w_min: 0.125, w_max: 2.5, size_min: 204_800, size_max: 1_048_576,
                         ns2_double_count: double };
    TcpConfig { ecn: true, cc, ..cfg() }
}

/// Congestion-avoidance rounds: ACK a window at a time; the growth.
fn ca_growth(c: &TcpConfig, sent_segs: u32, rounds: u32) -> f64 {
    let (mut s, mut out) = started(c);
    s.high_tx = sent_segs; // what the flow has sent so far sets w
    s.snd_nxt = sent_segs;
    s.ssthresh = 1.0;
    s.cwnd = 20.0;
    let start = s.cwnd;
    let mut ackno = s.snd_una;
    for _ in 0..rounds {
        for _ in 0..s.cwnd as u32 {
            ackno += 1;
            s.snd_una = ackno - 1;
            s.open_window(0, 1, c);
        }
    }
    out.clear();
    s.cwnd - start
}

#[test]
fn l2dct_weights_the_increase_and_the_cut_by_bytes_sent() {
    // w = 2.5 (<= 200 KB sent): one packet per window, as DCTCP; w =
    // 0.125 (>= 1 MB): one per 20 windows
    let c = l2dct(false);
    assert_eq!(ca_growth(&c, 10, 20), 20.0);
    assert_eq!(ca_growth(&c, 1000, 20), 1.0);
    // the PIAS ns-2 code: about two per window whatever w
    let ns2 = l2dct(true);
    assert!((ca_growth(&ns2, 10, 20) - 40.0).abs() <= 2.0);
    assert!((ca_growth(&ns2, 1000, 20) - 40.0).abs() <= 2.0);
    // the cut: cwnd (1 - alpha^w / 2)
    let (mut s, _) = started(&c);
    s.cwnd = 100.0;
    s.dctcp_mut().alpha = 0.25;
    s.high_tx = 1000; // w = 0.125: alpha^w = 0.841
    s.ecn_cut();
    assert!((s.cwnd - 100.0 * (1.0 - 0.25f64.powf(0.125) / 2.0)).abs() < 1e-9);
    let (mut small, _) = started(&c);
    small.cwnd = 100.0;
    small.dctcp_mut().alpha = 0.25; // w = 2.5: alpha^w = 0.031
    small.ecn_cut();
    assert!(small.cwnd > s.cwnd);
}

#[test]
fn dctcp_alpha_follows_the_marked_fraction_and_cuts_by_half_of_it() {
    let c = dctcp();
    let mut s = TcpSender::new(10_000, &c);
    let mut out = vec![];
    s.cwnd = 20.0;
    s.ssthresh = 20.0; // congestion avoidance
    s.fill(0, &mut out);
    assert_eq!(out.len(), 20);
    // a whole window acknowledged, one ACK in four echoing a mark:
    // alpha closes in on 1/4 window by window (g = 1/16)
    let mut acked = 0;
    for _window in 0..200 {
        let end = s.snd_nxt;
        while acked < end {
            acked += 1;
            let info = AckInfo { ece: acked % 4 == 0, ..ack(acked, 0, 0) };
            s.on_ack(10, info, &c, &mut out);
        }
    }
    assert!((s.alpha() - 0.25).abs() < 0.01, "alpha {}", s.alpha());
    // a cut takes cwnd (1 - alpha/2), once per window
    let (mut s, mut out) = (TcpSender::new(1000, &c), vec![]);
    s.dctcp_mut().alpha = 0.5;
    s.dctcp_mut().alpha_seq = 1000; // no alpha update on the next ACK
    s.cwnd = 16.0;
    s.fill(0, &mut out);
    s.on_ack(10, AckInfo { ece: true, ..ack(1, 0, 0) }, &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (12.0, 12.0));
    s.on_ack(10, AckInfo { ece: true, ..ack(2, 0, 0) }, &c, &mut out);
    assert_eq!(s.cwnd, 12.0);
    // a timeout after an ECN cut keeps ssthresh (ns-2 timeout_action)
    s.on_timeout(1000, &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (1.0, 12.0));
}

fn cubic() -> TcpConfig {
    TcpConfig {
        fast_retransmit: true,
        cc: Cc::Cubic { c: 0.4, beta: 0.7, fast_convergence: true, tcp_friendly: true },
        ..cfg()
    }
}

#[test]
fn cubic_cuts_to_beta_on_loss_and_echo_and_starts_over_at_a_timeout() {
    let c = cubic();
    // three duplicate ACKs with cwnd 20: ssthresh = cwnd = floor(0.7 x 20)
    let (mut s, mut out) = (TcpSender::new(1000, &c), vec![]);
    s.cwnd = 20.0;
    s.ssthresh = 20.0;
    s.fill(0, &mut out);
    for _ in 0..3 {
        s.on_ack(10, ack(0, 5, 6), &c, &mut out);
    }
    assert_eq!((s.cwnd, s.ssthresh), (14.0, 14.0));
    assert_eq!(s.conn().law.w_max, 20.0);
    // an echo with the window at 10: 7, and fast convergence lowers
    // W_max below the last one to 10 (1 + 0.7) / 2
    let (mut s, mut out) = (TcpSender::on_conn(1000, &c, s.conn()), vec![]);
    s.cwnd = 10.0;
    s.ssthresh = 10.0;
    s.fill(0, &mut out);
    s.on_ack(10, AckInfo { ece: true, ..ack(1, 0, 0) }, &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (7.0, 7.0));
    assert!((s.conn().law.w_max - 8.5).abs() < 1e-12);
    // a timeout inside the echo's window keeps its ssthresh (Linux: the
    // CWR state's), and so does a second one in a row; W_max forgotten
    s.cwnd = 30.0;
    s.on_timeout(1000, &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh, s.conn().law.w_max), (1.0, 7.0, 0.0));
    s.cwnd = 30.0;
    s.on_timeout(2000, &c, &mut out);
    assert_eq!(s.ssthresh, 7.0);
    // an echo before what was out at the timeout is acked: ignored
    s.on_ack(3000, AckInfo { ece: true, ..ack(2, 0, 0) }, &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (2.0, 7.0), "slow start, no cut");
    // a first timeout after progress: ssthresh 0.7 of the window
    let (mut s, mut out) = (TcpSender::new(1000, &c), vec![]);
    s.cwnd = 30.0;
    s.fill(0, &mut out);
    s.on_timeout(1000, &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (1.0, 21.0));
}

#[test]
fn cubic_in_congestion_avoidance_grows_slower_than_reno_at_a_short_rtt() {
    // 100 round trips of 135 us from cwnd 20 at ssthresh: Reno +1 per
    // window of ACKs, CUBIC (its curve flat at this RTT) about 0.53
    let grow = |c: &TcpConfig| {
        let (mut s, mut out) = (TcpSender::new(100_000, c), vec![]);
        s.cwnd = 20.0;
        s.ssthresh = 20.0;
        if let cc::Law::Cubic(l) = &mut s.law {
            l.state = cc::cubic::Cubic::with_w_max(40.0);
        }
        s.fill(0, &mut out);
        let (mut acked, mut now) = (0, 0);
        for _ in 0..100 {
            now += 135_000_000;
            for _ in 0..s.cwnd as u32 {
                acked += 1;
                s.on_ack(now, AckInfo { ts_echo: now - 135_000_000, ..ack(acked, 0, 0) }, c, &mut out);
            }
        }
        s.cwnd - 20.0
    };
    assert_eq!(grow(&cfg()), 100.0);
    let cubic = grow(&cubic());
    assert!((cubic - 53.0).abs() < 4.0, "CUBIC grew {cubic} packets in 100 RTTs");
}

#[test]
fn window_grows_by_one_per_ack_then_one_per_window() {
    let c = cfg();
    let (mut s, mut out) = started(&c);
    s.ssthresh = 6.0;
    // a cumulative ACK of three segments still opens the window by one
    s.on_ack(10, ack(3, 0, 0), &c, &mut out);
    assert_eq!(s.cwnd, 5.0);
    s.on_ack(10, ack(4, 0, 0), &c, &mut out);
    assert_eq!(s.cwnd, 6.0);
    // congestion avoidance: +1 after six more ACKs
    for a in 5..=10 {
        assert_eq!(s.cwnd, 6.0);
        s.on_ack(10, ack(a, 0, 0), &c, &mut out);
    }
    assert_eq!(s.cwnd, 7.0);
    // a timeout: ssthresh half of cwnd (floor), at least 2
    s.on_timeout(100, &c, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (1.0, 3.0));
    s.on_timeout(200, &c, &mut out);
    assert_eq!(s.ssthresh, 2.0);
}

fn pfabric() -> TcpConfig {
    TcpConfig { fixed_rto: true, min_rto_ps: 45, probe_after: Some(5), prio: Prio::RemainingSize, ..cfg() }
}

#[test]
fn pfabric_timeouts_are_fixed_and_end_in_probes() {
    let c = pfabric();
    let (mut s, mut out) = started(&c);
    out.clear();
    let mut deadlines = vec![];
    for i in 1..=6u64 {
        s.on_timeout(100 * i, &c, &mut out);
        deadlines.push(s.rto_deadline.unwrap() - 100 * i);
    }
    // no backoff, no RTT estimate
    assert!(deadlines.iter().all(|&d| d == 45), "{deadlines:?}");
    // timeouts 1-4 resend the first segment, 5 and 6 send probes
    assert_eq!(out, vec![0, 0, 0, 0, PROBE, PROBE]);
    assert_eq!(s.cwnd, 1.0);
    // the probe's answer ends probe mode and opens the window by one
    out.clear();
    s.on_ack(700, ack(0, 0, 0), &c, &mut out);
    assert_eq!(out, vec![0, 1]);
    // RTT samples leave the timeout alone
    s.on_ack(10_000, ack(2, 0, 0), &c, &mut out);
    assert_eq!(s.rto_deadline, Some(10_045));
}

#[test]
fn rtt_per_window_times_one_new_segment_and_never_a_retransmission() {
    let c = TcpConfig { rtt_per_window: true, min_rto_ps: 1, init_rto_ps: 1000, ..cfg() };
    let (mut s, mut out) = started(&c); // segments 0..4 sent at 0; 0 is timed
    s.on_ack(100, ack(1, 0, 0), &c, &mut out); // covers 0: a sample of 100
    assert_eq!(s.rto.rto, 100 + 4 * 50);
    // the next timed segment is the first new one sent after: 4 (at 100)
    s.on_ack(130, ack(2, 0, 0), &c, &mut out);
    assert_eq!(s.rto.rto, 300, "no sample from an untimed segment");
    s.on_timeout(500, &c, &mut out); // Karn: what was timed is forgotten
    s.on_ack(900, ack(6, 0, 0), &c, &mut out);
    assert_eq!(s.rto.rto, 600, "no sample from a retransmission (only the backoff: 300 x 2)");
}

#[test]
fn a_reused_connection_keeps_ssthresh_and_alpha_but_not_the_window() {
    let c = dctcp();
    let (mut s, mut out) = started(&c);
    s.on_timeout(100, &c, &mut out);
    s.on_timeout(200, &c, &mut out);
    s.dctcp_mut().alpha = 0.3;
    let conn = s.conn();
    let next = TcpSender::on_conn(50, &c, conn);
    assert_eq!((next.cwnd, next.ssthresh, next.alpha()), (c.init_cwnd_pkts, 2.0, 0.3));
    let fresh = TcpSender::new(50, &c);
    assert_eq!((fresh.ssthresh, fresh.alpha()), (f64::INFINITY, 0.0));
}

#[test]
fn timeout_goes_back_and_skips_sacked() {
    let c = cfg();
    let mut s = TcpSender::new(6, &c);
    let mut out = vec![];
    s.fill(0, &mut out);
    s.on_ack(5, ack(0, 2, 3), &c, &mut out); // only 2 arrived
    out.clear();
    s.on_timeout(1000, &c, &mut out);
    assert_eq!(out, vec![0]);
    assert_eq!(s.cwnd, 1.0);
    out.clear();
    s.on_ack(1010, ack(1, 0, 0), &c, &mut out);
    // cwnd 2: segment 1, then 3 (2 is SACKed)
    assert_eq!(out, vec![1, 3]);
}

#[test]
fn receiver_acks_cumulatively_and_sacks_out_of_order() {
    let mut r = TcpReceiver::new(10);
    assert_eq!(r.on_data(0), (1, 0, 0));
    assert_eq!(r.on_data(2), (1, 2, 3));
    assert_eq!(r.on_data(3), (1, 2, 4));
    assert_eq!(r.on_data(1), (4, 0, 0));
    assert_eq!(r.on_data(1), (4, 0, 0)); // duplicate
    assert_eq!((r.received(), r.dups), (4, 1));
    r.on_data(7);
    r.on_data(7); // held above the cumulative ACK: a duplicate too
    assert_eq!((r.received(), r.dups), (5, 2));
    assert!(r.has(7) && r.has(3) && !r.has(6));
    for s in 4..10 {
        r.on_data(s);
    }
    assert!(r.complete());
    // 7 came a third time in that loop
    assert_eq!((r.received(), r.dups), (10, 3));
}

#[test]
fn at_line_rate_a_flow_keeps_its_initial_window_through_timeouts_and_echoes() {
    // pFabric without rate control: 4 packets out, a timeout resends the
    // first and keeps the window; ACKs do not grow it; an echo does not cut
    let c = TcpConfig { cc: Cc::LineRate, max_cwnd_pkts: Some(4.0), fixed_rto: true, ..cfg() };
    let (mut s, mut out) = started(&c);
    assert_eq!(out, vec![0, 1, 2, 3]);
    out.clear();
    s.on_timeout(500, &c, &mut out);
    assert_eq!(s.cwnd, 4.0);
    assert_eq!(out[0], 0, "the first missing segment goes again");
    for i in 1..=3 {
        s.on_ack(600 + i as u64, ack(i, 0, 0), &c, &mut out);
    }
    assert_eq!(s.cwnd, 4.0, "no growth");
    let reno = TcpConfig { max_cwnd_pkts: Some(4.0), fixed_rto: true, ..cfg() };
    let (mut r, mut rout) = started(&reno);
    r.on_timeout(500, &reno, &mut rout);
    assert_eq!(r.cwnd, 1.0, "Reno starts over from one packet");
}
