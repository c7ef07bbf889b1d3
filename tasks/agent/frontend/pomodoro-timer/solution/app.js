(function () {
  'use strict';

  var SETTINGS_KEY = 'pomodoro-settings-v1';
  var STATS_KEY = 'pomodoro-stats-v1';
  var LABELS = { focus: 'Focus', short: 'Short break', long: 'Long break' };
  var COLORS = { focus: 'var(--focus)', short: 'var(--short)', long: 'var(--long)' };
  var LIMITS = { focus: [1, 120], short: [1, 60], long: [1, 90] };

  var settings = loadSettings();
  var stats = loadStats();
  var mode = 'focus';
  var remainingMs = settings.focus * 60000; // when paused
  var endsAt = null; // timestamp while running
  var ticker = null;
  var audio = null;

  var timeEl = document.getElementById('time');
  var labelEl = document.getElementById('label');
  var ring = document.getElementById('progress');
  var toggleBtn = document.getElementById('toggle');
  var circumference = 2 * Math.PI * 90;
  ring.style.strokeDasharray = String(circumference);

  function loadSettings() {
    try {
      var s = JSON.parse(localStorage.getItem(SETTINGS_KEY));
      if (s && s.focus && s.short && s.long) return s;
    } catch (e) { /* defaults */ }
    return { focus: 25, short: 5, long: 15 };
  }

  function today() {
    var d = new Date();
    return d.getFullYear() + '-' + (d.getMonth() + 1) + '-' + d.getDate();
  }

  function loadStats() {
    try {
      var s = JSON.parse(localStorage.getItem(STATS_KEY));
      if (s && s.day === today()) return s;
    } catch (e) { /* fresh day */ }
    return { day: today(), completed: 0, breaks: 0 };
  }

  function store(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* storage unavailable */ }
  }

  function total() { return settings[mode] * 60000; }

  function left() { return endsAt === null ? remainingMs : Math.max(0, endsAt - Date.now()); }

  function format(ms) {
    var secs = Math.ceil(ms / 1000);
    var m = Math.floor(secs / 60), s = secs % 60;
    return (m < 10 ? '0' : '') + m + ':' + (s < 10 ? '0' : '') + s;
  }

  function render() {
    var ms = left();
    timeEl.textContent = format(ms);
    labelEl.textContent = LABELS[mode];
    ring.style.strokeDashoffset = String(circumference * (1 - ms / total()));
    document.documentElement.style.setProperty('--accent', COLORS[mode]);
    toggleBtn.textContent = endsAt === null ? 'Start' : 'Pause';
    document.title = endsAt === null ? 'Pomodoro' : format(ms) + ' · ' + LABELS[mode];
    document.querySelectorAll('.mode').forEach(function (b) {
      b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
    });
    document.getElementById('done-today').textContent = stats.completed;
    document.getElementById('until-long').textContent = 4 - (stats.breaks % 4);
  }

  function chime() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      [0, 0.25, 0.5].forEach(function (offset, i) {
        var osc = audio.createOscillator(), gain = audio.createGain();
        osc.type = 'sine';
        osc.frequency.value = [880, 660, 990][i];
        gain.gain.setValueAtTime(0.0001, audio.currentTime + offset);
        gain.gain.exponentialRampToValueAtTime(0.3, audio.currentTime + offset + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + offset + 0.4);
        osc.connect(gain).connect(audio.destination);
        osc.start(audio.currentTime + offset);
        osc.stop(audio.currentTime + offset + 0.45);
      });
    } catch (e) { /* no audio available */ }
  }

  function setMode(next) {
    pause();
    mode = next;
    remainingMs = total();
    render();
  }

  function finish() {
    pause();
    chime();
    if (mode === 'focus') {
      stats.completed += 1;
      stats.breaks += 1;
      store(STATS_KEY, stats);
      setMode(stats.breaks % 4 === 0 ? 'long' : 'short');
    } else {
      setMode('focus');
    }
  }

  function tick() {
    if (left() <= 0) finish(); else render();
  }

  function start() {
    if (endsAt !== null) return;
    if (stats.day !== today()) { stats = loadStats(); }
    endsAt = Date.now() + remainingMs;
    ticker = window.setInterval(tick, 250);
    render();
  }

  function pause() {
    if (endsAt === null) return;
    remainingMs = left();
    endsAt = null;
    window.clearInterval(ticker);
    render();
  }

  toggleBtn.addEventListener('click', function () { if (endsAt === null) start(); else pause(); });
  document.getElementById('reset').addEventListener('click', function () { pause(); remainingMs = total(); render(); });
  document.querySelectorAll('.mode').forEach(function (b) {
    b.addEventListener('click', function () { setMode(b.dataset.mode); });
  });
  document.addEventListener('keydown', function (e) {
    var tag = (e.target.tagName || '').toLowerCase();
    if (e.code === 'Space' && tag !== 'input' && tag !== 'button' && tag !== 'summary') {
      e.preventDefault();
      toggleBtn.click();
    }
  });
  document.addEventListener('visibilitychange', tick);

  var form = document.getElementById('settings');
  ['focus', 'short', 'long'].forEach(function (k) { form.elements[k].value = settings[k]; });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var next = {};
    for (var k in LIMITS) {
      var v = Number(form.elements[k].value);
      if (!Number.isInteger(v) || v < LIMITS[k][0] || v > LIMITS[k][1]) {
        document.getElementById('settings-status').textContent =
          LABELS[k] + ' must be a whole number from ' + LIMITS[k][0] + ' to ' + LIMITS[k][1] + '.';
        form.elements[k].focus();
        return;
      }
      next[k] = v;
    }
    settings = next;
    store(SETTINGS_KEY, settings);
    document.getElementById('settings-status').textContent = 'Saved.';
    if (endsAt === null) { remainingMs = total(); }
    render();
  });

  render();
})();
