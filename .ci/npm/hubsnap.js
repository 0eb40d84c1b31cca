#!/usr/bin/env node
// hubsnap's npm launcher, so that `npx -y hubsnap serve` works: it runs the
// hubsnap binary of this machine's platform package (@hubsnap/linux-x64,
// ...), an optionalDependency that npm installs only on its own OS and CPU
// (as esbuild and Biome ship theirs), with the same arguments, stdin,
// stdout and stderr, and ends as the binary ended: with its exit code, or
// killed by the same signal. Signals sent to the launcher are passed on.
// Nothing is downloaded, at install time or here.
//
// Source: .ci/npm/hubsnap.js in github.com/hubsnap/hubsnap; .ci/package
// makes the npm packages (docs/release.md).
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

// The platforms with a package: process.platform-process.arch.
const platforms = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];

function fail(msg) {
  process.stderr.write(`hubsnap: ${msg}\n`);
  process.exit(1);
}

function binary() {
  const platform = `${process.platform}-${process.arch}`;
  if (!platforms.includes(platform)) {
    fail(`no npm package for ${process.platform}/${process.arch}; ` +
      "take a release archive or build it with `go install github.com/hubsnap/hubsnap/cmd/hubsnap@latest`");
  }
  const pkg = `@hubsnap/${platform}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(`${pkg}, which holds the binary for this platform, is not installed: ` +
      "npm skips it when optional dependencies are omitted (--omit=optional) or when " +
      "node_modules was installed on another platform; install hubsnap again without those");
  }
  const bin = path.join(dir, "bin", process.platform === "win32" ? "hubsnap.exe" : "hubsnap");
  if (process.platform !== "win32") {
    try {
      fs.accessSync(bin, fs.constants.X_OK);
    } catch {
      try {
        fs.chmodSync(bin, 0o755); // a package manager that dropped the mode bits
      } catch {
        // spawn says what is wrong
      }
    }
  }
  return bin;
}

const bin = binary();
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// Pass signals on. On Windows, Ctrl+C and closing the console reach the
// child from the console itself, and a kill there cannot be caught: the
// launcher only waits for the child to end.
const forwarded = process.platform === "win32" ? ["SIGINT", "SIGHUP"] : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
const handlers = {};
for (const sig of forwarded) {
  handlers[sig] = () => {
    if (process.platform !== "win32") {
      child.kill(sig);
    }
  };
  process.on(sig, handlers[sig]);
}

child.on("error", (err) => {
  fail(`cannot run ${bin}: ${err.message}`);
});

child.on("exit", (code, signal) => {
  if (signal === null) {
    process.exit(code);
  }
  // Die of the same signal, so that whoever started the launcher sees what
  // happened to hubsnap; exit 128+N (as a shell reports it) if this signal
  // does not end a Node process.
  for (const sig of forwarded) {
    process.removeListener(sig, handlers[sig]);
  }
  try {
    process.kill(process.pid, signal);
  } catch {
    // fall through
  }
  setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 200);
});
