"""The one file layer (``core.files``, ``core.schema``): whole writes through an exclusive
unpredictable temporary file, bounded reads of regular files only, schemas that name the field."""

from __future__ import annotations

import json
import os
import time

import pytest

from machu_env.core import files, schema


def test_a_write_never_follows_a_planted_link(tmp_path):
    """A link planted at every name the old scheme used (``.NAME.partial-<pid>``) and at a
    range of pids: the write goes through none of them, and the target is a regular file."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"the user's")
    target = tmp_path / "agent.safetensors"
    for pid in [os.getpid(), *range(1, 200)]:
        (tmp_path / f".agent.safetensors.partial-{pid}").symlink_to(victim)
    files.write_bytes(target, b"new")
    assert victim.read_bytes() == b"the user's"
    assert target.read_bytes() == b"new" and not target.is_symlink()


@pytest.mark.parametrize("kind", ["link", "folder", "fifo"])
def test_a_write_over_something_not_a_regular_file_is_refused(tmp_path, kind):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep")
    target = tmp_path / "out.json"
    if kind == "link":
        target.symlink_to(victim)
    elif kind == "folder":
        target.mkdir()
    else:
        os.mkfifo(target)
    with pytest.raises(ValueError, match="writes only regular files"):
        files.write_json(target, {"a": 1})
    assert victim.read_bytes() == b"keep"
    assert not list(tmp_path.glob(".*partial*"))  # no temporary file left


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    target = tmp_path / "summary.json"
    files.write_json(target, {"v": 1})

    def stop(f):
        f.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        files.write_with(target, stop)
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]


def test_json_is_strict_nan_is_written_as_null(tmp_path):
    path = files.write_json(tmp_path / "s.json", {"margin": float("nan"), "ci": [float("inf")]})
    assert json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(c)) == {
        "margin": None, "ci": [None]}


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "folder"])
def test_a_read_refuses_what_is_not_a_regular_file_at_once(tmp_path, kind):
    path = tmp_path / "recipe.json"
    if kind == "fifo":
        os.mkfifo(path)  # (a blocking open would wait for a writer for ever)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")  # (read whole: gigabytes, then a MemoryError)
    else:
        path.mkdir()
    t0 = time.monotonic()
    with pytest.raises(ValueError, match="recipe.json"):
        files.read_json(path)
    assert time.monotonic() - t0 < 5


def test_reads_are_bounded_and_links_refused_where_asked(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b"0," * 1000 + b"0]")
    with pytest.raises(ValueError, match="larger than 1 kB"):
        files.read_json(big, limit=1000)
    link = tmp_path / "link.json"
    link.symlink_to(big)
    assert len(files.read_json(link, limit=10_000)) == 1001
    with pytest.raises(ValueError, match="symbolic link"):
        files.read_json(link, limit=10_000, links=False)


STATE = schema.check(schema.record({
    "kept": schema.record({"timesteps": schema.integer(0, 100)}),
    "ci95?": schema.list_of(schema.number(0, 1), length=2)}), "a run's state")


@pytest.mark.parametrize("data, field", [
    ({"kept": 5}, "kept must be an object"),
    ({"kept": {}}, "kept.timesteps is missing"),
    ({"kept": {"timesteps": "a"}}, "kept.timesteps must be an integer in 0..100, got 'a'"),
    ({"kept": {"timesteps": True}}, "kept.timesteps must be an integer"),
    ({"kept": {"timesteps": 1}, "ci95": [0.5]}, "ci95 must be a list of 2 items"),
    ([], "the file must be an object"),
])
def test_a_schema_names_the_file_and_the_field(tmp_path, data, field):
    path = files.write_json(tmp_path / "state.json", data)
    with pytest.raises(ValueError) as e:
        files.read_json(path, STATE)
    assert str(e.value).startswith(f"{path}: {field}") and "a run's state" in str(e.value)
    assert "\n" not in str(e.value)
