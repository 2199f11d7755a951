"""Issue 20: every service reads top-down, and no module grows past ~400 lines of rules.

* Each service's dependency order is an import-linter configuration
  (``tools/importlinter/<service>.ini``): no import cycle between sibling packages or modules at
  any depth (function-level imports count: grimp sees every ``import`` statement), and the declared
  layers, where a lower package never imports a higher one. ``make check`` runs the same contracts
  (target ``architecture``); docs/<service>-architecture.md draws the order.
* Product modules (``functions/`` and the shared layer) hold at most ``MAX_RULE_LINES`` lines of
  code, not counting blank lines, comments and docstrings.
"""
from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("campaigns", "exams", "internships")
MAX_RULE_LINES = 400


def _lint_imports(service: str, config: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "shared"), str(ROOT / "functions" / service)])}
    return subprocess.run([str(exe), "--no-cache", "--config", str(config)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("service", SERVICES)
def test_dependency_order_is_kept(service):
    config = ROOT / "tools" / "importlinter" / f"{service}.ini"
    text = config.read_text()
    assert "type = acyclic_siblings" in text and "type = layers" in text, "both contracts are declared"
    done = _lint_imports(service, config)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "broken" not in done.stdout.lower().replace("0 broken", "")


def test_a_cycle_breaks_the_contract(tmp_path):
    """The check can fail: a throw-away package with one cycle breaks the acyclic contract."""
    pkg = tmp_path / "demo_cycle"
    for sub in ("low", "high"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "a.py").write_text("def f():\n    from demo_cycle.high import b\n    return b\n")
    (pkg / "high" / "b.py").write_text("from demo_cycle.low import a\n")
    config = tmp_path / "demo.ini"
    config.write_text("[importlinter]\nroot_package = demo_cycle\n\n[importlinter:contract:acyclic]\n"
                      "name = demo\ntype = acyclic_siblings\nancestors =\n    demo_cycle\n")
    exe = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(exe), "--no-cache", "--config", str(config)], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and ".low -> .high" in done.stdout, done.stdout[-2000:]


def rule_lines(source: str) -> int:
    """Lines holding code: not blank, not a comment, not a docstring."""
    docs: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines: set[int] = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in docs)
    return len(lines)


def test_rule_lines_counts_code_only():
    src = '"""Doc\n\nmore."""\n# note\n\nx = 1\n\n\ndef f():\n    """Doc."""\n    return (1,\n            2)\n'
    assert rule_lines(src) == 4


def test_no_product_module_over_the_limit():
    modules = [*ROOT.joinpath("functions").rglob("*.py"), *ROOT.joinpath("layers", "shared").rglob("*.py")]
    assert len(modules) > 100
    over = {str(p.relative_to(ROOT)): n for p in modules if (n := rule_lines(p.read_text())) > MAX_RULE_LINES}
    assert not over, f"modules over {MAX_RULE_LINES} lines of rules (split them by responsibility): {over}"
