'use strict';

// Login, logout and "who am I" for the dashboards, on top of node:http. Passwords are checked by the
// injected `verifyPassword(user, password)` (our LDAP bridge); sessions live in a SessionStore.

const { parseCookies, serializeCookie } = require('./cookies');
const { SessionStore } = require('./sessions');

const COOKIE = 'sid';

function readBody(req, limit = 64 * 1024) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
      if (body.length > limit) {
        reject(new Error('body too large'));
        req.destroy();
      }
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function send(res, status, payload, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}

function createHandler({ verifyPassword, store = new SessionStore() }) {
  async function login(req, res) {
    const { user, password } = JSON.parse(await readBody(req));
    if (typeof user !== 'string' || typeof password !== 'string') {
      return send(res, 400, { error: 'user and password are required' });
    }
    if (!(await verifyPassword(user, password))) {
      return send(res, 401, { error: 'wrong user or password' });
    }
    const existing = parseCookies(req.headers.cookie)[COOKIE];
    const session = store.create(user, existing || undefined);
    const cookie = serializeCookie(COOKIE, session.id, { maxAgeS: store.ttlMs / 1000 });
    return send(res, 200, { user }, { 'Set-Cookie': cookie });
  }

  function logout(req, res) {
    const id = parseCookies(req.headers.cookie)[COOKIE];
    if (id) {
      store.destroy(id);
    }
    return send(res, 200, { ok: true }, { 'Set-Cookie': serializeCookie(COOKIE, '', { maxAgeS: 0 }) });
  }

  function whoami(req, res) {
    const session = store.get(parseCookies(req.headers.cookie)[COOKIE]);
    if (!session) {
      return send(res, 401, { error: 'not logged in' });
    }
    return send(res, 200, { user: session.user, sessions: store.sessionsOf(session.user).length });
  }

  return async function handle(req, res) {
    const url = new URL(req.url, 'http://localhost');
    if (req.method === 'POST' && url.pathname === '/login') {
      return login(req, res);
    }
    if (req.method === 'POST' && url.pathname === '/logout') {
      return logout(req, res);
    }
    if (req.method === 'GET' && url.pathname === '/whoami') {
      return whoami(req, res);
    }
    return send(res, 404, { error: 'not found' });
  };
}

module.exports = { createHandler, COOKIE };
