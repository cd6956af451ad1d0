//! The event calendar: a min-heap of events ordered by `(time, seq)`, where
//! `seq` is the insertion count. Equal-time events therefore run in the
//! order they were scheduled, which makes runs deterministic.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen. Plain data; the simulation dispatches on it
/// with one `match`.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The oldest packet on the link of output port `port` reaches the far
    /// end. A link delivers in order, so each link keeps its packets in a
    /// FIFO and only the head's arrival is in the calendar: the calendar
    /// holds one entry per busy link, not one per packet in flight.
    LinkArrival { port: u32 },
    /// The output port `port` finished serializing a packet and has a
    /// backlog to serve.
    TxDone { port: u32 },
    /// The next flow of the workload starts.
    FlowArrival,
    /// A retransmission timer of the flow in `slot` may have expired.
    Rto { slot: u32, flow: u32 },
}

#[derive(Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Default)]
pub struct Calendar {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl Calendar {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        self.seq += 1;
        self.heap.push(Entry { time, seq: self.seq, event });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_fifo_among_ties() {
        let mut c = Calendar::new();
        c.schedule(30, Event::TxDone { port: 3 });
        c.schedule(10, Event::TxDone { port: 1 });
        c.schedule(10, Event::TxDone { port: 2 });
        c.schedule(20, Event::FlowArrival);
        let order: Vec<(Time, String)> = std::iter::from_fn(|| c.pop())
            .map(|(t, e)| (t, format!("{e:?}")))
            .collect();
        assert_eq!(order[0], (10, "TxDone { port: 1 }".to_string()));
        assert_eq!(order[1], (10, "TxDone { port: 2 }".to_string()));
        assert_eq!(order[2].0, 20);
        assert_eq!(order[3].0, 30);
    }
}
