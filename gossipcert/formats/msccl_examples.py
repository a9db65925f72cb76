"""MSCCL XML algorithms written out by hand: the ring allreduce, one way or both ways.

The classic ring allreduce (a reduce-scatter, then an allgather, around a ring) as the
executor runs it: one thread block a rank and a ring, sending to the next rank and
receiving from the previous one, in place in the input buffer. Chunk ``c`` of the ``n``
chunks of a ring starts at rank ``c`` (step 0 sends it), is received, reduced and sent on
``n - 2`` times (``rrs``), reduced a last time and both kept and sent (``rrcs``: rank
``c - 1`` now holds it reduced over every rank), then copied around the ring (``rcs``) and
received a last time (``r``): ``2 (n - 1)`` steps.

With two directions the buffer is ``2n`` chunks: the first ``n`` go round one way (thread
block 0, channel 0), the others round the other way (thread block 1, channel 1), each
ring moving half the data. On a ring of links with the same bandwidth both ways, one way
leaves half of every link idle and takes twice the bandwidth bound; both ways meet it.

These are the documentation's and the tests' examples (``docs/examples/*.xml`` are their
output).

References
----------
.. [1] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", J. Parallel Distrib. Comput. 69(2), 2009 (the ring allreduce).
.. [2] github.com/Azure/msccl-executor-nccl, ``src/misc/msccl/msccl_parser.cc`` (the
   format).
"""

from __future__ import annotations

from gossipcert.errors import SpecError

__all__ = ["ring_allreduce_xml"]


def _step(s: int, kind: str, chunk: int) -> str:
    return (
        f'      <step s="{s}" type="{kind}" srcbuf="i" srcoff="{chunk}" dstbuf="i" '
        f'dstoff="{chunk}" cnt="1" depid="-1" deps="-1" hasdep="0"/>'
    )


def _ring_steps(n: int, r: int, way: int, base: int) -> list[str]:
    """The steps of rank ``r`` in the ring going ``way`` (+1 or -1), chunks ``base..``."""
    steps = [_step(0, "s", base + r)]
    for t in range(1, n - 1):
        steps.append(_step(t, "rrs", base + (r - way * t) % n))
    steps.append(_step(n - 1, "rrcs", base + (r + way) % n))
    for t in range(1, n - 1):
        steps.append(_step(n - 1 + t, "rcs", base + (r + way - way * t) % n))
    steps.append(_step(2 * n - 2, "r", base + (r + 2 * way) % n))
    return steps


def ring_allreduce_xml(
    n: int,
    directions: int = 1,
    *,
    proto: str = "Simple",
    min_bytes: int = 0,
    max_bytes: int = 1 << 30,
) -> str:
    """The ring allreduce on ``n`` ranks as MSCCL XML (see the module docstring).

    Parameters
    ----------
    n : int
        Ranks, at least 3.
    directions : {1, 2}
        One ring, or two rings going opposite ways with half the chunks each.
    proto : {"Simple", "LL", "LL128"}
    min_bytes, max_bytes : int
        The sizes the file declares itself for.

    Examples
    --------
    >>> from gossipcert.formats.msccl_xml import parse_msccl_xml
    >>> from gossipcert.formats.replay import replay
    >>> result = replay(parse_msccl_xml(ring_allreduce_xml(8, directions=2)))
    >>> result.valid, result.rounds, result.chunks_per_rank
    (True, 14, 16)
    """
    if n < 3 or directions not in (1, 2):
        raise SpecError(
            f"a ring allreduce needs n >= 3 and 1 or 2 directions, got {n}, {directions}"
        )
    chunks = n * directions
    name = f"ring allreduce, {n} ranks, {'both ways' if directions == 2 else 'one way'}"
    lines = [
        f'<algo name="{name}" proto="{proto}" nchannels="{directions}" '
        f'nchunksperloop="{chunks}" ngpus="{n}" coll="allreduce" inplace="1" outofplace="0" '
        f'minBytes="{min_bytes}" maxBytes="{max_bytes}">'
    ]
    for r in range(n):
        lines.append(f'  <gpu id="{r}" i_chunks="{chunks}" o_chunks="0" s_chunks="0">')
        for tb, way in enumerate((1, -1)[:directions]):
            lines.append(
                f'    <tb id="{tb}" send="{(r + way) % n}" recv="{(r - way) % n}" chan="{tb}">'
            )
            lines.extend(_ring_steps(n, r, way, tb * n))
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return "\n".join(lines) + "\n"
