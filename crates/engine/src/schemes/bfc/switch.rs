//! BFC's switches as the packet path reaches them (the per-node seam,
//! `schemes::Nodes`): a data packet entering a BFC port is assigned a
//! queue and may be counted against the upstream queue it came from
//! (§3.3), pausing it; a packet leaving lets its queue and its count go,
//! resuming the upstream queue with the last one; a NIC sends each flow's
//! packets from a queue of its own (`upstreamQ`: the flow's slot, or the
//! labelled flows' one).

use super::backpressure::{flow_key, Backpressure, LABEL_QUEUE};
use crate::buffer::NOT_COUNTED;
use crate::config::{Config, Discipline, QueueConfig};
use crate::packet::{flags, Hop, Packet, PacketId};
use crate::port::Port;
use crate::queue::Queue;
use crate::time::{Time, PS_PER_S};
use crate::topology::Network;

/// A pause or resume frame a switch sends upstream: out of `port` (its
/// own port on the ingress link), naming the upstream `queue` (at a NIC
/// the queue of flow `flow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub port: u32,
    pub queue: u32,
    pub flow: u32,
}

/// BFC's backpressure for a run, if it has it: the pause threshold's
/// bandwidth-delay product at each port (HRTT, the longest round trip over
/// the switch's links, at the port's rate) and the appendix's variants.
pub fn backpressure(cfg: &Config, net: &Network) -> Option<Backpressure> {
    let b = cfg.bfc.as_ref()?;
    let bdp = net
        .links
        .iter()
        .map(|l| {
            let hrtt = b.hrtt_ps.unwrap_or_else(|| {
                2 * net.nodes[l.node as usize].ports.iter().map(|&q| net.links[q as usize].delay_ps).max().unwrap_or(0)
            });
            (hrtt as u128 * l.rate_bps as u128 / 8 / PS_PER_S as u128) as u64
        })
        .collect();
    let mut bp = Backpressure::new(bdp, b.pause_threshold_bytes);
    bp.nic_pauses = b.nic_pauses;
    bp.sample = b.sample;
    bp.label(&b.labelled_flows);
    Some(bp)
}

/// BFC's backpressure runs on BFC's ports (`ports`: each link's port).
pub fn check(cfg: &Config, net: &Network, ports: &[&QueueConfig]) -> Result<(), String> {
    let Some(b) = &cfg.bfc else { return Ok(()) };
    if !ports.iter().zip(&net.links).all(|(q, l)| net.is_host(l.node) || matches!(q.discipline, Discipline::Bfc { .. })) {
        return Err("BFC's backpressure needs the bfc discipline on every switch port".into());
    }
    if !(b.sample > 0.0 && b.sample <= 1.0) {
        return Err(format!("bfc.sample must be in (0, 1], got {}", b.sample));
    }
    Ok(())
}

/// The upstream queue a NIC sends flow `flow` (in `slot`) from: its own,
/// or the labelled flows' one (IncastLabel).
#[inline]
pub fn nic_queue(bp: &Backpressure, slot: u32, flow: u32) -> u64 {
    if bp.labelled(flow) {
        LABEL_QUEUE as u64
    } else {
        slot as u64
    }
}

/// A data packet enters BFC port `port` (§3.3): the flow table gives its
/// queue; if that queue is longer than the pause threshold, the packet
/// counts against the upstream queue it came from, and the first such
/// packet pauses it. With sampling (App. A.8) only the packets drawn for
/// recirculation count, in the table and against the upstream; without
/// NIC support (BFC - NIC) nothing counts against a NIC. Without
/// backpressure (HPCC + SFQ or DQA, §6.4): assignment and round robin
/// only. With `idle` (nothing queued, the line free) the packet may leave
/// at once: returns whether it does (else it is queued), and the pause to
/// send, if any. `tag`: its remaining-size header (BFC-SRF).
#[allow(clippy::too_many_arguments)]
pub fn enqueue(
    bp: Option<&mut Backpressure>,
    port: u32,
    p: &mut Port,
    pkt: &mut Packet,
    hop: Hop,
    idle: bool,
    tag: u64,
    net: &Network,
    now: Time,
) -> (bool, Option<Frame>) {
    let Queue::Bfc(b) = &mut p.queue else { unreachable!("a bfc port") };
    let Some(bp) = bp else {
        let q = b.assign(flow_key(pkt.flow), b.class_of(pkt.flow), now, true);
        if idle && b.pass(q, hop.size as u64) {
            return (true, None);
        }
        b.push_tagged(hop, q, tag);
        p.add_bytes(hop.size as u64);
        return (false, None);
    };
    let sampled = b.sampled(bp.sample);
    if bp.sample < 1.0 {
        bp.set_unsampled(hop.id, !sampled);
    }
    let q = b.assign(bp.key(pkt.flow), b.class_of(pkt.flow), now, sampled);
    // (a packet that finds its queue empty is never counted against its
    // upstream: it may leave at once)
    if idle && b.pass(q, hop.size as u64) {
        return (true, None);
    }
    let (before, active) = (b.queue_bytes(q), b.active());
    b.push_tagged(hop, q, tag);
    p.add_bytes(hop.size as u64);
    // the upstream end of the ingress link is a host's NIC
    let from_nic = || net.is_host(net.links[(pkt.ingress ^ 1) as usize].node);
    let mut pause = None;
    if sampled && pkt.ingress != NOT_COUNTED && before > bp.threshold(port, active) && (bp.nic_pauses || !from_nic()) {
        pkt.flags |= flags::PAUSE_COUNTED;
        let upstream = pkt.prio as u32;
        if bp.count(pkt.ingress, upstream) {
            // to a NIC the queue is a flow's: name the flow too
            pause = Some(Frame { port: pkt.ingress, queue: upstream, flow: pkt.flow });
        }
    }
    (false, pause)
}

/// Packet `id` leaves BFC port `port` by its queue `q`: the flow table and
/// the pause counters let it go; it carries `q` to the next hop as its
/// upstream queue. Returns the resume to send, if any.
pub fn release(bp: Option<&mut Backpressure>, p: &mut Port, pkt: &mut Packet, id: PacketId, q: u16, now: Time) -> Option<Frame> {
    let (ingress, upstream, flow) = (pkt.ingress, pkt.prio as u32, pkt.flow);
    let counted = pkt.has(flags::PAUSE_COUNTED);
    pkt.flags &= !flags::PAUSE_COUNTED;
    pkt.prio = q as u64;
    let Queue::Bfc(b) = &mut p.queue else { return None };
    let Some(bp) = bp else {
        b.release(flow_key(flow), b.class_of(flow), now);
        return None;
    };
    let recirculated = bp.sample >= 1.0 || !bp.take_unsampled(id);
    if recirculated {
        b.release(bp.key(flow), b.class_of(flow), now);
    }
    (counted && bp.uncount(ingress, upstream)).then_some(Frame { port: ingress, queue: upstream, flow })
}
