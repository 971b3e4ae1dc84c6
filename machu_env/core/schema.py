"""Schemas for the JSON files a command reads back (a run's state, a probe's summary, a folder's
mark): every key, type and range checked before any work or write, and anything else refused in
one line that names the file and the field::

    STATE = schema.record({"num_timesteps": schema.integer(0, 2**40),
                           "elapsed_seconds?": schema.number(0, 1e9)})
    steps = files.read_json(path, STATE)["num_timesteps"]

A rule is a function ``rule(value, field)`` that returns the value or raises ``Invalid``;
``check(rule)`` turns one into the ``check(data, where)`` that ``files.read_json`` takes.
A key ending in ``?`` is optional; other keys of a record are kept unless ``closed``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Rule = Callable[[Any, str], Any]


class Invalid(ValueError):
    """A value that is not what its field allows (the message names the field)."""


def _fail(field: str, allowed: str, value: Any) -> Invalid:
    return Invalid(f"{field or 'the file'} must be {allowed}, got {_shown(value)}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def integer(lo: int, hi: int) -> Rule:
    def rule(value: Any, field: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise _fail(field, f"an integer in {lo}..{hi}", value)
        return value
    return rule


def number(lo: float, hi: float) -> Rule:
    """A finite number in [lo, hi] (an int counts)."""
    def rule(value: Any, field: str) -> float:
        if not isinstance(value, (int, float)) or isinstance(value, bool) \
                or not lo <= value <= hi:
            raise _fail(field, f"a number in [{lo:g}, {hi:g}]", value)
        return value
    return rule


def text(max_len: int = 2000) -> Rule:
    def rule(value: Any, field: str) -> str:
        if not isinstance(value, str) or len(value) > max_len:
            raise _fail(field, f"text of at most {max_len} characters", value)
        return value
    return rule


def boolean(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(field, "true or false", value)
    return value


def one_of(*allowed: Any) -> Rule:
    def rule(value: Any, field: str) -> Any:
        if isinstance(value, bool) or value not in allowed:
            raise _fail(field, f"one of {', '.join(map(repr, allowed))}", value)
        return value
    return rule


def nullable(inner: Rule) -> Rule:
    def rule(value: Any, field: str) -> Any:
        return None if value is None else inner(value, field)
    return rule


def list_of(inner: Rule, max_len: int = 10_000, length: int | None = None) -> Rule:
    def rule(value: Any, field: str) -> list:
        if not isinstance(value, list) or len(value) > max_len \
                or (length is not None and len(value) != length):
            size = f"{length}" if length is not None else f"at most {max_len}"
            raise _fail(field, f"a list of {size} items", value)
        return [inner(v, f"{field}[{i}]") for i, v in enumerate(value)]
    return rule


def map_of(inner: Rule, max_len: int = 10_000) -> Rule:
    """An object of any keys (text), each value ``inner``."""
    def rule(value: Any, field: str) -> dict:
        if not isinstance(value, dict) or len(value) > max_len:
            raise _fail(field, f"an object of at most {max_len} entries", value)
        return {k: inner(v, f"{field}.{k}" if field else k) for k, v in value.items()}
    return rule


def record(spec: dict[str, Rule], closed: bool = False) -> Rule:
    """An object with the keys of ``spec`` (``key?``: optional), each checked by its rule."""
    keys = {k.rstrip("?") for k in spec}

    def rule(value: Any, field: str) -> dict:
        if not isinstance(value, dict):
            raise _fail(field, f"an object with {', '.join(sorted(keys))}", value)
        for key, inner in spec.items():
            name = key.rstrip("?")
            path = f"{field}.{name}" if field else name
            if name in value:
                inner(value[name], path)
            elif not key.endswith("?"):
                raise Invalid(f"{path} is missing")
        if closed and set(value) - keys:
            raise Invalid(f"{field or 'the file'} has unknown keys "
                          f"{sorted(set(value) - keys)} (allowed: {', '.join(sorted(keys))})")
        return value
    return rule


def check(rule: Rule, what: str = "") -> Callable[[Any, str], Any]:
    """``rule`` as ``files.read_json``'s ``check``: ValueError ``"<file>: <field> must be ..."``
    (``what``: what the file should be, said after it)."""
    def checked(data: Any, where: str) -> Any:
        try:
            return rule(data, "")
        except Invalid as e:
            raise Invalid(f"{where}: {e}{f' (not {what})' if what else ''}") from None
    return checked
