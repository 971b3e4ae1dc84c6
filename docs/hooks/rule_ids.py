"""MkDocs hook: every rule of RULES.md (a line that starts with its id, ``R2.8 ...``) gets an
anchor of that id, so that ``RULES.md#R2.8`` links to the rule."""

from __future__ import annotations

import re

RULE = re.compile(r"^(R\d+(?:\.\d+)+)(?=\s)", re.M)


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if page.file.src_uri != "RULES.md":
        return markdown
    return RULE.sub(r'<a id="\1"></a>**\1**', markdown)
