//! ExpressPass's switch port (ns-2 `queue/xpass-drop-tail.cc`, as the BFC
//! co-author's scripts configure it): credits and everything else in two
//! queues. Credits leave through a token bucket filled at `credit_share`
//! of the link's rate (84 / (84 + 1538): a credit per full data frame), at
//! most `bucket_bytes` deep; a credit the bucket can pay for goes before
//! data, else data goes; a port holding only credits it cannot pay for yet
//! idles until it can (the simulation's `PortTimer`). Credits beyond
//! `credit_queue_bytes` are dropped on arrival: that loss is how the
//! receivers learn the fabric's capacity. Data, credit requests, stops and
//! NACKs share a drop-tail FIFO of the port's limit.
//!
//! A credit is a packet with `flags::CLASS0` (`Entry::class == 0`).

use crate::queue::{Admit, Entry};
use crate::packet::Hop;
use crate::ring::Ring;
use crate::time::{Time, PS_PER_S};

#[derive(Debug)]
pub struct XpassQueue {
    credits: Ring<Hop>,
    credit_bytes: u64,
    credit_limit: u64,
    data: Ring<Hop>,
    data_bytes: u64,
    /// Token bucket, in credit bytes; full at the start.
    tokens: f64,
    depth: f64,
    /// Bytes per picosecond the bucket fills at (set with the link rate).
    fill: f64,
    /// When the bucket was last filled up to.
    filled_at: Time,
    /// The time departures are decided at (set by the simulation before it
    /// asks for the next packet: the port's serializer frees up then).
    pub clock: Time,
    /// A `PortTimer` is in the calendar for this time.
    pub timer_at: Option<Time>,
    /// Credits dropped at the queue's limit.
    pub credit_drops: u64,
}

impl XpassQueue {
    pub fn new(credit_queue_bytes: u64, bucket_bytes: u64) -> XpassQueue {
        XpassQueue {
            credits: Ring::new(),
            credit_bytes: 0,
            credit_limit: credit_queue_bytes,
            data: Ring::new(),
            data_bytes: 0,
            tokens: bucket_bytes as f64,
            depth: bucket_bytes as f64,
            fill: 0.0,
            filled_at: 0,
            clock: 0,
            timer_at: None,
            credit_drops: 0,
        }
    }

    /// The link's rate and the credits' share of it.
    pub fn set_rate(&mut self, rate_bps: u64, share: [u64; 2]) {
        self.fill = rate_bps as f64 / 8.0 / PS_PER_S as f64 * share[0] as f64 / share[1] as f64;
    }

    pub fn len(&self) -> usize {
        self.credits.len() + self.data.len()
    }

    pub fn hops(&self) -> impl Iterator<Item = &Hop> {
        self.credits.iter().chain(self.data.iter())
    }

    /// Credits against the credit queue's limit, the rest against the
    /// port's (`limit`). (Not inlined, as `pop`.)
    #[inline(never)]
    pub fn offer(&mut self, e: Entry, limit: u64) -> Admit {
        let size = e.hop.size as u64;
        if e.class == 0 {
            if self.credit_bytes + size > self.credit_limit {
                self.credit_drops += 1;
                return Admit::Dropped;
            }
            self.credit_bytes += size;
            self.credits.push_back(e.hop);
        } else {
            if self.data_bytes + size > limit {
                return Admit::Dropped;
            }
            self.data_bytes += size;
            self.data.push_back(e.hop);
        }
        Admit::Queued
    }

    fn refill(&mut self, t: Time) {
        if t > self.filled_at {
            self.tokens = (self.tokens + (t - self.filled_at) as f64 * self.fill).min(self.depth);
            self.filled_at = t;
        }
    }

    /// The next packet to send at `clock`: a credit the bucket can pay
    /// for, else data. (Not inlined: it would stop `Queue::pop` being
    /// inlined into the other disciplines' hot path.)
    #[inline(never)]
    pub fn pop(&mut self) -> Option<Hop> {
        self.refill(self.clock);
        if let Some(&c) = self.credits.front() {
            if self.tokens >= c.size as f64 {
                self.tokens -= c.size as f64;
                self.credit_bytes -= c.size as u64;
                return self.credits.pop_front();
            }
        }
        let d = self.data.pop_front()?;
        self.data_bytes -= d.size as u64;
        Some(d)
    }

    /// When the port should look again, if it is free at `free`: then, if
    /// data waits; else when the bucket can pay for the first credit;
    /// `None` if empty.
    pub fn next_look(&self, free: Time) -> Option<Time> {
        if !self.data.is_empty() {
            return Some(free);
        }
        let c = self.credits.front()?;
        let missing = c.size as f64 - self.tokens;
        let paid = if missing <= 0.0 { self.filled_at } else { self.filled_at + (missing / self.fill).ceil() as Time };
        Some(paid.max(free))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credit(id: u32) -> Entry {
        Entry { hop: Hop { id, size: 84, dst: 0, flow: 0 }, prio: 0, flow: 0, class: 0 }
    }

    fn data(id: u32) -> Entry {
        Entry { hop: Hop { id, size: 1538, dst: 0, flow: 0 }, prio: 0, flow: 0, class: 1 }
    }

    #[test]
    fn credits_leave_at_their_share_of_the_link_and_the_excess_is_dropped() {
        // 100 Gb/s: 84 B of credit per 1622 B of link, so one credit per
        // 1622 B at the line rate, 129.76 ns, once the bucket (2 credits) is spent
        let mut q = XpassQueue::new(84 * 8, 168);
        q.set_rate(100_000_000_000, [84, 1622]);
        let mut admitted = 0;
        for i in 0..12 {
            if q.offer(credit(i), u64::MAX) == Admit::Queued {
                admitted += 1;
            }
        }
        assert_eq!((admitted, q.credit_drops), (8, 4));
        let mut t = 0;
        let mut sent = vec![];
        while let Some(next) = q.next_look(t) {
            q.clock = next;
            let h = q.pop().expect("the port looked when a credit could go");
            sent.push((next, h.id));
            t = next + 1; // a credit takes 6.72 ns on the wire; any gap will do
        }
        assert_eq!(sent.iter().map(|s| s.1).collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
        // the first two at once (the bucket), then 129.76 ns apart
        assert_eq!((sent[0].0, sent[1].0), (0, 1));
        for w in sent[2..].windows(2) {
            let gap = w[1].0 - w[0].0;
            assert!((129_759..=129_761).contains(&gap), "{gap}");
        }
    }

    #[test]
    fn a_credit_goes_before_data_only_when_the_bucket_can_pay() {
        let mut q = XpassQueue::new(84 * 8, 84);
        q.set_rate(100_000_000_000, [84, 1622]);
        q.offer(data(10), u64::MAX);
        q.offer(credit(1), u64::MAX);
        q.offer(credit(2), u64::MAX);
        q.offer(data(11), u64::MAX);
        q.clock = 0;
        assert_eq!(q.pop().unwrap().id, 1, "the bucket pays for one credit");
        assert_eq!(q.pop().unwrap().id, 10, "then data, while tokens build up");
        q.clock = 200_000;
        assert_eq!(q.pop().unwrap().id, 2);
        assert_eq!(q.pop().unwrap().id, 11);
        assert!(q.pop().is_none() && q.next_look(0).is_none());
        // data is limited by the port's limit, credits by their own
        assert_eq!(q.offer(data(12), 1000), Admit::Dropped);
    }
}
