// Runs Mermaid texts through the real Mermaid (npm mermaid, its browser
// build) in Debian's headless Chromium: for each, mermaid.parse and
// mermaid.render, and what the picture holds. Reads a JSON array of
// {"name", "text"} on stdin, prints a JSON array of results. Driven by Go
// (mcpserver/diagram's TestMermaidInBrowser).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const cases = JSON.parse(readFileSync(0, "utf8"));
const mermaidJS = require.resolve("mermaid/dist/mermaid.min.js");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const out = [];
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.setContent("<!doctype html><html><body><div id=out></div></body></html>");
  await page.addScriptTag({ path: mermaidJS });
  await page.evaluate(() => window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict" }));
  for (const [i, c] of cases.entries()) {
    const r = await page.evaluate(async ({ text, id }) => {
      const res = { parsed: false, rendered: false };
      try {
        await window.mermaid.parse(text);
        res.parsed = true;
        const { svg } = await window.mermaid.render(id, text);
        res.rendered = true;
        const box = document.getElementById("out");
        box.innerHTML = svg;
        const root = box.querySelector("svg");
        res.entities = root.querySelectorAll("g.node").length; res.ids = [...root.querySelectorAll("g.node")].map((g) => g.id);
        res.relationships = root.querySelectorAll(".relationshipLine").length;
        res.labels = [...root.querySelectorAll(".edgeLabel")].map((l) => l.textContent).filter((s) => s);
        root.querySelectorAll("style").forEach((s) => s.remove()); res.text = root.textContent;
        res.error = root.querySelector(".error-icon, .error-text") ? root.textContent.slice(0, 200) : "";
      } catch (e) {
        res.error = String(e && e.message || e).slice(0, 2000);
      }
      return res;
    }, { text: c.text, id: "m" + i });
    out.push({ name: c.name, ...r });
  }
  if (errors.length) out.push({ name: "page errors", error: errors.join("\n") });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out));
