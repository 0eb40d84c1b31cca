// The MCP App ui://hubsnap/diagram: it draws schema_diagram's answer
// (draw.js), follows the host's light or dark theme, pans and zooms, and
// re-centres on a table when it is clicked, by calling schema_diagram
// through the host. With the data inlined (`hubsnap snapshot diagram
// --format html`) it draws that and talks to no host.
import { App } from "@modelcontextprotocol/ext-apps";
import { draw } from "./draw.js";

const stage = document.getElementById("stage");
const status = document.getElementById("status");
let current = null; // the diagram shown
let theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
let view = { x: 0, y: 0, k: 1 };
let app = null;

function setStatus(text) {
  status.textContent = text;
  status.hidden = !text;
}

function applyView() {
  const g = stage.querySelector("svg > g.viewport");
  if (g) g.setAttribute("transform", `translate(${view.x} ${view.y}) scale(${view.k})`);
  document.body.dataset.zoom = view.k.toFixed(3);
}

// fit scales the drawing to the stage, never above 1.
function fit(w, h) {
  const r = stage.getBoundingClientRect();
  const k = Math.min(1, (r.width - 16) / Math.max(w, 1), (r.height - 16) / Math.max(h, 1));
  view = { k, x: (r.width - w * k) / 2, y: Math.max(8, (r.height - h * k) / 2) };
  applyView();
}

function render(d) {
  current = d;
  const { svg, width, height } = draw(d, theme);
  // The drawing goes inside a viewport group that pans and zooms; the
  // outer svg fills the stage.
  const inner = svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>$/, "");
  stage.innerHTML = `<svg xmlns="http://www.w3.org/2000/svg" class="hubsnap-diagram" data-theme="${theme}" width="100%" height="100%">` +
    `<g class="viewport">${inner}</g></svg>`;
  document.body.dataset.theme = theme;
  document.body.dataset.center = d.center;
  const note = d.truncated ? `${d.tables.length} of ${d.tablesTotal} tables within ${d.hops} hop${d.hops === 1 ? "" : "s"}` : "";
  setStatus(note);
  fit(width, height);
  askRoom();
}

// askRoom asks the host for room for the drawing, at most 720 px high
// (the page itself only fills the frame it is given), once connected.
let drawnHeight = 0;
function askRoom() {
  const h = stage.querySelector("svg > g.viewport > rect.background");
  drawnHeight = h ? Number(h.getAttribute("height")) : drawnHeight;
  if (app && document.body.dataset.connected === "true" && drawnHeight) {
    app.sendSizeChanged({ height: Math.round(Math.min(720, Math.max(420, drawnHeight + 48))) }).catch(() => {});
  }
}

function setTheme(t) {
  const next = t === "dark" ? "dark" : "light";
  if (next === theme && document.body.dataset.theme === next) return;
  theme = next;
  document.body.dataset.theme = theme;
  if (current) {
    const saved = view;
    render(current);
    view = saved;
    applyView();
  }
}

// structured returns the diagram of a tool result, or null.
function structured(result) {
  const d = result && result.structuredContent;
  return d && Array.isArray(d.tables) && Array.isArray(d.edges) ? d : null;
}

async function recentre(table, connection) {
  if (!app || !current) return;
  setStatus(`Loading ${table}…`);
  try {
    const result = await app.callServerTool({ name: "schema_diagram", arguments: { table, connection, hops: current.hops } });
    const d = structured(result);
    if (result.isError || !d) {
      const text = result.content && result.content[0] && result.content[0].text;
      setStatus(`Cannot show ${table}: ${text || "no diagram"}`);
      return;
    }
    render(d);
  } catch (err) {
    setStatus(`Cannot show ${table}: ${err && err.message ? err.message : err}`);
  }
}

// Pan with the pointer, zoom with the wheel or the buttons, click a table
// to centre on it.
let drag = null;
stage.addEventListener("pointerdown", (ev) => {
  drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
});
stage.addEventListener("pointermove", (ev) => {
  if (!drag) return;
  const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
  if (drag.moved) {
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    applyView();
  }
});
stage.addEventListener("pointerup", (ev) => {
  const d = drag;
  drag = null;
  if (!d || d.moved) return;
  const box = ev.target.closest && ev.target.closest("g.table");
  if (box && box.dataset.distance !== "0") recentre(box.dataset.table, box.dataset.connection);
});
function zoom(f, cx, cy) {
  const k = Math.min(4, Math.max(0.1, view.k * f));
  view.x = cx - ((cx - view.x) * k) / view.k;
  view.y = cy - ((cy - view.y) * k) / view.k;
  view.k = k;
  applyView();
}
stage.addEventListener("wheel", (ev) => {
  ev.preventDefault();
  const r = stage.getBoundingClientRect();
  zoom(Math.exp(-ev.deltaY / 500), ev.clientX - r.left, ev.clientY - r.top);
}, { passive: false });
function centre() {
  const r = stage.getBoundingClientRect();
  return [r.width / 2, r.height / 2];
}
document.getElementById("zoom-in").addEventListener("click", () => zoom(1.25, ...centre()));
document.getElementById("zoom-out").addEventListener("click", () => zoom(0.8, ...centre()));
document.getElementById("zoom-fit").addEventListener("click", () => current && render(current));

const inline = document.getElementById("hubsnap-data");
if (inline) {
  // Standalone: the data is in the page.
  document.body.dataset.mode = "standalone";
  const data = JSON.parse(inline.textContent);
  addEventListener("load", () => render(data));
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", (e) => setTheme(e.matches ? "dark" : "light"));
} else {
  document.body.dataset.mode = "app";
  setStatus("Waiting for a diagram…");
  app = new App({ name: "hubsnap-diagram", version: "1.0.0" }, {}, { autoResize: false });
  app.ontoolresult = (params) => {
    const d = structured(params);
    if (d) render(d);
    else setStatus("This result has no diagram.");
  };
  app.onhostcontextchanged = (ctx) => {
    if (ctx && ctx.theme) setTheme(ctx.theme);
  };
  app.connect().then(() => {
    const ctx = app.getHostContext();
    if (ctx && ctx.theme) setTheme(ctx.theme);
    document.body.dataset.connected = "true";
    askRoom();
  }).catch((err) => setStatus(`Cannot reach the host: ${err && err.message ? err.message : err}`));
}
