// Builds, reproducibly from package-lock.json and these sources:
//   ../diagram.html  the MCP App ui://hubsnap/diagram: one self-contained
//                    page (script and style inline, no request to any
//                    origin), embedded by page.go
//   ../svg/draw.js   the drawing code alone, for goja (the CLI's SVG)
// Run `npm ci && npm run build` here; .ci/run does, and fails when the
// committed files differ.
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";

const here = new URL(".", import.meta.url);
const common = {
  bundle: true,
  minify: true,
  write: false,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
  // zod's locale files hold every language's error messages; the page
  // shows none of them.
  plugins: [{
    name: "no-zod-locales",
    setup(b) {
      b.onResolve({ filter: /locales\/index\.js$|^\.\.?\/locales(\/index)?(\.js)?$/ }, (args) =>
        args.importer.includes("zod") ? { path: args.path, namespace: "empty-locales" } : undefined);
      b.onLoad({ filter: /.*/, namespace: "empty-locales" }, () => ({ contents: "export {};", loader: "js" }));
    },
  }],
};

const app = await build({ ...common, entryPoints: [new URL("src/app.js", here).pathname], format: "esm", target: "es2020" });
let script = app.outputFiles[0].text.replace(/<\/script/gi, "<\\/script");
const template = readFileSync(new URL("src/page.html", here), "utf8");
const [before, after] = template.split("/*SCRIPT*/");
const page = before + script.trimEnd() + after;
writeFileSync(new URL("../diagram.html", here), page);

const svg = await build({ ...common, entryPoints: [new URL("src/svg.js", here).pathname], format: "iife", target: "es2017" });
writeFileSync(new URL("../svg/draw.js", here), svg.outputFiles[0].text);

console.log(`diagram.html ${page.length} bytes, svg/draw.js ${svg.outputFiles[0].text.length} bytes`);
