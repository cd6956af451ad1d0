//! The packet: a small `Copy` struct moved by value through queues and the
//! event calendar. It holds the header fields every scheme needs; fields a
//! scheme does not use stay zero.

/// What a packet is. Packets that switches create (PFC and BFC pause and
/// resume frames, DCQCN congestion notifications, ExpressPass credits) and
/// the control packets of receiver-driven schemes (grants) get their own
/// variant here: the byte has room for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Data = 0,
    Ack = 1,
    /// A PFC frame (IEEE 802.1Qbb) telling the port at the far end of the
    /// link it arrives on to stop sending data (XOFF).
    Pause = 2,
    /// The PFC frame that lets it send again (XON).
    Resume = 3,
    /// An ExpressPass credit, from a flow's receiver to its sender: switch
    /// ports rate-limit credits; each one lets one data packet out.
    Credit = 4,
    /// ExpressPass: the sender has no more data; the receiver stops its
    /// credits.
    CreditStop = 5,
    /// A Homa grant, from a message's receiver to its sender: send up to
    /// packet `seq`, at the priority level in `sack_lo`.
    Grant = 6,
}

impl Kind {
    /// Sent by a flow's receiver to its sender (the others go the other
    /// way, or are link-local).
    #[inline]
    pub fn from_receiver(self) -> bool {
        matches!(self, Kind::Ack | Kind::Credit | Kind::Grant)
    }
}

/// The destination of a link-local control frame (PFC pause and resume):
/// it is consumed by the node at the far end of its link, never routed.
/// Hosts are numbered below 65535, so no host has this number.
pub const LINK_LOCAL: u16 = u16::MAX;

/// ECN codepoint bits kept in `Packet::flags`.
pub mod flags {
    /// ECN-capable transport (ECT).
    pub const ECT: u8 = 1 << 0;
    /// Congestion experienced, set by a marking queue.
    pub const CE: u8 = 1 << 1;
    /// ECN echo, set by a receiver on the ACK of a CE-marked packet.
    pub const ECE: u8 = 1 << 2;
    /// A probe: a minimal packet that asks the receiver for an ACK and
    /// carries no data (pFabric §4.2, probe mode).
    pub const PROBE: u8 = 1 << 3;
    /// The packet is in a port's first traffic class: pFabric-EDF's
    /// deadline queue, served strictly before the rest (§5.4.2).
    pub const CLASS0: u8 = 1 << 4;
    /// A negative acknowledgement: go back to `seq` (RDMA go-back-N).
    pub const NACK: u8 = 1 << 5;
    /// BFC: the packet is counted against its upstream queue at this
    /// switch (the paper's `counterIncr`).
    pub const PAUSE_COUNTED: u8 = 1 << 6;
    /// Connection set-up: on a data packet, a SYN (no payload); on an
    /// ACK, the SYN-ACK that answers it (ns-2 FullTcp's handshake).
    pub const SYN: u8 = 1 << 7;
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Global flow id (the flow's index in arrival order).
    pub flow: u32,
    /// Slot of the flow in the simulation's flow table (reused after the
    /// flow ends; `flow` tells whether a late packet is stale).
    pub slot: u32,
    /// Data: segment index. Ack: cumulative ack (next expected segment).
    pub seq: u32,
    /// Ack only: one SACK block `[sack_lo, sack_hi)` holding the segment
    /// that triggered this ACK (RFC 2018: the first block reports the most
    /// recently received segment). Empty when `sack_lo == sack_hi`.
    pub sack_lo: u32,
    pub sack_hi: u32,
    /// Scheduling priority, lower is more urgent; unused by FIFO ports. 64
    /// bits: a flow's remaining bytes (pFabric), a deadline in picoseconds
    /// (pFabric-EDF), a queue number (PIAS) all fit. BFC, which schedules
    /// by no priority, keeps its `upstreamQ` header here: the queue the
    /// packet left its last hop by (a NIC's: the flow's slot).
    pub prio: u64,
    /// Data: send time. Ack: echo of the data packet's send time
    /// (RFC 7323 timestamps), so every ACK gives an RTT sample.
    pub ts: u64,
    /// Source and destination host.
    pub src: u16,
    pub dst: u16,
    /// Bytes on the wire (payload + headers).
    pub size: u16,
    pub kind: Kind,
    pub flags: u8,
    /// At a switch with a shared buffer: the switch's own port on the link
    /// the packet arrived by, which indexes the ingress accounting and
    /// carries PFC frames back upstream (`buffer.rs`). Headers too large
    /// for the packet (HPCC's per-hop telemetry) are meant to live in a
    /// side table of the pool, indexed by packet id, not in every packet.
    pub ingress: u32,
}

impl Packet {
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// A data packet of `size` bytes from host 0 to host 1, for unit tests.
    #[cfg(test)]
    pub fn test_data(size: u16, flags: u8) -> Packet {
        Packet {
            flow: 0,
            slot: 0,
            seq: 0,
            sack_lo: 0,
            sack_hi: 0,
            prio: 0,
            ts: 0,
            src: 0,
            dst: 1,
            size,
            kind: Kind::Data,
            flags,
            ingress: 0,
        }
    }
}

/// What a switch needs of a packet to forward it: its handle, wire size,
/// destination and flow. Queues and links carry this, so a switch hop
/// never reads the packet itself (which has usually waited in a buffer and
/// is out of cache) unless it marks ECN or its discipline orders by
/// priority.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hop {
    pub id: PacketId,
    pub size: u16,
    pub dst: u16,
    /// The packet's flow id (`Packet::flow`): what ECMP hashes at every
    /// switch. Carried here, it saves reading the packet at every hop of a
    /// hashed fabric (on 6,144 hosts that read was a fifth of the time).
    pub flow: u32,
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_stays_small() {
        // The packet travels by value through the calendar: keep it within
        // one cache line.
        assert!(std::mem::size_of::<super::Packet>() <= 48);
    }
}

/// Handle of a packet in the `Pool`.
pub type PacketId = u32;

/// Where packets live while they are in the network. A packet is written
/// once when a host sends it and stays in place until it is delivered or
/// dropped; queues and links hold 4-byte handles. Slots are reused through
/// a free list, so the pool grows to the peak number of packets in the
/// network, not with the run's length.
#[derive(Default)]
pub struct Pool {
    slots: Vec<Line>,
    free: Vec<PacketId>,
}

/// A packet in a cache line of its own. At 48 bytes apart, half of the
/// packets straddled two lines, and the prefetch of a packet a host is
/// about to receive asked for one of them: on 6,144 hosts, 64-byte slots
/// were 6-8% faster, for a third more pool memory (docs/performance.md).
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Line(Packet);

impl Pool {
    #[inline]
    pub fn alloc(&mut self, pkt: Packet) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Line(pkt);
                id
            }
            None => {
                self.slots.push(Line(pkt));
                (self.slots.len() - 1) as PacketId
            }
        }
    }

    /// Take a packet out of the network (delivered or dropped).
    #[inline]
    pub fn release(&mut self, id: PacketId) -> Packet {
        self.free.push(id);
        self.slots[id as usize].0
    }

    /// Hint that packet `id` will be read soon.
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::prefetch::prefetch(p);
        }
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize].0
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize].0
    }

    /// Packets in the network now.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod pool_tests {
    use super::*;

    #[test]
    fn slots_are_reused() {
        let mut pool = Pool::default();
        let p = Packet { flow: 1, ..Packet::test_data(100, 0) };
        let a = pool.alloc(p);
        let b = pool.alloc(Packet { flow: 2, ..p });
        assert_eq!(pool.get(b).flow, 2);
        assert_eq!(pool.release(a).flow, 1);
        assert_eq!(pool.live(), 1);
        let c = pool.alloc(Packet { flow: 3, ..p });
        assert_eq!(c, a);
        assert_eq!(pool.live(), 2);
    }
}
