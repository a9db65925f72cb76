"""The options of ``gossipcert verify`` and ``gossipcert heuristic``
(:mod:`gossipcert.cli.inspect_cmds`), one type each."""

from __future__ import annotations

from typing import Annotated

import typer

from gossipcert.cli.common import MODEL_HELP, PROBLEM_HELP, _time_limit_option

VerifyScheduleOpt = Annotated[
    str | None,
    typer.Argument(
        help="Schedule file (.json or .csv), or a certificate or partial-results file "
        "written by solve -o (its schedule is checked). A .json file that carries its "
        "instance may be given alone, as GRAPH (verify s.json). Not with --from.",
        metavar="SCHEDULE",
    ),
]

VerifyModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        help=MODEL_HELP + " Default: the model stored in a certificate or partial "
        "result, else telephone.",
        metavar="MODEL",
    ),
]

VerifyProblemOpt = Annotated[
    str | None,
    typer.Option(
        "--problem",
        "-p",
        help=PROBLEM_HELP + " Default: the problem stored in a certificate or partial "
        "result, else gossip.",
        metavar="PROBLEM",
    ),
]

VerifyFromFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--from",
        help="Read another tool's algorithm instead: msccl-xml, mscclpp-plan (an MSCCL++ "
        "execution plan), sccl-json or teccl-json; "
        "GRAPH is then that file (verify --from msccl-xml algo.xml).",
        metavar="FORMAT",
    ),
]

VerifyTimeLimitOpt = Annotated[
    float | None,
    _time_limit_option("--from: seconds for the certified optimum (default 60)."),
]

HeuristicMethodOpt = Annotated[
    str | None,
    typer.Option(
        "--method",
        help="Default (no --method and no matching option): a portfolio of the "
        "paper's settings of both heuristics within --time-limit, stopped at the "
        "closed-form lower bound. "
        "matching: one run, a maximum-weight matching per round (every model; rounds split "
        "for a packet cap, arc capacities or a limit on calls). "
        "coloring: a search over sequences of fixed matchings (telephone; the section-8 "
        "matchings of CCC, butterfly, star and pancake graphs, else an edge colouring). "
        "anneal: simulated annealing over --rounds maximal matchings (telephone).",
        show_default=False,
    ),
]

HeuristicTimeLimitOpt = Annotated[
    float | None,
    _time_limit_option(
        "Seconds for the default portfolio (default 60; its first run of the matching "
        "heuristic always runs to the end), the coloring search, the --sweep or the "
        "annealing (default 10)."
    ),
]

HeuristicWeightsOpt = Annotated[
    str | None,
    typer.Option(
        "--weights",
        help="Matching: edge weights: auto, flow (BFS approach with node counts), bfs "
        "(its bitset form, for large graphs) or potential [default: auto].",
        show_default=False,
    ),
]

HeuristicDistExpOpt = Annotated[
    float | None,
    typer.Option(
        "--dist-exp",
        help="Matching: Dist_Exp of the BFS weights [default: 8].",
        show_default=False,
    ),
]

HeuristicDistExpDecayOpt = Annotated[
    float | None,
    typer.Option(
        "--dist-exp-decay",
        help="Matching: Dist_Exp is multiplied by this each round [default: 1].",
        show_default=False,
    ),
]

HeuristicNumExpOpt = Annotated[
    float | None,
    typer.Option(
        "--num-exp",
        help="Matching: Num_Exp of the flow weights [default: 1].",
        show_default=False,
    ),
]

HeuristicBandOpt = Annotated[
    int | None,
    typer.Option(
        "--band",
        help="Matching: eccentricity band of the bitset weights [default: 0].",
        show_default=False,
    ),
]

HeuristicLookAheadOpt = Annotated[
    int | None,
    typer.Option(
        "--look-ahead",
        help="Matching: rounds of look-ahead [default: 0, none].",
        show_default=False,
    ),
]

HeuristicApproxOpt = Annotated[
    bool | None,
    typer.Option(
        "--approx/--exact",
        help="Matching: greedy (improved) or exact maximum-weight matching "
        "(default: exact up to 300 nodes, above them an assignment on the double "
        "cover, exact on bipartite graphs).",
    ),
]

HeuristicSeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        help="Matching: seed of the look-ahead; anneal: its seed [default: 0].",
        show_default=False,
    ),
]

HeuristicRoundsOpt = Annotated[
    int | None,
    typer.Option(
        "--rounds",
        help="Anneal: the rounds of the schedule sought (default: the best closed-form "
        "lower bound).",
    ),
]

HeuristicStepsOpt = Annotated[
    int | None,
    typer.Option(
        "--steps",
        help="Anneal: most moves tried (a machine-independent budget; the run also stops "
        "at --time-limit, so give a large one to make the step budget decide).",
    ),
]

HeuristicStartOpt = Annotated[
    str,
    typer.Option(
        "--start", help="Anneal: start from the matching or coloring heuristic, or random."
    ),
]

HeuristicSweepParamsOpt = Annotated[
    bool,
    typer.Option(
        "--sweep",
        help="Matching: try several Dist_Exp/look-ahead settings within --time-limit and "
        "keep the shortest verified schedule.",
    ),
]

HeuristicQuietOpt = Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")]
