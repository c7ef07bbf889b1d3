(function () {
  'use strict';

  var STORAGE_KEY = 'team-kanban-v1';
  var COLUMNS = [
    { id: 'todo', title: 'To do', color: 'var(--todo)' },
    { id: 'doing', title: 'In progress', color: 'var(--doing)' },
    { id: 'done', title: 'Done', color: 'var(--done)' }
  ];
  var EXAMPLES = {
    todo: [{ title: 'Plan the sprint review', description: 'Collect demos from everyone by Thursday.' },
           { title: 'Update the onboarding guide', description: '' }],
    doing: [{ title: 'Fix flaky login test', description: 'Fails about once in twenty CI runs.' }],
    done: [{ title: 'Order the new wall-screen', description: '' }]
  };

  var board = load();
  var boardEl = document.getElementById('board');
  var dialog = document.getElementById('editor');
  var form = document.getElementById('editor-form');
  var titleInput = document.getElementById('card-title');
  var descInput = document.getElementById('card-desc');
  var editing = null; // { column, id } or { column, id: null } for a new card
  var dragged = null;

  function uid() {
    return Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  }

  function load() {
    try {
      var saved = JSON.parse(localStorage.getItem(STORAGE_KEY));
      if (saved && COLUMNS.every(function (c) { return Array.isArray(saved[c.id]); })) return saved;
    } catch (e) { /* fall back to the examples */ }
    var fresh = {};
    COLUMNS.forEach(function (c) {
      fresh[c.id] = EXAMPLES[c.id].map(function (card) {
        return { id: uid(), title: card.title, description: card.description };
      });
    });
    return fresh;
  }

  function save() {
    try { localStorage.setItem(STORAGE_KEY, JSON.stringify(board)); } catch (e) { /* storage full or blocked */ }
  }

  function find(id) {
    for (var c = 0; c < COLUMNS.length; c++) {
      var list = board[COLUMNS[c].id];
      for (var i = 0; i < list.length; i++) if (list[i].id === id) return { column: COLUMNS[c].id, index: i };
    }
    return null;
  }

  function move(id, toColumn, toIndex) {
    var at = find(id);
    if (!at) return;
    var card = board[at.column].splice(at.index, 1)[0];
    var target = board[toColumn];
    if (toIndex === undefined || toIndex > target.length) toIndex = target.length;
    target.splice(toIndex, 0, card);
    save();
    render(id);
  }

  function button(label, text, onClick, extraClass) {
    var b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.setAttribute('aria-label', label);
    b.title = label;
    if (extraClass) b.className = extraClass;
    b.addEventListener('click', onClick);
    return b;
  }

  function cardElement(card, columnIndex, index, count) {
    var li = document.createElement('li');
    li.className = 'card';
    li.draggable = true;
    li.tabIndex = 0;
    li.dataset.id = card.id;
    var h = document.createElement('h3');
    h.textContent = card.title;
    li.appendChild(h);
    if (card.description) {
      var p = document.createElement('p');
      p.textContent = card.description;
      li.appendChild(p);
    }
    var tools = document.createElement('div');
    tools.className = 'tools';
    var col = COLUMNS[columnIndex].id;
    var left = button('Move "' + card.title + '" to ' + (COLUMNS[columnIndex - 1] || {}).title, '←', function () {
      move(card.id, COLUMNS[columnIndex - 1].id);
    });
    left.disabled = columnIndex === 0;
    var right = button('Move "' + card.title + '" to ' + (COLUMNS[columnIndex + 1] || {}).title, '→', function () {
      move(card.id, COLUMNS[columnIndex + 1].id);
    });
    right.disabled = columnIndex === COLUMNS.length - 1;
    var up = button('Move "' + card.title + '" up', '↑', function () { move(card.id, col, index - 1); });
    up.disabled = index === 0;
    var down = button('Move "' + card.title + '" down', '↓', function () { move(card.id, col, index + 1); });
    down.disabled = index === count - 1;
    tools.appendChild(left);
    tools.appendChild(up);
    tools.appendChild(down);
    tools.appendChild(right);
    tools.appendChild(button('Edit "' + card.title + '"', 'Edit', function () { openEditor(col, card.id); }));
    tools.appendChild(button('Delete "' + card.title + '"', 'Delete', function () {
      if (window.confirm('Delete the card "' + card.title + '"?')) {
        var at = find(card.id);
        board[at.column].splice(at.index, 1);
        save();
        render();
      }
    }, 'danger'));
    li.appendChild(tools);
    li.addEventListener('dragstart', function (e) {
      dragged = card.id;
      li.classList.add('dragging');
      e.dataTransfer.effectAllowed = 'move';
      e.dataTransfer.setData('text/plain', card.id);
    });
    li.addEventListener('dragend', function () { dragged = null; li.classList.remove('dragging'); });
    return li;
  }

  function dropIndex(list, y) {
    var cards = Array.prototype.slice.call(list.querySelectorAll('.card:not(.dragging)'));
    for (var i = 0; i < cards.length; i++) {
      var box = cards[i].getBoundingClientRect();
      if (y < box.top + box.height / 2) return i;
    }
    return cards.length;
  }

  function columnElement(column, columnIndex) {
    var section = document.createElement('section');
    section.className = 'column';
    section.style.setProperty('--dot', column.color);
    section.setAttribute('aria-labelledby', 'col-' + column.id);
    var header = document.createElement('header');
    var h2 = document.createElement('h2');
    h2.id = 'col-' + column.id;
    h2.textContent = column.title;
    var count = document.createElement('span');
    count.className = 'count';
    var n = board[column.id].length;
    count.textContent = n;
    count.setAttribute('aria-label', n + (n === 1 ? ' card' : ' cards'));
    header.appendChild(h2);
    header.appendChild(count);
    section.appendChild(header);
    var list = document.createElement('ul');
    list.className = 'cards';
    board[column.id].forEach(function (card, i) {
      list.appendChild(cardElement(card, columnIndex, i, board[column.id].length));
    });
    list.addEventListener('dragover', function (e) {
      if (!dragged) return;
      e.preventDefault();
      list.classList.add('over');
    });
    list.addEventListener('dragleave', function () { list.classList.remove('over'); });
    list.addEventListener('drop', function (e) {
      e.preventDefault();
      list.classList.remove('over');
      var id = dragged || e.dataTransfer.getData('text/plain');
      if (!id) return;
      move(id, column.id, dropIndex(list, e.clientY));
    });
    section.appendChild(list);
    var add = button('Add a card to ' + column.title, '+ Add card', function () { openEditor(column.id, null); }, 'add');
    section.appendChild(add);
    return section;
  }

  function render(focusId) {
    boardEl.textContent = '';
    COLUMNS.forEach(function (column, i) { boardEl.appendChild(columnElement(column, i)); });
    if (focusId) {
      var el = boardEl.querySelector('[data-id="' + focusId + '"]');
      if (el) el.focus();
    }
  }

  function openEditor(column, id) {
    editing = { column: column, id: id };
    var card = id ? board[column][find(id).index] : null;
    document.getElementById('editor-title').textContent = card ? 'Edit card' : 'New card in ' +
      COLUMNS.filter(function (c) { return c.id === column; })[0].title;
    titleInput.value = card ? card.title : '';
    descInput.value = card ? card.description : '';
    if (typeof dialog.showModal === 'function') dialog.showModal(); else dialog.setAttribute('open', '');
    titleInput.focus();
  }

  function closeEditor() {
    if (typeof dialog.close === 'function') dialog.close(); else dialog.removeAttribute('open');
    editing = null;
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var title = titleInput.value.trim();
    if (!title) { titleInput.focus(); return; }
    var description = descInput.value.trim();
    var focusId;
    if (editing.id) {
      var at = find(editing.id);
      board[at.column][at.index].title = title;
      board[at.column][at.index].description = description;
      focusId = editing.id;
    } else {
      focusId = uid();
      board[editing.column].push({ id: focusId, title: title, description: description });
    }
    save();
    closeEditor();
    render(focusId);
  });
  document.getElementById('editor-cancel').addEventListener('click', closeEditor);

  render();
})();
