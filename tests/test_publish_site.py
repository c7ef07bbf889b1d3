"""`bananabench publish` and `bananabench report` as real processes: the files a site is made of.

Static checks over every published file: relative links only, no inline script or event handler,
no `javascript:` URL, the ids-only benchmark's item text nowhere (pages, scripts, CSV, Parquet),
atomic replacement of an earlier site, and clean refusals of bad input.
"""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from evaluators.publish.queries.itemdata import unpack
from tests.conftest import run_cli
from tests.helpers.publish_fixture import GATED_MARKER
from tests.helpers.site_check import page_problems, site_pages


@pytest.fixture(scope="module")
def site(published_site) -> Path:
    return published_site


def test_every_page_is_self_contained_and_script_free(site):
    assert len(site_pages(site)) > 40
    assert page_problems(site) == []


def test_model_text_is_escaped_in_pages(site):
    text = "\n".join(p.read_text(encoding="utf-8") for p in site_pages(site))
    assert "<script>alert" not in text and "onerror=alert(1)>" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;" in text  # the XSS model name, as text
    assert 'href="javascript:' not in text.lower()


def test_ids_only_item_text_is_in_no_published_file(site):
    chunks = [*site.glob("runs/*.items.*.js"), *site.glob("items/*.js")]
    assert chunks and all(GATED_MARKER not in unpack(p.read_text()) for p in chunks)
    for path in site.rglob("*"):
        if path.is_file() and path.suffix != ".parquet":
            data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            assert GATED_MARKER.encode() not in data, path
    con = duckdb.connect()
    for parquet in (site / "data" / "parquet").rglob("*.parquet"):
        dump = con.execute(f"SELECT * FROM '{parquet}'").fetchall()
        assert GATED_MARKER not in repr(dump), parquet
    # The export still says which items were right.
    rows = con.execute(f"SELECT count(*) FROM '{site}/data/parquet/attempts/*.parquet' a JOIN "
                       f"'{site}/data/parquet/runs.parquet' r USING (run_id) WHERE r.benchmark = 'base-bench' "
                       "AND a.correct IS NOT NULL AND a.prediction IS NULL").fetchone()[0]
    assert rows > 0


def test_private_build_includes_gated_text_and_says_so(publish_store, tmp_path):
    root, _ = publish_store
    out = tmp_path / "private"
    assert run_cli("publish", "--results", str(root), "--out", str(out), "--private").returncode == 0
    texts = [unpack(p.read_text(encoding="utf-8")) for p in (out / "items").glob("*.js")]
    assert any(GATED_MARKER in t for t in texts)
    assert "Private build" in (out / "index.html").read_text(encoding="utf-8")


def test_site_layout_downloads_and_sizes(site):
    for name in ("index.html", "gallery.html", "compare.html", "data.html", "diffs/index.html",
                 "assets/style.css", "assets/site.js", "assets/summaries.js", "data/csv/scores.csv.gz",
                 "data/parquet/scores.parquet", ".bananabench-site"):
        assert (site / name).is_file(), name
    assert (site / "index.html").stat().st_size < 200_000
    assert len(list((site / "diffs").glob("*--vs--*.html"))) == 2  # alpha and the XSS model vs beta
    shots = list((site / "media").rglob("*.png"))
    assert shots and all(p.read_bytes().startswith(b"\x89PNG") for p in shots)
    app_pages = [p for p in (site / "apps").rglob("*") if p.is_file()]
    assert app_pages and all(p.suffix == ".html" and b'sandbox="allow-scripts"' in p.read_bytes() for p in app_pages)
    assert all(b"srcdoc=" in p.read_bytes() and b"default-src &#39;none&#39;" in p.read_bytes() for p in app_pages)


def test_attempt_pages_show_the_verdict_and_test_machinery_flags(site):
    flagged = [p for p in (site / "attempts").rglob("*.html") if "Changes to the test machinery" in p.read_text()]
    assert flagged
    page = flagged[0].read_text()
    assert "none of 3 expected tests is in the grader&#39;s record" in page
    assert "&lt;script&gt;alert(&#39;flag&#39;)&lt;/script&gt;os._exit(0)" in page and "<script>alert(" not in page


def test_a_task_page_holds_each_attempt_under_the_anchor_its_links_use(site):
    """One page per (run, task), not per attempt; every link to an attempt lands on its section."""
    pages = list((site / "attempts").rglob("*.html"))
    assert pages and all(p.read_text().count('<section class="attempt"') == 2 for p in pages)
    links = {href for page in [*(site / "runs").glob("*.html"), site / "gallery.html"]
             for href in re.findall(r'href="((?:\.\./)*attempts/[^"]+)"', page.read_text())}
    assert links and all("#attempt-" in href for href in links)
    for href in links:
        path, anchor = href.lstrip("./").split("#")
        assert f'id="{anchor}"' in (site / path).read_text(), href


def test_republish_replaces_the_site_atomically(publish_store, tmp_path):
    root, _ = publish_store
    out = tmp_path / "site"
    assert run_cli("publish", "--results", str(root), "--out", str(out)).returncode == 0
    stale = out / "models" / "stale.html"
    stale.write_text("old")
    # A broken template fails the build: the previous site stays whole, no temp folder is left.
    templates = tmp_path / "templates"
    shutil.copytree(Path(__file__).resolve().parent.parent / "templates", templates)
    (templates / "gallery.html.j2").write_text("{% extends 'base.html.j2' %}{% block main %}{{ nope.x }}{% endblock %}")
    proc = run_cli("publish", "--results", str(root), "--out", str(out), "--templates", str(templates))
    assert proc.returncode != 0
    assert stale.exists() and (out / "index.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "templates"]
    assert run_cli("publish", "--results", str(root), "--out", str(out)).returncode == 0
    assert not stale.exists()


def test_publish_bad_input(publish_store, tmp_path):
    root, _ = publish_store
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    proc = run_cli("publish", "--results", str(root), "--out", str(precious))
    assert proc.returncode == 2 and "not made by `bananabench publish`" in proc.stderr
    assert (precious / "notes.txt").read_text() == "keep me"
    proc = run_cli("publish", "--results", str(tmp_path / "nothing"), "--out", str(tmp_path / "s"))
    assert proc.returncode == 2 and "no results database" in proc.stderr
    assert not (tmp_path / "s").exists() and not (tmp_path / "nothing").exists()
    proc = run_cli("publish", "--results", str(root), "--out", str(tmp_path / "s"), "--baseline", "nobody")
    assert proc.returncode == 2 and "nobody" in proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["precious"]


def test_report_cli(publish_store, tmp_path):
    root, _ = publish_store
    proc = run_cli("report", "--results", str(root))
    assert proc.returncode == 0 and "BananaBench leaderboard" in proc.stdout
    out = tmp_path / "alpha.md"
    proc = run_cli("report", "--results", str(root), "--model", "alpha-7b", "--baseline", "beta-3b", "--md",
                   "--out", str(out))
    assert proc.returncode == 0 and out.read_text().startswith("# Report: alpha-7b")
    proc = run_cli("report", "--results", str(root), "--model", "alpha-7b", "--out", str(out))
    assert proc.returncode == 2 and "already exists" in proc.stderr
    assert run_cli("report", "--results", str(root), "--compare").returncode == 0
    proc = run_cli("report", "--results", str(root), "--compare", "--model", "alpha-7b")
    assert proc.returncode == 2
    assert run_cli("report", "--results", str(root), "--model", "nobody").returncode == 2


def test_demo_step_publishes_last_and_notes_the_path(publish_store, tmp_path):
    from evaluators import demo
    from evaluators.publish import demo as publish_demo
    from evaluators.store.store import Store
    assert demo.STEP_MODULES[-1] == "evaluators.publish.demo"
    root, _ = publish_store
    ctx = demo.DemoContext(store=Store(root), work=tmp_path / "work", site=tmp_path / "site")
    publish_demo.run(ctx)
    assert (tmp_path / "site" / "index.html").is_file()
    assert ctx.notes == [f"site: {(tmp_path / 'site' / 'index.html').resolve()} (open it in a browser; it works "
                         "from disk)"]
    # With nothing recorded yet (no evaluator step ran), the demo still ends with a (empty) site.
    empty = demo.DemoContext(store=Store(tmp_path / "fresh"), work=tmp_path / "work", site=tmp_path / "site2")
    publish_demo.run(empty)
    assert "No finished runs yet" in (tmp_path / "site2" / "index.html").read_text()


def test_pages_workflow_builds_the_site_it_uploads(publish_store, tmp_path):
    import yaml

    workflow = yaml.safe_load((Path(__file__).resolve().parent.parent / ".github/workflows/pages.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    build = next(s["run"] for s in steps if s.get("name") == "Build the site")
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert "deploy-pages" in workflow["jobs"]["deploy"]["steps"][0]["uses"]
    # Run the workflow's publish command the way CI does: from a checkout holding results/.
    root, _ = publish_store
    shutil.copytree(root, tmp_path / "results")
    args = build.split()
    assert args[:2] == ["bananabench", "publish"]
    proc = run_cli(*args[1:], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / upload["with"]["path"] / "index.html").is_file()


def test_exports_are_complete_one_file_per_model_for_attempt_tables(site, publish_store):
    """Every visible run's attempts are in the per-model files, once, in both formats."""
    root, _ = publish_store
    con = duckdb.connect()
    con.execute(f"ATTACH '{root / 'bananabench.duckdb'}' AS store (READ_ONLY)")
    expected = con.execute("SELECT count(*) FROM store.attempts a JOIN store.runs r USING (run_id) "
                           "WHERE NOT r.hidden").fetchone()[0]
    for pattern in ("data/parquet/attempts/*.parquet", "data/csv/attempts/*.csv.gz"):
        assert con.execute(f"SELECT count(*) FROM '{site}/{pattern}'").fetchone()[0] == expected, pattern
    models = {p.stem for p in (site / "models").glob("*.html")}
    assert {p.name.removesuffix(".csv.gz") for p in (site / "data" / "csv" / "attempts").iterdir()} <= models
