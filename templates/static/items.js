/* The item-level table of a run page. Item text (one file set per benchmark version) and this run's
   outcomes arrive as compressed script chunks, loaded when a page of the table needs them (a filter,
   search or item permalink loads them all); script files, not fetch(), so it works over file://.
   Every value is inserted as text, never as HTML. */
(function () {
  "use strict";
  var root = document.getElementById("items-app");
  if (!root) { return; }
  var BB = window.BB;
  var meta = JSON.parse(root.getAttribute("data-meta"));
  var base = root.getAttribute("data-root");
  var I = { id: 0, attempt: 1, status: 2, correct: 3, score: 4, pred: 5, ref: 6, cat: 7, diff: 8, wall: 9,
            tin: 10, tout: 11, extra: 12, choices: 13 };
  var PAGE = 100;
  var rows = new Array(meta.rows);  // assembled rows in the layout above, filled as chunks arrive
  var runChunks = {};
  var setChunks = {};

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function fail(message) {
    root.textContent = "";
    root.appendChild(el("p", { "class": "banner warn" }, message));
  }
  if (!window.DecompressionStream) {
    fail("The item table needs a current browser (one with DecompressionStream); the same rows are in the attempts download below.");
    return;
  }

  /* -- Chunks: a script stores base64 deflated JSON under BBDATA[key]; inflate it here. -- */
  function script(path, key) {
    var store = window.BBDATA = window.BBDATA || {};
    return new Promise(function (resolve, reject) {
      if (store[key] !== undefined) { resolve(store[key]); return; }
      var tag = document.createElement("script");
      tag.src = base + path;
      tag.onload = function () { tag.remove(); if (store[key] === undefined) { reject(new Error(path)); } else { resolve(store[key]); } };
      tag.onerror = function () { tag.remove(); reject(new Error(path)); };
      document.body.appendChild(tag);
    });
  }
  function inflate(packed) {
    return window.BB.inflate(packed).then(JSON.parse);
  }
  function setChunk(k) {
    if (!setChunks[k]) {
      setChunks[k] = script("items/" + meta.set + "." + k + ".js", "set:" + meta.set + ":" + k).then(inflate);
    }
    return setChunks[k];
  }
  function merged(a, b) {
    if (!a && !b) { return null; }
    var out = {};
    [a, b].forEach(function (x) { if (x) { Object.keys(x).forEach(function (k) { out[k] = x[k]; }); } });
    return out;
  }
  function runChunk(k) {
    if (!runChunks[k]) {
      runChunks[k] = script("runs/" + meta.key + ".items." + k + ".js", "items:" + meta.key + ":" + k).then(inflate)
        .then(function (data) {
          var needed = {};
          data.forEach(function (r) { needed[Math.floor(r[0] / meta.chunk)] = true; });
          var ks = Object.keys(needed).map(Number);
          return Promise.all(ks.map(setChunk)).then(function (sets) {
            var byChunk = {};
            ks.forEach(function (sk, i) { byChunk[sk] = sets[i]; });
            data.forEach(function (r, j) {
              var item = byChunk[Math.floor(r[0] / meta.chunk)][r[0] % meta.chunk];
              rows[k * meta.chunk + j] = [item[0], r[1], r[2], r[3], r[4], r[5], r[6] !== null ? r[6] : item[1],
                item[2], item[3], r[7], r[8], r[9], merged(item[4], r[10]), r[11]];
            });
          });
        });
    }
    return runChunks[k];
  }
  function ensure(start, end) {
    var jobs = [];
    for (var k = Math.floor(start / meta.chunk); k * meta.chunk < Math.min(end, meta.rows); k += 1) { jobs.push(runChunk(k)); }
    return Promise.all(jobs);
  }

  var multiAttempt = meta.multiAttempt;
  var show = meta.show;
  var columns = [["Item", "id"]];
  if (multiAttempt) { columns.push(["#", "attempt"]); }
  columns.push(["Status", "status"], ["Correct", "correct"]);
  if (show.score) { columns.push(["Score", "score"]); }
  if (show.pred) { columns.push(["Prediction", "pred"]); }
  if (show.ref) { columns.push(["Reference", "ref"]); }
  if (show.cat) { columns.push(["Category", "cat"]); }
  if (show.diff) { columns.push(["Difficulty", "diff"]); }
  if (show.wall) { columns.push(["Time", "wall"]); }
  if (show.tokens) { columns.push(["Tokens in/out", "tokens"]); }

  function select(label, id, counts) {
    var wrap = el("label", { "class": "field" }, label);
    var s = el("select", { id: id });
    s.appendChild(el("option", { value: "" }, "all (" + meta.rows + ")"));
    Object.keys(counts).sort().forEach(function (k) { s.appendChild(el("option", { value: k }, k + " (" + counts[k] + ")")); });
    wrap.appendChild(s);
    return [wrap, s];
  }

  var controls = el("form", { "class": "controls", role: "search", "aria-label": "Filter items" });
  var searchWrap = el("label", { "class": "field" }, "Item id contains");
  var search = el("input", { type: "search", id: "items-q", autocomplete: "off" });
  searchWrap.appendChild(search);
  controls.appendChild(searchWrap);
  var statusSel = select("Status", "items-status", meta.statuses);
  controls.appendChild(statusSel[0]);
  var catSel = show.cat ? select("Category", "items-cat", meta.categories) : null;
  if (catSel) { controls.appendChild(catSel[0]); }
  controls.addEventListener("submit", function (e) { e.preventDefault(); });
  root.appendChild(controls);

  var pager = el("div", { "class": "pager" });
  var prev = el("button", { type: "button" }, "← Previous");
  var next = el("button", { type: "button" }, "Next →");
  var info = el("span", { "class": "muted", "aria-live": "polite" });
  pager.appendChild(prev); pager.appendChild(info); pager.appendChild(next);

  var wrap = el("div", { "class": "table-wrap" });
  var table = el("table", { "class": "data compact", id: "items-table" });
  table.appendChild(el("caption", {}, "Every attempt of this run; activate an item id for its details"));
  var head = el("thead"); var hr = el("tr");
  columns.forEach(function (c) {
    hr.appendChild(el("th", { scope: "col", "class": ["attempt", "score", "wall", "tokens"].indexOf(c[1]) >= 0 ? "num" : "" }, c[0]));
  });
  head.appendChild(hr); table.appendChild(head);
  var body = el("tbody"); table.appendChild(body);
  wrap.appendChild(table);
  root.appendChild(pager);
  root.appendChild(wrap);

  var page = 0;
  var open = {};
  var target = null;
  var filtered = null;  // null: every row, in order

  function fmtNum(v, digits) { return v === null || v === undefined ? "—" : Number(v).toFixed(digits); }
  function keyOf(r) { return r[I.id] + "\u0000" + r[I.attempt]; }

  function detail(r) {
    var td = el("td", { colspan: String(columns.length) });
    var extra = r[I.extra] && typeof r[I.extra] === "object" ? r[I.extra] : null;
    var link = el("a", { href: "#item=" + encodeURIComponent(r[I.id]) }, "Permalink to this item");
    td.appendChild(el("p", {})).appendChild(link);
    if (extra) {
      meta.textKeys.forEach(function (pair) {
        var k = pair[0];
        if (extra[k] !== undefined && extra[k] !== null && extra[k] !== "") {
          td.appendChild(el("h4", {}, pair[1]));
          td.appendChild(el("pre", { "class": "text" }, typeof extra[k] === "string" ? extra[k] : JSON.stringify(extra[k], null, 2)));
        }
      });
    }
    var choices = r[I.choices];
    if (choices && choices.length) {
      var t = el("table", { "class": "data compact" });
      t.appendChild(el("caption", {}, "Per-choice log-probabilities"));
      var h = el("tr");
      [["Choice", ""], ["Mean log-prob", "num"], ["Sum log-prob", "num"], ["Tokens", "num"], ["", ""]].forEach(function (x) { h.appendChild(el("th", { scope: "col", "class": x[1] }, x[0])); });
      var th = el("thead"); th.appendChild(h); t.appendChild(th);
      var tb = el("tbody");
      choices.forEach(function (c) {
        var tr = el("tr");
        var marks = [];
        if (r[I.pred] !== null && String(c[0]) === String(r[I.pred])) { marks.push("chosen"); }
        if (r[I.ref] !== null && String(c[0]) === String(r[I.ref])) { marks.push("reference"); }
        tr.appendChild(el("th", { scope: "row" }, c[0]));
        tr.appendChild(el("td", { "class": "num" + (marks.indexOf("chosen") >= 0 ? " choice-pred" : "") }, fmtNum(c[3], 4)));
        tr.appendChild(el("td", { "class": "num" }, fmtNum(c[1], 3)));
        tr.appendChild(el("td", { "class": "num" }, c[2] === null ? "—" : c[2]));
        tr.appendChild(el("td", {}, marks.join(", ")));
        tb.appendChild(tr);
      });
      t.appendChild(tb);
      var tw = el("div", { "class": "table-wrap" }); tw.appendChild(t); td.appendChild(tw);
    }
    if (extra) {
      var rest = {};
      Object.keys(extra).forEach(function (k) {
        if (!meta.textKeys.some(function (pair) { return pair[0] === k; })) { rest[k] = extra[k]; }
      });
      if (Object.keys(rest).length) {
        td.appendChild(el("h4", {}, "Other recorded fields"));
        td.appendChild(el("pre", { "class": "json" }, JSON.stringify(rest, null, 2)));
      }
    }
    if (!extra && !(choices && choices.length)) {
      td.appendChild(el("p", { "class": "muted" }, root.getAttribute("data-redacted") === "1" ?
        "Item text is not published for this benchmark." : "No further fields were recorded."));
    }
    var tr = el("tr", { "class": "detail" });
    tr.appendChild(td);
    return tr;
  }

  function cell(r, c) {
    var k = c[1];
    var td = el("td");
    if (k === "id") {
      td = el("th", { scope: "row" });
      var b = el("button", { type: "button", "class": "item-toggle", "aria-expanded": open[keyOf(r)] ? "true" : "false" }, r[I.id]);
      b.addEventListener("click", function () {
        open[keyOf(r)] = !open[keyOf(r)];
        render();
      });
      td.appendChild(b);
    } else if (k === "attempt") { td.className = "num"; td.textContent = r[I.attempt]; }
    else if (k === "status") { td.appendChild(el("span", { "class": "badge status-" + String(r[I.status]).replace(/[^a-z0-9_-]/gi, "") }, r[I.status])); }
    else if (k === "correct") {
      var v = r[I.correct];
      td.appendChild(v === null ? el("span", { "class": "muted" }, "—") : el("span", { "class": v ? "ok" : "no" }, v ? "✓ yes" : "✗ no"));
    }
    else if (k === "score") { td.className = "num"; td.textContent = fmtNum(r[I.score], 2); }
    else if (k === "pred" || k === "ref") { td.className = "text"; var code = el("code", {}, r[I[k]] === null ? "—" : r[I[k]]); td.appendChild(code); }
    else if (k === "cat") { td.textContent = r[I.cat] === null ? "—" : r[I.cat]; }
    else if (k === "diff") { td.textContent = r[I.diff] === null ? "—" : r[I.diff]; }
    else if (k === "wall") { td.className = "num"; td.textContent = r[I.wall] === null ? "—" : fmtNum(r[I.wall], 1) + " s"; }
    else if (k === "tokens") { td.className = "num"; td.textContent = (r[I.tin] === null ? "—" : r[I.tin]) + " / " + (r[I.tout] === null ? "—" : r[I.tout]); }
    return td;
  }

  function filtering() {
    return !!(search.value.trim() || statusSel[1].value || (catSel && catSel[1].value));
  }
  function applyFilters() {
    if (!filtering()) { filtered = null; return; }
    var q = search.value.trim().toLowerCase();
    var st = statusSel[1].value;
    var cat = catSel ? catSel[1].value : "";
    filtered = rows.filter(function (r) {
      return (!q || String(r[I.id]).toLowerCase().indexOf(q) >= 0) && (!st || r[I.status] === st) && (!cat || r[I.cat] === cat);
    });
  }
  function total() { return filtered ? filtered.length : meta.rows; }

  /* Load what the view needs (one page unfiltered; everything to filter), then draw it; only the latest
     request draws. */
  var pending = 0;
  function refresh(all) {
    var ticket = pending += 1;
    info.textContent = "Loading items…";
    var start = Math.max(page, 0) * PAGE;
    var need = all || filtering() ? ensure(0, meta.rows) : ensure(start, start + PAGE);
    return need.then(function () {
      if (ticket !== pending) { return false; }
      applyFilters();
      render();
      root.classList.remove("loading");
      return true;
    }, function (err) {
      fail("The item data of this run did not load (" + err.message + ").");
      return false;
    });
  }

  function render() {
    var pages = Math.max(1, Math.ceil(total() / PAGE));
    page = Math.min(Math.max(page, 0), pages - 1);
    body.textContent = "";
    var slice = (filtered || rows).slice(page * PAGE, (page + 1) * PAGE);
    slice.forEach(function (r) {
      var tr = el("tr");
      if (target !== null && keyOf(r) === target) { tr.className = "target"; tr.id = "item-target"; }
      columns.forEach(function (c) { tr.appendChild(cell(r, c)); });
      body.appendChild(tr);
      if (open[keyOf(r)]) { body.appendChild(detail(r)); }
    });
    if (!slice.length) {
      var tr = el("tr"); tr.appendChild(el("td", { colspan: String(columns.length), "class": "empty" }, "No item matches."));
      body.appendChild(tr);
    }
    info.textContent = total() ? "Items " + (page * PAGE + 1) + "–" + (page * PAGE + slice.length) + " of " + total() +
      (total() < meta.rows ? " (filtered from " + meta.rows + ")" : "") : "0 items";
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }

  function remember() {
    BB.writeHash({ q: search.value.trim() || null, status: statusSel[1].value || null,
                   cat: catSel && catSel[1].value ? catSel[1].value : null, page: page ? String(page + 1) : null, item: null });
  }
  function changed() { page = 0; target = null; refresh(false); remember(); }
  search.addEventListener("input", changed);
  statusSel[1].addEventListener("change", changed);
  if (catSel) { catSel[1].addEventListener("change", changed); }
  prev.addEventListener("click", function () { page -= 1; refresh(false); remember(); });
  next.addEventListener("click", function () { page += 1; refresh(false); remember(); });

  function find(id) {
    var list = filtered || rows;
    for (var i = 0; i < list.length; i += 1) { if (list[i] && String(list[i][I.id]) === id) { return i; } }
    return -1;
  }
  function fromHash() {
    var state = BB.readHash();
    search.value = state.q || "";
    statusSel[1].value = state.status || "";
    if (catSel) { catSel[1].value = state.cat || ""; }
    page = state.page ? parseInt(state.page, 10) - 1 || 0 : 0;
    target = null;
    var item = state.item;
    return refresh(item !== undefined).then(function (drawn) {
      if (!drawn || item === undefined) { return; }
      var idx = find(item);
      if (idx < 0 && filtering()) {
        search.value = ""; statusSel[1].value = ""; if (catSel) { catSel[1].value = ""; }
        applyFilters();
        idx = find(item);
      }
      if (idx >= 0) {
        target = keyOf((filtered || rows)[idx]);
        open[target] = true;
        page = Math.floor(idx / PAGE);
      }
      render();
      var node = document.getElementById("item-target");
      if (node) {
        node.querySelector("button").focus({ preventScroll: true });
        // After the browser's own fragment scrolling (it finds no element named by the fragment); the
        // row lands just below the sticky header (the page's scroll padding), like any anchor.
        setTimeout(function () { node.scrollIntoView({ block: "start" }); }, 0);
      }
    });
  }
  window.addEventListener("hashchange", function () {
    fromHash().then(function () {
      if (!document.getElementById("item-target")) { root.scrollIntoView({ block: "start" }); }
    });
  });
  fromHash();
})();
