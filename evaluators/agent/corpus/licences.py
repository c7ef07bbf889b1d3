"""Which licence a repository is under, read from its licence files.

An imported task redistributes a project's code, so its provenance records the licence that was in force at
the imported commit: the SPDX identifier recognised from each licence file's text (several files, as in
dual-licensed Rust crates, combine with OR). A file whose text is not recognised stays unnamed, so a task
never claims a licence that nobody read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

# LICENSE, LICENCE.txt, LICENSE-MIT, COPYING, COPYING.LESSER, UNLICENSE ...
_LICENCE_NAME = re.compile(r"^(un)?licen[cs]e([-._][\w.-]+)?$|^copying([-._][\w.-]+)?$", re.IGNORECASE)
_SPDX_LINE = re.compile(r"SPDX-License-Identifier:\s*([\w.+-]+(?:\s+(?:OR|AND|WITH)\s+[\w.+-]+)*)")

# (identifier, phrases that must all occur, in normalised lower-case text); the first match wins.
_SIGNATURES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Apache-2.0", ("apache license", "version 2.0")),
    ("MPL-2.0", ("mozilla public license", "2.0")),
    ("LGPL-3.0", ("gnu lesser general public license", "version 3")),
    ("LGPL-2.1", ("gnu lesser general public license", "version 2.1")),
    ("AGPL-3.0", ("gnu affero general public license", "version 3")),
    ("GPL-3.0", ("gnu general public license", "version 3")),
    ("GPL-2.0", ("gnu general public license", "version 2")),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "neither the name")),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "names of its contributors")),
    ("BSD-2-Clause", ("redistribution and use in source and binary forms",)),
    ("MIT", ("permission is hereby granted, free of charge",)),
    ("ISC", ("permission to use, copy, modify, and/or distribute this software for any purpose",)),
    ("Unlicense", ("this is free and unencumbered software released into the public domain",)),
    ("PSF-2.0", ("python software foundation license",)),
)


def is_licence_file(name: str) -> bool:
    return bool(_LICENCE_NAME.match(name))


def identify(text: str) -> str | None:
    """The SPDX identifier of one licence text, or None when it is not recognised."""
    words = " ".join(text.lower().split())
    for identifier, phrases in _SIGNATURES:
        if all(phrase in words for phrase in phrases):
            return identifier
    spdx = _SPDX_LINE.search(text)
    return spdx.group(1) if spdx else None


def licence_of(names: Iterable[str], read: Callable[[str], bytes]) -> tuple[str | None, list[str]]:
    """The licence expression and the files it was read from, given a project's top-level file names."""
    found: dict[str, None] = {}
    files = []
    for name in sorted(n for n in names if is_licence_file(n)):
        identifier = identify(read(name).decode("utf-8", errors="replace"))
        if identifier:
            found.setdefault(identifier)
            files.append(name)
    return (" OR ".join(found) if found else None), files
