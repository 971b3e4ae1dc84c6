"""The documentation site (docs/, mkdocs.yml) and the README: every Python snippet of the
README and of the site's pages runs as written, every object of the API reference and its
public members have docstrings, and every page is in the navigation. ``mkdocs build --strict``
itself (broken links, unresolvable references) runs in .ci/run."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
SNIPPETS = [(p.name, code) for p in [ROOT / "README.md", *PAGES]
            for code in re.findall(r"```python\n(.*?)```", p.read_text(), flags=re.S)]
REFERENCE = re.findall(r"^::: (\S+)", (DOCS / "reference.md").read_text(), flags=re.M)


def test_the_site_has_snippets_and_every_page_is_in_the_nav():
    assert len(SNIPPETS) >= 5
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(f" {p.name}" in nav for p in PAGES), [p.name for p in PAGES
                                                      if f" {p.name}" not in nav]


@pytest.mark.parametrize("page,code", SNIPPETS, ids=[f"{p}-{i}" for i, (p, _) in
                                                     enumerate(SNIPPETS)])
def test_every_snippet_of_the_site_runs(page, code, tmp_path, monkeypatch):
    for module in ("sb3_contrib", "pyspiel", "ray", "torchrl", "tianshou", "minari"):
        if module in code:
            pytest.importorskip(module)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))  # not the user's
    exec(compile(code, page, "exec"), {})


def _resolve(name: str):
    """``a.b.c`` -> the object, importing the longest module prefix."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def _needs_docs(obj) -> list[tuple[str, object]]:
    """The object and, for a class or module, its public members defined in this project."""
    out = [("", obj)]
    if inspect.isclass(obj):
        for name, member in vars(obj).items():
            if not name.startswith("_") and (inspect.isfunction(member)
                                             or isinstance(member, property)):
                out.append((name, member))
    elif inspect.ismodule(obj):
        for name, member in vars(obj).items():
            if (not name.startswith("_") and (inspect.isfunction(member) or inspect.isclass(member))
                    and getattr(member, "__module__", None) == obj.__name__):
                out.append((name, member))
    return out


@pytest.mark.parametrize("name", REFERENCE)
def test_every_object_of_the_api_reference_has_docstrings(name):
    if name.startswith(("machu_env.envs.rllib", "machu_env.agents.rllib_policy")):
        pytest.importorskip("ray.rllib")
    if name.startswith("machu_env.envs.openspiel"):
        pytest.importorskip("pyspiel")
    missing = [f"{name}.{member}".rstrip(".") for member, obj in _needs_docs(_resolve(name))
               if not (inspect.getdoc(obj) or "").strip()]
    assert not missing, f"missing docstrings: {missing}"


ISSUE_NUMBER = re.compile(r"(?i)\bissues? #\d+|(?<![\w/&\]])#\d{1,4}\b")


def test_no_page_cites_an_issue_number():
    """Pages speak to users: a research round is named by what it did and when, not by the
    project's issue numbers (the CHANGELOG may keep them)."""
    assert ISSUE_NUMBER.search("as issue #36 asked") and ISSUE_NUMBER.search("(#26)")
    assert not ISSUE_NUMBER.search("`RULES.md#R2.8`, colour #0072b2, &#8230;")
    found = [f"{p.name}:{n}: {m.group(0)}" for p in [ROOT / "README.md", *PAGES]
             for n, line in enumerate(p.read_text().splitlines(), 1)
             for m in ISSUE_NUMBER.finditer(line)]
    assert not found, found


def test_the_readme_is_short_and_each_figure_links_its_result_file():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 60
    table = text[text.index("## Headline figures"):].split("\n\n")[1].splitlines()[2:]
    assert 1 <= len(table) <= 6
    refs = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", text, flags=re.M))  # [name]: path
    for row in table:
        cells = [c.strip() for c in row.strip("|").split("|")]
        link = re.search(r"\]\(([^)]+)\)|\]\[([^\]]+)\]", cells[-1])
        target = link and (link.group(1) or refs.get(link.group(2), ""))
        assert target and (ROOT / target).is_file(), row
        assert re.search(r"20\d\d-\d\d-\d\d", cells[-2]) and "core" in cells[-2], row


# the guides' lengths (commands first; their long forms are in research/), in lines
LONGEST = {"training.md": 250, "agents.md": 200, "environments.md": 250, "rendering.md": 250}


def test_the_guides_are_short_and_no_line_of_a_user_page_runs_past_120_characters():
    """A page reads on a laptop without a scroll sideways: no line over 120 characters (the
    specification, RULES.md, excepted: it is the rules as written), and the guides keep to
    their lengths."""
    long_lines = [f"{p.name}:{n} ({len(line)})" for p in [ROOT / "README.md", *PAGES]
                  if p.name != "RULES.md"
                  for n, line in enumerate(p.read_text().splitlines(), 1) if len(line) > 120]
    assert not long_lines, long_lines
    lengths = {name: len((DOCS / name).read_text().splitlines()) for name in LONGEST}
    assert all(lengths[name] <= most for name, most in LONGEST.items()), lengths


DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
CODE_ISSUE = re.compile(r"(?i)\bissues? #\d+")  # (in code, "#222" is a colour)


def test_the_product_says_what_is_true_now():
    """No date or issue number in the product's code, comments or docstrings (history is in the
    changelog and research/), nor in any command's --help."""
    from typer.main import get_command

    from machu_env.cli import app

    sources = [p for folder in ("machu_env", "agents", "train")
               for p in (ROOT / folder).rglob("*.py")]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sources
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if DATE.search(line) or CODE_ISSUE.search(line)]
    assert not found, found
    group = get_command(app)
    for name, command in group.commands.items():
        ctx = command.make_context(name, ["--help"], resilient_parsing=True)
        text = command.get_help(ctx)
        assert not DATE.search(text) and not ISSUE_NUMBER.search(text), (name, text)


def test_user_pages_keep_dates_in_tables_and_result_files_not_in_prose():
    """A measurement's date and machine stand in its table row or its result file; the prose of
    the README and the user pages says what is true now (the changelog keeps the history)."""
    pages = [ROOT / "README.md", *(p for p in PAGES if p.name not in ("RULES.md",))]
    found = [f"{p.name}:{n}: {line.strip()[:80]}" for p in pages
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if DATE.search(line) and not line.lstrip().startswith("|")]
    assert DATE.search("on 2026-11-24") and not DATE.search("2026-11")
    assert not found, found


def test_the_architecture_page_states_the_state_size_of_the_code():
    from machu_env.rules.layout import STATE_SIZE

    text = " ".join((ROOT / "docs" / "architecture.md").read_text().split())
    assert f"`machu_env.rules.layout.STATE_SIZE` entries ({STATE_SIZE * 4} bytes)" in text
