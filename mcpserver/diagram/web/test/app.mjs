// The real-browser test of the MCP App (driven by Go: cmd/hubsnap's
// TestDiagramAppInBrowser). It serves a host page (host.js, bundled here
// with esbuild) on 127.0.0.1 with a proxy to the hubsnap serve --http at
// $HUBSNAP_MCP_URL, opens it in Debian's Chromium (headless, through
// playwright-core, never a downloaded browser), and prints a JSON report
// of what it saw; screenshots go to $SCREENSHOT_DIR when set.
import http from "node:http";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const target = new URL(process.env.HUBSNAP_MCP_URL);
const table = process.env.DIAGRAM_TABLE || "posts";
const connection = process.env.DIAGRAM_CONNECTION || "";
const hops = process.env.DIAGRAM_HOPS || "1";
const shots = process.env.SCREENSHOT_DIR || "";
const report = { toolCalls: [], consoleErrors: [], pageErrors: [], appRequests: [], steps: {} };

const bundle = (await build({
  entryPoints: [new URL("host.js", import.meta.url).pathname], bundle: true, format: "esm", write: false,
  platform: "browser", logLevel: "warning", target: "es2020",
})).outputFiles[0].text;
const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>test host</title><link rel="icon" href="data:,">
<style>html,body{margin:0;background:#f4f4f4}body[data-theme=dark]{background:#111}#frame iframe{width:960px;height:640px;border:0;display:block}</style>
</head><body><div id="frame"></div><script type="module" src="/host.js"></script></body></html>`;

// The proxy forwards /mcp to hubsnap serve as it is (streams included)
// and notes every tools/call.
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/" || url.pathname === "/host.html") {
    res.writeHead(200, { "content-type": "text/html" }).end(hostPage);
    return;
  }
  if (url.pathname === "/host.js") {
    res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
    return;
  }
  if (url.pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    if (body.length) {
      try {
        for (const m of [].concat(JSON.parse(body))) {
          if (m.method === "tools/call") report.toolCalls.push(m.params);
        }
      } catch {}
    }
    const headers = { ...req.headers, host: target.host };
    delete headers.origin;
    delete headers.referer;
    const up = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers }, (ur) => {
      res.writeHead(ur.statusCode, ur.headers);
      ur.pipe(res);
    });
    up.on("error", (err) => res.writeHead(502).end(String(err)));
    up.end(body);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 980, height: 660 } });
  page.on("console", (m) => { if (m.type() === "error") report.consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => report.pageErrors.push(String(e)));
  page.on("request", (r) => {
    const f = r.frame();
    if (f && f !== page.mainFrame()) report.appRequests.push(r.url());
  });
  const q = new URLSearchParams({ table, hops, theme: "light" });
  if (connection) q.set("connection", connection);
  await page.goto(`${base}/host.html?${q}`);
  const appFrame = async () => {
    for (let i = 0; i < 200; i++) {
      const f = page.frames().find((f) => f !== page.mainFrame());
      if (f) return f;
      await page.waitForTimeout(50);
    }
    throw new Error("no app frame");
  };
  const frame = await appFrame();
  const state = () => page.evaluate(() => window.hostState);
  await frame.waitForSelector(`body[data-center="${table}"] svg g.table`, { timeout: 30000 }).catch(async (e) => {
    throw new Error(`${e.message}; host: ${JSON.stringify(await state())}`);
  });
  const snapshot = async () => frame.evaluate(() => ({
    center: document.body.dataset.center,
    theme: document.body.dataset.theme,
    svgTheme: document.querySelector("#stage svg").dataset.theme,
    background: getComputedStyle(document.body).backgroundColor,
    boxFill: document.querySelector("#stage g.table rect").getAttribute("fill"),
    tables: [...document.querySelectorAll("#stage g.table")].map((g) => g.dataset.table),
    edges: [...document.querySelectorAll("#stage g.edge")].map((g) => [g.dataset.from, g.dataset.to,
      [...g.querySelectorAll("g.end")].map((e) => e.dataset.end).join(" ")]),
    centreBoxes: document.querySelectorAll("#stage g.table.centre").length,
  }));
  report.steps.light = await snapshot();
  report.firstResult = (await state()).firstResult;
  if (shots) await page.locator("#app").screenshot({ path: `${shots}/diagram-light.png` });

  // Zoom: the wheel and the buttons change the scale.
  const z0 = await frame.evaluate(() => document.body.dataset.zoom);
  await frame.click("#zoom-in");
  report.steps.zoom = { before: z0, after: await frame.evaluate(() => document.body.dataset.zoom) };

  await page.evaluate(() => window.hostSetTheme("dark"));
  await frame.waitForSelector(`body[data-theme="dark"] #stage svg[data-theme="dark"]`, { timeout: 10000 });
  await frame.click("#zoom-fit");
  report.steps.dark = await snapshot();
  if (shots) await page.locator("#app").screenshot({ path: `${shots}/diagram-dark.png` });

  // Click a neighbour: the app asks the host for its diagram.
  const other = report.steps.dark.tables.find((t) => t !== table);
  report.steps.clicked = other;
  const calls = report.toolCalls.length;
  const box = frame.locator(`#stage g.table[data-table="${other}"]`).first();
  await box.click();
  await frame.waitForSelector(`body[data-center="${other}"] svg g.table`, { timeout: 30000 });
  report.steps.recentred = await snapshot();
  report.recentreCalls = report.toolCalls.slice(calls);
  await page.evaluate(() => window.hostSetTheme("light"));
  await frame.waitForSelector(`body[data-theme="light"]`, { timeout: 10000 });
  report.hostError = (await state()).error;
  report.size = (await state()).size;
} finally {
  await browser.close();
  server.closeAllConnections();
  server.close();
}
// The proxy may still hold upstream streams: write the report and end.
process.stdout.write(JSON.stringify(report), () => process.exit(0));
