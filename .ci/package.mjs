// The JSON side of .ci/package (docs/release.md), in Node because the
// bundle's and npm's own tools need Node anyway:
//
//   node .ci/package.mjs stage DIST
//     From GoReleaser's output in DIST (metadata.json, artifacts.json, the
//     binaries): DIST/bundle/, the MCP Bundle's folder (manifest.json with
//     the release's version, the binaries for macOS, Linux and Windows,
//     LICENSE, README.md), and DIST/npm/<name>/, the npm launcher and one
//     package per platform holding its binary.
//   node .ci/package.mjs server-json DIST
//     DIST/server.json: server.json with the release's version, the
//     bundle's download URL and the sha256 of DIST/hubsnap.mcpb.
//   node .ci/package.mjs mcp-config BUNDLE_DIR USER_CONFIG_JSON
//     The command, arguments and environment that Claude Desktop runs for
//     the unpacked bundle in BUNDLE_DIR with these user settings, worked
//     out by the bundle format's own code (getMcpConfigForManifest of
//     @anthropic-ai/mcpb, the module MCPB_MODULE names), as JSON.
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

// The npm platforms (process.platform, process.arch) of GoReleaser's
// GOOS/GOARCH.
const platforms = [
  { goos: "linux", goarch: "amd64", os: "linux", cpu: "x64" },
  { goos: "linux", goarch: "arm64", os: "linux", cpu: "arm64" },
  { goos: "darwin", goarch: "amd64", os: "darwin", cpu: "x64" },
  { goos: "darwin", goarch: "arm64", os: "darwin", cpu: "arm64" },
  { goos: "windows", goarch: "amd64", os: "win32", cpu: "x64" },
  { goos: "windows", goarch: "arm64", os: "win32", cpu: "arm64" },
];

// The bundle's binaries: its manifest picks one by operating system only,
// so macOS gets the universal binary, and Windows and Linux amd64 (Windows
// on Arm runs it emulated).
const bundleBinaries = [
  { goos: "darwin", goarch: "all", to: "server/darwin/hubsnap" },
  { goos: "linux", goarch: "amd64", to: "server/linux/hubsnap" },
  { goos: "windows", goarch: "amd64", to: "server/win32/hubsnap.exe" },
];

const readJSON = (file) => JSON.parse(readFileSync(file, "utf8"));
const writeJSON = (file, v) => writeFileSync(file, JSON.stringify(v, null, 2) + "\n");

function release(dist) {
  const meta = readJSON(join(dist, "metadata.json"));
  const artifacts = readJSON(join(dist, "artifacts.json"));
  const binary = (goos, goarch) => {
    const a = artifacts.find((a) => a.type === "Binary" && a.goos === goos && a.goarch === goarch);
    if (!a) throw new Error(`no ${goos}/${goarch} binary in ${dist}/artifacts.json`);
    return resolve(root, a.path);
  };
  return { version: meta.version, binary };
}

function copyExecutable(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  chmodSync(to, 0o755);
}

function stage(dist) {
  const { version, binary } = release(dist);

  const bundle = join(dist, "bundle");
  rmSync(bundle, { recursive: true, force: true });
  mkdirSync(bundle, { recursive: true });
  const manifest = readJSON(join(root, "manifest.json"));
  manifest.version = version;
  writeJSON(join(bundle, "manifest.json"), manifest);
  for (const f of ["LICENSE", "README.md"]) copyFileSync(join(root, f), join(bundle, f));
  for (const b of bundleBinaries) copyExecutable(binary(b.goos, b.goarch), join(bundle, b.to));

  const npm = join(dist, "npm");
  rmSync(npm, { recursive: true, force: true });
  const server = readJSON(join(root, "server.json"));
  const common = {
    version,
    license: "MIT",
    homepage: "https://github.com/hubsnap/hubsnap#readme",
    repository: { type: "git", url: "git+https://github.com/hubsnap/hubsnap.git" },
    bugs: "https://github.com/hubsnap/hubsnap/issues",
  };
  const optional = {};
  for (const p of platforms) {
    const name = `@hubsnap/${p.os}-${p.cpu}`;
    optional[name] = version;
    const dir = join(npm, `${p.os}-${p.cpu}`);
    const exe = p.goos === "windows" ? "hubsnap.exe" : "hubsnap";
    copyExecutable(binary(p.goos, p.goarch), join(dir, "bin", exe));
    copyFileSync(join(root, "LICENSE"), join(dir, "LICENSE"));
    writeFileSync(join(dir, "README.md"),
      `# ${name}\n\nThe hubsnap binary for ${p.os} on ${p.cpu}. Install \`hubsnap\`, ` +
      "which picks this package on this platform: `npx -y hubsnap serve`.\n");
    writeJSON(join(dir, "package.json"), {
      name,
      ...common,
      description: `The hubsnap binary for ${p.os} ${p.cpu} (installed by the hubsnap package)`,
      os: [p.os],
      cpu: [p.cpu],
      files: [`bin/${exe}`],
      preferUnplugged: true,
    });
  }
  const launcher = join(npm, "hubsnap");
  copyExecutable(join(root, ".ci", "npm", "hubsnap.js"), join(launcher, "bin", "hubsnap.js"));
  copyFileSync(join(root, "LICENSE"), join(launcher, "LICENSE"));
  // npm shows the README without the repository around it: links to the
  // docs point at GitHub.
  writeFileSync(join(launcher, "README.md"), readFileSync(join(root, "README.md"), "utf8")
    .replace(/\]\((docs\/[^)]*\.png)\)/g, "](https://github.com/hubsnap/hubsnap/blob/main/$1?raw=true)")
    .replace(/\]\((docs\/[^)]*)\)/g, "](https://github.com/hubsnap/hubsnap/blob/main/$1)"));
  writeJSON(join(launcher, "package.json"), {
    name: "hubsnap",
    ...common,
    description: server.description,
    mcpName: server.name,
    keywords: ["mcp", "model-context-protocol", "mcp-server", "database", "schema", "sql"],
    bin: { hubsnap: "bin/hubsnap.js" },
    files: ["bin/hubsnap.js"],
    engines: { node: ">=18" },
    optionalDependencies: optional,
  });
  console.log(`staged ${bundle} and ${npm}/ for ${version}`);
}

function serverJSON(dist) {
  const { version } = release(dist);
  const s = readJSON(join(root, "server.json"));
  const sha = createHash("sha256").update(readFileSync(join(dist, "hubsnap.mcpb"))).digest("hex");
  s.version = version;
  for (const p of s.packages) {
    p.version = version;
    if (p.registryType === "mcpb") {
      p.identifier = p.identifier.replace("/v0.0.0/", `/v${version}/`);
      p.fileSha256 = sha;
    }
  }
  writeJSON(join(dist, "server.json"), s);
  console.log(`wrote ${dist}/server.json: ${version}, hubsnap.mcpb sha256 ${sha}`);
}

async function mcpConfig(bundleDir, userConfig) {
  const mcpb = await import(pathToFileURL(process.env.MCPB_MODULE).href);
  const manifest = readJSON(join(bundleDir, "manifest.json"));
  const config = await mcpb.getMcpConfigForManifest({
    manifest,
    extensionPath: resolve(bundleDir),
    systemDirs: { HOME: process.env.HOME ?? "" },
    userConfig: JSON.parse(userConfig),
    pathSeparator: "/",
  });
  if (!config) throw new Error("getMcpConfigForManifest gave no configuration (a required setting missing?)");
  process.stdout.write(JSON.stringify(config) + "\n");
}

const [cmd, ...args] = process.argv.slice(2);
switch (cmd) {
  case "stage":
    stage(args[0]);
    break;
  case "server-json":
    serverJSON(args[0]);
    break;
  case "mcp-config":
    await mcpConfig(args[0], args[1]);
    break;
  default:
    console.error("usage: node .ci/package.mjs stage|server-json DIST | mcp-config BUNDLE_DIR USER_CONFIG_JSON");
    process.exit(2);
}
