//! PDQ's endpoints on their own (the links: `switch.rs`; the scheme end to
//! end: tests/test_pdq.py).

use super::header::{Header, FIN, NONE};
use super::*;
use crate::workload::FlowSpec;

const US: Time = 1_000_000;
const G10: u64 = 10_000_000_000;

fn flow(size: u64, deadline: Option<Time>) -> PdqFlow {
    let spec = FlowSpec { id: 0, src: 0, dst: 1, size, start: 0, deadline_draw: None };
    PdqFlow::new(&NewFlow { spec: &spec, deadline, seed: 1, base_rtt: 15 * US }, &PdqConfig::test_default())
}

fn send(f: &mut PdqFlow, now: Time) -> Segment {
    match f.poll(now, &PdqConfig::test_default()) {
        Poll::Send(s) => s,
        other => panic!("expected a packet, got {other:?}"),
    }
}

/// The ACK its receiver would send for `seg`, with the path's decision.
fn ack(seg: &Segment, rate_bps: u64, pauser: u32, sent: Time) -> Packet {
    let mut data = Packet { seq: seg.seq, flags: seg.flags, ts: sent, ..Packet::test_data(seg.size, seg.flags) };
    Header { rate_bps, pauser, interval: 0 }.write(&mut data);
    let mut rx = flow(1, None);
    rx.on_data(&data, &PdqConfig::test_default()).expect("every packet is answered")
}

#[test]
fn a_flow_opens_with_a_syn_then_sends_at_the_rate_granted() {
    let c = PdqConfig::test_default();
    let mut f = flow(3 * 1460, None);
    let syn = send(&mut f, 0);
    assert!(syn.flags & flags::SYN != 0 && syn.size == 40);
    assert_eq!(f.poll(US, &c), Poll::Blocked, "nothing before the SYN-ACK");
    f.on_ack(15 * US, &ack(&syn, G10 / 2, NONE, 0), &c);
    let first = send(&mut f, 15 * US);
    assert_eq!((first.seq, first.size), (0, 1500));
    // paced at the 5 Gb/s granted: 1,500 B take 2.4 us
    assert_eq!(f.poll(15 * US + 1, &c), Poll::At(15 * US + 2_400_000));
    send(&mut f, 15 * US + 2_400_000);
    let last = send(&mut f, 15 * US + 4_800_000);
    assert_eq!(last.flags & FIN, FIN, "the last data packet carries the FIN");
}

#[test]
fn a_paused_flow_probes_and_resumes_when_granted() {
    let c = PdqConfig::test_default();
    let mut f = flow(10 * 1460, None);
    let syn = send(&mut f, 0);
    f.on_ack(15 * US, &ack(&syn, 0, 9, 0), &c);
    let probe = send(&mut f, 15 * US);
    assert!(probe.flags & flags::PROBE != 0 && probe.size == 40);
    assert_eq!(f.poll(16 * US, &c), Poll::Blocked, "one probe at a time");
    f.on_ack(30 * US, &ack(&probe, 0, 9, 15 * US), &c);
    // the next probe a probing interval (15 us) later, at its timer
    assert_eq!(f.poll(31 * US, &c), Poll::Blocked);
    assert_eq!(f.deadline(1), Some(45 * US));
    let probe = send(&mut f, 45 * US);
    f.on_ack(60 * US, &ack(&probe, G10, NONE, 45 * US), &c);
    assert_eq!(send(&mut f, 60 * US).seq, 0, "granted: data at once");
}

#[test]
fn a_flow_that_cannot_meet_its_deadline_is_terminated() {
    let c = PdqConfig::test_default();
    // 100 KB needs 80 us at 10 Gb/s; its deadline is 50 us away
    let mut f = flow(100_000, Some(50 * US));
    let syn = send(&mut f, 0);
    f.on_ack(15 * US, &ack(&syn, G10, NONE, 0), &c);
    let term = send(&mut f, 15 * US);
    assert_eq!(term.flags, FIN | flags::PROBE, "a TERM goes instead of data");
    assert!(!f.sender_done());
    f.on_ack(30 * US, &ack(&term, G10, NONE, 15 * US), &c);
    assert!(f.sender_done() && f.terminated() && !f.receiver_complete());
    // one that can make it goes on
    let mut f = flow(10_000, Some(50 * US));
    let syn = send(&mut f, 0);
    f.on_ack(15 * US, &ack(&syn, G10, NONE, 0), &c);
    assert_eq!(send(&mut f, 15 * US).flags & flags::PROBE, 0);
}

#[test]
fn the_timeout_sends_again_what_is_unacknowledged() {
    let c = PdqConfig::test_default();
    let mut f = flow(3 * 1460, None);
    let syn = send(&mut f, 0);
    f.on_ack(15 * US, &ack(&syn, G10, NONE, 0), &c);
    let segs: Vec<_> = (0..3).map(|i| send(&mut f, 15 * US + i * 2 * US)).collect();
    f.on_ack(30 * US, &ack(&segs[1], G10, NONE, 15 * US), &c);
    let rto = f.deadline(0).expect("armed");
    assert_eq!(rto, 30 * US + c.rto_ps);
    f.on_timeout(rto, &c);
    let again: Vec<u32> = (0..2).map(|i| send(&mut f, rto + i * 2 * US).seq).collect();
    assert_eq!(again, vec![0, 2]);
    assert_eq!((f.retransmits(), f.timeouts()), (2, 1));
}

#[test]
fn a_late_syn_ack_is_no_ack_of_data() {
    // the SYN-ACK is slow, the SYN goes again at the timeout: the second
    // SYN-ACK must not acknowledge packet 0 (it carries the SYN's seq)
    let c = PdqConfig::test_default();
    let mut f = flow(1460, None);
    let syn = send(&mut f, 0);
    f.on_timeout(c.rto_ps, &c);
    let again = send(&mut f, c.rto_ps);
    f.on_ack(c.rto_ps + US, &ack(&syn, 0, 9, 0), &c);
    f.on_ack(c.rto_ps + 2 * US, &ack(&again, 0, 9, c.rto_ps), &c);
    assert!(!f.sender_done(), "nothing of the data was acknowledged");
    assert_eq!(f.snd_nxt, 0);
}

#[test]
fn a_term_or_a_probe_out_keeps_the_timer_running() {
    let c = PdqConfig::test_default();
    // a flow sends 2 packets, then finds its deadline hopeless: the TERM
    // goes behind them; their ACKs must not stop the TERM's timer
    let mut f = flow(100_000, Some(100 * US));
    let syn = send(&mut f, 0);
    f.on_ack(15 * US, &ack(&syn, G10, NONE, 0), &c);
    let d0 = send(&mut f, 15 * US);
    let d1 = send(&mut f, 17 * US);
    f.on_ack(40 * US, &ack(&d0, 0, 9, 15 * US), &c); // paused
    f.phase = Phase::Term;
    let term = send(&mut f, 41 * US);
    assert_eq!(term.flags, FIN | flags::PROBE);
    f.on_ack(42 * US, &ack(&d1, 0, 9, 17 * US), &c);
    assert!(f.deadline(0).is_some(), "the TERM is still out");
    // a paused flow's probe, likewise
    let mut f = flow(10 * 1460, None);
    let syn = send(&mut f, 0);
    f.on_ack(15 * US, &ack(&syn, G10, NONE, 0), &c);
    let d0 = send(&mut f, 15 * US);
    let d1 = send(&mut f, 17 * US);
    f.on_ack(30 * US, &ack(&d0, 0, 9, 15 * US), &c);
    let probe = send(&mut f, 30 * US);
    assert!(probe.flags & flags::PROBE != 0);
    f.on_ack(32 * US, &ack(&d1, 0, 9, 17 * US), &c);
    assert!(f.deadline(0).is_some(), "the probe is still out");
}
