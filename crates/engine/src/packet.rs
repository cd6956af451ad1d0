//! The packet: a small `Copy` struct moved by value through queues and the
//! event calendar. It holds the header fields every scheme needs; fields a
//! scheme does not use stay zero.

/// What a packet is. Control kinds used by later schemes (pause/resume,
/// grants, probes) get their own variant here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Data = 0,
    Ack = 1,
}

/// ECN codepoint bits kept in `Packet::flags`.
pub mod flags {
    /// ECN-capable transport (ECT).
    pub const ECT: u8 = 1 << 0;
    /// Congestion experienced, set by a marking queue.
    pub const CE: u8 = 1 << 1;
    /// ECN echo, set by a receiver on the ACK of a CE-marked packet.
    pub const ECE: u8 = 1 << 2;
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
    /// Scheduling priority (lower is more urgent); unused by FIFO ports.
    pub prio: u32,
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
}

impl Packet {
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
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
