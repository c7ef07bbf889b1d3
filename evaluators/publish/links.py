"""Where every page and file of the site lives: stable, unique, URL-safe names for models, runs,
benchmarks, attempts and their media, as paths relative to the site root."""

from __future__ import annotations

import hashlib
import re

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def _hash(text: str, n: int = 8) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def _slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")[:40].strip("-.") or "x"


class Slugs:
    """Stable, unique, filesystem- and URL-safe names for model names, run ids, benchmarks."""

    def __init__(self) -> None:
        self._by_text: dict[str, str] = {}
        self._taken: set[str] = set()

    def __call__(self, text: str) -> str:
        if text in self._by_text:
            return self._by_text[text]
        slug = text if _SAFE_NAME.match(text) else f"{_slugify(text)}-{_hash(text)}"
        if slug.lower() in self._taken:  # also distinct on case-insensitive file systems
            slug = f"{_slugify(text)}-{_hash(text, 16)}"
        self._taken.add(slug.lower())
        self._by_text[text] = slug
        return slug


class Links:
    """Site-root-relative paths of every page; templates prefix them with `root`."""

    def __init__(self) -> None:
        self.model_slug, self.run_slug, self.bench_slug = Slugs(), Slugs(), Slugs()
        self.diffs: dict[tuple[str, str], str] = {}

    def model(self, name: str) -> str:
        return f"models/{self.model_slug(name)}.html"

    def run(self, run_id: str) -> str:
        return f"runs/{self.run_slug(run_id)}.html"

    def items(self, run_id: str, chunk: int) -> str:
        """A chunk of a run's item rows (see `itemdata`)."""
        return f"runs/{self.run_slug(run_id)}.items.{chunk}.js"

    def item_set(self, slug: str, chunk: int) -> str:
        """A chunk of an item set's text (see `itemdata`)."""
        return f"items/{slug}.{chunk}.js"

    def bench(self, name: str) -> str:
        return f"benchmarks/{self.bench_slug(name)}.html"

    def task(self, run_id: str, item_id: str) -> str:
        """The page of one task's attempts in a run (one page per task, not per attempt: thousands fewer files)."""
        return f"attempts/{self.run_slug(run_id)}/{_slugify(item_id)}-{_hash(item_id, 6)}.html"

    def attempt(self, run_id: str, item_id: str, attempt: int) -> str:
        """An attempt: its section on its task's page (an anchor, so the link works from file:// too)."""
        return f"{self.task(run_id, item_id)}#attempt-{attempt}"

    def app(self, run_id: str, item_id: str, attempt: int) -> str:
        return f"apps/{self.run_slug(run_id)}/{_slugify(item_id)}-{_hash(item_id, 6)}-{attempt}"

    def media(self, run_id: str, item_id: str, attempt: int, kind: str, suffix: str) -> str:
        return f"media/{self.run_slug(run_id)}/{_slugify(item_id)}-{_hash(item_id, 6)}-{attempt}-{kind}{suffix}"

    def diff(self, model: str, baseline: str) -> str | None:
        return self.diffs.get((model, baseline))

    def add_diff(self, model: str, baseline: str) -> str:
        path = f"diffs/{self.model_slug(model)}--vs--{_slugify(baseline)}-{_hash(baseline)}.html"
        self.diffs[(model, baseline)] = path
        return path
