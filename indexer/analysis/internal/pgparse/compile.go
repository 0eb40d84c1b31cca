package pgparse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
)

// Compiling PostgreSQL's parser (2.2 MB of WebAssembly) holds about
// 250 MiB of Go heap for two seconds: wazero's compiler keeps its SSA
// pools at the size of the largest function, and the grammar's is huge.
// Loading the compiled code from a compilation cache folder holds about
// 30 MiB. A process that must stay small (an import's peak is bounded by
// the release's size; docs/benchmarks.md) therefore leaves the compile to
// another process: SetCompiler tells the parsers of this process how to
// fill their cache folder elsewhere, and Compile is what that other
// process runs. A marker file in the folder says which compilations it
// holds, so the other process runs once per folder (and again after an
// upgrade of the parser or of wazero), not once per process.

// compiler is the function SetCompiler set, or nil.
var compiler atomic.Pointer[func(ctx context.Context, dir string, guarded bool) error]

// SetCompiler makes every parser of this process that keeps its
// compilations in a folder (New's cacheDir) call compile(ctx, dir,
// guarded) when the folder does not hold the compiled engine it needs yet
// (guarded: the one for long SQL), rather than compiling in this process;
// compile is expected to run Compile(ctx, dir, guarded) in another process
// and wait for it. When compile fails, or the folder still lacks
// the parser after it, this process compiles it itself: slower to start
// and larger, never wrong. nil turns it off.
func SetCompiler(compile func(ctx context.Context, dir string, guarded bool) error) {
	if compile == nil {
		compiler.Store(nil)
		return
	}
	compiler.Store(&compile)
}

// Compile compiles one of the parser's engines (guarded: the one for long
// SQL) into the compilation cache folder dir, and marks it there; it is
// the work of the process SetCompiler's function starts. An engine the
// folder already holds is loaded, not compiled again.
func Compile(ctx context.Context, dir string, guarded bool) error {
	if dir == "" {
		return errors.New("no folder for the compiled parser")
	}
	// The compiler's heap is nearly all live until the compile ends: a
	// low GC target keeps the process near that, not twice it.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	p := New(dir)
	p.compiles = true // not in yet another process
	defer p.close()
	e := &p.fast
	if guarded {
		e = &p.guarded
	}
	return p.readyEngine(ctx, e)
}

// compiled reports whether dir is marked as holding the compilation of the
// engine (guarded or not) of this build.
func compiled(dir string, guarded bool) bool {
	_, err := os.Stat(markerPath(dir, guarded))
	return err == nil
}

// markCompiled marks dir as holding the engine's compilation. A failure
// costs only a needless child process next time.
func markCompiled(dir string, guarded bool) {
	path := markerPath(dir, guarded)
	if _, err := os.Stat(path); err == nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".marker-*")
	if err != nil {
		return
	}
	tmp.Close()
	if os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
		return
	}
	forgetOthers(dir)
}

// forgetOthers removes from dir what other builds of hubsnap left there:
// their markers, and wazero's folders of other wazero versions for this
// platform (wazero-VERSION-GOARCH-GOOS, 13 MB an engine). It runs when a
// compilation new to the folder is marked: once per engine and upgrade.
// wazero's folder of this build must be there, or nothing is removed: a
// wrong guess of its name must not cost this build its compilation.
// Compilations of an older parser made by this wazero version stay: wazero
// names its files by digests that are not told apart here.
func forgetOthers(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	platform := "-" + runtime.GOARCH + "-" + runtime.GOOS
	ours := "wazero-" + wazeroFolderVersion() + platform
	oursThere := false
	for _, e := range entries {
		oursThere = oursThere || (e.IsDir() && e.Name() == ours)
	}
	keep := filepath.Base(markerPath(dir, false))
	keep = keep[:len(keep)-len("-fast")]
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "hubsnap-parser-") && !strings.HasPrefix(name, keep+"-"):
			os.Remove(filepath.Join(dir, name))
		case oursThere && e.IsDir() && strings.HasPrefix(name, "wazero-") && strings.HasSuffix(name, platform) && name != ours:
			os.RemoveAll(filepath.Join(dir, name))
		}
	}
}

// wazeroFolderVersion is the version in the name of wazero's compilation
// folder, found as wazero finds it (its internal/version): the version
// the build records for wazero, else the main module's, else "dev".
func wazeroFolderVersion() string {
	v := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if strings.Contains(d.Path, "github.com/tetratelabs/wazero") {
				v = d.Version
			}
		}
		if v == "" || v == "(devel)" {
			v = bi.Main.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return v
}

// markerPath names the marker of an engine's compilation: a digest of
// the parser's WebAssembly, wazero's version, the platform and the engine,
// everything the compiled code depends on.
func markerPath(dir string, guarded bool) string {
	return filepath.Join(dir, "hubsnap-parser-"+buildKey()+map[bool]string{false: "-fast", true: "-guarded"}[guarded])
}

// buildKey is the part of markerPath that is the same for both engines.
var buildKey = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write(parserModule())
	fmt.Fprintf(h, "\x00%s\x00%s/%s", wazeroVersion(), runtime.GOOS, runtime.GOARCH)
	return hex.EncodeToString(h.Sum(nil)[:12])
})

// wazeroVersion is the version of wazero this binary was built with, or
// "devel" when the build does not record it (wazero then keys its own
// cache by its own version, and a stale marker only skips a child).
func wazeroVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Version
			}
		}
	}
	return "devel"
}

// compileElsewhere asks SetCompiler's function, if any, to fill p's folder
// with the engine's compilation (once per engine: readyEngine runs it in
// the engine's sync.Once).
func (p *Parser) compileElsewhere(ctx context.Context, e *engine) {
	c := compiler.Load()
	if c == nil || p.compiles || p.cacheDir == "" || compiled(p.cacheDir, e.guarded) {
		return
	}
	if err := os.MkdirAll(p.cacheDir, 0o700); err != nil {
		return
	}
	// A failure is the function's to report: this process then compiles
	// the engine itself.
	_ = (*c)(ctx, p.cacheDir, e.guarded)
}
