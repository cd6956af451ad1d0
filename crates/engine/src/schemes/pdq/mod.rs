//! PDQ, Preemptive Distributed Quick flow scheduling (Hong, Caesar,
//! Godfrey, SIGCOMM'12), as the pFabric paper ran it (§5.1: "follows the
//! design faithfully ... including the Early Start and Early Termination
//! enhancements"; Table 1: qSize 225 KB, RTO 200 us, K = 2,
//! probingInterval 15 us).
//!
//! - `header.rs`: the scheduling header, in the packet's fields;
//! - `switch.rs`: what every link does with it (the flow lists, Algorithms
//!   1-3, the rate controller, Early Start, Dampening, Suppressed Probing);
//! - here: both ends of a flow. The sender opens with a SYN, sends at the
//!   rate the path's links agreed on (paced, pulled by its NIC), probes
//!   every I_H RTTs (at least `probe_interval`) while paused, ends with a
//!   FIN on its last data packet, and gives up with a TERM when its deadline
//!   cannot be met (Early Termination, §3.3.2). The receiver acknowledges
//!   every packet, echoing the header. Losses are recovered at a fixed
//!   timeout (Table 1's RTO), resending what is unacknowledged.
//!
//! Every choice the papers leave open is in docs/schemes.md ("pdq").

pub mod header;
pub mod switch;
#[cfg(test)]
mod tests;

use crate::bitset::Bitset;
use crate::config::PdqConfig;
use crate::packet::{flags, Kind, Packet};
use crate::time::{serialization, Time, PS_PER_S};
use crate::transport::{Cx, Endpoint, NewFlow, Poll, Segment};
use header::{Header, FIN, NONE};

/// Fill in the hosts' top rate from the network (`host_bps`), unless
/// given.
pub fn resolve(cfg: &mut PdqConfig, host_bps: u64) {
    if cfg.line_rate_bps == 0 {
        cfg.line_rate_bps = host_bps;
    }
}

/// PDQ's links need its ACKs back over the links its data left by
/// (symmetric routing), and ports whose packets leave in the order they
/// came (FIFOs: the header a link wrote must not be overtaken).
pub fn check(cfg: &crate::config::Config, ports: &[&crate::config::QueueConfig]) -> Result<(), String> {
    use crate::config::{Discipline, LoadBalancing};
    if !matches!(cfg.transport, crate::config::TransportConfig::Pdq(_)) {
        return Ok(());
    }
    let one_path = matches!(cfg.topology, crate::config::TopologyConfig::Star { .. });
    if !one_path && !(cfg.routing.load_balancing == LoadBalancing::Ecmp && cfg.routing.symmetric) {
        return Err("pdq: its ACKs must come back over its data's links: routing.load_balancing = \"ecmp\" with \
                    routing.symmetric = true"
            .into());
    }
    if cfg.shared_buffer.is_some() {
        // (a shared buffer's ingress port would overwrite the RTT the
        // header carries in `ingress`)
        return Err("pdq runs on per-port drop-tail buffers, not a shared buffer".into());
    }
    if ports.iter().any(|q| !matches!(q.discipline, Discipline::Fifo | Discipline::Pfc { .. })) {
        return Err("pdq: every port must be a drop-tail FIFO (its links schedule the flows; a NIC sends its \
                    ACKs first)"
            .into());
    }
    Ok(())
}

/// The retransmission timer (kind 0); kind 1 is a paused flow's next
/// probe (a timer, not a pacing time its NIC would ask about at every
/// packet it sends).
const RTO: u8 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The SYN is to go (again).
    Syn,
    /// Waiting for the SYN-ACK.
    SynSent,
    Open,
    /// Early Termination: the TERM is to go (again), then its ACK.
    Term,
    TermSent,
    /// Everything acknowledged, or the TERM.
    Done,
}

#[derive(Debug)]
pub struct PdqFlow {
    n_pkts: u32,
    last_payload: u32,
    deadline: Option<Time>,
    phase: Phase,
    /// What the last ACK said: R_S (0 while paused), P_S, I_S.
    granted: Header,
    /// RTT_S: a moving average of samples, from the flow's base RTT.
    rtt: Time,
    next_avail: Time,
    /// Next new packet; packets acknowledged; how many.
    snd_nxt: u32,
    acked: Bitset,
    n_acked: u32,
    /// Packets to send again first (after a timeout).
    resend: std::collections::VecDeque<u32>,
    rto_deadline: Option<Time>,
    /// A probe is out; the next may go at `next_probe`; its timer fired
    /// (the NIC sends it when its line is free).
    probe_out: bool,
    next_probe: Time,
    probe_due: bool,
    retx: u32,
    timeouts: u32,
    terminated: bool,
    // receiver
    got: Bitset,
    n_got: u32,
}

impl PdqFlow {
    pub fn new(f: &NewFlow, cfg: &PdqConfig) -> PdqFlow {
        let mss = cfg.mss_bytes as u64;
        let size = f.spec.size;
        let n = size.div_ceil(mss).max(1);
        let n_pkts = u32::try_from(n).expect("flow too large");
        PdqFlow {
            n_pkts,
            last_payload: (size - (n - 1) * mss) as u32,
            deadline: f.deadline,
            phase: Phase::Syn,
            granted: Header { rate_bps: 0, pauser: NONE, interval: 0 },
            rtt: f.base_rtt.max(1),
            next_avail: 0,
            snd_nxt: 0,
            acked: Bitset::new(n_pkts),
            n_acked: 0,
            resend: Default::default(),
            rto_deadline: None,
            probe_out: false,
            next_probe: 0,
            probe_due: false,
            retx: 0,
            timeouts: 0,
            terminated: false,
            got: Bitset::new(n_pkts),
            n_got: 0,
        }
    }

    fn payload(&self, seq: u32, cfg: &PdqConfig) -> u32 {
        if seq + 1 == self.n_pkts {
            self.last_payload
        } else {
            cfg.mss_bytes
        }
    }

    /// Payload bytes not yet acknowledged.
    fn remaining(&self, cfg: &PdqConfig) -> u64 {
        let last_acked = self.acked.get(self.n_pkts - 1) as u64;
        (self.n_pkts - self.n_acked) as u64 * cfg.mss_bytes as u64
            - (1 - last_acked) * (cfg.mss_bytes - self.last_payload) as u64
    }

    /// The header the sender puts on its next packet (§3.1): R_H its top
    /// rate, P_H its pauser, D_H, T_H = what is left at the top rate, and
    /// its RTT.
    pub fn header(&self, cfg: &PdqConfig) -> (Header, u64, Time) {
        // (in floating point: a u128 division per packet otherwise)
        let t = (self.remaining(cfg) as f64 * 8.0 * PS_PER_S as f64 / cfg.line_rate_bps as f64) as Time;
        let h = Header { rate_bps: cfg.line_rate_bps, pauser: self.granted.pauser, interval: 0 };
        (h, header::key(self.deadline, t), self.rtt)
    }

    /// Put the sender's header on a packet its NIC builds.
    #[inline]
    pub fn write_header(&self, pkt: &mut Packet, cfg: &PdqConfig) {
        let (h, key, rtt) = self.header(cfg);
        h.write(pkt);
        pkt.prio = key;
        header::set_rtt(pkt, rtt);
    }

    fn arm_rto(&mut self, now: Time, cfg: &PdqConfig) {
        self.rto_deadline = Some(now + cfg.rto_ps);
    }

    fn control(&mut self, now: Time, f: u8, cfg: &PdqConfig) -> Poll {
        self.arm_rto(now, cfg);
        Poll::Send(Segment { seq: 0, size: cfg.header_bytes as u16, flags: f, prio: 0, kind: Kind::Data })
    }

    /// The NIC asks for the next packet.
    pub fn poll(&mut self, now: Time, cfg: &PdqConfig) -> Poll {
        match self.phase {
            Phase::Syn => {
                self.phase = Phase::SynSent;
                self.control(now, flags::SYN, cfg)
            }
            Phase::Term => {
                self.phase = Phase::TermSent;
                self.control(now, FIN | flags::PROBE, cfg)
            }
            Phase::SynSent | Phase::TermSent | Phase::Done => Poll::Blocked,
            Phase::Open if self.granted.paused() && !self.fin_sent() => {
                // paused: one probe at a time, every I_S RTTs at least
                // probe_interval apart (Suppressed Probing, §3.3.2)
                if self.probe_out || self.next_probe > now {
                    Poll::Blocked
                } else {
                    self.probe_out = true;
                    self.probe_due = false;
                    self.control(now, flags::PROBE, cfg)
                }
            }
            Phase::Open => {
                let seq = match self.resend.pop_front() {
                    Some(s) => s,
                    None if self.snd_nxt < self.n_pkts => self.snd_nxt,
                    None => return Poll::Blocked,
                };
                if self.next_avail > now {
                    if seq != self.snd_nxt {
                        self.resend.push_front(seq);
                    }
                    return Poll::At(self.next_avail);
                }
                if seq == self.snd_nxt {
                    self.snd_nxt += 1;
                } else {
                    self.retx += 1;
                }
                let size = (self.payload(seq, cfg) + cfg.header_bytes) as u16;
                // after the FIN, what is resent goes at the line rate (the
                // flow is off the links' books)
                let rate = if self.fin_sent() { cfg.line_rate_bps } else { self.granted.rate_bps };
                self.next_avail = now + serialization(size as u64, rate);
                if self.rto_deadline.is_none() {
                    self.arm_rto(now, cfg);
                }
                // the last packet carries the FIN, and so does any packet
                // sent again after it: no link books the flow again
                let fin = if self.fin_sent() { FIN } else { 0 };
                Poll::Send(Segment { seq, size, flags: fin, prio: 0, kind: Kind::Data })
            }
        }
    }

    /// Something sent is unanswered (data, a probe, a SYN or a TERM): the
    /// retransmission timer runs.
    fn outstanding(&self) -> bool {
        self.n_acked < self.snd_nxt
            || !self.resend.is_empty()
            || self.probe_out
            || matches!(self.phase, Phase::Syn | Phase::SynSent | Phase::Term | Phase::TermSent)
    }

    /// Every packet has been sent once (the last with the FIN).
    #[inline]
    fn fin_sent(&self) -> bool {
        self.snd_nxt >= self.n_pkts
    }

    /// Early Termination (§3.3.2), for a flow with a deadline: past it; or
    /// what is left does not fit before it even at the top rate; or paused
    /// with less than an RTT to go.
    fn hopeless(&self, now: Time, cfg: &PdqConfig) -> bool {
        let Some(d) = self.deadline.filter(|_| cfg.early_termination) else { return false };
        let left = serialization(self.remaining(cfg), cfg.line_rate_bps);
        now > d || now + left > d || (self.granted.paused() && now + self.rtt > d)
    }

    /// The sender takes an ACK (of a SYN, probe, data packet or TERM).
    pub fn on_ack(&mut self, now: Time, ack: &Packet, cfg: &PdqConfig) {
        if self.phase == Phase::Done {
            return;
        }
        let sample = now.saturating_sub(ack.ts);
        if sample > 0 {
            self.rtt = (7 * self.rtt + sample) / 8;
        }
        if ack.has(FIN) {
            if self.phase == Phase::TermSent {
                self.phase = Phase::Done;
                self.terminated = true;
            }
            return;
        }
        if ack.has(flags::SYN) {
            // a SYN-ACK opens the flow once; a late or repeated one (its
            // SYN resent at a timeout) is no ACK of data
            if !matches!(self.phase, Phase::Syn | Phase::SynSent) {
                return;
            }
            self.phase = Phase::Open;
        }
        let was_paused = self.granted.paused();
        self.granted = Header::read(ack);
        if self.granted.pauser != NONE {
            self.granted.rate_bps = 0;
        }
        if ack.has(flags::SYN) {
            self.rto_deadline = None;
        } else if ack.has(flags::PROBE) {
            self.probe_out = false;
            self.probe_due = false;
            let every = (self.granted.interval as u64 * self.rtt / 10).max(cfg.probe_interval_ps);
            self.next_probe = now + every;
            if !self.outstanding() {
                self.rto_deadline = None;
            }
        } else {
            let seq = ack.prio as u32;
            if seq < self.n_pkts && !self.acked.get(seq) {
                self.acked.set(seq);
                self.n_acked += 1;
                // the timer restarts on progress, and stops with nothing out
                self.rto_deadline = self.outstanding().then(|| now + cfg.rto_ps);
            }
            if self.n_acked == self.n_pkts {
                self.phase = Phase::Done;
                return;
            }
        }
        if was_paused && !self.granted.paused() {
            self.next_avail = now;
        }
        // a probe's timer is never armed in the past
        self.next_probe = self.next_probe.max(now);
        if self.phase == Phase::Open && self.hopeless(now, cfg) {
            self.phase = Phase::Term;
        }
    }

    /// The retransmission timeout: send again what is unacknowledged (or
    /// the SYN, the probe, the TERM).
    pub fn on_timeout(&mut self, now: Time, cfg: &PdqConfig) {
        self.timeouts += 1;
        self.rto_deadline = None;
        match self.phase {
            Phase::SynSent => self.phase = Phase::Syn,
            Phase::TermSent => self.phase = Phase::Term,
            Phase::Open => {
                self.probe_out = false;
                self.next_probe = self.next_probe.max(now);
                self.resend.clear();
                let mut s = self.acked.next_clear(0, self.snd_nxt);
                while let Some(seq) = s {
                    self.resend.push_back(seq);
                    s = self.acked.next_clear(seq + 1, self.snd_nxt);
                }
                // a paused flow's probe carries its own timer: the data
                // goes again (and is timed) once the flow may send
                if !self.resend.is_empty() && !(self.granted.paused() && !self.fin_sent()) {
                    self.arm_rto(now, cfg);
                }
                if self.hopeless(now, cfg) {
                    self.phase = Phase::Term;
                }
            }
            _ => {}
        }
    }

    /// The receiver: every packet is answered, its header echoed (the SYN
    /// by the SYN-ACK, a probe by its ACK, a TERM by a FIN).
    pub fn on_data(&mut self, data: &Packet, cfg: &PdqConfig) -> Option<Packet> {
        let echo = data.flags & (flags::SYN | flags::PROBE | FIN);
        let control = data.has(flags::SYN) || data.has(flags::PROBE);
        if !control && data.seq < self.n_pkts && !self.got.get(data.seq) {
            self.got.set(data.seq);
            self.n_got += 1;
        }
        let echo = if control { echo } else { 0 };
        Some(Packet {
            seq: self.n_got,
            prio: data.seq as u64,
            src: data.dst,
            dst: data.src,
            size: cfg.ack_bytes as u16,
            kind: Kind::Ack,
            flags: echo,
            ingress: 0,
            ..*data
        })
    }
}

impl Endpoint for PdqFlow {
    type Config = PdqConfig;

    #[inline]
    fn poll(&mut self, cx: &mut Cx<PdqConfig>) -> Poll {
        PdqFlow::poll(self, cx.now, cx.cfg)
    }

    #[inline]
    fn on_ack(&mut self, cx: &mut Cx<PdqConfig>, pkt: &Packet) {
        PdqFlow::on_ack(self, cx.now, pkt, cx.cfg)
    }

    #[inline]
    fn on_data(&mut self, cx: &mut Cx<PdqConfig>, pkt: &Packet) -> Option<Packet> {
        PdqFlow::on_data(self, pkt, cx.cfg)
    }

    fn timer_kinds(&self) -> u8 {
        2
    }

    fn deadline(&self, kind: u8) -> Option<Time> {
        match kind {
            RTO => self.rto_deadline.filter(|_| !matches!(self.phase, Phase::Done)),
            _ => (self.phase == Phase::Open
                && self.granted.paused()
                && !self.fin_sent()
                && !self.probe_out
                && !self.probe_due)
                .then_some(self.next_probe),
        }
    }

    /// The timeout; or a probe is due (its NIC, woken, sends it).
    fn on_timer(&mut self, cx: &mut Cx<PdqConfig>, kind: u8) {
        if kind == RTO {
            self.on_timeout(cx.now, cx.cfg)
        } else {
            self.probe_due = true;
        }
    }

    fn receiver_complete(&self) -> bool {
        self.n_got >= self.n_pkts
    }

    fn sender_done(&self) -> bool {
        self.phase == Phase::Done
    }

    fn terminated(&self) -> bool {
        self.terminated
    }

    fn delivered_bytes(&self, cfg: &PdqConfig) -> u64 {
        let last = self.got.get(self.n_pkts - 1) as u64;
        (self.n_got as u64 - last) * cfg.mss_bytes as u64 + last * self.last_payload as u64
    }

    fn retransmits(&self) -> u32 {
        self.retx
    }

    fn timeouts(&self) -> u32 {
        self.timeouts
    }

    fn bytes_left(&self, cfg: &PdqConfig) -> u64 {
        self.remaining(cfg)
    }

    fn next_avail(&self) -> Time {
        self.next_avail
    }
}
