// The notification scenario of issue 23 (item 5) with mcp-remote, against
// `hubsnap serve --http`: connect through mcp-remote (a client of protocol
// 2025-11-25 that sends the Mcp-Method header), list tools, subscribe to
// hubsnap://release, call release_info, print {"ready":true}, then wait for
// notifications/resources/updated (the caller runs `hubsnap snapshot use`
// once it sees ready). Run by .ci/clients from its npm folder:
//
//   node notify.mjs URL TOKEN WAIT_MS [CAPTURE_DIR]
//
// TOKEN is "" for an open server. It prints a last JSON line and exits 0
// when the notification came. With CAPTURE_DIR, mcp-remote talks to the
// server through a TCP proxy that writes every request it sends, byte for
// byte, to CAPTURE_DIR/NN-connC.http (NN: the order the requests' first
// bytes arrived in; C: the TCP connection): how
// testdata/clients/mcp-remote-0.15.1 was made.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [url, token, waitArg, captureDir] = process.argv.slice(2);
const waitMs = Number(waitArg || "20000");
const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const version = (pkg) => JSON.parse(readFileSync(join(here, "node_modules", pkg, "package.json"), "utf8")).version;

// capture starts a TCP proxy to target's host:port and returns its URL and
// a function that writes the requests seen so far.
async function capture(target) {
  const to = new URL(target);
  const conns = []; // [{bytes: Buffer[], starts: [{at, offset}]}]
  let seq = 0n;
  const server = net.createServer((client) => {
    const c = { id: conns.length + 1, bytes: [], size: 0, chunks: [] };
    conns.push(c);
    const upstream = net.connect(Number(to.port), to.hostname);
    client.on("data", (d) => {
      c.chunks.push({ at: seq++, offset: c.size });
      c.bytes.push(d);
      c.size += d.length;
      upstream.write(d);
    });
    upstream.on("data", (d) => client.write(d));
    client.on("end", () => upstream.end());
    upstream.on("end", () => client.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const proxied = new URL(target);
  proxied.port = String(server.address().port);
  const write = () => {
    const requests = [];
    for (const c of conns) {
      const all = Buffer.concat(c.bytes);
      let off = 0;
      while (off < all.length) {
        const head = all.indexOf("\r\n\r\n", off);
        if (head < 0) break;
        const m = /\r\ncontent-length: *(\d+)/i.exec(all.subarray(off, head).toString("latin1"));
        const end = head + 4 + (m ? Number(m[1]) : 0);
        const chunk = c.chunks.filter((k) => k.offset <= off).pop();
        requests.push({ conn: c.id, at: chunk.at, bytes: all.subarray(off, end) });
        off = end;
      }
    }
    requests.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    mkdirSync(captureDir, { recursive: true });
    requests.forEach((r, i) => writeFileSync(join(captureDir, `${String(i + 1).padStart(2, "0")}-conn${r.conn}.http`), r.bytes));
    server.close();
  };
  return { url: proxied.toString(), write };
}

const out = { flavor: "mcp-remote", version: version("mcp-remote"), steps: [] };
let proxyLog = "";
let client;
let cap;
try {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const { ResourceUpdatedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
  let target = url;
  if (captureDir) {
    cap = await capture(url);
    target = cap.url;
  }
  const args = [require.resolve("mcp-remote/dist/proxy.js"), target, "--transport", "http-only"];
  if (token) args.push("--header", `Authorization:Bearer ${token}`);
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: "pipe" });
  transport.stderr?.on("data", (d) => { proxyLog += d; });
  client = new Client({ name: "hubsnap-notify", version: "0" });
  let heard;
  const updated = new Promise((r) => { heard = r; });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard(n.params.uri));
  await client.connect(transport);
  const tools = await client.listTools();
  out.steps.push(`tools/list: ${tools.tools.length} tools`);
  await client.subscribeResource({ uri: "hubsnap://release" });
  out.steps.push("resources/subscribe hubsnap://release: ok");
  const info = await client.callTool({ name: "release_info", arguments: {} });
  out.release = JSON.parse(info.content[0].text).id;
  console.log(JSON.stringify({ ready: true }));
  const uri = await Promise.race([updated, new Promise((r) => setTimeout(() => r(null), waitMs))]);
  out.steps.push(uri ? `notifications/resources/updated ${uri}` : `no notifications/resources/updated within ${waitMs} ms`);
  const again = await client.callTool({ name: "release_info", arguments: {} });
  out.releaseAfter = JSON.parse(again.content[0].text).id;
  out.ok = uri === "hubsnap://release" && out.releaseAfter !== out.release;
} catch (err) {
  out.ok = false;
  out.error = String(err?.message ?? err).slice(0, 400);
  if (proxyLog) out.proxyLog = proxyLog.split("\n").filter((l) => /error|40\d|session/i.test(l)).slice(-4);
}
try {
  await client?.close();
} catch {}
cap?.write();
console.log(JSON.stringify(out));
process.exit(out.ok ? 0 : 1);
