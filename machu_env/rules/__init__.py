"""The rules' tables, below the engine: every name and number of RULES.md §1 and §11
(``data``), the state layout (``layout``: where each value lives in the state array) and the
action ids and notation of RULES.md §12 (``actions``). No code here runs a rule."""
