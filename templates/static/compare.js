/* The compare picker: two models side by side from the precomputed summaries (assets/summaries.js).
   Values are inserted as text; the pair is kept in the URL fragment (#a=...&b=...) as a permalink. */
(function () {
  "use strict";
  var out = document.getElementById("compare");
  var data = (window.BBDATA || {}).summaries;
  if (!out || !data) { return; }
  var BB = window.BB;
  var selA = document.getElementById("cmp-a");
  var selB = document.getElementById("cmp-b");

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function value(kind, v) {
    if (v === null || v === undefined) { return "—"; }
    if (kind === "fraction") { return (100 * v).toFixed(1) + "%"; }
    if (kind === "rating") { return v.toFixed(0); }
    if (kind === "grade") { return v.toFixed(1) + "/5"; }
    if (kind === "count") { return String(Math.round(v)); }
    return Number(v.toPrecision(3)).toString();
  }
  function halfWidth(kind, lo, hi) {
    if (lo === null || hi === null || lo === undefined || hi === undefined) { return ""; }
    var w = (hi - lo) / 2;
    if (kind === "fraction") { return "±" + (100 * w).toFixed(1); }
    if (kind === "rating") { return "±" + w.toFixed(0); }
    return "±" + Number(w.toPrecision(2)).toString();
  }
  function delta(kind, d) {
    var sign = d > 0 ? "+" : d < 0 ? "−" : "±";
    var a = Math.abs(d);
    if (kind === "fraction") { return sign + (100 * a).toFixed(1) + " pp"; }
    if (kind === "rating") { return sign + a.toFixed(0); }
    return sign + Number(a.toPrecision(3)).toString();
  }

  /* Paired tests: the pairwise matrix the benchmark pages show (computed at publish time for each
     headline, over the items both runs scored), looked up for the chosen pair. */
  function pairedCell(col, i, a, b) {
    var td = el("td", { "class": "num" });
    var table = (data.pairs || {})[String(i)];
    var ia = data.models.indexOf(a), ib = data.models.indexOf(b);
    var found = null;
    (table || []).forEach(function (p) {
      if (p[0] === ia && p[1] === ib) { found = p; } else if (p[0] === ib && p[1] === ia) { found = [ia, ib, -p[2], -p[4], -p[3], p[5], p[6], p[7], p[8]]; }
    });
    if (!found) {
      td.textContent = "—";
      td.title = col.headline ? "no paired test for this pair (too few items both runs scored)" :
        "paired tests cover each benchmark's headline metric";
      return td;
    }
    var p = found[5];
    td.textContent = "p = " + (p < 0.001 ? "<0.001" : p.toFixed(3));
    td.title = found[8] + " on " + found[7] + " paired items: B − A = " + delta(col.kind, -found[2]) +
      "; Holm-adjusted over the benchmark's pairs p = " + (found[6] < 0.001 ? "<0.001" : found[6].toFixed(3));
    if (found[6] < 0.05) { td.className += " sig"; }
    return td;
  }

  if (data.models.length < 2) {
    out.appendChild(el("p", { "class": "empty-note" }, "Comparing needs at least two models with finished runs."));
    return;
  }
  var references = data.references || [];
  data.models.forEach(function (m) {
    var label = references.indexOf(m) >= 0 ? m + " (reference run, not a model)" : m;
    selA.appendChild(el("option", { value: m }, label));
    selB.appendChild(el("option", { value: m }, label));
  });

  function valueCell(kind, entry, official, reportable) {
    var td = el("td", { "class": "num" });
    if (!entry || entry[0] === null) { td.textContent = "—"; td.className += " empty"; return td; }
    td.appendChild(document.createTextNode(value(kind, entry[0])));
    var pm = halfWidth(kind, entry[1], entry[2]);
    if (pm) { td.appendChild(el("small", { "class": "pm" }, pm)); }
    if (official === false) { td.appendChild(el("span", { "class": "mark unofficial", title: "non-official run" }, "◇")); }
    if (reportable === false) { td.appendChild(el("span", { "class": "mark nr", title: "not reportable" }, "†")); }
    if (entry[3] !== null && entry[3] !== undefined) { td.title = "n = " + entry[3]; }
    return td;
  }
  function deltaCell(kind, higher, a, b) {
    var td = el("td", { "class": "num" });
    if (!a || !b || a[0] === null || b[0] === null) { td.textContent = "—"; return td; }
    var d = b[0] - a[0];
    td.textContent = delta(kind, d);
    if (d !== 0) { td.className += (d > 0) === higher ? " pos" : " neg"; }
    return td;
  }

  function render() {
    var a = selA.value, b = selB.value;
    out.textContent = "";
    var diff = data.diffs.filter(function (x) { return (x[0] === b && x[1] === a) || (x[0] === a && x[1] === b); })[0];
    if (diff) {
      var p = el("p", { "class": "banner note" });
      p.appendChild(document.createTextNode("Paired tests for this pair: "));
      p.appendChild(el("a", { href: diff[2] }, diff[0] + " vs " + diff[1]));
      out.appendChild(p);
    }
    var va = data.values[a] || {}, vb = data.values[b] || {};
    var wrap = el("div", { "class": "table-wrap" });
    var table = el("table", { "class": "data", id: "compare-table" });
    table.appendChild(el("caption", {}, "Headlines of the current runs (Δ = B − A; each side's own 95% interval; " +
      "headlines also get the benchmark page's paired test on the items both runs scored)"));
    var head = el("thead"); var hr = el("tr");
    [["Benchmark", ""], ["Metric", ""], ["A: " + a, "num"], ["B: " + b, "num"], ["Δ (B − A)", "num"],
     ["Paired test", "num"]].forEach(function (h) {
      hr.appendChild(el("th", { scope: "col", "class": h[1] }, h[0]));
    });
    head.appendChild(hr); table.appendChild(head);
    var body = el("tbody");
    data.columns.forEach(function (col, i) {
      var ea = va[String(i)], eb = vb[String(i)];
      if (!ea && !eb) { return; }
      var tr = el("tr");
      var th = el("th", { scope: "row" });
      th.appendChild(el("a", { href: col.href }, col.title));
      if (col.split) { th.appendChild(document.createTextNode(" · " + col.split)); }
      tr.appendChild(th);
      tr.appendChild(el("td", {}, col.label));
      tr.appendChild(valueCell(col.kind, ea, ea && ea[5], ea && ea[6]));
      tr.appendChild(valueCell(col.kind, eb, eb && eb[5], eb && eb[6]));
      tr.appendChild(deltaCell(col.kind, col.higher, ea, eb));
      tr.appendChild(pairedCell(col, i, a, b));
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    out.appendChild(wrap);

    var ca = data.categories[a] || {}, cb = data.categories[b] || {};
    data.columns.forEach(function (col) {
      var key = col.bench + "|" + col.split;
      var pa = ca[key] || {}, pb = cb[key] || {};
      var keys = Object.keys(pa).concat(Object.keys(pb).filter(function (k) { return !(k in pa); })).sort();
      if (!keys.length || !col.headline) { return; }
      var details = el("details", { "class": "more" });
      details.appendChild(el("summary", {}, col.title + (col.split ? " · " + col.split : "") + ": " + col.label + " by category"));
      var w = el("div", { "class": "table-wrap" });
      var t = el("table", { "class": "data compact" });
      var h = el("tr");
      [["Category", ""], ["A", "num"], ["B", "num"], ["Δ", "num"]].forEach(function (x) { h.appendChild(el("th", { scope: "col", "class": x[1] }, x[0])); });
      var th = el("thead"); th.appendChild(h); t.appendChild(th);
      var tb = el("tbody");
      keys.forEach(function (k) {
        var tr = el("tr");
        tr.appendChild(el("th", { scope: "row" }, k));
        tr.appendChild(valueCell(col.kind, pa[k]));
        tr.appendChild(valueCell(col.kind, pb[k]));
        tr.appendChild(deltaCell(col.kind, col.higher, pa[k], pb[k]));
        tb.appendChild(tr);
      });
      t.appendChild(tb); w.appendChild(t); details.appendChild(w); out.appendChild(details);
    });
  }

  function fromHash() {
    var state = BB.readHash();
    selA.value = data.models.indexOf(state.a) >= 0 ? state.a : data.models[0];
    selB.value = data.models.indexOf(state.b) >= 0 ? state.b : data.models[1];
    render();
  }
  function changed() { BB.writeHash({ a: selA.value, b: selB.value }); render(); }
  selA.addEventListener("change", changed);
  selB.addEventListener("change", changed);
  document.getElementById("cmp-swap").addEventListener("click", function () {
    var t = selA.value; selA.value = selB.value; selB.value = t; changed();
  });
  document.getElementById("compare-form").addEventListener("submit", function (e) { e.preventDefault(); });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
