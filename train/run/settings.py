"""Each training and probe setting is declared once, as a dataclass field (CleanRL's ``Args``):
its type (the annotation), its default, its range and its help. Everything else derives from
the declaration: the ``machu train`` / ``machu exploit`` options (``options``), the checks of a
config (``check_declared``), and the reading of ``config.json`` and of a recipe's settings
(``from_mapping``)."""

from __future__ import annotations

import math
import typing
from dataclasses import Field, field, fields
from typing import Any

from machu_env.core.checks import check_int


def setting(default: Any, help: str, low: float | None = None, high: float | None = None, *,
            above: bool = False, unset: float | None = None,
            choices: tuple[str, ...] | None = None, resumable: bool = False) -> Any:
    """A setting's declaration: ``low``/``high`` bound a number (inclusive; ``above``: the
    number must be above ``low``), ``unset`` is a value allowed outside them (-1: "no
    schedule"), ``choices`` the strings a text setting may take, ``resumable``: a resumed run
    takes it from the command line (where and how long it runs), not from the run's saved
    settings."""
    return field(default=default, metadata={"help": help, "low": low, "high": high,
                                            "above": above, "unset": unset,
                                            "choices": choices, "resumable": resumable})


def resumable(cls: type) -> tuple[str, ...]:
    """The settings of ``cls`` that a resume may change, in declaration order."""
    return tuple(f.name for f in fields(cls) if f.metadata.get("resumable"))


def redefault(cls: type, name: str, default: Any) -> Any:
    """``cls``'s declaration of ``name`` with another default (a subclass's: a run's against a
    probe's): the type, the range and the help stay those of the one declaration."""
    declared = next(f for f in fields(cls) if f.name == name)
    return field(default=default, metadata=declared.metadata)


def choices_of(cls: type, name: str) -> tuple[str, ...]:
    """The strings the setting ``name`` of ``cls`` may take, as declared."""
    return next(f.metadata["choices"] for f in fields(cls) if f.name == name)


def types(cls: type) -> dict[str, type]:
    """Each field's type, resolved (the modules use postponed annotations)."""
    return typing.get_type_hints(cls)


def _check(f: Field, kind: type, value: Any) -> None:
    low, high = f.metadata.get("low"), f.metadata.get("high")
    name = f.name
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false, got {value!r}")
    elif kind is int:
        check_int(name, value, int(low) if low is not None else -(2**63),
                  int(high) if high is not None else None)
    elif kind is float:
        _check_number(f, value)
    elif f.metadata.get("choices") and value not in f.metadata["choices"]:
        raise ValueError(f"{name} must be one of {', '.join(f.metadata['choices'])}, got "
                         f"{value!r:.60}")
    elif not isinstance(value, kind):
        word = "string" if kind is str else kind.__name__
        raise ValueError(f"{name} must be a {word}, got {value!r}")


def _check_number(f: Field, value: Any) -> None:
    low, high, above = f.metadata.get("low"), f.metadata.get("high"), f.metadata.get("above")
    unset = f.metadata.get("unset")
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and unset is not None and value == unset:
        return
    if low is not None and high is not None:
        inside = number and (low < value if above else low <= value) and value <= high
        if not inside:
            span = f"{'(' if above else '['}{low:g}, {high:g}]"
            also = f"{unset:g} or " if unset is not None else ""
            raise ValueError(f"{f.name} must be {also}a number in {span}, got {value!r}")
    elif not number or not math.isfinite(value):
        raise ValueError(f"{f.name} must be a finite number, got {value!r}")


def check_declared(obj: Any) -> None:
    """Every field of ``obj`` has its declared type and lies in its declared range;
    ValueError naming the setting and what is allowed otherwise."""
    kinds = types(type(obj))
    for f in fields(obj):
        _check(f, kinds[f.name], getattr(obj, f.name))


def from_mapping(cls: type, data: dict[str, Any], where: str) -> dict[str, Any]:
    """The settings of ``data`` that ``cls`` declares, each of its declared type (an int where
    a float is declared is taken as that float); ValueError naming ``where`` and the setting
    otherwise. Names ``cls`` does not declare are left out."""
    kinds = types(cls)
    values = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        v, kind = data[f.name], kinds[f.name]
        ok = (isinstance(v, bool) if kind is bool else
              isinstance(v, (int, float)) and not isinstance(v, bool) if kind is float else
              isinstance(v, kind) and not isinstance(v, bool))
        if not ok:
            raise ValueError(f"{where}: setting {f.name!r} must be a {kind.__name__}, got {v!r}")
        values[f.name] = kind(v)
    return values


def options(cls: type, names: tuple[str, ...] | None = None) -> list:
    """``typer`` options for the fields of ``cls`` (``names``: only these, in this order):
    ``--n-envs`` for ``n_envs`` (``--overlap/--no-overlap`` for a flag), the declared default
    and help. Ranges are checked by
    ``check_declared`` after parsing, so that the CLI's message is the config's."""
    import inspect

    import typer

    kinds = types(cls)
    by_name = {f.name: f for f in fields(cls)}
    out = []
    for name in names if names is not None else list(by_name):
        f = by_name[name]
        option = typer.Option(f.default, help=f.metadata.get("help", ""))
        out.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option,
                                     annotation=kinds[name]))
    return out


def option(cls: type, name: str, help: str | None = None) -> Any:
    """A ``typer`` option for another command of the setting ``name`` of ``cls``: the declared
    default and range (checked as the command line is read), its help unless the command
    says what the setting means there (``help``)."""
    import typer

    f = next(f for f in fields(cls) if f.name == name)
    low, high = f.metadata.get("low"), f.metadata.get("high")
    kind = types(cls)[name]
    bounds = ({"min": kind(low) if low is not None else None,
               "max": kind(high) if high is not None else None}
              if kind in (int, float) else {})
    return typer.Option(f.default, help=help or f.metadata.get("help", ""), **bounds)
