// The idle scenario of issue 17 (item 1) with a real MCP client of
// another SDK, against `hubsnap serve --http`: connect, call tools, stay
// idle past the server's --session-timeout, call again. Run by
// .ci/clients from its npm folder (where the packages are):
//
//   node idle.mjs FLAVOR URL TOKEN IDLE_MS
//
// FLAVOR is sdk-v1 (@modelcontextprotocol/sdk over Streamable HTTP),
// sdk-v2 (@modelcontextprotocol/client) or mcp-remote (the sdk-v1 client
// over stdio to mcp-remote, which speaks Streamable HTTP to hubsnap).
// TOKEN is "" for an open server. It prints one JSON line and exits 0 when
// every call succeeded.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [flavor, url, token, idleArg] = process.argv.slice(2);
const idleMs = Number(idleArg || "3000");
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const version = (pkg) => JSON.parse(readFileSync(join(here, "node_modules", pkg, "package.json"), "utf8")).version;

let proxyLog = ""; // mcp-remote's stderr

async function connect() {
  if (flavor === "sdk-v2") {
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const client = new Client({ name: "hubsnap-idle-v2", version: "0" });
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await client.connect(transport);
    return { client, transport, version: version("@modelcontextprotocol/client") };
  }
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: `hubsnap-idle-${flavor}`, version: "0" });
  if (flavor === "sdk-v1") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await client.connect(transport);
    return { client, transport, version: version("@modelcontextprotocol/sdk") };
  }
  if (flavor === "mcp-remote") {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const args = [require.resolve("mcp-remote/dist/proxy.js"), url, "--transport", "http-only"];
    if (token) args.push("--header", `Authorization:Bearer ${token}`);
    const transport = new StdioClientTransport({ command: process.execPath, args, stderr: "pipe" });
    transport.stderr?.on("data", (d) => { proxyLog += d; });
    await client.connect(transport);
    return { client, transport, version: version("mcp-remote") };
  }
  throw new Error(`unknown flavor ${flavor}`);
}

const out = { flavor, steps: [] };
let c;
try {
  c = await connect();
  out.version = c.version;
  if (flavor !== "mcp-remote") {
    out.protocol = c.transport.protocolVersion;
    out.session = c.transport.sessionId ? "yes" : "no";
  }
  const tools = await c.client.listTools();
  out.steps.push(`tools/list: ${tools.tools.length} tools`);
  const first = await c.client.callTool({ name: "release_info", arguments: {} });
  out.steps.push(`release_info: ${first.isError ? "tool error" : "ok"}`);
  await new Promise((r) => setTimeout(r, idleMs));
  const again = await c.client.callTool({ name: "schema_list_tables", arguments: {} });
  out.steps.push(`after ${idleMs} ms idle, schema_list_tables: ${again.isError ? "tool error" : "ok"}`);
  out.ok = !first.isError && !again.isError;
} catch (err) {
  out.ok = false;
  out.error = String(err?.message ?? err).slice(0, 400);
  if (proxyLog) out.proxyLog = proxyLog.split("\n").filter((l) => /error|401|404|regist|oauth|token/i.test(l)).slice(-4);
}
try {
  await c?.client.close();
} catch {}
console.log(JSON.stringify(out));
process.exit(out.ok ? 0 : 1);
