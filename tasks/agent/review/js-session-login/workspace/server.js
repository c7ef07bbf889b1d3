'use strict';

const http = require('node:http');
const { createHandler } = require('./lib/handler');

const users = { alice: 'correct horse', bob: 'battery staple' }; // stand-in for the LDAP bridge
const handle = createHandler({ verifyPassword: async (user, password) => users[user] === password });

http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    res.writeHead(500);
    res.end(String(err.message));
  });
}).listen(Number(process.env.PORT) || 8080);
