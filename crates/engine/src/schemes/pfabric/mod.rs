//! pFabric's switches (SIGCOMM'13 §4.1): the priority queue that sends the
//! most urgent packet and drops the least urgent, and pFabric-EDF's pair
//! of them (§5.4.2). Its hosts are the TCP family's (`schemes/tcp/`):
//! remaining-size priorities (`prio.rs`) and the minimal rate control
//! (`rto.rs`, probe mode in `sender.rs`).

pub mod queue;
