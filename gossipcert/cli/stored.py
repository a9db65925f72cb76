"""The instance a stored file names: a certificate, a partial result or a schedule file
that carries its instance, checked against the options the user gave (``verify`` and
``draw``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gossipcert.cli.common import _chunked
from gossipcert.errors import SpecError

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from gossipcert.instance import Instance


#: a schedule file without its graph, and none given
_NO_GRAPH = (
    "{schedule} does not carry its graph: give the graph too "
    "(verify GRAPH FILE, draw FILE --graph GRAPH)"
)


def stored_or_given_instance(
    graph: str | None,
    schedule: str,
    data: Any,
    model: str | None,
    problem: str | None,
    chunks: int | None,
    redop: str | None = None,
) -> Instance:
    """The instance ``verify`` and ``draw`` replay ``schedule`` (its content ``data``) on:
    the model and problem stored in a certificate, a partial result or a schedule file that
    carries its instance (checked against any given), else the options' defaults; the graph
    ``graph``, or without it the stored one."""
    from gossipcert import graphs
    from gossipcert.graphs.records import graph_from_record
    from gossipcert.instance import (
        make_instance,
        names_problem_file,
        parse_instance,
        parse_model,
        parse_problem,
        stored_problem,
    )
    from gossipcert.schedule import stored_instance_record

    stored = stored_instance_record(schedule, data)
    if stored is None:
        if graph is None:
            raise SpecError(_NO_GRAPH.format(schedule=schedule))
        return parse_instance(
            graph, model or "telephone", _chunked(problem or "gossip", chunks, redop)
        )
    rec = stored.get("graph") if graph is None else graph
    if isinstance(rec, dict):
        the_graph = graph_from_record(rec)
    elif isinstance(rec, str):
        the_graph = graphs.from_spec(rec)
    else:
        raise SpecError(_NO_GRAPH.format(schedule=schedule))
    s_model = parse_model(str(stored["model"]))
    if model is not None and parse_model(model).spec() != s_model.spec():
        raise SpecError(
            f"{schedule} is for the model {s_model.spec()}, not {parse_model(model).spec()}: "
            "leave out --model to replay it under its own"
        )
    record = stored["problem"]
    if isinstance(record, str) and names_problem_file(record):
        # a partial result names its custom problem's file without its content: the file
        # is the user's to give (as -p), read where they say, not guessed from the name
        return make_instance(
            the_graph, s_model, parse_problem(_chunked(problem or record, chunks, redop))
        )
    s_problem = stored_problem(record)
    if problem is not None or chunks is not None or redop is not None:
        asked = parse_problem(_chunked(problem or s_problem.spec(), chunks, redop))
        same = (
            asked.custom == s_problem.custom
            if s_problem.custom is not None
            else asked.spec() == s_problem.spec()
        )
        if not same:
            raise SpecError(
                f"{schedule} is for the problem {s_problem.spec()}, not {asked.spec()}: leave "
                "out --problem and --chunks to replay it under its own"
            )
    return make_instance(the_graph, s_model, s_problem)
