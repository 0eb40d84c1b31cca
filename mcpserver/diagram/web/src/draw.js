// draw turns a schema_diagram answer into an SVG document: the tables as
// boxes with their key columns, the foreign keys as edges with crow's-foot
// ends, laid out by dagre. It is a pure function (no DOM, no fetch): the
// page runs it in the browser and `hubsnap snapshot diagram --format svg`
// runs the same code in goja, so both draw the same picture.
import dagre from "@dagrejs/dagre";

// Themes: the page follows the host's; the CLI draws light unless asked.
export const themes = {
  light: {
    background: "#ffffff", box: "#ffffff", header: "#e8eef7", centre: "#fde9c4", border: "#8a97a8",
    text: "#1f2933", muted: "#5f6b7a", key: "#8a4b08", edge: "#5f6b7a",
  },
  dark: {
    background: "#1e1f22", box: "#2b2d31", header: "#34404f", centre: "#5a4321", border: "#6b7685",
    text: "#e6e9ee", muted: "#a4adb9", key: "#f0b66a", edge: "#a4adb9",
  },
};

const font = 12; // px
const line = 18; // px per row
const pad = 8; // px inside a box
const maxChars = 40; // a name longer than this is cut with …

// width estimates the width of s in the monospace font: one unit a
// character, two for East Asian wide ones.
function width(s) {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    n += (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) || c >= 0x1f300 ? 2 : 1;
  }
  return n * font * 0.6;
}

// cut shortens s to n characters, ending a cut one with ….
export function cut(s, n = maxChars) {
  const chars = Array.from(s);
  return chars.length <= n ? s : chars.slice(0, n - 1).join("") + "…";
}

// esc escapes text for SVG.
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// rows are the lines of a table's box after its name.
function rows(t) {
  const out = t.columns.map((c) => ({ key: c.key || "", text: cut(c.name) + "  " + cut(c.type, 24) }));
  const more = (t.columnsTotal || t.columns.length) - t.columns.length;
  if (more > 0) out.push({ key: "", text: `… ${more} more column${more === 1 ? "" : "s"}`, more: true });
  return out;
}

// layout places the tables and edges of d with dagre and returns the
// boxes and edge points.
export function layout(d) {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 24, ranksep: 64, edgesep: 12, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  const boxes = d.tables.map((t, i) => {
    const rs = rows(t);
    const keyw = rs.some((r) => r.key) ? width("PK,FK") + pad : 0;
    const w = Math.ceil(Math.max(width(cut(t.table)), ...rs.map((r) => keyw + width(r.text))) + 2 * pad);
    const h = (rs.length + 1) * line + pad;
    const id = "t" + i;
    g.setNode(id, { width: w, height: h });
    return { id, table: t, rows: rs, keyw, width: w, height: h };
  });
  const ids = new Map(d.tables.map((t, i) => [t.table, "t" + i]));
  const edges = [];
  d.edges.forEach((e, i) => {
    const from = ids.get(e.to), to = ids.get(e.from); // drawn from the referenced table to the one that holds the key
    if (from === undefined || to === undefined) return;
    g.setEdge(from, to, { minlen: 1, weight: 1 }, "e" + i);
    edges.push({ edge: e, v: from, w: to, name: "e" + i });
  });
  dagre.layout(g);
  for (const b of boxes) {
    const n = g.node(b.id);
    b.x = n.x - b.width / 2;
    b.y = n.y - b.height / 2;
  }
  for (const e of edges) {
    e.points = g.edge({ v: e.v, w: e.w, name: e.name }).points;
  }
  const gr = g.graph();
  return { boxes, edges, width: Math.ceil(gr.width || 0), height: Math.ceil(gr.height || 0) };
}

// end draws a relationship end at point p, the edge arriving from q:
// kind is one of "||", "|o" (the referenced side) or "o|", "o{" (the
// referencing side).
function end(p, q, kind, c) {
  const a = (Math.atan2(p.y - q.y, p.x - q.x) * 180) / Math.PI;
  const parts = [];
  const bar = (x) => parts.push(`<path d="M${x} -6 L${x} 6"/>`);
  const ring = () => parts.push(`<circle cx="-18" cy="0" r="4" fill="${c.background}"/>`);
  switch (kind) {
    case "||": bar(-8); bar(-12); break;
    case "|o": bar(-8); ring(); break;
    case "o|": bar(-8); ring(); break;
    case "o{": parts.push('<path d="M-12 0 L0 -6 M-12 0 L0 6 M-12 0 L0 0"/>'); ring(); break;
  }
  return `<g class="end" data-end="${kind}" transform="translate(${p.x.toFixed(1)} ${p.y.toFixed(1)}) rotate(${a.toFixed(1)})">${parts.join("")}</g>`;
}

// draw returns the SVG document of diagram d in theme ("light" or
// "dark"), with the size it takes.
export function draw(d, theme = "light") {
  const c = themes[theme] || themes.light;
  const L = layout(d);
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="hubsnap-diagram" data-theme="${theme === "dark" ? "dark" : "light"}" ` +
    `width="${L.width}" height="${L.height}" viewBox="0 0 ${L.width} ${L.height}" ` +
    `font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="${font}">`);
  out.push(`<title>${esc(cut(d.center))}: ${d.tables.length} table${d.tables.length === 1 ? "" : "s"} within ${d.hops} hop${d.hops === 1 ? "" : "s"}</title>`);
  out.push(`<rect class="background" x="0" y="0" width="${L.width}" height="${L.height}" fill="${c.background}"/>`);
  out.push(`<g class="edges" fill="none" stroke="${c.edge}" stroke-width="1.3">`);
  for (const e of L.edges) {
    const pts = e.points;
    const path = pts.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(" ");
    const label = e.edge.name || e.edge.fromColumns.join(", ");
    out.push(`<g class="edge" data-from="${esc(e.edge.from)}" data-to="${esc(e.edge.to)}"><title>${esc(e.edge.from)} (${esc(e.edge.fromColumns.join(", "))}) → ${esc(e.edge.to)} (${esc(e.edge.toColumns.join(", "))})${label ? ": " + esc(label) : ""}</title>`);
    out.push(`<path d="${path}"/>`);
    out.push(end(pts[0], pts[1], e.edge.nullable ? "|o" : "||", c));
    out.push(end(pts[pts.length - 1], pts[pts.length - 2], e.edge.unique ? "o|" : "o{", c));
    out.push("</g>");
  }
  out.push("</g>");
  for (const b of L.boxes) {
    const t = b.table;
    const centre = t.distance === 0;
    out.push(`<g class="table${centre ? " centre" : ""}" data-table="${esc(t.table)}" data-connection="${esc(t.connection)}" ` +
      `data-distance="${t.distance}" transform="translate(${b.x.toFixed(1)} ${b.y.toFixed(1)})" cursor="pointer">`);
    out.push(`<title>${esc(t.connection)}.${esc(t.table)}</title>`);
    out.push(`<rect width="${b.width}" height="${b.height}" rx="4" fill="${c.box}" stroke="${c.border}"/>`);
    out.push(`<path d="M0 ${line + 4} H${b.width}" stroke="${c.border}"/>`);
    out.push(`<rect class="header" x="0.5" y="0.5" width="${b.width - 1}" height="${line + 3}" rx="4" fill="${centre ? c.centre : c.header}"/>`);
    out.push(`<text x="${pad}" y="${line - 3}" fill="${c.text}" font-weight="bold">${esc(cut(t.table))}</text>`);
    b.rows.forEach((r, i) => {
      const y = (i + 2) * line;
      if (r.key) out.push(`<text x="${pad}" y="${y}" fill="${c.key}" font-size="${font - 2}">${esc(r.key)}</text>`);
      out.push(`<text x="${pad + b.keyw}" y="${y}" fill="${r.more ? c.muted : c.text}"${r.more ? ' font-style="italic"' : ""}>${esc(r.text)}</text>`);
    });
    out.push("</g>");
  }
  out.push("</svg>");
  return { svg: out.join(""), width: L.width, height: L.height };
}
