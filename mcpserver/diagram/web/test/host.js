// A minimal MCP Apps host, run in the browser by app.mjs: an MCP client
// of hubsnap serve (through app.mjs's same-origin proxy at /mcp) and the
// official AppBridge of @modelcontextprotocol/ext-apps, which renders
// schema_diagram's app in a sandboxed iframe whose Content-Security-Policy
// blocks every network origin.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

// appCSP is what the host allows the app: inline script and style, and no
// network at all (no connect, no images or fonts from anywhere).
const appCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'";

const params = new URLSearchParams(location.search);
let theme = params.get("theme") || "light";

async function main() {
  const client = new Client({ name: "hubsnap-test-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "schema_diagram");
  const uri = tool._meta.ui.resourceUri;
  if (tool._meta["ui/resourceUri"] !== uri) throw new Error("the flat ui/resourceUri differs");
  const res = await client.readResource({ uri });
  const content = res.contents[0];
  if (content.mimeType !== "text/html;profile=mcp-app") throw new Error("MIME type " + content.mimeType);
  const html = content.text.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${appCSP}">`);

  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.srcdoc = html;
  document.getElementById("frame").appendChild(iframe);

  const bridge = new AppBridge(client, { name: "hubsnap-test-host", version: "1.0.0" },
    { serverTools: {}, openLinks: {} }, { hostContext: { theme, displayMode: "inline" } });
  const args = { table: params.get("table") || "posts", hops: Number(params.get("hops") || 1) };
  if (params.get("connection")) args.connection = params.get("connection");
  bridge.oninitialized = async () => {
    window.hostState.initialized = true;
    bridge.sendToolInput({ arguments: args });
    const result = await client.callTool({ name: "schema_diagram", arguments: args });
    window.hostState.firstResult = result.structuredContent;
    bridge.sendToolResult(result);
  };
  bridge.onsizechange = (size) => {
    window.hostState.size = size;
  };
  window.hostSetTheme = (t) => {
    theme = t;
    document.body.dataset.theme = t;
    bridge.setHostContext({ theme: t, displayMode: "inline" });
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
}

window.hostState = { initialized: false, error: null, firstResult: null, size: null };
main().catch((err) => {
  window.hostState.error = String(err && err.stack || err);
  console.error(err);
});
