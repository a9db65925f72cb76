"""SCCL and TE-CCL JSON schedules and the topologies of SCCL, TACCL and TE-CCL, on files
written here in those tools' dialects."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.errors import FormatError
from gossipcert.formats.json_algorithms import read_sccl, read_teccl
from gossipcert.formats.verdict import verify_algorithm


def sccl_ring_allgather(n, drop_last=False):
    """SCCL's allgather on a ring, one way round: step t sends address (r - t) from r."""
    steps = []
    for t in range(n - 1):
        sends = [[(r - t) % n, r, (r + 1) % n] for r in range(n)]
        if drop_last and t == n - 2:
            sends = sends[1:]
        steps.append({"msccl_type": "step", "rounds": 1, "sends": sends})
    links = [[1 if (src + 1) % n == dst or (dst + 1) % n == src else 0 for src in range(n)]
             for dst in range(n)]  # fmt: skip
    return {
        "msccl_type": "algorithm",
        "name": "ring",
        "instance": {"msccl_type": "instance", "steps": n - 1, "extra_rounds": 0, "chunks": 1,
                     "pipeline": None, "extra_memory": None, "allow_exchange": False},
        "input_map": {}, "output_map": {},
        "steps": steps,
        "collective": {
            "msccl_type": "collective", "name": f"Allgather(n={n})", "nodes": n,
            "chunks": [{"msccl_type": "chunk", "pre": [c], "post": list(range(n)), "addr": c}
                       for c in range(n)],
            "triggers": {}, "runtime_name": "allgather",
        },
        "topology": {"msccl_type": "topology", "name": f"Ring(n={n})", "links": links,
                     "switches": []},
    }  # fmt: skip


def test_sccl_ring_allgather(tmp_path):
    path = tmp_path / "ring.json"
    path.write_text(json.dumps(sccl_ring_allgather(5)))
    replay, coll, n, sends, topo = read_sccl(str(path))
    assert replay.valid and replay.rounds == 4 and coll == "allgather" and n == 5
    assert sends == 20 and topo["name"] == "Ring(n=5)"
    verdict = verify_algorithm(str(path), "sccl-json", time_limit=60)
    assert verdict.topology.endswith("(its topology)") and verdict.fits
    assert verdict.optimum["optimum"] == 2 and verdict.gap() == {"exact": 2}


def test_sccl_missing_send_and_multi_round_steps(tmp_path):
    path = tmp_path / "ring.json"
    path.write_text(json.dumps(sccl_ring_allgather(4, drop_last=True)))
    replay, *_ = read_sccl(str(path))
    missing = [f for f in replay.findings if f.rule == "missing"]
    assert len(missing) == 1 and missing[0].rank == 1
    # one step of 3 rounds holding all the sends of a 4-ring's allgather is wrong: a step's
    # sends only use what was held before it
    data = sccl_ring_allgather(4)
    data["steps"] = [{"msccl_type": "step", "rounds": 3,
                      "sends": [s for st in data["steps"] for s in st["sends"]]}]  # fmt: skip
    path.write_text(json.dumps(data))
    replay, *_ = read_sccl(str(path))
    assert {f.rule for f in replay.findings} == {"unwritten-read", "missing"}
    assert max(tr.round for tr in replay.transfers) == 3


def teccl_flows(n, late=None):
    """TE-CCL's allgather on a one-way ring: chunk of s crosses (s+e)->(s+e+1) in epoch e."""
    flows, demand = [], {}
    for s in range(n):
        for e in range(n - 1):
            u = (s + e) % n
            epoch = e + (1 if late == (s, e) else 0) - (1 if late == (s, e, "early") else 0)
            flows.append(f"Chunk 0 from {s} traveled over {u}->{(u + 1) % n} in epoch {epoch}")
    for d in range(n):
        demand[f"GPU {d}"] = {f"GPU {s}": {"Chunk 0": float((d - s) % n)} for s in range(n)
                              if s != d}  # fmt: skip
    return {"1-Epoch_Duration": 1.0, "3-Epochs_Required": n - 1, "6-Demand_Met": demand,
            "7-Flows": flows, "8-Chunk paths": {}}  # fmt: skip


def test_teccl_ring_allgather(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(teccl_flows(4)))
    replay, coll, n, flows = read_teccl(str(path))
    assert replay.valid and replay.rounds == 3 and (coll, n, flows) == ("allgather", 4, 12)
    path.write_text(json.dumps(teccl_flows(4, late=(1, 2, "early"))))
    replay, *_ = read_teccl(str(path))
    early = [f for f in replay.findings if f.rule == "unwritten-read"]
    assert len(early) == 1 and early[0].rank == 3 and early[0].round == 2


def test_json_of_the_wrong_tool(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(teccl_flows(3)))
    with pytest.raises(FormatError, match=r"TE-CCL schedule .*--from teccl-json"):
        read_sccl(str(path))
    path.write_text(json.dumps(sccl_ring_allgather(3)))
    with pytest.raises(FormatError, match="SCCL/MSCCL algorithm"):
        read_teccl(str(path))
    path.write_text("{\n  [")
    with pytest.raises(FormatError, match=r"x.json:2: invalid JSON"):
        read_sccl(str(path))
    data = teccl_flows(3)
    del data["6-Demand_Met"]
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match="alltoall"):
        read_teccl(str(path))


def test_sccl_topology_with_a_switch(tmp_path):
    path = tmp_path / "topo.json"
    path.write_text(json.dumps({
        "msccl_type": "topology", "name": "two-plus-switch",
        "links": [[0, 2, 0], [3, 0, 0], [0, 0, 0]],
        "switches": [[[0, 1, 2], [0, 1, 2], 1, "nvswitch"]],
    }))  # fmt: skip
    g = graphs.read_graph_file(path)
    assert g.number_of_nodes() == 4 and graphs.routers(g) == [3]
    assert g[0][1]["capacity"] == 2  # the smaller direction
    assert g.nodes[3]["label"] == "switch:nvswitch"
    assert sorted(g[3]) == [0, 1, 2]


def test_teccl_topologies(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"TopologyParams": {"name": "DGX1", "chassis": 1}}))
    g, d = graphs.read_graph_file(path), graphs.dgx1()
    assert nx.utils.edges_equal(g.edges, d.edges)
    assert all(g[u][v]["capacity"] == d[u][v]["capacity"] for u, v in d.edges)
    path.write_text(json.dumps({"TopologyParams": {"name": "Mesh", "side_length": 3}}))
    g = graphs.read_graph_file(path)
    assert g.number_of_nodes() == 9 and g.number_of_edges() == 8 + 6  # i+-1 rows wrap
    path.write_text(json.dumps({"capacity": [[0, 0.5, 0], [0.5, 0, 1.0], [0, 1.0, 0]],
                                "switch_indices": [2]}))  # fmt: skip
    g = graphs.read_graph_file(path)
    assert g[0][1]["capacity"] == 1 and g[1][2]["capacity"] == 2 and graphs.routers(g) == [2]
    for bad, fragment in [
        ({"TopologyParams": {"name": "DGX2", "chassis": 2}}, "chassis"),
        ({"capacity": [[0, 1], [1]]}, "row 1"),
        ({"msccl_type": "topology", "links": [[0, -1], [1, 0]]}, "numbers >= 0"),
    ]:
        path.write_text(json.dumps(bad))
        with pytest.raises(FormatError, match=fragment):
            graphs.read_graph_file(path)
    # gossipcert's own JSON graphs read as before
    path.write_text(json.dumps({"nodes": [0, 1], "edges": [[0, 1, 3]]}))
    assert graphs.read_graph_file(path)[0][1]["capacity"] == 3


@pytest.mark.parametrize("send", [7, None, {"a": 0, "b": 1, "c": 2}, [0, 1], [0, 1, 9]])
def test_sccl_malformed_send(tmp_path, send):
    """A send that is not three integers naming an address and two ranks is refused with
    the step it is in (a bare number used to escape as a TypeError)."""
    data = sccl_ring_allgather(3)
    data["steps"][0]["sends"][0] = send
    path = tmp_path / "ring.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"steps\[0\]: bad send"):
        read_sccl(str(path))
