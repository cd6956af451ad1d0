//! BFC (Goyal et al., NSDI'22): per-hop, per-flow backpressure with
//! dynamic queue assignment, on shared-buffer switches. Its whole switch
//! side is here: the egress port's queues and flow table (`queue.rs`), the
//! pause counters (`backpressure.rs`), and what a switch does with them as
//! packets enter and leave its ports and as pause frames arrive
//! (`switch.rs`). Its hosts are the RDMA family's (`schemes/rdma/`: line
//! rate, or BFC + CC's delay law; BFC-SRF's remaining-size header).

pub mod backpressure;
pub mod queue;
pub mod switch;
