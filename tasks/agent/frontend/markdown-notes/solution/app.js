(function () {
  'use strict';

  var KEY = 'md-notes-v1';
  var THEME_KEY = 'md-notes-theme';
  var WELCOME = '# Welcome to Notes\n\nWrite **Markdown** on the left, see it on the right. It supports *italic*, ' +
    '`inline code`, [links](https://example.org) and more:\n\n- bullet lists\n- like this one\n\n1. numbered lists\n' +
    '2. too\n\n> Block quotes for the wise words.\n\n```js\nconsole.log("fenced code blocks");\n```\n\n' +
    'Everything is saved in this browser automatically.';

  var state = load();
  var editor = document.getElementById('editor');
  var preview = document.getElementById('preview');
  var list = document.getElementById('notes');
  var search = document.getElementById('search');
  var savedEl = document.getElementById('saved');
  var saveTimer = null;

  function load() {
    try {
      var data = JSON.parse(localStorage.getItem(KEY));
      if (data && Array.isArray(data.notes) && data.notes.length) return data;
    } catch (e) { /* first start */ }
    var id = newId();
    return { notes: [{ id: id, text: WELCOME, updated: Date.now() }], current: id };
  }

  function newId() { return Date.now().toString(36) + Math.random().toString(36).slice(2, 7); }

  function persist() {
    try {
      localStorage.setItem(KEY, JSON.stringify(state));
      savedEl.textContent = 'Saved';
    } catch (e) {
      savedEl.textContent = 'Could not save';
    }
  }

  function current() {
    return state.notes.filter(function (n) { return n.id === state.current; })[0] || state.notes[0];
  }

  function titleOf(note) {
    var first = note.text.split('\n').filter(function (l) { return l.trim(); })[0] || 'Untitled';
    return first.replace(/^#+\s*/, '').slice(0, 80) || 'Untitled';
  }

  function renderList() {
    var q = search.value.trim().toLowerCase();
    list.textContent = '';
    state.notes.slice().sort(function (a, b) { return b.updated - a.updated; }).forEach(function (note) {
      if (q && note.text.toLowerCase().indexOf(q) === -1) return;
      var li = document.createElement('li');
      var b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('aria-current', String(note.id === state.current));
      var t = document.createElement('span');
      t.className = 'title';
      t.textContent = titleOf(note);
      var w = document.createElement('span');
      w.className = 'when';
      w.textContent = new Date(note.updated).toLocaleString();
      b.appendChild(t);
      b.appendChild(w);
      b.addEventListener('click', function () { select(note.id); });
      li.appendChild(b);
      list.appendChild(li);
    });
  }

  function renderPreview() { preview.innerHTML = window.Markdown.render(editor.value); }

  function select(id) {
    state.current = id;
    editor.value = current().text;
    renderPreview();
    renderList();
    persist();
  }

  editor.addEventListener('input', function () {
    var note = current();
    note.text = editor.value;
    note.updated = Date.now();
    savedEl.textContent = 'Saving…';
    renderPreview();
    clearTimeout(saveTimer);
    saveTimer = setTimeout(function () { persist(); renderList(); }, 300);
  });
  search.addEventListener('input', renderList);
  document.getElementById('new-note').addEventListener('click', function () {
    var note = { id: newId(), text: '# New note\n\n', updated: Date.now() };
    state.notes.push(note);
    select(note.id);
    editor.focus();
  });
  document.getElementById('delete').addEventListener('click', function () {
    var note = current();
    if (!window.confirm('Delete "' + titleOf(note) + '"?')) return;
    state.notes = state.notes.filter(function (n) { return n.id !== note.id; });
    if (!state.notes.length) state.notes.push({ id: newId(), text: '', updated: Date.now() });
    select(state.notes[0].id);
  });

  var themeBtn = document.getElementById('theme');
  function applyTheme(theme) {
    document.documentElement.dataset.theme = theme;
    themeBtn.setAttribute('aria-pressed', String(theme === 'dark'));
    themeBtn.textContent = theme === 'dark' ? 'Light theme' : 'Dark theme';
  }
  themeBtn.addEventListener('click', function () {
    var next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    try { localStorage.setItem(THEME_KEY, next); } catch (e) { /* not remembered */ }
  });
  var savedTheme = null;
  try { savedTheme = localStorage.getItem(THEME_KEY); } catch (e) { /* default */ }
  applyTheme(savedTheme === 'dark' ? 'dark' : 'light');

  select(current().id);
})();
