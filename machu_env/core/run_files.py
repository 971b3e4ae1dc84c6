"""A folder a command writes into (``machu train``'s run, a recipe's, a probe's), which knows
exactly which files it wrote.

``RunFolder.claim(root, command)`` registers the folder with ``core.files``: from then on every
file written under it through ``core.files`` is named in the folder's mark, ``.machu-train.json``,
with its identity (inode, size, modification time), before it is moved into place. So:

- a write over a file the mark does not name as it is now (the user's ``agent.safetensors``,
  a file copied over one of the run's) is refused, and nothing is overwritten;
- ``files.remove`` and ``RunFolder.remove_written`` remove only files the mark names as they
  are, and folders the command created that are empty then;
- a start that wrote nothing leaves no mark (the mark is written with the first file).

A run the user resumes is theirs to continue: ``adopt`` records its run files as they are (a
folder copied elsewhere, one whose mark an earlier version wrote, ``{"kind": "machu train run
folder"}`` with no list).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from machu_env.core import files, schema

MARK = ".machu-train.json"
KIND = "machu run folder"
LEGACY_KIND = "machu train run folder"  # a mark without a list of files
MAX_FILES = 100_000

_MARK = schema.record({
    "kind": schema.one_of(KIND, LEGACY_KIND), "command?": schema.text(100),
    "files?": schema.map_of(schema.list_of(schema.integer(0, 2**63), length=3), MAX_FILES),
    "folders?": schema.list_of(schema.text(4096), MAX_FILES),
    "library_folders?": schema.list_of(schema.text(4096), 100)})


class RunFolder:
    """The mark of ``root`` (see the module); every method reads it afresh."""

    def __init__(self, root: str | Path, command: str) -> None:
        self.root, self.command = Path(root), command
        self._created: list[str] = []  # folders made before the mark exists
        self._made: list[Path] = []  # the root and the folders above it that claim created

    @classmethod
    def claim(cls, root: str | Path, command: str) -> RunFolder:
        """``root`` (created with its missing parents, which ``remove_written`` removes again
        when empty) and its mark, registered: writes under it are recorded from now on."""
        folder = cls(root, command)
        root = Path(root)
        folder._made = [p for p in (root, *root.parents) if not os.path.lexists(p)]
        files.make_folder(root)
        files.register(folder.root, folder)
        return folder

    def release(self) -> None:
        files.unregister(self.root)

    # --- the mark -------------------------------------------------------------------------------
    @property
    def mark_path(self) -> Path:
        return self.root / MARK

    def read(self) -> dict[str, Any] | None:
        """The mark (None: none, or one that is not a mark: then the folder owns nothing)."""
        if not os.path.lexists(self.mark_path):
            return None
        try:
            return files.read_json(self.mark_path, schema.check(_MARK), 1_000_000 + 64 * MAX_FILES,
                                   links=False)
        except ValueError:
            return None

    def marked(self) -> bool:
        return self.read() is not None

    def _write(self, mark: dict[str, Any]) -> None:
        mark = {"kind": KIND, "command": self.command, "files": mark.get("files", {}),
                "folders": sorted({*mark.get("folders", []), *self._created}),
                "library_folders": mark.get("library_folders", [])}
        files.write_json(self.mark_path, mark, indent=None)  # (the mark is not recorded)

    def _rel(self, path: Path) -> str:
        return os.path.relpath(files.resolved(path.parent) / path.name, files.resolved(self.root))

    # --- what core.files asks -------------------------------------------------------------------
    def may_write(self, path: Path) -> None:
        """Refuse to write over a file this folder's command did not write."""
        if path.name == MARK and files.resolved(path.parent) == files.resolved(self.root):
            return  # (the mark itself)
        if os.path.lexists(path) and not self.wrote(path):
            raise files.FileRefused(
                f"{path} was not written by this {self.command} run (a file of yours, or one "
                f"changed since): nothing was overwritten; move it away or choose another --out")

    def record(self, path: Path, ident: list[int]) -> None:
        if path.name == MARK and files.resolved(path.parent) == files.resolved(self.root):
            return
        mark = self.read() or {}
        mark.setdefault("files", {})[self._rel(path)] = ident
        self._write(mark)

    def record_folder(self, path: Path) -> None:
        if files.resolved(path) != files.resolved(self.root):
            self._created.append(self._rel(path))

    def library_folder(self, path: Path) -> Path:
        """``path``, a folder a library writes into (TensorBoard's event files), created and
        named in the mark: the files in it are this command's."""
        files.make_folder(path)
        mark = self.read() or {}
        rel = self._rel(path)
        if rel not in mark.get("library_folders", []):
            mark["library_folders"] = [*mark.get("library_folders", []), rel]
            self._write(mark)
        return path

    def wrote(self, path: Path) -> bool:
        """Whether ``path`` is a regular file the mark names as it is now (or one in a folder
        a library writes into)."""
        mark = self.read()
        if mark is None or not os.path.lexists(path):
            return False
        st = os.lstat(path)
        rel = self._rel(path)
        if any(rel.startswith(folder + os.sep) for folder in mark.get("library_folders", [])):
            return stat.S_ISREG(st.st_mode)
        return stat.S_ISREG(st.st_mode) \
            and mark.get("files", {}).get(self._rel(path)) == files.identity(st)

    def forget(self, path: Path) -> None:
        mark = self.read()
        if mark is not None and mark.get("files", {}).pop(self._rel(path), None) is not None:
            self._write(mark)

    # --- what commands ask ----------------------------------------------------------------------
    def foreign(self, names: Iterable[str]) -> list[str]:
        """Of ``names`` (relative to the root), those present that this command did not write
        (a folder: present and holding any file it did not write)."""
        found = []
        for name in names:
            path = self.root / name
            if path.is_dir() and not path.is_symlink():
                if any(not self._any_wrote(p) for p in path.rglob("*") if not p.is_dir()
                       and p.name != MARK):
                    found.append(name)
            elif os.path.lexists(path) and not self._any_wrote(path):
                found.append(name)
        return found

    def _any_wrote(self, path: Path) -> bool:
        """``wrote``, asked of the deepest marked folder holding ``path`` (a phase's or a
        probe's folder inside a recipe's keeps a mark of its own)."""
        root, where = files.resolved(self.root), files.resolved(path.parent)
        for folder in (where, *where.parents):
            if os.path.lexists(folder / MARK) or folder == root:
                return RunFolder(folder, self.command).wrote(path)
        return False

    def adopt(self, adopt: Callable[[str], bool]) -> None:
        """The files ``adopt(relative name)`` names, as they are now, recorded as this
        command's: a run the user resumes (``--resume`` says the folder is the run's, even
        copied elsewhere or written by an earlier version whose mark named no files)."""
        mark = self.read() or {}
        owned = dict(mark.get("files", {}))
        for path in self.root.rglob("*"):
            rel = self._rel(path)
            if path.is_file() and not path.is_symlink() and path.name != MARK and adopt(rel):
                owned[rel] = files.identity(os.lstat(path))
        if owned != mark.get("files"):
            self._write({**mark, "files": owned})

    def remove_written(self, under: str = "", keep: Iterable[str] = ()) -> None:
        """Remove what this command wrote (under ``under``, not ``keep``), the folders it made
        that are empty then, and the mark when it names nothing more."""
        mark = self.read()
        if mark is None:
            self._remove_folders(self._created)
            self._remove_made()
            return
        keep = set(keep)
        written = mark.get("files", {})
        for rel in list(written):
            if rel.startswith(under) and rel not in keep and self.wrote(self.root / rel):
                os.unlink(self.root / rel)
                del written[rel]
        self._write(mark)
        self._remove_folders([*mark.get("folders", []), *self._created])
        if not mark.get("files"):
            self.mark_path.unlink(missing_ok=True)
            self._remove_made()

    def drop_if_unused(self) -> None:
        """A start that wrote nothing: the folders ``claim`` created are removed again."""
        if not self.marked():
            self._remove_folders(self._created)
            self._remove_made()

    def _remove_made(self) -> None:
        for path in self._made:  # (deepest first)
            try:
                path.rmdir()
            except OSError:
                break

    def _remove_folders(self, rels: Iterable[str]) -> None:
        for rel in sorted(set(rels), key=lambda r: -r.count(os.sep)):
            path = self.root / rel
            if path.is_dir() and not path.is_symlink():
                files.clear_partial(path)
                with contextlib.suppress(OSError):  # (not empty: someone else's file)
                    path.rmdir()
