// The drawing code as the CLI runs it in goja: `hubsnap snapshot diagram
// --format svg` calls hubsnapDrawSVG(JSON text of a diagram, theme).
import { draw } from "./draw.js";

globalThis.hubsnapDrawSVG = (json, theme) => draw(JSON.parse(json), theme).svg;
