"""Refuting a horizon through one packet: its broadcast alone needs more rounds.

Rules (where it applies)
------------------------
- The telephone, half-duplex and single-port models, any packet cap and call limit: a node
  passes a given packet to at most one neighbour per round.
- Instances with several packets, for the packets held by some nodes and demanded by every
  processor (gossip, gossip in chunks): such a packet's own problem is the broadcast from
  its holders (``broadcast:H``), which the broadcast encoding covers.

The argument
------------
Take a schedule of ``R`` rounds that solves the instance and keep, of each transmission,
only the packet ``p``: what is left is a schedule of the same model and the same rounds
that broadcasts ``p`` from its holders to every processor (the argument of
:mod:`gossipcert.closed_forms.packet_layers`, there for the closed-form bounds). So when
``broadcast:H`` has no schedule of ``R`` rounds, the instance has none either. That
single-packet claim is decided exactly: the broadcast encoding
(:mod:`gossipcert.encodings.broadcast`, with the implied idle budget of
:mod:`gossipcert.encodings.waste`; no symmetry breaking or other rule that is not implied)
is refuted by CaDiCaL with a DRAT proof, and the checkers judge the proof
(:func:`gossipcert.proofs.refutation.checked_refutation`).

Variables and constraint families: those of the broadcast encoding for the one packet (who
informs whom and when), nothing else; the CNF is a function of ``(graph, model, holders,
R)`` and the options stored with the evidence.

The evidence (``drat-packet``) names the packet, its holders, the encoding options, the
CNF's hash and the proof; ``gossipcert check`` rebuilds the single-packet instance from the
certificate's instance, regenerates the CNF, compares the hash and re-checks the proof
(:func:`check_packet_evidence`).

Which packets: for gossip one per automorphism orbit (an automorphism maps one packet's
broadcast onto another's), ranked by their closed-form broadcast bounds (the larger of
``broadcast-layers`` and ``broadcast-walks``, itself at least ``broadcast-ranks``), then by
fewest neighbours; only the packets
whose closed form reaches the horizon are tried, at most :data:`STEP_PACKETS` of them. On
butterfly 5 the one packet's broadcast needs 9 rounds (its DRAT proof of 8 rounds is
checked in minutes), while no closed form gives more than 8 and the full gossip formula at
8 rounds is out of reach.

References
----------
.. [1] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
   networks", Discrete Applied Mathematics 53 (1994) 79-133 (gossip takes at least the
   broadcast time from every node).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000, Tables 4 and 5 (the broadcast and gossip times of the butterflies).
.. [3] M. J. H. Heule, W. A. Hunt Jr. and N. Wetzler, "Trimming while checking clausal
   proofs", FMCAD 2013 (DRAT).
"""

from __future__ import annotations

import time
from typing import Any

from gossipcert import graphs
from gossipcert.closed_forms.broadcast import layers_value
from gossipcert.closed_forms.broadcast_walks import walks_value
from gossipcert.closed_forms.packet_layers import budgeted_candidates
from gossipcert.encodings.broadcast import broadcast_applies
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import SolverError
from gossipcert.instance import Instance, Problem, ProblemKind, make_instance
from gossipcert.proofs.refutation import (
    Report,
    check_drat_evidence,
    checked_refutation,
    proof_record,
    stored_options,
)
from gossipcert.solvers.standalone import standalone_cnf
from gossipcert.statuses import QueryStatus

#: the evidence kind
KIND = "drat-packet"
#: the step of ``solve`` tries at most this many packets per horizon ...
STEP_PACKETS = 2
#: ... for at most this many seconds in all ...
STEP_SECONDS = 360.0
#: ... and at most this share of the time left
STEP_SHARE = 0.6


def packet_options() -> EncodingOptions:
    """The encoding options of a packet's refutation: the broadcast encoding and its idle
    budget (implied), nothing that rests on a further argument."""
    return EncodingOptions.for_search(strict=True)


def packet_instance(instance: Instance, packet: int) -> Instance | None:
    """The broadcast of ``packet`` alone from its holders, or None when the packet is not
    demanded by exactly the processors (then its own problem is no broadcast).

    Parameters
    ----------
    instance : Instance
    packet : int
        A packet number of ``instance``.

    Returns
    -------
    Instance or None
        ``broadcast:H`` on the same graph and model, ``H`` the packet's holders; None also
        outside the one-port models or where the broadcast encoding does not apply.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> sub = packet_instance(parse_instance("ring:6", "telephone", "gossip"), 2)
    >>> sub.problem.spec(), sub.holdings[2], sub.demands
    ('broadcast:2', 1, (1, 1, 1, 1, 1, 1))
    """
    bit = 1 << packet
    holders = [v for v in range(instance.n) if instance.holdings[v] & bit]
    if not holders or not instance.model.informs_one:
        return None
    ref = ",".join(str(graphs.node_ref(instance.graph, v)) for v in holders)
    sub = make_instance(instance.graph, instance.model, Problem(ProblemKind.BROADCAST, root=ref))
    same_holders = [bool(h & 1) for h in sub.holdings] == [v in holders for v in range(sub.n)]
    same_demands = [bool(d & 1) for d in sub.demands] == [bool(d & bit) for d in instance.demands]
    if not (same_holders and same_demands and broadcast_applies(sub)):
        return None
    return sub


def ranked_packets(instance: Instance) -> list[tuple[int, int]]:
    """``(value, packet)`` for the packets a refutation may use, the largest closed-form
    broadcast bound first (then fewest neighbours): one per orbit for gossip, at most as
    many as the per-packet bounds evaluate, and at least one
    (:func:`gossipcert.closed_forms.packet_layers.budgeted_candidates`).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    list of (int, int)
        Empty where no packet's own problem is a broadcast (see :func:`packet_instance`).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> ranked_packets(parse_instance("debruijn:5", "telephone", "gossip"))[:3]
    [(6, 0), (6, 10), (6, 1)]
    """
    found = budgeted_candidates(instance, at_least=1)
    if found is None:
        return []
    nbrs, candidates = found
    ranked = []
    for sources, demand in candidates:
        if len(sources) != 1:
            continue
        packet = _packet_of(instance, sources[0])
        if packet is not None:
            value = max(layers_value(nbrs, sources, demand), walks_value(nbrs, sources, demand))
            ranked.append((-value, len(nbrs[sources[0]]), packet))
    return [(-v, p) for v, _, p in sorted(ranked)]


def tight_packets(
    instance: Instance,
    rounds: int,
    limit: int = STEP_PACKETS,
    ranked: list[tuple[int, int]] | None = None,
) -> list[int]:
    """The packets to try at ``rounds``: those whose closed-form broadcast bound reaches
    ``rounds``, in the order of :func:`ranked_packets`, at most ``limit``.

    Parameters
    ----------
    instance : Instance
    rounds : int
    limit : int
    ranked : list of (int, int), optional
        :func:`ranked_packets` of ``instance``, when already computed.

    Returns
    -------
    list of int
        Packet numbers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> tight_packets(parse_instance("debruijn:5", "telephone", "gossip"), 6)
    [0, 10]
    >>> tight_packets(parse_instance("debruijn:5", "telephone", "gossip"), 7)
    []
    """
    if ranked is None:
        ranked = ranked_packets(instance)
    return [p for value, p in ranked if value >= rounds][:limit]


def _packet_of(instance: Instance, holder: int) -> int | None:
    """The first packet held by ``holder`` alone and demanded by every processor."""
    mask = instance.holdings[holder]
    while mask:
        p = (mask & -mask).bit_length() - 1
        if packet_instance(instance, p) is not None:
            return p
        mask &= mask - 1
    return None


def refute_by_packet(
    instance: Instance, rounds: int, packet: int, deadline: float | None = None
) -> dict[str, Any] | None:
    """The checked ``drat-packet`` evidence that ``rounds`` rounds are impossible because
    ``packet`` alone cannot be broadcast in them; None when that broadcast has a schedule,
    or the proof or its check does not finish before ``deadline``.

    Parameters
    ----------
    instance : Instance
    rounds : int
    packet : int
        A packet number of ``instance`` (see :func:`packet_instance`).
    deadline : float, optional
        A ``time.monotonic()`` value for the proof and its check together.

    Returns
    -------
    dict or None

    Raises
    ------
    SolverError
        A checker rejects the proof.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:5", "telephone", "gossip")
    >>> refute_by_packet(inst, 3, 0)["kind"], refute_by_packet(inst, 4, 0) is None
    ('drat-packet', True)
    """
    sub = packet_instance(instance, packet)
    if sub is None:
        raise SolverError(f"packet {packet} alone is no broadcast from its holders")
    options = packet_options()
    cnf = standalone_cnf(sub, rounds, options)
    checked = checked_refutation(cnf, deadline, None, "the packet's DRAT proof")
    if checked is None:
        return None
    pr, verdict = checked
    return {
        "kind": KIND,
        "rounds": rounds,
        "packet": packet,
        "holders": [v for v in range(instance.n) if sub.holdings[v] & 1],
        "encoding": options.to_json(),
        **proof_record(cnf, pr, verdict),
        "note": "a schedule of the instance, kept to this packet, broadcasts it from its "
        "holders in as many rounds; the CNF is the broadcast encoding of that one packet "
        "(gossipcert.proofs.packet_refutation)",
    }


def check_packet_evidence(
    instance: Instance,
    rounds: int,
    ev: dict[str, Any],
    cert: dict[str, Any],
    time_limit: float | None,
    out: Report,
    full: bool = False,
) -> None:
    """Re-check a ``drat-packet`` evidence into ``out``: the packet's own problem is a
    broadcast from the stored holders, no rule beyond the implied ones is used, the CNF rebuilt
    from it has the stored hash and sizes, and every checker verifies the stored proof.

    Parameters
    ----------
    instance : Instance
        The certificate's instance.
    rounds : int
        The rounds the evidence refutes (the certificate's optimum minus one).
    ev, cert : dict
        The evidence and the whole certificate.
    time_limit : float, optional
        Seconds for the proof checks.
    out : Report
        Where each step's verdict goes (a certificate's ``CheckReport``).
    full : bool
        Run every checker even where one already decided.
    """
    packet = ev.get("packet")
    if (
        not isinstance(packet, int)
        or isinstance(packet, bool)
        or not 0 <= packet < (instance.n_packets)
    ):
        out.add(False, f"the evidence names no packet of the instance ({packet!r})")
        return
    sub = packet_instance(instance, packet)
    holders = None if sub is None else [v for v in range(sub.n) if sub.holdings[v] & 1]
    out.add(
        sub is not None and holders == ev.get("holders"),
        f"packet {packet} alone is the broadcast from nodes {holders} "
        f"(evidence: {ev.get('holders')})",
    )
    if sub is None:
        return
    options = stored_options(ev)
    out.add(
        not options.not_implied() and cert.get("symmetry_breaking") is False,
        "no symmetry or other argument besides the encoding's implied rules "
        "(symmetry_breaking false)",
    )
    out.add(
        True,
        "the claim rests on the packet's broadcast (a schedule kept to one packet broadcasts "
        "it; gossipcert.proofs.packet_refutation) and the proof",
    )
    check_drat_evidence(sub, rounds, options, ev, time_limit, out, full)


def packet_step(search: Any) -> None:
    """The packet refutations of ``solve``, before the relaxation and the full formula
    (``search``: the running :class:`gossipcert.search.rounds._Search`; nothing returned, its
    lower bound and evidence are raised in place).

    From the lower bound ``L`` upwards while ``L < U``, the tight packets of the horizon
    (:func:`tight_packets`) are refuted in turn within the step's budget; a checked
    refutation raises ``L`` and its evidence becomes the lower bound's; the first horizon
    not refuted ends the step. ``search`` is the :class:`gossipcert.search.rounds._Search`
    being run; it needs a DRAT proof (``proof``) and a schedule.
    """
    inst = search.instance
    if not search.proof or search.upper is None or inst.n_packets < 2:
        return
    now = time.monotonic()
    budget = STEP_SECONDS
    if search.deadline is not None:
        budget = min(budget, (search.deadline - now) * STEP_SHARE)
    until = now + budget
    ranked = ranked_packets(inst)
    while search.lower < search.upper and time.monotonic() < until:
        r = search.lower
        evidence = None
        for packet in tight_packets(inst, r, ranked=ranked):
            what = f"packet {packet} broadcast alone, with a DRAT proof"
            search.emit({"event": "trying", "rounds": r, "what": what})
            start = time.monotonic()
            evidence = refute_by_packet(inst, r, packet, until)
            search.emit(
                {
                    "event": "query",
                    "rounds": r,
                    "status": QueryStatus.UNSAT if evidence is not None else "not refuted",
                    "seconds": round(time.monotonic() - start, 3),
                    "method": f"packet {packet} broadcast alone",
                    "packet": packet,
                }
            )
            if evidence is not None or time.monotonic() >= until:
                break
        if evidence is None:
            return
        search.lower, search.lower_evidence = r + 1, evidence
        search.emit({"event": "lower-bound", "value": search.lower, "source": KIND})
