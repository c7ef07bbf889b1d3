'use strict';

// Cookie header parsing and Set-Cookie formatting (RFC 6265, the parts we use).

function parseCookies(header) {
  const cookies = {};
  if (!header) {
    return cookies;
  }
  for (const pair of header.split(';')) {
    const parts = pair.trim().split('=');
    if (parts.length < 2 || !parts[0]) {
      continue;
    }
    cookies[parts[0]] = decodeURIComponent(parts[1]);
  }
  return cookies;
}

function serializeCookie(name, value, { maxAgeS, path = '/', httpOnly = true, secure = true } = {}) {
  let cookie = `${name}=${encodeURIComponent(value)}; Path=${path}; SameSite=Lax`;
  if (maxAgeS !== undefined) {
    cookie += `; Max-Age=${Math.floor(maxAgeS)}`;
  }
  if (httpOnly) {
    cookie += '; HttpOnly';
  }
  if (secure) {
    cookie += '; Secure';
  }
  return cookie;
}

module.exports = { parseCookies, serializeCookie };
