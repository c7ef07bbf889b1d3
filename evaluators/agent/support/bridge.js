// In-container bridge: 127.0.0.1:PORT -> the host proxy's unix socket, then run the agent.
// usage: node bridge.js SOCKET PORT -- COMMAND [ARGS...]
// The container has no network; this loopback port is the only way Pi reaches the model.
"use strict";
const net = require("net");
const { spawn } = require("child_process");

const [socketPath, portText, dashes, command, ...args] = process.argv.slice(2);
if (!socketPath || !portText || dashes !== "--" || !command) {
  process.stderr.write("usage: node bridge.js SOCKET PORT -- COMMAND [ARGS...]\n");
  process.exit(2);
}

const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  // pipe() ends each side when the other ends (keeping buffered data); errors tear both down.
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on("error", close);
  upstream.on("error", close);
});

server.on("error", (err) => {
  process.stderr.write(`bridge: ${err.message}\n`);
  process.exit(3);
});

server.listen(Number(portText), "127.0.0.1", () => {
  const child = spawn(command, args, { stdio: "inherit" });
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
    process.on(sig, () => child.kill(sig));
  }
  child.on("error", (err) => {
    process.stderr.write(`bridge: cannot start ${command}: ${err.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => process.exit(code === null ? 128 + (signal ? 15 : 0) : code));
});
