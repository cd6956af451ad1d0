"""The `[buffer]` section: how switches hold packets. Per port (each port
its own buffer, as the scheme sets it: pFabric's and PIAS's simulations),
or one buffer per switch shared by its ports, with or without PFC (the
100 Gb/s switches of BFC NSDI'22 §6.2.1, as the HPCC simulator models
them; the engine's `buffer.rs`)."""

from typing import Literal, Optional

from ..errors import SpecError
from .base import Model, field

HPCC_SIM = "HPCC simulator (switch-mmu.cc, third.cc), which BFC §6.2 ran DCQCN, DCTCP and HPCC on"


class SwitchBuffer(Model):
    """Per-port buffers (the scheme's), or a shared buffer per switch: each
    ingress link has a reserve, then takes from the shared pool up to a
    dynamic PFC threshold (alpha times the free pool), then from a headroom
    while its pause reaches the upstream. With PFC the upstream port (a
    switch or a host NIC) sends no data between the pause and the resume;
    without it, a packet is dropped only when the switch's buffer is full."""

    model: Literal["auto", "per_port", "shared"] = field(
        "auto", "per_port: every port its own buffer, as the scheme sets it; shared: one buffer per switch (schemes "
        "whose ports are FIFOs, tcp and dctcp, and the RDMA schemes); auto: what the scheme runs on in its paper "
        "(shared for the RDMA schemes: dcqcn, dcqcn_ns3rdma, hpcc, dctcp_rdma, bfc and the packet-level ideal_fq_packet "
        "and ideal_srf_packet; per port for the rest)")
    size_mb: float = field(12.0, "shared buffer per switch, MiB (2^20 bytes)", source="BFC §6.2.1; " + HPCC_SIM, gt=0)
    size_mb_at: dict[int, float] = field(
        {}, "switches with another shared buffer, MiB, by node (switches are numbered after the hosts: on a file "
            "topology in the order of their file ids)", source="BFC App. A.9 (the co-author's gateways: 64 MiB)")
    pfc: Optional[bool] = field(
        None, "pause the upstream of an ingress over its threshold (else drop when the buffer is full); none: the "
              "scheme's (on, but off for bfc, which has its own backpressure, and for the packet-level "
              "ideal_fq_packet and ideal_srf_packet)",
        source="BFC §6.2.1 (DCQCN, DCTCP, HPCC run over PFC)")
    pfc_alpha_shift: int = field(3, "PFC threshold = free shared pool / 2^shift at ports of the hosts' rate (one less "
                                    "per doubling of a port's rate); 3: an ingress alone pauses at 1/9 = 11% of the "
                                    "free buffer", source="BFC §6.2.1 ('11% of the free buffer'); " + HPCC_SIM,
                                 ge=0, le=16)
    reserve_bytes: int = field(4096, "bytes each ingress holds before taking from the shared pool",
                               source=HPCC_SIM, ge=0)
    resume_offset_bytes: int = field(3072, "an ingress resumes its upstream this far below its threshold",
                                     source=HPCC_SIM, ge=0)
    headroom_bytes: Optional[int] = field(
        None, "PFC headroom per ingress; none: 3 x the link's rate x its one-way delay (37.5 KB at 100 Gb/s, 1 us)",
        source=HPCC_SIM, ge=0)
    acks_high_priority: Optional[bool] = field(
        None, "ACKs ride in the control queue, served first, never paused and not counted in the buffer; none: as "
              "the scheme has it (dcqcn: the HPCC simulator's run.py sends DCQCN's ACKs first from the NICs; its switches "
              "queue ACKs with data for every scheme, the BFC co-author's fork of it puts them first for every scheme)",
        source=HPCC_SIM)

    def resolved_pfc(self, scheme) -> bool:
        """`pfc`, with none resolved to the scheme's."""
        return scheme.pfc if self.pfc is None else self.pfc

    def resolved_model(self, scheme) -> str:
        """`model`, with "auto" resolved to what `scheme` runs on."""
        return scheme.buffer_model if self.model == "auto" else self.model

    def engine(self, port: dict, scheme) -> tuple[dict, Optional[dict]]:
        """The engine's port disciplines and `shared_buffer`, given the
        scheme's per-port configuration."""
        if self.resolved_model(scheme) == "per_port":
            if self.size_mb_at:
                raise SpecError(f"buffer.size_mb_at: scheme {scheme.name} runs on per-port buffers, not shared ones; "
                                "leave it empty or set buffer.model = \"shared\"")
            return port, None
        pfc = self.resolved_pfc(scheme)
        kinds = {port[w]["discipline"]["kind"] for w in ("host", "switch")}
        unbounded = scheme.unbounded_buffer
        if unbounded and self.size_mb != type(self).model_fields["size_mb"].default:
            raise SpecError(f"buffer.size_mb = {self.size_mb:g}: scheme {scheme.name}'s switch buffers are unbounded; "
                            "leave it at its default")
        if unbounded and self.resolved_pfc(scheme):
            raise SpecError(f"buffer.pfc: scheme {scheme.name}'s unbounded buffers never pause; leave it unset")
        if kinds <= {"pfc", "bfc", "fq"} and port["host"]["discipline"]["kind"] == "pfc":
            # a scheme built for these switches (the RDMA schemes)
            pfc_port = dict(port["switch"]["discipline"])
            host = port["host"]
        elif kinds == {"fifo"} and port.get("upper_tiers") is None:
            pfc_port = {"kind": "pfc", "acks_high_priority": bool(self.acks_high_priority)}
            # with PFC, host NICs obey pauses; their own buffer stays the scheme's
            host = dict(port["host"], discipline=dict(pfc_port)) if pfc else port["host"]
        else:
            raise SpecError(f"buffer.model: 'shared' needs FIFO ports (schemes tcp, dctcp) or an RDMA scheme; "
                            f"scheme {scheme.name}'s ports are {' and '.join(sorted(kinds))}")
        if self.acks_high_priority is not None and pfc_port["kind"] in ("bfc", "fq"):
            raise SpecError("buffer.acks_high_priority: BFC's and fair queueing's switch ports always serve ACKs in their control "
                            "queue (docs/schemes.md, bfc); leave it unset")
        if self.acks_high_priority is not None and pfc_port["kind"] == "pfc":
            pfc_port["acks_high_priority"] = self.acks_high_priority
            if host["discipline"]["kind"] == "pfc":
                host = dict(host, discipline=dict(host["discipline"], acks_high_priority=self.acks_high_priority))
        switch = {"discipline": pfc_port, "limit_bytes": None,
                  "ecn_threshold_bytes": port["switch"].get("ecn_threshold_bytes")}
        if unbounded and self.size_mb_at:
            raise SpecError(f"buffer.size_mb_at: scheme {scheme.name}'s switch buffers are unbounded; leave it empty")
        if any(mb <= 0 for mb in self.size_mb_at.values()):
            raise SpecError(f"buffer.size_mb_at: sizes must be positive, got {self.size_mb_at}")
        shared = {
            "bytes": 1 << 50 if unbounded else round(self.size_mb * (1 << 20)),
            "bytes_at": sorted((node, round(mb * (1 << 20))) for node, mb in self.size_mb_at.items()),
            "reserve_bytes": self.reserve_bytes,
            "resume_offset_bytes": self.resume_offset_bytes,
            "headroom_bytes": self.headroom_bytes,
            "pfc": pfc,
            "alpha_shift": self.pfc_alpha_shift,
        }
        return {**port, "host": host, "switch": switch}, shared
