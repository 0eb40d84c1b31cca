// Package browsertest runs the diagram's real-browser tests: the node
// scripts of ../web/test, which drive Debian's Chromium (headless) through
// playwright-core. A test that needs them calls Node; on a machine without
// Chromium or node, or where the npm packages cannot be installed, the
// test skips with one line saying what is missing (.ci/run installs
// Chromium and runs them for real).
//
// # What is not here
//
// The tests themselves (package diagram's and cmd/hubsnap's): this
// package only runs the browser for them.
package browsertest
