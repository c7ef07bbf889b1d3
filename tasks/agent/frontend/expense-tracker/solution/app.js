(function () {
  'use strict';

  var KEY = 'household-expenses-v1';
  var CATEGORIES = ['Groceries', 'Rent', 'Transport', 'Eating out', 'Fun', 'Other'];
  var COLORS = ['#2f6f5e', '#c7663a', '#3b6bb3', '#d1a21b', '#8a4fb0', '#7a7a7a'];
  var euro = new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' });

  var expenses = load();
  var monthInput = document.getElementById('month');
  var filterSelect = document.getElementById('filter-category');
  var form = document.getElementById('add');
  var errorEl = document.getElementById('error');

  function load() {
    try {
      var data = JSON.parse(localStorage.getItem(KEY));
      if (Array.isArray(data)) return data;
    } catch (e) { /* start empty */ }
    return [];
  }

  function save() {
    try { localStorage.setItem(KEY, JSON.stringify(expenses)); } catch (e) { errorEl.textContent = 'Could not save (storage full?).'; }
  }

  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function isoToday() { var d = new Date(); return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()); }
  function money(cents) { return euro.format(cents / 100); }

  function parseCents(text) {
    var t = text.trim().replace(',', '.');
    if (!/^\d+(\.\d{1,2})?$/.test(t)) return null;
    var parts = t.split('.');
    var cents = Number(parts[0]) * 100 + Number(((parts[1] || '') + '00').slice(0, 2));
    return cents > 0 && cents <= 100000000 ? cents : null;
  }

  function selected() {
    var month = monthInput.value;
    var cat = filterSelect.value;
    return expenses.filter(function (e) {
      return e.date.slice(0, 7) === month && (!cat || e.category === cat);
    }).sort(function (a, b) { return b.date.localeCompare(a.date) || b.created - a.created; });
  }

  function perCategory(list) {
    var sums = {};
    CATEGORIES.forEach(function (c) { sums[c] = 0; });
    list.forEach(function (e) { sums[e.category] += e.cents; });
    return sums;
  }

  function drawChart(sums) {
    var canvas = document.getElementById('chart');
    var ratio = window.devicePixelRatio || 1;
    var width = canvas.clientWidth || 480, height = canvas.clientHeight || 260;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    var ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var max = Math.max.apply(null, CATEGORIES.map(function (c) { return sums[c]; }).concat([1]));
    var left = 12, bottom = height - 34, top = 24;
    var slot = (width - left * 2) / CATEGORIES.length;
    ctx.font = '12px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.strokeStyle = '#e3dfd6';
    ctx.beginPath(); ctx.moveTo(left, bottom + 0.5); ctx.lineTo(width - left, bottom + 0.5); ctx.stroke();
    CATEGORIES.forEach(function (c, i) {
      var h = (bottom - top) * sums[c] / max;
      var x = left + slot * i + slot * 0.18;
      ctx.fillStyle = COLORS[i];
      ctx.fillRect(x, bottom - h, slot * 0.64, h);
      ctx.fillStyle = '#222';
      ctx.fillText(c, x + slot * 0.32, bottom + 16);
      if (sums[c] > 0) ctx.fillText(money(sums[c]), x + slot * 0.32, bottom - h - 6);
    });
  }

  function render() {
    var list = selected();
    var monthOnly = expenses.filter(function (e) { return e.date.slice(0, 7) === monthInput.value; });
    var sums = perCategory(monthOnly);
    var total = monthOnly.reduce(function (s, e) { return s + e.cents; }, 0);
    document.getElementById('total').textContent = money(total);
    var per = document.getElementById('per-category');
    per.textContent = '';
    CATEGORIES.forEach(function (c, i) {
      var li = document.createElement('li');
      var name = document.createElement('span');
      var sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = COLORS[i];
      name.appendChild(sw);
      name.appendChild(document.createTextNode(c));
      var value = document.createElement('span');
      value.textContent = money(sums[c]);
      li.appendChild(name);
      li.appendChild(value);
      per.appendChild(li);
    });
    drawChart(sums);
    var ul = document.getElementById('list');
    ul.textContent = '';
    list.forEach(function (e) {
      var li = document.createElement('li');
      var date = document.createElement('span');
      date.className = 'date';
      date.textContent = e.date;
      var what = document.createElement('span');
      what.textContent = e.category;
      if (e.note) {
        var note = document.createElement('span');
        note.className = 'note';
        note.textContent = ' — ' + e.note;
        what.appendChild(note);
      }
      var amount = document.createElement('span');
      amount.className = 'amount';
      amount.textContent = money(e.cents);
      var del = document.createElement('button');
      del.type = 'button';
      del.className = 'link';
      del.textContent = 'Delete';
      del.setAttribute('aria-label', 'Delete ' + e.category + ' ' + money(e.cents) + ' on ' + e.date);
      del.addEventListener('click', function () {
        expenses = expenses.filter(function (x) { return x.id !== e.id; });
        save();
        render();
      });
      li.appendChild(date);
      li.appendChild(what);
      li.appendChild(amount);
      li.appendChild(del);
      ul.appendChild(li);
    });
    document.getElementById('empty').hidden = list.length > 0;
  }

  function csvField(value) {
    var s = String(value);
    return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function exportCsv() {
    var rows = [['date', 'category', 'amount_eur', 'note']];
    selected().slice().reverse().forEach(function (e) {
      rows.push([e.date, e.category, (e.cents / 100).toFixed(2), e.note || '']);
    });
    var blob = new Blob([rows.map(function (r) { return r.map(csvField).join(','); }).join('\n') + '\n'],
                        { type: 'text/csv' });
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'expenses-' + monthInput.value + '.csv';
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  }

  CATEGORIES.forEach(function (c) {
    [document.getElementById('category'), filterSelect].forEach(function (select) {
      var o = document.createElement('option');
      o.value = c;
      o.textContent = c;
      select.appendChild(o);
    });
  });
  monthInput.value = isoToday().slice(0, 7);
  form.elements.date.value = isoToday();

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var cents = parseCents(form.elements.amount.value);
    if (cents === null) {
      errorEl.textContent = 'Enter a positive amount with at most two decimals, e.g. 12.50.';
      form.elements.amount.focus();
      return;
    }
    var date = form.elements.date.value;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      errorEl.textContent = 'Pick a date.';
      form.elements.date.focus();
      return;
    }
    errorEl.textContent = '';
    expenses.push({ id: Date.now().toString(36) + Math.random().toString(36).slice(2, 6), cents: cents,
                    category: form.elements.category.value, date: date, note: form.elements.note.value.trim(),
                    created: Date.now() });
    save();
    monthInput.value = date.slice(0, 7);
    form.elements.amount.value = '';
    form.elements.note.value = '';
    form.elements.amount.focus();
    render();
  });
  monthInput.addEventListener('change', render);
  filterSelect.addEventListener('change', render);
  document.getElementById('export').addEventListener('click', exportCsv);
  window.addEventListener('resize', render);
  render();
})();
