"""Papers' claims beside certified answers: the formula language, the verdicts, and a sweep
whose page sets a right and a wrong claim beside the optimum."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gossipcert import tables
from gossipcert.claims import describe_values, evaluate_formula, judge, parse_claim
from gossipcert.cli import app
from gossipcert.errors import SpecError
from gossipcert.tables import results

runner = CliRunner()


@pytest.mark.parametrize(
    ("text", "n", "expected"),
    [
        ("n - 1 if n % 2 == 0 else n", 6, 5),
        ("n - 1 if n % 2 == 0 else n", 7, 7),
        ("2 * log2(n) - 1", 16, 7),
        ("max(n + 1, n ** 2 // 4)", 8, 16),
        ("ceil(n / 3) + floor(n / 4)", 10, 6),
        ("-n + abs(-3)", 2, 1),
        ("1 if 2 < n <= 5 and not n == 4 else 0", 3, 1),
    ],
)
def test_formulas_evaluate(text: str, n: int, expected: int) -> None:
    assert evaluate_formula(text, {"n": n}) == expected


def test_log2_is_exact_on_powers_of_two() -> None:
    for k in range(1, 60):
        assert evaluate_formula("log2(n)", {"n": 1 << k}) == k
    assert isinstance(evaluate_formula("log2(n)", {"n": 1 << 40}), int)


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "n.__class__",
        "open('x')",
        "[n for n in (1, 2)]",
        "lambda: 1",
        "m + 1",  # unknown name
        "'a' * 3",
        "n +",  # syntax
        "n / 0",  # arithmetic
    ],
)
def test_formulas_outside_the_language_are_refused(text: str) -> None:
    with pytest.raises(SpecError):
        evaluate_formula(text, {"n": 4})


def test_huge_powers_are_refused() -> None:
    # 9**9**9**9 in a sweep's claim ran without end; an exponent above MAX_EXPONENT is
    # refused (7**200000 stands for it here: fast to compute, so the test ends either way)
    with pytest.raises(SpecError, match=r"'7 \*\* 200000' cannot be evaluated: exponent 200000"):
        evaluate_formula("7 ** 200000", {"n": 4})
    assert evaluate_formula("2 ** n - 1 ** 5000", {"n": 10}) == 1023
    # nested powers each within the exponent limit: a result of over MAX_POWER_BITS bits
    with pytest.raises(SpecError, match="more than 100000 bits"):
        evaluate_formula("(2 ** 1000) ** 1000", {"n": 4})
    assert evaluate_formula("(2 ** 10) ** 100", {"n": 4}) == 2**1000
    # the formula is named once
    with pytest.raises(SpecError) as info:
        evaluate_formula("m + 1", {"n": 4})
    assert str(info.value) == "claim formula 'm + 1': unknown name 'm'"


def test_claim_tables_and_errors() -> None:
    claim = parse_claim({"source": "T5", "lower": {3: 7}, "upper": "n", "heuristic": 9}, "x")
    assert claim.values("3", {"n": 24}) == {"lower": 7, "upper": 24, "heuristic": 9}
    assert claim.values("4", {"n": 64}) == {"upper": 64, "heuristic": 9}  # no LB for size 4
    assert describe_values(claim.values("3", {"n": 24})) == "LB 7 / UB 24 / HR 9"
    for bad in (
        {"lower": 3},  # no source
        {"source": "s"},  # no term
        {"source": "s", "value": 2.5},
        {"source": "s", "value": True},
        {"source": "s", "value": {"3": "7"}},
        {"source": "s", "value": "n +"},
        {"source": "s", "valeu": 3},
    ):
        with pytest.raises(SpecError):
            parse_claim(bad, "group 1")
    with pytest.raises(SpecError, match="not an integer"):
        parse_claim({"source": "s", "value": "n / 3"}, "x").values(None, {"n": 4})


@pytest.mark.parametrize(
    ("values", "status", "low", "high", "verdict"),
    [
        ({"value": 7}, "optimal", 7, 7, "agrees"),
        ({"value": 7}, "optimal", 6, 6, "differs"),  # a schedule beats the claimed optimum
        ({"value": 7}, "optimal", 8, 8, "differs"),  # the claimed optimum is refuted
        ({"value": 7}, "feasible", 6, 8, "open"),
        ({"value": 7}, "feasible", 8, 9, "differs"),  # refuted even without the optimum
        ({"lower": 7, "heuristic": 9}, "optimal", 9, 9, "agrees"),
        ({"lower": 7, "heuristic": 9}, "optimal", 8, 8, "better"),
        ({"lower": 7, "heuristic": 9}, "optimal", 6, 6, "differs"),  # below the paper's LB
        ({"lower": 7, "heuristic": 9}, "feasible", 5, 6, "differs"),
        ({"upper": 9}, "feasible", 10, 12, "differs"),  # the paper's schedule is refuted
        ({"upper": 9}, "feasible", 8, 12, "open"),
        ({"upper": 9}, "not-run", None, None, "open"),
        ({}, "optimal", 3, 3, "-"),
        ({"lower": 3}, "optimal", pd.NA, pd.NA, "open"),
    ],
)
def test_verdicts(
    values: dict[str, int], status: str, low: object, high: object, verdict: str
) -> None:
    assert judge(values, status, low, high) == verdict


CLAIMS = """\
name = "claims"
title = "A page"
intro = "Rings and paths."
notes = "Written by a test."
time_limit = 60
[[group]]
graphs = ["ring:{n}"]
sizes = [4, 6]
models = ["telephone"]
problems = ["gossip"]
[group.claim]
source = "right"
value = "n // 2"
[[group]]
graphs = ["path:{n}"]
sizes = [4, 5]
models = ["telephone"]
problems = ["gossip"]
[group.claim]
source = "wrong"
value = "n - 2"
note = "claimed one round too few"
[[group]]
graphs = ["path:{n}"]
sizes = [3]
models = ["telephone"]
problems = ["gossip"]
"""


def test_sweep_page_sets_claims_beside_the_answers(tmp_path: Path) -> None:
    path = tmp_path / "claims.toml"
    path.write_text(CLAIMS)
    result = runner.invoke(app, ["table", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    df = pd.read_csv(tmp_path / "claims.csv", keep_default_na=False)
    got = dict(zip(df["graph"], df["verdict"], strict=True))
    # ring:4 = 2, ring:6 = 3 (n/2); path:4 = 3 and path:5 = 5, not n - 2
    assert got == {
        "ring:4": "agrees",
        "ring:6": "agrees",
        "path:4": "differs",
        "path:5": "differs",
        "path:3": "",
    }
    assert dict(zip(df["graph"], df["claim"], strict=True))["path:5"] == "= 3"
    page = (tmp_path / "claims.md").read_text()
    assert page.splitlines()[0].startswith("<!-- gossipcert table:")
    assert "# A page" in page and "Rings and paths." in page and "Written by a test." in page
    assert "**wrong**: claimed one round too few" in page
    assert "| = 3 (wrong) | **differs** |" in page
    # the page is rebuilt from the store alone, identically
    before = page
    assert runner.invoke(app, ["table", str(path), "--from-store", "--quiet"]).exit_code == 0
    assert (tmp_path / "claims.md").read_text() == before


def test_bad_claim_in_a_sweep_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(CLAIMS.replace('value = "n // 2"', 'value = "n // "'))
    result = runner.invoke(app, ["table", str(path), "--quiet"])
    assert result.exit_code == 2
    assert "does not parse" in result.output
    with pytest.raises(SpecError, match="unknown claim key"):
        path.write_text(CLAIMS.replace('source = "right"', 'source = "right"\nvalu = 3'))
        tables.read_sweep(path)


def test_summary_counts_the_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "claims.toml"
    path.write_text(CLAIMS)
    assert runner.invoke(app, ["table", str(path), "--quiet"]).exit_code == 0
    result = runner.invoke(app, ["summary", str(path), "--link-prefix", "results/"])
    assert result.exit_code == 0, result.output
    assert "| [A page](results/claims.md) | 5 | 5 | 2 | 0 | 2 | 0 |" in result.output
    missing = runner.invoke(app, ["summary", str(tmp_path / "none.toml")])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_an_optimum_on_the_solver_s_word_is_judged_by_what_is_certified() -> None:
    row = {
        "status": "optimal",
        "evidence": "solver-claim",
        "optimum": 9,
        "lower_bound": 7,
        "lower": 9,
        "upper": 9,
    }
    assert results._certified_answer(row) == ("feasible", 7, 9)
    assert judge({"value": 9}, *results._certified_answer(row)) == "open"
    assert judge({"lower": 9, "upper": 10}, *results._certified_answer(row)) == "open"
    row["evidence"] = "drat"
    assert judge({"lower": 9, "upper": 10}, *results._certified_answer(row)) == "better"
    # a bracket is judged by its closed-form lower end, not by unproved refutations
    row = {
        "status": "feasible",
        "evidence": None,
        "optimum": None,
        "lower_bound": 7,
        "lower": 9,
        "upper": 10,
    }
    assert judge({"upper": 8}, *results._certified_answer(row)) == "open"
