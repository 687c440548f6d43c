"""The harness against hand-written expectations: schema, claims, timers, ratios, helpers."""

import json

import pytest

from papershelf_harness import (
    Claim,
    SchemaError,
    Table,
    bench_main,
    describe_machine,
    peak_memory,
    ratio,
    reproduce_cli,
    reproduce_main,
    timeit_ms,
    validate_bench,
    validate_reproduce,
)
from papershelf_harness.testing import assert_rejects


def _good_reproduce():
    return {
        "package": "p",
        "paper": "P (NeurIPS 2024)",
        "full": False,
        "seconds": 1.0,
        "machine": "x",
        "claims": [{"claim": "c", "paper": "1", "measured": "1", "holds": None, "note": ""}],
    }


def test_reproduce_main_writes_valid_json(tmp_path, capsys):
    seen = {}

    def claims(args):
        seen["args"] = args
        return [
            Claim("a", "1x", "1.1x", True, "n"),
            {"claim": "b", "paper": "-", "measured": "-", "holds": None},
        ]

    out = tmp_path / "r.json"
    assert (
        reproduce_main(
            "p",
            "P",
            claims,
            ["--quick", "--json", str(out)],
            quick=True,
            details=lambda a: {"k": 1},
        )
        == 0
    )
    data = json.loads(out.read_text())
    validate_reproduce(data)
    assert seen["args"].quick is True and seen["args"].full is False
    assert [c["holds"] for c in data["claims"]] == [True, None]
    assert data["claims"][1]["note"] == ""
    assert data["details"] == {"k": 1}
    printed = capsys.readouterr().out
    assert "1/1 checkable claims hold" in printed and "1.1x" in printed


def test_claim_refuses_bad_fields():
    with pytest.raises(TypeError, match="holds"):
        Claim("a", "b", "c", "yes")
    with pytest.raises(TypeError, match="measured"):
        Claim("a", "b", 1.0, True)
    import numpy as np

    assert Claim("a", "b", "c", np.bool_(True)).holds is True


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d.pop("machine"), "machine"),
        (lambda d: d.update(full="no"), "full"),
        (lambda d: d.update(claims=[]), "claims"),
        (lambda d: d["claims"][0].update(holds="yes"), "holds"),
        (lambda d: d["claims"][0].pop("note"), "note"),
        (lambda d: d["claims"][0].update(extra=1), "extra"),
        (lambda d: d.update(seconds=True), "seconds"),
    ],
)
def test_validate_reproduce_names_the_field(mutate, field):
    d = _good_reproduce()
    validate_reproduce(d)
    mutate(d)
    with pytest.raises(SchemaError, match=field):
        validate_reproduce(d)


def test_bench_main_and_schema(tmp_path):
    def run(args):
        t = Table(["config", "ours_ms", "base_ms", "ratio"])
        t.add("quick" if args.quick else "full", 1.0, 2.0, ratio(2.0, 1.0))
        return t

    out = tmp_path / "b.json"
    assert bench_main("p", run, ["--quick", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    validate_bench(data)
    assert data["rows"] == [["quick", 1.0, 2.0, "2.00x"]]
    data["rows"][0].append(1)
    with pytest.raises(SchemaError, match=r"rows\[0\]"):
        validate_bench(data)
    with pytest.raises(ValueError, match="4 cells"):
        Table(["a", "b", "c", "d"]).add(1)


def test_ratio_direction_and_missing():
    assert ratio(3.0, 1.5) == "2.00x"
    assert ratio(float("nan"), 1.0) == "n/a"
    assert ratio(1.0, 0.0) == "n/a"
    assert ratio(None, 1.0) == "n/a"


def test_timeit_counts_calls():
    calls = []
    t = timeit_ms(lambda: calls.append(1), repeat=4, warmup=2)
    assert len(calls) == 6 and t.repeat == 4 and 0 <= t.best_ms <= t.median_ms
    with pytest.raises(ValueError, match="repeat"):
        timeit_ms(lambda: None, repeat=0)


def test_peak_memory_sees_a_large_allocation():
    import numpy as np

    def alloc():
        a = np.ones(64 * 2**20 // 8)  # 64 MiB, touched
        return float(a[::4096].sum())

    result, peak = peak_memory(alloc)
    assert result == 64 * 2**20 // 8 // 4096
    assert peak > 32 * 2**20


def test_describe_machine_one_spelling():
    text = describe_machine()
    assert "cores" in text and text.split(", ")[0]


def test_assert_rejects():
    def f(x):
        raise ValueError(f"x must be finite, got {x}")

    assert_rejects(ValueError, "x", f, 1)
    with pytest.raises(AssertionError, match="does not name"):
        assert_rejects(ValueError, "y", f, 1)
    with pytest.raises(AssertionError, match="got ValueError"):
        assert_rejects(TypeError, "x", f, 1)
    with pytest.raises(AssertionError, match="nothing was raised"):
        assert_rejects(ValueError, "x", lambda x: x, 1)
    # "x" as a word: "max" must not count
    with pytest.raises(AssertionError):
        assert_rejects(ValueError, "x", lambda: (_ for _ in ()).throw(ValueError("max bad")))


def _demo_pyproject(directory):
    (directory / "pyproject.toml").write_text(
        '[project]\nname = "demo-pkg"\n[tool.papershelf]\npaper = "A Paper"\nvenue = "NeurIPS 2024"\n'
    )


def test_reproduce_cli_reads_the_pyproject_beside_the_script(tmp_path):
    _demo_pyproject(tmp_path)
    (tmp_path / "reproduce.py").write_text(
        "from papershelf_harness import Claim, reproduce_cli\n"
        "def claims(args):\n"
        "    yield Claim('c', '1', '1', True)\n"
        "main = reproduce_cli(claims, quick=True)\n"
    )
    (tmp_path / "bench.py").write_text(
        "from papershelf_harness import Table, bench_cli\n"
        "def run(args):\n"
        "    t = Table(['config', 'ms'])\n"
        "    t.add('a', 1.0)\n"
        "    return t\n"
        "main = bench_cli(run, title='t')\n"
    )
    from papershelf_harness.testing import load_script

    rep = load_script(tmp_path / "reproduce.py")
    assert rep.main(["--quick"]) == 0
    data = json.loads((tmp_path / "reproduce.json").read_text())
    assert data["package"] == "demo-pkg" and data["paper"] == "A Paper (NeurIPS 2024)"
    assert load_script(tmp_path / "bench.py").main(["--quick"]) == 0
    assert json.loads((tmp_path / "bench.json").read_text())["package"] == "demo-pkg"


def test_a_script_without_a_main_guard_runs_as_a_program(tmp_path):
    import subprocess
    import sys

    _demo_pyproject(tmp_path)
    (tmp_path / "reproduce.py").write_text(
        "from papershelf_harness import Claim, reproduce_cli\n"
        "def claims(args):\n"
        "    yield Claim('c', '1', '1', True)\n"
        "main = reproduce_cli(claims)\n"
        "raise AssertionError('reproduce_cli returned when run as a program')\n"
    )
    out = subprocess.run(
        [sys.executable, "reproduce.py", "--quick"], cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "reproduce.json").read_text())["claims"][0]["claim"] == "c"
    from papershelf_harness.testing import load_script

    with pytest.raises(AssertionError, match="returned when run as a program"):
        load_script(tmp_path / "reproduce.py")  # imported: main is only defined


def test_reproduce_cli_chains_a_list_of_claims_functions(tmp_path):
    _demo_pyproject(tmp_path)
    (tmp_path / "reproduce.py").write_text(
        "from papershelf_harness import Claim, reproduce_cli\n"
        "def first(args):\n"
        "    yield Claim('one', '1', '1', True)\n"
        "def second(args):\n"
        "    yield Claim('two', '2', '2', True)\n"
        "    yield Claim('three', '3', '3', None)\n"
        "main = reproduce_cli([first, second])\n"
    )
    from papershelf_harness.testing import load_script

    assert load_script(tmp_path / "reproduce.py").main(["--quick"]) == 0
    data = json.loads((tmp_path / "reproduce.json").read_text())
    assert [c["claim"] for c in data["claims"]] == ["one", "two", "three"]
    with pytest.raises(TypeError, match="^claims_fn"):
        reproduce_cli([])


def test_assert_rejects_passes_fn_keywords_through():
    def f(*, fn, name):
        raise ValueError(f"fn must be callable, got {fn!r} ({name})")

    assert_rejects(ValueError, "fn", f, fn=3, name="x")


def test_strategies_can_leave_none_out():
    from hypothesis import given, settings

    from papershelf_harness.strategies import non_integers, non_numeric

    @settings(max_examples=50, deadline=None)
    @given(a=non_numeric(none=False), b=non_integers(none=False))
    def check(a, b):
        assert a is not None and b is not None

    check()


def test_run_readme_examples_runs_blocks_in_order_and_ends_fences_at_line_start(tmp_path):
    from papershelf_harness.testing import run_readme_examples

    (tmp_path / "tests").mkdir()
    fence = "`" * 3
    (tmp_path / "README.md").write_text(
        f"# demo\n\n{fence}python\nx = 2\nreply = '{fence}code{fence}'\n{fence}\n\ntext\n\n"
        f"{fence}python\nassert x == 2 and reply.count('`') == 6\n{fence}\n"
    )
    assert run_readme_examples(tmp_path / "tests" / "test_readme.py") == 2
    (tmp_path / "README.md").write_text("# no example\n")
    with pytest.raises(AssertionError, match="no ```python block"):
        run_readme_examples(tmp_path / "tests" / "test_readme.py")


def test_assert_close_takes_arrays_and_fails_on_a_difference():
    import numpy as np

    from papershelf_harness.testing import assert_close

    assert_close([1.0, 2.0], np.array([1.0, 2.0 + 1e-12]), rtol=1e-9)
    with pytest.raises(AssertionError):
        assert_close([1.0, 2.0], [1.0, 2.1], rtol=1e-3)


def test_claim_not_run_is_an_unchecked_row():
    c = Claim.not_run("ImageNet top-1", paper="76.1", why="no ImageNet offline")
    assert (c.claim, c.paper, c.measured, c.holds, c.note) == (
        "ImageNet top-1",
        "76.1",
        "not run",
        None,
        "no ImageNet offline",
    )
    assert Claim.not_run("x", paper="-", why="y", measured="n/a").measured == "n/a"


def test_claim_reported_is_a_measured_unasserted_row():
    c = Claim.reported("GO vs MSE at L = 8", paper="GO 2.31", measured="GO 2.20", note="context")
    assert (c.claim, c.paper, c.measured, c.holds, c.note) == (
        "GO vs MSE at L = 8",
        "GO 2.31",
        "GO 2.20",
        None,
        "context",
    )
    assert Claim.reported("x", paper="-", measured="1").note == ""
