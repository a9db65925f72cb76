"""Transmissions, rounds and schedules, and their JSON and CSV files.

A :class:`Transmission` ``(u, D, S)`` is one sender ``u``, its receivers ``D`` and the packets
``S`` it sends; ``S`` is a bitmask over the instance's packet numbers, or ``None`` for
"everything ``u`` knows" (only meaningful in models with unbounded packets). A round is a
tuple of transmissions; a :class:`Schedule` is a tuple of rounds.

Schedule JSON (``gossipcert-schedule/1``)::

    {"format": "gossipcert-schedule/1",
     "rounds": [[{"from": 0, "to": [1], "packets": [0]}, ...], ...]}

Nodes are written by their reference (:func:`gossipcert.graphs.node_ref`); reading accepts a
node's original label or its index. Packets are written by name (for gossip, the origin
node; for total exchange ``[origin, destination]``); ``"packets": "all"`` means everything
the sender knows. In a reduction a transmission may say ``"op": "reduce"`` (its receivers
combine the partial results into their own) instead of the default ``"op": "copy"``.

Schedule CSV: a header ``round,from,to,packets`` and one line per transmission; several
receivers or packets are separated by ``;``, a pair packet is written ``origin/destination``,
and ``all`` stands for everything the sender knows. A reduction's schedule with some
``reduce`` transmission has a fifth column ``op`` (``copy`` or ``reduce``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from gossipcert import graphs
from gossipcert.errors import GossipcertError, ScheduleFormatError
from gossipcert.gc_pause import paused_gc
from gossipcert.instance import Instance, bits

FORMAT = "gossipcert-schedule/1"
#: the most rounds a schedule file may have (a CSV line names its round, and the empty rounds
#: before it are stored)
MAX_ROUNDS = 1_000_000


class Transmission(NamedTuple):
    """One sender, its receivers and its packets in one round.

    A named tuple rather than a frozen dataclass: a schedule of a million transmissions is
    built about twice as fast, and a transmission is as immutable.

    Parameters
    ----------
    sender : int
        Internal node id of the sender.
    receivers : tuple of int
        Internal node ids of the receivers (one in point-to-point models).
    packets : int or None
        Bitmask of packet numbers sent, or None for everything the sender knows.
    op : {"copy", "reduce"}
        Reductions only: what each receiver does with a chunk's partial result, store it
        (``copy``, the default and the only meaning outside reductions) or combine it into
        its own (``reduce``).
    """

    sender: int
    receivers: tuple[int, ...]
    packets: int | None = None
    op: str = "copy"


#: what a receiver does with a partial result (a transmission's ``op``)
OPS = ("copy", "reduce")


Round = tuple[Transmission, ...]


@dataclass(frozen=True)
class Schedule:
    """A sequence of rounds. Its length ignores trailing empty rounds."""

    rounds: tuple[Round, ...]

    def __len__(self) -> int:
        last = len(self.rounds)
        while last and not self.rounds[last - 1]:
            last -= 1
        return last

    def __iter__(self) -> Iterator[Round]:
        return iter(self.rounds)

    @classmethod
    def from_calls(
        cls, rounds: Iterable[Iterable[tuple[int, int]]], packets: int | None = None
    ) -> Schedule:
        """A telephone schedule from calls ``{u, v}``: each call is two transmissions.

        Parameters
        ----------
        rounds : iterable of iterables of (u, v)
            The calls (matching edges) of each round.
        packets : int or None
            The packets each side sends; None (default) is "everything it knows".
        """
        out = []
        for calls in rounds:
            r: list[Transmission] = []
            for u, v in calls:
                r.append(Transmission(u, (v,), packets))
                r.append(Transmission(v, (u,), packets))
            out.append(tuple(r))
        return cls(tuple(out))


# ----------------------------------------------------------------------------- JSON


def _packet_out(instance: Instance, mask: int | None) -> list[Any] | str:
    if mask is None:
        return "all"
    return [json_name(instance.packet_names[i]) for i in bits(mask)]


def json_name(name: Any) -> Any:
    """A packet name in JSON form (pairs become lists)."""
    return list(name) if isinstance(name, tuple) else name


def to_json(schedule: Schedule, instance: Instance) -> dict[str, Any]:
    """The ``gossipcert-schedule/1`` dictionary of a schedule (trailing empty rounds dropped)."""
    ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
    return {
        "format": FORMAT,
        "rounds": [
            [
                {
                    "from": ref(t.sender),
                    "to": [ref(r) for r in t.receivers],
                    "packets": _packet_out(instance, t.packets),
                    **({"op": t.op} if t.op != "copy" else {}),
                }
                for t in rnd
            ]
            for rnd in schedule.rounds[: len(schedule)]
        ],
    }


def _resolve(instance: Instance, ref: Any, where: str) -> int:
    if not isinstance(ref, (int, str)) or isinstance(ref, bool):
        raise ScheduleFormatError(f"{where}: a node must be a number or a label, got {ref!r}")
    try:
        return graphs.resolve_node(instance.graph, ref)
    except GossipcertError:
        raise ScheduleFormatError(
            f"{where}: node {ref} does not exist in {instance.graph.graph.get('spec', 'the graph')}"
        ) from None


def _resolver(instance: Instance) -> Callable[[Any, str], int]:
    """:func:`_resolve` with a cache, for reading long schedules."""
    cache: dict[tuple[type, Any], int] = {}

    def resolve(ref: Any, where: str) -> int:
        if not isinstance(ref, (int, str)) or isinstance(ref, bool):
            return _resolve(instance, ref, where)  # raises the format error
        key = (type(ref), ref)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = _resolve(instance, ref, where)
        return hit

    return resolve


def _packets_in(instance: Instance, value: Any, where: str) -> int | None:
    if value == "all":
        return None
    if not isinstance(value, list):
        raise ScheduleFormatError(f"{where}: 'packets' must be a list of packets or \"all\"")
    return _packet_mask(instance, value, where)


def _packet_mask(instance: Instance, value: list[Any], where: str) -> int:
    """The packets of a list of packet names, as a bit mask."""
    mask = 0
    for name in value:
        try:
            bit = 1 << instance.packet_index(name)
        except GossipcertError:
            raise ScheduleFormatError(
                f"{where}: packet {name!r} does not exist in problem {instance.problem.spec()}"
            ) from None
        if mask & bit:  # a packet is sent once per transmission: a repeat is a wrong file
            raise ScheduleFormatError(f"{where}: packet {name!r} is listed twice")
        mask |= bit
    return mask


def from_json(data: Any, instance: Instance) -> Schedule:
    """Read a schedule from its JSON dictionary, resolving nodes and packets.

    Raises
    ------
    ScheduleFormatError
        Malformed structure, more than ``MAX_ROUNDS`` rounds, or a node or packet that does
        not exist; the message names the round and transmission.
    """
    if isinstance(data, dict):
        fmt = data.get("format", FORMAT)
        if fmt != FORMAT:
            raise ScheduleFormatError(f"unknown schedule format {fmt!r}; expected {FORMAT!r}")
        rounds = data.get("rounds")
    else:
        rounds = data
    if not isinstance(rounds, list):
        raise ScheduleFormatError("a schedule needs 'rounds': a list of rounds")
    if len(rounds) > MAX_ROUNDS:
        raise ScheduleFormatError(
            f"the schedule has {len(rounds)} rounds, beyond the limit of {MAX_ROUNDS}"
        )
    return Schedule(tuple(_read_rounds(rounds, instance)))


def _read_rounds(rounds: list[Any], instance: Instance) -> Iterator[Round]:
    """The rounds of a JSON schedule, with nodes and packets resolved.

    Written for speed on schedules of millions of transmissions: node references and
    single-packet lists are looked up in dictionaries keyed by type and value (so that the
    label ``"1"`` and the index ``1`` stay distinct), and the text naming a transmission is
    built only for an error message. A round in the common form (every transmission a dict
    with one receiver and one packet or ``"all"``, every reference already seen) is read by
    whole-column operations (:func:`_common_round`); any other round, and the first sight of
    each node and packet, goes through the per-transmission reader, which also finds the
    errors.
    """
    resolve = _resolver(instance)
    nodes: dict[type, dict[Any, int]] = {int: {}, str: {}}
    single: dict[type, dict[Any, int]] = {int: {}, str: {}}

    def node(ref: Any, t: int, k: int) -> int:
        table = nodes.get(type(ref))
        if table is not None:
            hit = table.get(ref)
            if hit is not None:
                return hit
        value = resolve(ref, f"round {t}, transmission {k}")
        if table is not None:
            table[ref] = value
        return value

    def packets_of(value: Any, t: int, k: int) -> int | None:
        if type(value) is list and len(value) == 1:
            table = single.get(type(value[0]))
            if table is not None:
                hit = table.get(value[0])
                if hit is None:
                    hit = table[value[0]] = _packet_mask(
                        instance, value, f"round {t}, transmission {k}"
                    )
                return hit
        return _packets_in(instance, value, f"round {t}, transmission {k}")

    for t, rnd in enumerate(rounds, start=1):
        if not isinstance(rnd, list):
            raise ScheduleFormatError(f"round {t}: a round must be a list of transmissions")
        common = _common_round(rnd, nodes, single)
        if common is not None:
            yield common
            continue
        trans: list[Transmission] = []
        for k, item in enumerate(rnd, start=1):
            if type(item) is not dict or "from" not in item or "to" not in item:
                raise ScheduleFormatError(
                    f"round {t}, transmission {k}: needs 'from', 'to' and 'packets'"
                )
            sender = node(item["from"], t, k)
            targets = item["to"]
            if not isinstance(targets, list):
                targets = [targets]
            receivers = tuple(dict.fromkeys(node(r, t, k) for r in targets))
            value = item.get("packets", "all")
            packets = None if value == "all" else packets_of(value, t, k)
            trans.append(Transmission(sender, receivers, packets, _op(item, t, k)))
        yield tuple(trans)


def _op(item: dict[str, Any], t: int, k: int) -> str:
    """The ``op`` of a transmission's JSON item (``copy`` when absent)."""
    op = item.get("op", "copy")
    if op not in OPS:
        raise ScheduleFormatError(
            f'round {t}, transmission {k}: \'op\' must be "copy" or "reduce", got {op!r}'
        )
    return str(op)


def _common_round(
    rnd: list[Any], nodes: dict[type, dict[Any, int]], single: dict[type, dict[Any, int]]
) -> Round | None:
    """A round in the common form read column by column, or None to read it item by item.

    The common form: every transmission a dict with exactly ``from``, ``to`` (a list of one
    node) and ``packets`` (a list of one packet, or ``"all"``), the nodes all ints or all strings,
    the packets likewise, and every one of them already in the lookup tables ``nodes`` and
    ``single`` (keyed by type, as in :func:`_read_rounds`). Checking the types of a whole
    column first keeps ``True`` and ``1.0`` from being looked up as the node ``1``.
    """
    if not rnd:
        return ()
    try:
        froms = [item["from"] for item in rnd]
        targets = [item["to"] for item in rnd]
        values = [item["packets"] for item in rnd]
    except (TypeError, KeyError, IndexError):
        return None
    if set(map(type, rnd)) != {dict} or set(map(type, targets)) != {list}:
        return None
    if set(map(len, rnd)) != {3}:
        return None  # an "op" (or other key): item by item
    if set(map(len, targets)) != {1}:
        return None
    tos = [target[0] for target in targets]
    senders = _looked_up(froms, nodes)
    receivers = _looked_up(tos, nodes)
    if senders is None or receivers is None:
        return None
    if set(map(type, values)) == {list}:
        if set(map(len, values)) != {1}:
            return None
        masks: list[int | None] | None = _looked_up([value[0] for value in values], single)
        if masks is None:
            return None
    elif all(value == "all" for value in values) and set(map(type, values)) == {str}:
        masks = [None] * len(values)
    else:
        return None
    # tuple.__new__ builds each named tuple without a Python-level call
    rows = zip(senders, [(r,) for r in receivers], masks, repeat("copy"), strict=False)
    return tuple(map(tuple.__new__, repeat(Transmission, len(senders)), rows))


def _looked_up(refs: list[Any], tables: dict[type, dict[Any, int]]) -> list[Any] | None:
    """Every reference of one type looked up in that type's table, or None if any is missing."""
    kinds = set(map(type, refs))
    if len(kinds) != 1:
        return None
    table = tables.get(kinds.pop())
    if table is None:
        return None
    found = list(map(table.get, refs))
    return None if None in found else found


# ----------------------------------------------------------------------------- CSV


CSV_HEADER = ["round", "from", "to", "packets"]


def _csv_part(text: str, what: str, separators: str) -> str:
    """``text`` as one CSV item, or ScheduleFormatError if reading it back would differ."""
    if text != text.strip() or not text or any(ch in text for ch in separators):
        raise ScheduleFormatError(
            f"{what} {text!r} cannot be written to a CSV schedule (it is empty, has spaces "
            f"around it or contains one of {' '.join(separators)}); write the schedule as JSON"
        )
    return text


def _csv_name(name: Any) -> str:
    parts = [str(x) for x in name] if isinstance(name, tuple) else [str(name)]
    if len(parts) == 1 and parts[0].strip().lower() == "all":  # the reader's test
        raise ScheduleFormatError(
            "packet 'all' cannot be written to a CSV schedule, where all stands for every "
            "packet the sender knows; write the schedule as JSON"
        )
    return "/".join(_csv_part(part, "packet name", ";/") for part in parts)


def to_csv(schedule: Schedule, instance: Instance) -> str:
    """The CSV form ``round,from,to,packets`` of a schedule.

    Raises
    ------
    ScheduleFormatError
        A node label or packet name that the CSV form cannot hold (see :func:`_csv_part`).
    """
    labels: dict[int, str] = {}

    def ref(v: int) -> str:
        if v not in labels:
            labels[v] = _csv_part(str(graphs.node_ref(instance.graph, v)), "node label", ";")
        return labels[v]

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    with_op = any(tr.op != "copy" for rnd in schedule.rounds for tr in rnd)
    writer.writerow(CSV_HEADER + ["op"] * with_op)
    for t, rnd in enumerate(schedule.rounds[: len(schedule)], start=1):
        for tr in rnd:
            packets = (
                "all"
                if tr.packets is None
                else ";".join(_csv_name(instance.packet_names[i]) for i in bits(tr.packets))
            )
            row = [t, ref(tr.sender), ";".join(ref(r) for r in tr.receivers), packets]
            writer.writerow(row + [tr.op] * with_op)
    return buf.getvalue()


def from_csv(text: str, instance: Instance) -> Schedule:
    """Read the CSV form of a schedule (see the module docstring)."""
    rows = list(csv.reader(io.StringIO(text)))
    header = [c.strip().lower() for c in rows[0]] if rows else []
    if header not in (CSV_HEADER, [*CSV_HEADER, "op"]):
        raise ScheduleFormatError(
            "a schedule CSV must start with the header round,from,to,packets (or "
            "round,from,to,packets,op)"
        )
    width = len(header)
    by_round: dict[int, list[Transmission]] = {}
    resolve = _resolver(instance)
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        where = f"line {line}"
        if len(row) != width:
            raise ScheduleFormatError(f"{where}: expected {width} fields, got {len(row)}")
        try:
            t = int(row[0])
        except ValueError:
            raise ScheduleFormatError(f"{where}: round {row[0]!r} is not a number") from None
        if t < 1:
            raise ScheduleFormatError(f"{where}: rounds are numbered from 1")
        if t > MAX_ROUNDS:
            raise ScheduleFormatError(f"{where}: round {t} is beyond the limit of {MAX_ROUNDS}")
        where = f"{where} (round {t})"
        sender = resolve(_number_or_label(row[1]), where)
        receivers = tuple(
            dict.fromkeys(
                resolve(_number_or_label(r), where) for r in row[2].split(";") if r.strip()
            )
        )
        field = row[3].strip()
        if field.lower() == "all":
            packets: int | None = None
        else:
            names = [_csv_packet(x) for x in field.split(";") if x.strip()]
            packets = _packets_in(instance, names, where)
        op = row[4].strip().lower() if width == 5 else "copy"
        if op not in OPS:
            raise ScheduleFormatError(f"{where}: op must be copy or reduce, got {row[4]!r}")
        by_round.setdefault(t, []).append(Transmission(sender, receivers, packets, op))
    length = max(by_round, default=0)
    return Schedule(tuple(tuple(by_round.get(t, ())) for t in range(1, length + 1)))


def _number_or_label(text: str) -> str:
    """A node or packet reference from a CSV field, as text (resolved label first)."""
    return text.strip()


def _csv_packet(text: str) -> Any:
    parts = text.strip().split("/")
    if len(parts) == 1:
        return _number_or_label(parts[0])
    return [_number_or_label(p) for p in parts]


# ----------------------------------------------------------------------------- files


def read_schedule(path: str | Path, instance: Instance) -> Schedule:
    """Read a schedule file (``.json`` or ``.csv``) for an instance.

    A JSON file that holds a ``schedule`` instead of ``rounds`` (a certificate, or the partial
    result of ``solve -o``) is read for that schedule.

    Raises
    ------
    ScheduleFormatError
        Missing or unreadable file, malformed content, unknown nodes or packets.
    """
    return schedule_from_file_data(path, load_schedule_file(path), instance)


def load_schedule_file(path: str | Path) -> Any:
    """The content of a schedule file: its text for ``.csv``, else its parsed JSON (read
    once, e.g. for :func:`stored_instance_record` and :func:`schedule_from_file_data`).

    Raises
    ------
    ScheduleFormatError
        Missing or unreadable file, or not valid JSON.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()  # orjson reads bytes: no separate decoding pass
        if p.suffix.lower() == ".csv":
            return raw.decode()
    except FileNotFoundError:
        raise ScheduleFormatError(f"schedule file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScheduleFormatError(f"cannot read schedule file {str(p)!r}: {exc}") from None
    with paused_gc():  # millions of small containers and no cycles
        try:
            return orjson.loads(raw)  # several times faster than json on large schedules
        except orjson.JSONDecodeError as exc:
            raise ScheduleFormatError(
                f"schedule file {str(p)!r} is not valid JSON: {exc}"
            ) from None


def schedule_from_file_data(path: str | Path, data: Any, instance: Instance) -> Schedule:
    """The schedule in ``data``, as :func:`load_schedule_file` read it from ``path``."""
    p = Path(path)
    if p.suffix.lower() == ".csv":
        return from_csv(data, instance)
    with paused_gc():
        refuse_steps_certificate(p, data)
        if isinstance(data, dict) and "rounds" not in data and "schedule" in data:
            # a certificate or a partial result of solve -o: check the schedule it holds
            data = data["schedule"]
            if data is None:
                raise ScheduleFormatError(f"{str(p)!r} records no schedule")
        return from_json(data, instance)


def stored_instance_record(path: str | Path, data: Any) -> dict[str, Any] | None:
    """The instance record (with ``model`` and ``problem``) of a certificate or partial
    result of ``solve -o``, or of a schedule file that carries its instance (``construct``,
    ``heuristic`` and ``decode -o``); ``data`` as :func:`load_schedule_file` read it from
    ``path``. None for a schedule without one (CSV, or a rounds-only file)."""
    if Path(path).suffix.lower() == ".csv" or not isinstance(data, dict):
        return None
    if "rounds" not in data and "schedule" not in data:
        return None
    rec = data.get("instance")
    if isinstance(rec, dict) and "model" in rec and "problem" in rec:
        return rec
    return None


def refuse_steps_certificate(path: str | Path, data: Any) -> None:
    """Raise ScheduleFormatError when ``data`` (read from ``path``) is a steps certificate
    (``solve --objective steps -o``): it holds one schedule per point of a front, not one
    schedule, and the message names its points and how to re-check them."""
    if not isinstance(data, dict) or data.get("format") != "gossipcert-steps-certificate/1":
        return
    points = data.get("points")
    rounds = (
        [str(q.get("rounds")) for q in points if isinstance(q, dict)]
        if isinstance(points, list)
        else []
    )
    held = f" (rounds {', '.join(rounds)})" if rounds else ""
    raise ScheduleFormatError(
        f"{str(path)!r} is a steps certificate: it holds one schedule per point of the "
        f"front{held}, not one schedule; re-check them all with gossipcert check {path}"
    )


def write_schedule(schedule: Schedule, instance: Instance, path: str | Path) -> None:
    """Write a schedule as JSON, or as CSV when the path ends in ``.csv``."""
    p = Path(path)
    if p.suffix.lower() == ".csv":
        p.write_text(to_csv(schedule, instance))
    else:
        p.write_text(json.dumps(to_json(schedule, instance)) + "\n")
