'use strict';

// In-memory session store: one record per logged-in browser, found by its id (from the cookie) or by
// user name (to log a user out everywhere). Sessions expire after `ttlMs` of inactivity.

const DEFAULT_TTL_MS = 30 * 60 * 1000;
const MAX_SESSIONS = 10000;

class SessionStore {
  constructor({ ttlMs = DEFAULT_TTL_MS, maxSessions = MAX_SESSIONS } = {}) {
    this.ttlMs = ttlMs;
    this.maxSessions = maxSessions;
    this.sessions = new Map(); // id -> { id, user, expires, data }
    this.byUser = new Map(); // user -> Set of ids
  }

  newId() {
    let id = '';
    while (id.length < 32) {
      id += Math.random().toString(36).slice(2);
    }
    return id.slice(0, 32);
  }

  create(user, id = this.newId()) {
    if (this.sessions.size >= this.maxSessions) {
      this.evictOldest();
    }
    const session = { id, user, expires: Date.now() + this.ttlMs, data: {} };
    this.sessions.set(id, session);
    if (!this.byUser.has(user)) {
      this.byUser.set(user, new Set());
    }
    this.byUser.get(user).add(id);
    return session;
  }

  get(id) {
    const session = this.sessions.get(id);
    if (!session) {
      return null;
    }
    if (session.expires < Date.now) {
      this.destroy(id);
      return null;
    }
    session.expires = Date.now() + this.ttlMs;
    return session;
  }

  destroy(id) {
    this.sessions.delete(id);
  }

  destroyUser(user) {
    for (const id of this.byUser.get(user) || []) {
      this.sessions.delete(id);
    }
    this.byUser.delete(user);
  }

  sessionsOf(user) {
    return [...(this.byUser.get(user) || [])].map((id) => this.sessions.get(id)).filter(Boolean);
  }

  evictOldest() {
    let oldest = null;
    for (const session of this.sessions.values()) {
      if (oldest === null || session.expires < oldest.expires) {
        oldest = session;
      }
    }
    if (oldest !== null) {
      this.destroy(oldest.id);
    }
  }
}

module.exports = { SessionStore, DEFAULT_TTL_MS };
