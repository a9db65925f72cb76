"""The steps objective's models: the verifier's step count against the steps formula's.

A steps certificate's lower bound is the steps CNF of :mod:`gossipcert.proofs.steps`; it is
sound only where every valid schedule of ``S`` verifier steps is a model of the formula with
at most ``S`` steps. Under all-port it is not (a multi-receiver or per-arc send is counted
differently, and a node hears several senders), so ``check`` refuses a steps certificate on
every model ``solve --objective steps`` refuses: two certificates built with the project's
own functions, claiming ``S_min`` above a verified schedule's steps, must fail. On every
model the objective accepts, random valid schedules are fixed in the formula, which must
then be satisfiable with exactly the verifier's steps and not with one fewer.
"""

from __future__ import annotations

import random

import pytest

from gossipcert.certificates.certificate import build_steps_certificate, check_certificate
from gossipcert.encodings import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, parse_instance
from gossipcert.models import MODELS, ModelKind, require_linear_cost
from gossipcert.proofs import steps as steps_proofs
from gossipcert.proofs.steps import prove_steps, steps_formula
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.cost import min_steps, pareto_front
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import SatBackend, Status


def forged(spec: str, model: str, problem: str, sched: Schedule, rounds: int, steps: int):
    """A steps certificate of ``(rounds, steps)`` with a DRAT proof of the project's own,
    built as before prove_steps refused the model (its refusal patched out)."""
    inst = parse_instance(spec, model, problem)
    rep = simulate(inst, sched)
    assert rep.ok and rep.length <= rounds and rep.steps == steps
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(steps_proofs, "require_linear_cost", lambda kind: None)
        evidence = prove_steps(inst, rounds, steps, EncodingOptions.for_search())
    assert evidence is not None
    # prove_steps and min_steps refuse it themselves now
    with pytest.raises(UnsupportedModelError, match="linear cost"):
        prove_steps(inst, rounds, steps, EncodingOptions.for_search())
    with pytest.raises(UnsupportedModelError, match="linear cost"):
        min_steps(inst, rounds, EncodingOptions.for_search())
    return inst, build_steps_certificate(inst, [(rounds, steps, sched, evidence)])


T = Transmission


@pytest.mark.parametrize(
    ("spec", "model", "problem", "sched", "rounds", "steps", "one_step"),
    [
        (  # star:4's centre 0 gathers the leaves' packets 0, 1, 2
            "star:4",
            "all-port",
            "gather:0",
            Schedule(
                ((T(1, (0,), 1),), (T(0, (2,), 1), T(0, (3,), 1), T(2, (0,), 2), T(3, (0,), 4)))
            ),
            2,
            3,
            Schedule(((T(1, (0,), 1), T(2, (0,), 2), T(3, (0,), 4)),)),
        ),
        (  # path 0-1-2, node 1 gathers packets 0 (node 0) and 1 (node 2)
            "path:3",
            "all-port:c=2",
            "gather:1",
            Schedule(((T(0, (1,), 1), T(0, (1,), 1), T(2, (1,), 2)),)),
            1,
            2,
            Schedule(((T(0, (1,), 1), T(2, (1,), 2)),)),
        ),
    ],
)
def test_check_fails_all_port_steps_certificates(
    spec: str,
    model: str,
    problem: str,
    sched: Schedule,
    rounds: int,
    steps: int,
    one_step: Schedule,
) -> None:
    inst, cert = forged(spec, model, problem, sched, rounds, steps)
    # the claim is false: a schedule of one round and one step exists
    rep = simulate(inst, one_step)
    assert rep.ok and rep.length == 1 and rep.steps == 1 < steps
    report = check_certificate(cert)
    assert report.status == "fails"
    assert any("linear cost" in text for ok, text in report.steps if ok is False)
    with pytest.raises(UnsupportedModelError):
        pareto_front(inst, rounds)


def test_one_predicate_for_solve_and_check() -> None:
    accepted = []
    for kind in MODELS:
        try:
            require_linear_cost(kind)
            accepted.append(kind)
        except UnsupportedModelError:
            pass
    assert accepted == [k for k, rules in MODELS.items() if rules.linear_cost]
    assert ModelKind.ALL_PORT not in accepted and len(accepted) == 4


def random_valid_schedule(inst: Instance, rng: random.Random, max_rounds: int) -> Schedule:
    """A random schedule of useful sends under ``inst``'s model (telephone calls, one
    sender and one receiver per node, multicast receiver sets, the packet cap), run until
    every demand is met or ``max_rounds``; only useful packets are sent."""
    model = inst.model
    rules = MODELS[model.kind]
    cap = model.packet_cap
    adj = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    known = list(inst.holdings)
    rounds: list[tuple[Transmission, ...]] = []

    def pick(u: int, receivers: tuple[int, ...]) -> int:
        useful = 0
        for r in receivers:
            useful |= known[u] & ~known[r]
        bits = [p for p in range(inst.n_packets) if useful >> p & 1]
        rng.shuffle(bits)
        size = rng.randint(1, len(bits)) if bits else 0
        if cap is not None:
            size = min(size, cap)
        return sum(1 << p for p in bits[:size])

    for _ in range(max_rounds):
        sending: set[int] = set()
        hearing: set[int] = set()
        rnd: list[Transmission] = []
        order = list(range(inst.n))
        rng.shuffle(order)
        for u in order:
            if u in sending or (rules.calls_form_matching and u in hearing):
                continue
            if model.calls_per_round is not None and len(rnd) >= model.calls_per_round:
                break
            free = [v for v in adj[u] if v not in hearing]
            if rules.calls_form_matching:
                free = [v for v in free if v not in sending]
            if not free or rng.random() < 0.2:
                continue
            if rules.point_to_point:
                receivers: tuple[int, ...] = (rng.choice(free),)
            else:
                receivers = tuple(v for v in free if rng.random() < 0.6) or (free[0],)
            mask = pick(u, receivers)
            back = 0
            if rules.two_way_calls:
                back = pick(receivers[0], (u,))
            if not mask and not back:
                continue
            sending.add(u)
            hearing.update(receivers)
            if rules.calls_form_matching:
                sending.update(receivers)
                hearing.add(u)
            if mask:
                rnd.append(Transmission(u, receivers, mask))
            if back:
                rnd.append(Transmission(receivers[0], (u,), back))
        new = list(known)
        for tr in rnd:
            for r in tr.receivers:
                new[r] |= tr.packets
        known = new
        if rnd:
            rounds.append(tuple(rnd))
        if all(known[v] & d == d for v, d in enumerate(inst.demands)):
            break
    return Schedule(tuple(rounds))


def formula_allows(inst: Instance, sched: Schedule, steps: int) -> bool:
    """Whether the steps formula (no rules beyond the model) has a model with ``sched``'s
    transfers and no others, in ``sched``'s rounds, and at most ``steps`` steps."""
    formula, _ = steps_formula(inst, len(sched.rounds), steps, EncodingOptions.for_search(True))
    used = set()
    for t, rnd in enumerate(sched.rounds, start=1):
        for tr in rnd:
            for v in tr.receivers:
                for p in range(inst.n_packets):
                    if tr.packets >> p & 1:
                        used.add((p, tr.sender, v, t))
    assumptions = []
    for key, var in list(formula.vpool.obj2id.items()):
        if isinstance(key, tuple) and key and key[0] == "X":
            assumptions.append(var if key[1:] in used else -var)
    backend = SatBackend(formula)
    try:
        return backend.solve(assumptions) is Status.SAT
    finally:
        backend.close()


ACCEPTED = [
    "telephone",
    "telephone:p=1",
    "sequential",
    "half-duplex",
    "half-duplex:p=2",
    "single-port",
    "single-port:p=1",
    "multicast",
    "multicast:p=2",
]


def test_accepted_list_covers_every_accepted_model() -> None:
    kinds = {parse_instance("path:3", m, "gossip").model.kind for m in ACCEPTED}
    assert kinds == {k for k, rules in MODELS.items() if rules.linear_cost}


@pytest.mark.parametrize("model", ACCEPTED)
def test_verifier_steps_equal_formula_steps(model: str) -> None:
    rng = random.Random(model)
    checked = 0
    for spec, problem in [
        ("path:4", "gossip"),
        ("star:4", "gossip"),
        ("ring:5", "broadcast:0"),
        ("complete:4", "gather:2"),
        ("petersen", "broadcast:3"),
        ("ring:4", "gossip"),
    ]:
        inst = parse_instance(spec, model, problem)
        for _ in range(3):
            sched = random_valid_schedule(inst, rng, 12)
            rep = simulate(inst, sched)
            assert rep.valid, rep.errors[:1]
            if not rep.complete:
                continue
            checked += 1
            assert formula_allows(inst, sched, rep.steps), (spec, problem, sched)
            assert not formula_allows(inst, sched, rep.steps - 1), (spec, problem, sched)
    assert checked >= 6


def test_multicast_step_is_the_set_sent_not_what_one_receiver_learns() -> None:
    """Round 3: node 1 sends packets {0, 1} to nodes 0 and 2, each lacking one of them: 2
    steps, though no receiver learns more than 1 packet (the count rests on the set sent)."""
    inst = parse_instance("path:3", "multicast:p=2", "gossip")
    sched = Schedule(
        (
            (T(1, (2,), 0b010),),
            (T(0, (1,), 0b001),),
            (T(1, (0, 2), 0b011),),
            (T(2, (1,), 0b100),),
            (T(1, (0,), 0b100),),
        )
    )
    rep = simulate(inst, sched)
    assert rep.ok and [s.max_sent for s in rep.per_round] == [1, 1, 2, 1, 1]
    assert [s.learned for s in rep.per_round] == [1, 1, 2, 1, 1]  # 1 each at 0 and 2
    assert formula_allows(inst, sched, 6)
    assert not formula_allows(inst, sched, 5)
