// Pi's CLI as a few bundled files beside its own dist/: every attempt starts Pi, and Node 20 has no compile
// cache, so an unbundled start opens, lexes and links hundreds of modules (about 2.4 CPU s; bundled about 1).
// Run by `make pi` after `npm ci` (which wipes node_modules, so a bundle never outlives the Pi it was built from).
// The code is Pi's own, pinned by package-lock.json; dynamic imports stay separate chunks, loaded when used.
// Output: node_modules/@mariozechner/pi-coding-agent/dist/bananabench/cli.js (+ chunks, manifest.json): inside
// the package, so Pi's package.json, themes and templates are found by walking up, as from dist/cli.js.
import { build, version as esbuildVersion } from "esbuild";
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "node_modules", "@mariozechner", "pi-coding-agent");
const entry = join(pkg, "dist", "cli.js");
const out = join(pkg, "dist", "bananabench");
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: [entry],
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minifyWhitespace: true,
  logLevel: "error",
  // Mistral's SDK imports OpenTelemetry's API only when tracing is on; it is not installed (nor was it before).
  external: ["@opentelemetry/api"],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __bbRequire } from 'node:module'; const require = __bbRequire(import.meta.url);" },
});
const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
writeFileSync(join(out, "manifest.json"),
  JSON.stringify({ pi_version: version, source_sha256: sha256(entry), esbuild: esbuildVersion }, null, 2) + "\n");
console.log(`Pi ${version} bundled into ${out} (esbuild ${esbuildVersion})`);
