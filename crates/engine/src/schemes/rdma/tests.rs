//! The queue pair and its laws against hand-worked exchanges.

use super::*;
use crate::config::{DcqcnConfig, DctcpRdmaConfig, DelayCcConfig, HpccConfig, RdmaCc};
use crate::transport::Endpoint;
use crate::workload::FlowSpec;
use cc::{dcqcn::Dcqcn, dctcp::Dctcp, delay::Delay, hpcc::Hpcc};

/// Bits per second as picoseconds per byte, for tests.
fn ps_per_byte(bps: u64) -> Time {
    8 * crate::time::PS_PER_S / bps
}

impl RdmaFlow {
    fn new(spec: &FlowSpec, cfg: &RdmaConfig) -> RdmaFlow {
        RdmaFlow::with_rtt(spec.size, cfg, None)
    }

    fn hpcc(&self) -> &Hpcc {
        let Law::Hpcc(l) = &self.law else { panic!("not HPCC") };
        l
    }

    fn dctcp(&self) -> &Dctcp {
        let Law::Dctcp(l) = &self.law else { panic!("not DCTCP") };
        l
    }

    fn dcqcn(&self) -> &Dcqcn {
        let Law::Dcqcn(l) = &self.law else { panic!("not DCQCN") };
        l
    }

    fn delay(&self) -> &Delay {
        let Law::Delay(l) = &self.law else { panic!("not the delay law") };
        l
    }
}


fn cfg(cc: RdmaCc, window: Option<u64>) -> RdmaConfig {
    RdmaConfig {
        answer_duplicates: false,
        mss_bytes: 1000,
        header_bytes: 48,
        ack_bytes: 60,
        line_rate_bps: 100_000_000_000,
        window_bytes: window,
        var_win: false,
        window_bdp: false,
        srf: false,
        pair_rtt: false,
        perfect_retransmit: false,
        nack_interval_ps: 500_000_000,
        rto_ps: None,
        cc,
    }
}

fn spec(size: u64) -> FlowSpec {
    FlowSpec { id: 0, src: 0, dst: 1, size, start: 0, deadline_draw: None }
}

fn data(seq: u32) -> Packet {
    Packet { seq, ..Packet::test_data(1048, flags::ECT) }
}

#[test]
fn paced_at_line_rate_and_blocked_by_the_window() {
    let c = cfg(RdmaCc::None, Some(3000));
    let mut f = RdmaFlow::new(&spec(10_500), &c);
    let Poll::Send(s) = f.poll(0, &c) else { panic!() };
    assert_eq!((s.seq, s.size), (0, 1048));
    // the next one when the first has left at 100 Gb/s
    assert_eq!(f.poll(0, &c), Poll::At(1048 * ps_per_byte(100_000_000_000)));
    let t = 1048 * ps_per_byte(100_000_000_000);
    assert!(matches!(f.poll(t, &c), Poll::Send(_)));
    assert!(matches!(f.poll(2 * t, &c), Poll::Send(_)));
    assert_eq!(f.poll(3 * t, &c), Poll::Blocked); // 3 packets in flight = 3000 B
    f.on_ack(3 * t, &Packet { seq: 1, kind: Kind::Ack, ..data(0) }, &[], &c);
    assert!(matches!(f.poll(3 * t, &c), Poll::Send(Segment { seq: 3, .. })));
}

#[test]
fn go_back_n_on_a_nack() {
    let c = cfg(RdmaCc::None, None);
    let mut f = RdmaFlow::new(&spec(5000), &c);
    let mut r = RdmaFlow::new(&spec(5000), &c);
    for _ in 0..5 {
        f.pacing.next_avail = 0;
        assert!(matches!(f.poll(0, &c), Poll::Send(_)));
    }
    assert_eq!(f.poll(0, &c), Poll::Blocked);
    // packet 1 is lost: 2 draws a NACK for 1, 3 and 4 are discarded
    // silently within the NACK interval
    let a0 = r.on_data(0, &data(0), &c).unwrap();
    assert!(!a0.has(flags::NACK) && a0.seq == 1);
    let n = r.on_data(10, &data(2), &c).unwrap();
    assert!(n.has(flags::NACK) && n.seq == 1);
    assert!(r.on_data(20, &data(3), &c).is_none());
    f.on_ack(30, &a0, &[], &c);
    f.on_ack(40, &n, &[], &c);
    f.pacing.next_avail = 0;
    let Poll::Send(s) = f.poll(40, &c) else { panic!() };
    assert_eq!(s.seq, 1);
    assert_eq!(f.retx, 1);
    for seq in 1..5 {
        let a = r.on_data(50, &data(seq), &c).unwrap();
        assert!(!a.has(flags::NACK));
    }
    assert!(r.receiver_complete());
    assert_eq!(r.delivered_bytes(&c), 5000);
    assert!(r.on_data(60, &data(4), &c).is_none()); // a duplicate
}

#[test]
fn perfect_retransmission_resends_only_the_lost_packet() {
    let c = RdmaConfig { perfect_retransmit: true, ..cfg(RdmaCc::None, None) };
    let mut f = RdmaFlow::new(&spec(5000), &c);
    let mut r = RdmaFlow::new(&spec(5000), &c);
    for _ in 0..4 {
        f.pacing.next_avail = 0;
        assert!(matches!(f.poll(0, &c), Poll::Send(_)));
    }
    // packet 1 is dropped; 0, 2 and 3 arrive and are kept
    f.on_loss(1);
    let acks: Vec<u32> = [0, 2, 3].iter().map(|&s| r.on_data(0, &data(s), &c).unwrap()).map(|a| {
        assert!(!a.has(flags::NACK));
        a.seq
    }).collect();
    assert_eq!(acks, vec![1, 1, 1]);
    // the sender sends 1 again before its next new packet (4), once
    f.pacing.next_avail = 0;
    assert!(matches!(f.poll(0, &c), Poll::Send(Segment { seq: 1, .. })));
    f.pacing.next_avail = 0;
    assert!(matches!(f.poll(0, &c), Poll::Send(Segment { seq: 4, .. })));
    assert_eq!((f.retx, f.snd_nxt), (1, 5));
    assert_eq!(r.on_data(0, &data(1), &c).unwrap().seq, 4);
    assert_eq!(r.on_data(0, &data(4), &c).unwrap().seq, 5);
    assert!(r.receiver_complete());
    // a loss already acknowledged (a late notice) is not sent again
    f.on_ack(0, &ack(5, 0), &[], &c);
    f.on_loss(2);
    assert_eq!(f.poll(0, &c), Poll::Blocked);
    // a timeout goes back over everything unacknowledged, the packets
    // known lost included: they are not sent a second time
    let mut g = RdmaFlow::new(&spec(3000), &c);
    for _ in 0..3 {
        g.pacing.next_avail = 0;
        assert!(matches!(g.poll(0, &c), Poll::Send(_)));
    }
    g.on_loss(1);
    g.on_timer(10, timer::RTO, &c);
    let sent: Vec<u32> = (0..4).filter_map(|_| match g.poll(g.next_avail(), &c) {
        Poll::Send(s) => Some(s.seq),
        _ => None,
    }).collect();
    assert_eq!(sent, vec![0, 1, 2]);
}

#[test]
fn with_faults_a_duplicate_sent_after_a_timeout_is_acknowledged() {
    // the receiver holds all 3 packets and its last ACK was lost: the
    // sender times out and sends packet 0 again, asking for an ACK; the
    // receiver answers with what it holds (as the simulator's would not)
    for answer in [false, true] {
        let c = RdmaConfig { rto_ps: Some(1000), answer_duplicates: answer, ..cfg(RdmaCc::None, None) };
        let mut tx = RdmaFlow::new(&spec(3000), &c);
        let mut rx = RdmaFlow::new(&spec(3000), &c);
        for seq in 0..3 {
            tx.pacing.next_avail = 0;
            let Poll::Send(s) = tx.poll(0, &c) else { panic!() };
            assert_eq!((s.seq, s.flags & flags::PROBE), (seq, 0));
            assert!(rx.on_data(10, &data(seq), &c).is_some());
        }
        tx.on_timer(1000, timer::RTO, &c);
        tx.pacing.next_avail = 0;
        let Poll::Send(again) = tx.poll(1000, &c) else { panic!() };
        assert_eq!(again.seq, 0);
        assert_eq!(again.flags & flags::PROBE != 0, answer);
        let reply = rx.on_data(1010, &Packet { seq: 0, flags: again.flags, ..data(0) }, &c);
        assert_eq!(reply.map(|a| a.seq), answer.then_some(3), "the ACK names everything held");
    }
}

#[test]
fn late_acks_after_a_timeout_move_the_next_packet_on() {
    // a timeout rewinds to the first unacknowledged packet; ACKs of the
    // packets that were only late then overtake it
    let c = RdmaConfig { rto_ps: Some(1000), ..cfg(RdmaCc::None, Some(4000)) };
    let mut f = RdmaFlow::new(&spec(10_000), &c);
    for _ in 0..4 {
        f.pacing.next_avail = 0;
        assert!(matches!(f.poll(0, &c), Poll::Send(_)));
    }
    f.on_timer(1000, timer::RTO, &c);
    f.on_ack(1100, &Packet { seq: 3, kind: Kind::Ack, ..data(0) }, &[], &c);
    f.pacing.next_avail = 0;
    assert!(matches!(f.poll(1100, &c), Poll::Send(Segment { seq: 3, .. })));
    assert_eq!(f.timeouts, 1);
}

#[test]
fn hpcc_aims_at_eta_of_the_bottleneck() {
    let h = HpccConfig {
        eta: 0.95,
        max_stage: 5,
        rai_bps: 40_000_000,
        min_rate_bps: 1_000_000_000,
        base_rtt_ps: Some(8_000_000),
        window_bytes: Some(100_000),
        int_bytes_unit: 1,
        int_qlen_unit: 1,
        int_header_bytes: 0,
    };
    let c = RdmaConfig { window_bytes: Some(100_000), var_win: true, ..cfg(RdmaCc::Hpcc(h), None) };
    let mut f = RdmaFlow::new(&spec(10_000_000), &c);
    for _ in 0..20 {
        f.pacing.next_avail = 0;
        assert!(matches!(f.poll(0, &c), Poll::Send(_)));
    }
    let hop = |ts: Time, tx: u64, q: u64| IntHop { ts, tx_bytes: tx, qlen: q, rate_bps: 100_000_000_000 };
    let ack = |seq| Packet { seq, kind: Kind::Ack, ..data(0) };
    // the first ACK only keeps the telemetry
    f.on_ack(0, &ack(1), &[hop(0, 0, 0)], &c);
    assert_eq!(f.rate_bps(), 100_000_000_000);
    // the link sent at its full rate for a whole T with no queue: U = 1,
    // so the rate becomes eta x the reference rate + R_AI
    f.on_ack(8_000_000, &ack(21), &[hop(8_000_000, 100_000, 0)], &c);
    assert_eq!(f.rate_bps(), 95_000_000_000 + 40_000_000);
    // the window follows the rate
    assert_eq!(f.window(&c), 100_000 * 95_040 / 100_000);
    // a link at 50% with no queue: U averages down; below eta the rate
    // grows additively from the (committed) reference rate
    f.on_ack(16_000_000, &ack(22), &[hop(16_000_000, 150_000, 0)], &c);
    assert!(f.hpcc().u < 0.95);
    assert_eq!(f.rate_bps(), 95_040_000_000 + 40_000_000);
    // a standing queue of a whole W (the smaller of this queue and the
    // last counts) on a full link doubles U: the rate about halves
    let before = f.rate_bps();
    f.on_ack(24_000_000, &ack(23), &[hop(24_000_000, 250_000, 100_000)], &c);
    f.on_ack(32_000_000, &ack(24), &[hop(32_000_000, 350_000, 100_000)], &c);
    assert!(f.rate_bps() < before * 6 / 10, "{}", f.rate_bps());
}

#[test]
fn delay_window_moves_by_the_rtt_against_its_target() {
    // BFC App. A.1, Algorithm 1: T = 8 us, target 2.5 T = 20 us, w
    // starts at the BDP (100 packets of 1000 B)
    let d = DelayCcConfig { target_factor: 2.5, base_rtt_ps: Some(8_000_000) };
    let c = cfg(RdmaCc::Delay(d), Some(100_000));
    let mut f = RdmaFlow::new(&spec(10_000_000), &c);
    assert_eq!(f.window(&c), 100_000);
    assert_eq!(send(&mut f, 200, &c), 100, "one BDP in flight");
    // an ACK whose packet took 40 us (twice the target): w -= 0.5
    let sent_at = |t: Time| Packet { ts: t, ..ack(1, 0) };
    f.on_ack(40_000_000, &sent_at(0), &[], &c);
    assert!((f.delay().w - 99.5).abs() < 1e-9, "{}", f.delay().w);
    // at 10 us (half the target): w += 1
    f.on_ack(50_000_000, &Packet { seq: 2, ..sent_at(40_000_000) }, &[], &c);
    assert!((f.delay().w - 100.5).abs() < 1e-9);
    // a whole window of ACKs at 25 us takes w to about w x 20/25
    let w0 = f.delay().w;
    for k in 0..100u32 {
        f.on_ack(100_000_000, &Packet { seq: 3 + k, ..sent_at(75_000_000) }, &[], &c);
    }
    assert!((f.delay().w / w0 - 0.8).abs() < 0.03, "{} -> {}", w0, f.delay().w);
    // bounded: never below one packet, never above the target's BDP
    for k in 0..10_000u32 {
        f.on_ack(1_000_000_000, &Packet { seq: 103 + k, ..sent_at(0) }, &[], &c);
    }
    assert_eq!(f.delay().w, 1.0);
    for k in 0..10_000u32 {
        f.on_ack(1_000_000_000, &Packet { seq: 103 + k, ..sent_at(999_999_000) }, &[], &c);
    }
    assert_eq!(f.delay().w, 250.0);
}

fn dctcp(iw: Option<u32>) -> RdmaConfig {
    let d = DctcpRdmaConfig { g: 1.0 / 16.0, rai_bps: 615_000_000, min_rate_bps: 1_000_000_000, init_window_pkts: iw };
    RdmaConfig { var_win: true, ..cfg(RdmaCc::Dctcp(d), Some(100_000)) }
}

fn ack(seq: u32, f: u8) -> Packet {
    Packet { seq, kind: Kind::Ack, flags: f, ..data(0) }
}

fn send(f: &mut RdmaFlow, n: u32, c: &RdmaConfig) -> u32 {
    let mut sent = 0;
    for _ in 0..n {
        match f.poll(f.next_avail(), c) {
            Poll::Send(_) => sent += 1,
            _ => break,
        }
    }
    sent
}

#[test]
fn dctcp_cuts_by_half_alpha_once_per_window() {
    let c = dctcp(None);
    let mut f = RdmaFlow::new(&spec(10_000_000), &c);
    assert_eq!(f.rate_bps(), 100_000_000_000); // line rate, window = W
    assert_eq!(send(&mut f, 200, &c), 100); // the window: 100 KB of payload
    // the first ACK starts the first window (to packet 100)
    f.on_ack(0, &ack(1, 0), &[], &c);
    assert_eq!(f.rate_bps(), 100_000_000_000);
    // a mark: alpha is still 1, the rate halves, and the window reduced
    f.on_ack(0, &ack(2, flags::ECE), &[], &c);
    assert_eq!(f.rate_bps(), 50_000_000_000);
    f.on_ack(0, &ack(3, flags::ECE), &[], &c);
    assert_eq!(f.rate_bps(), 50_000_000_000, "one cut per window");
    // the window ends (ACK beyond packet 100): alpha = 15/16 + 2 marks
    // of 101 packets / 16; no cut, and one additive step
    f.on_ack(0, &ack(101, 0), &[], &c);
    let alpha = 15.0 / 16.0 + (2.0 / 101.0) / 16.0;
    assert!((f.dctcp().alpha - alpha).abs() < 1e-12, "{}", f.dctcp().alpha);
    assert_eq!(f.rate_bps(), 50_615_000_000);
    // everything sent is acknowledged, so the next ACK closes another
    // window (of one packet, marked) before its mark cuts by alpha / 2
    f.on_ack(0, &ack(102, flags::ECE), &[], &c);
    let alpha = 15.0 / 16.0 * alpha + 1.0 / 16.0;
    assert_eq!(f.rate_bps(), (50_615_000_000f64 * (1.0 - alpha / 2.0)) as u64);
}

#[test]
fn dctcp_slow_start_doubles_until_the_first_mark() {
    let c = dctcp(Some(10));
    let mut f = RdmaFlow::new(&spec(10_000_000), &c);
    assert_eq!(f.rate_bps(), 10_000_000_000); // 10 packets of a 100 KB window
    assert_eq!(send(&mut f, 100, &c), 10);
    // each ACK opens the window by one packet: 20 after ten ACKs
    for k in 1..=10 {
        f.on_ack(0, &ack(k, 0), &[], &c);
    }
    assert_eq!(f.rate_bps(), 20_000_000_000);
    assert_eq!(send(&mut f, 100, &c), 20);
    // a mark ends slow start with a cut; the first window (11 packets,
    // one marked) closes with it: alpha = 15/16 + 1/11/16
    f.on_ack(0, &ack(11, flags::ECE), &[], &c);
    assert!(!f.dctcp().slow_start);
    let cut = (20e9 * (1.0 - (15.0 / 16.0 + 1.0 / 176.0) / 2.0)) as u64;
    assert_eq!(f.rate_bps(), cut);
    // and unmarked ACKs no longer grow it per packet
    f.on_ack(0, &ack(12, 0), &[], &c);
    assert_eq!(f.rate_bps(), cut);
}

#[test]
fn dcqcn_cuts_on_notifications_and_recovers() {
    let d = DcqcnConfig {
        alpha_interval_ps: 1_000_000,
        decrease_interval_ps: 4_000_000,
        increase_interval_ps: 300_000_000,
        g: 1.0 / 256.0,
        rate_on_first_cnp: 1.0,
        fast_recovery_times: 1,
        ai_bps: 20_000_000,
        hai_bps: 200_000_000,
        min_rate_bps: 1_000_000_000,
        clamp_target_rate: false,
    };
    let c = cfg(RdmaCc::Dcqcn(d), None);
    let mut f = RdmaFlow::new(&spec(100_000_000), &c);
    let cnp = Packet { seq: 0, kind: Kind::Ack, flags: flags::ECE, ..data(0) };
    f.on_ack(0, &cnp, &[], &c);
    assert_eq!(f.rate_bps(), 100_000_000_000); // no cut on the first
    assert_eq!(f.deadline(timer::ALPHA), Some(1_000_000));
    assert_eq!(f.deadline(timer::DECREASE), Some(4_001_000));
    // alpha decays from 1 without notifications: 4 updates
    for k in 1..=4 {
        f.on_timer(k * 1_000_000, timer::ALPHA, &c);
    }
    let alpha = (1.0 - 1.0 / 256.0f64).powi(4);
    f.on_timer(4_001_000, timer::DECREASE, &c);
    assert_eq!(f.rate_bps(), (100e9 * (1.0 - alpha / 2.0)) as u64);
    // stage 0: the target is the rate before (no clamp at stage 0 of a fresh
    // flow: the target stays the line rate)
    assert_eq!(f.dcqcn().target_bps, 100_000_000_000);
    let cut = f.rate_bps();
    // fast recovery halves the distance to the target, then the target grows
    f.on_timer(304_001_000, timer::INCREASE, &c);
    assert_eq!(f.rate_bps(), cut / 2 + 50_000_000_000);
    f.on_timer(604_001_000, timer::INCREASE, &c);
    assert_eq!(f.dcqcn().target_bps, 100_000_000_000); // capped at line rate
    // no notification since: the next check leaves the rate alone
    let r = f.rate_bps();
    f.on_timer(608_001_000, timer::DECREASE, &c);
    assert_eq!(f.rate_bps(), r);
}