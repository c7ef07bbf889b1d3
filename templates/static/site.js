/* Site behaviour without any framework: theme toggle, sortable tables, leaderboard and gallery
   filters, and permalinks that keep the view's state in the URL fragment (works over file://). */
(function () {
  "use strict";
  var BB = window.BB = window.BB || {};

  /* -- Deflated data (item chunks, artifacts): base64 text -> a promise of the inflated string. -- */
  BB.inflate = function (packed) {
    var bin = atob(packed);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i += 1) { bytes[i] = bin.charCodeAt(i); }
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"))).text();
  };

  /* -- URL fragment state: "#key=value&other=x"; bare anchors ("#run-x") are kept as keys. -- */
  BB.readHash = function () {
    var state = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      if (!part) { return; }
      var i = part.indexOf("=");
      try {
        state[decodeURIComponent(i < 0 ? part : part.slice(0, i))] = i < 0 ? "" : decodeURIComponent(part.slice(i + 1));
      } catch (e) { /* malformed escape: ignore that part */ }
    });
    return state;
  };
  BB.writeHash = function (changes) {
    var state = BB.readHash();
    Object.keys(changes).forEach(function (k) {
      if (changes[k] === null || changes[k] === undefined || changes[k] === false) { delete state[k]; } else { state[k] = String(changes[k]); }
    });
    var parts = Object.keys(state).map(function (k) {
      return encodeURIComponent(k) + (state[k] === "" ? "" : "=" + encodeURIComponent(state[k]));
    });
    var hash = parts.length ? "#" + parts.join("&") : "";
    try {
      history.replaceState(null, "", location.pathname + location.search + hash);
    } catch (e) {
      if (hash) { location.hash = hash; }
    }
  };

  /* -- Anchors land below the sticky header, whatever its height (it wraps on narrow screens). -- */
  var header = document.querySelector("header.top");
  function syncHeaderHeight() {
    if (header) { document.documentElement.style.setProperty("--header-h", header.offsetHeight + "px"); }
  }
  syncHeaderHeight();
  window.addEventListener("resize", syncHeaderHeight);

  /* -- Theme: auto → light → dark, remembered in localStorage. -- */
  var THEMES = ["auto", "light", "dark"];
  function showTheme(button, theme) {
    button.querySelector(".theme-label").textContent = "Theme: " + theme;
    button.title = theme === "auto" ? "Colour theme: follows the system (click for light)" :
      "Colour theme: " + theme + " (click to change)";
  }
  var toggle = document.getElementById("theme-toggle");
  if (toggle) {
    showTheme(toggle, document.documentElement.getAttribute("data-theme") || "auto");
    toggle.addEventListener("click", function () {
      var current = document.documentElement.getAttribute("data-theme") || "auto";
      var next = THEMES[(THEMES.indexOf(current) + 1) % THEMES.length];
      document.documentElement.setAttribute("data-theme", next);
      try { localStorage.setItem("bananabench-theme", next); } catch (e) { /* storage blocked */ }
      showTheme(toggle, next);
    });
  }

  /* -- Sortable tables: header buttons sort by each cell's data-v (numbers) or text. -- */
  function cellValue(table, row, col, text) {
    var cell = row.cells[col];
    if (!cell) { return null; }
    if (table.classList.contains("official-only") && cell.getAttribute("data-official") === "0") { return null; }
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent.trim();
    if (raw === "" || raw === "—") { return null; }
    if (text) { return raw.toLowerCase(); }
    var n = parseFloat(raw);
    return isNaN(n) ? null : n;
  }
  BB.sortTable = function (table, col, dir, remember) {
    var button = table.querySelector('thead button[data-col="' + col + '"]');
    if (!button) { return; }
    var text = button.getAttribute("data-type") === "text";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      return { row: row, v: cellValue(table, row, col, text), i: i };
    });
    rows.sort(function (a, b) {
      if (a.v === null && b.v === null) { return a.i - b.i; }
      if (a.v === null) { return 1; }
      if (b.v === null) { return -1; }
      var c = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
      return (dir === "asc" ? c : -c) || a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
    Array.prototype.forEach.call(table.querySelectorAll("thead th[aria-sort]"), function (th) {
      th.setAttribute("aria-sort", "none");
    });
    button.closest("th").setAttribute("aria-sort", dir === "asc" ? "ascending" : "descending");
    table.setAttribute("data-sorted", col + "." + dir);
    if (remember && table.id) {
      var change = {};
      change["sort." + table.id] = col + "." + dir;
      BB.writeHash(change);
    }
  };
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    table.addEventListener("click", function (event) {
      var button = event.target.closest("thead button[data-col]");
      if (!button) { return; }
      var th = button.closest("th");
      var col = button.getAttribute("data-col");
      var current = th.getAttribute("aria-sort");
      var text = button.getAttribute("data-type") === "text";
      var higherIsBetter = th.getAttribute("data-higher") !== "0";
      var first = text ? "asc" : (higherIsBetter ? "desc" : "asc");
      var dir = current === "ascending" ? "desc" : current === "descending" ? "asc" : first;
      BB.sortTable(table, col, dir, true);
    });
    var saved = table.id && BB.readHash()["sort." + table.id];
    if (saved) {
      var parts = saved.split(".");
      BB.sortTable(table, parts[0], parts[1] === "asc" ? "asc" : "desc", false);
    }
  });

  /* -- Leaderboard: filter by model name, official runs only. -- */
  var board = document.getElementById("leaderboard");
  if (board) {
    var input = document.getElementById(board.getAttribute("data-filter"));
    var official = document.getElementById(board.getAttribute("data-official"));
    var count = document.getElementById(board.getAttribute("data-count"));
    var empty = document.getElementById("lb-empty");
    var state = BB.readHash();
    if (state.q) { input.value = state.q; }
    if (state.official === "1") { official.checked = true; }
    var applyFilter = function (remember) {
      var q = input.value.trim().toLowerCase();
      var onlyOfficial = official.checked;
      board.classList.toggle("official-only", onlyOfficial);
      var rows = board.tBodies[0].rows;
      var shown = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var show = !q || row.cells[0].textContent.toLowerCase().indexOf(q) >= 0;
        if (show && onlyOfficial) {
          show = !!row.querySelector('td:not([data-official="0"]):not([data-v=""])');
        }
        row.hidden = !show;
        if (show) { shown += 1; }
      });
      count.textContent = shown === rows.length ? rows.length + " models" : shown + " of " + rows.length + " models";
      empty.hidden = shown > 0;
      var sorted = board.getAttribute("data-sorted");
      if (sorted) {
        var p = sorted.split(".");
        BB.sortTable(board, p[0], p[1], false);
      }
      if (remember) { BB.writeHash({ q: q || null, official: onlyOfficial ? "1" : null }); }
    };
    input.addEventListener("input", function () { applyFilter(true); });
    official.addEventListener("change", function () { applyFilter(true); });
    document.getElementById("lb-controls").addEventListener("submit", function (e) { e.preventDefault(); });
    applyFilter(false);
  }

  /* -- Gallery: filter cards by task or model. -- */
  var galleryFilter = document.getElementById("gallery-filter");
  if (galleryFilter) {
    var applyGallery = function (remember) {
      var q = galleryFilter.value.trim().toLowerCase();
      Array.prototype.forEach.call(document.querySelectorAll(".gallery-task"), function (section) {
        var any = false;
        Array.prototype.forEach.call(section.querySelectorAll(".shot-card"), function (card) {
          var show = !q || card.getAttribute("data-filter-text").indexOf(q) >= 0;
          card.hidden = !show;
          any = any || show;
        });
        section.hidden = !any;
      });
      if (remember) { BB.writeHash({ q: q || null }); }
    };
    var initial = BB.readHash().q;
    if (initial) { galleryFilter.value = initial; }
    galleryFilter.addEventListener("input", function () { applyGallery(true); });
    galleryFilter.form.addEventListener("submit", function (e) { e.preventDefault(); });
    applyGallery(false);
  }

  /* -- A task page's text artifacts arrive deflated (logs and diffs would otherwise be most of a site's
     size); each is inflated into its <pre> as text, never as HTML. -- */
  document.querySelectorAll("pre[data-deflated]").forEach(function (pre) {
    if (!window.DecompressionStream) {
      pre.textContent = "This artifact needs a current browser (one with DecompressionStream).";
      return;
    }
    BB.inflate(pre.getAttribute("data-deflated")).then(function (text) {
      pre.textContent = text;
      pre.removeAttribute("data-deflated");
    }, function () { pre.textContent = "This artifact could not be read."; });
  });
})();
