package pgparse

import (
	"encoding/binary"
	"sync"
)

// parserModule is the module the parser compiles: libPGQuery without its
// custom sections (section id 0: DWARF's .debug_*, producers,
// target_features), which nothing here reads. With DWARF present, wazero
// keeps a source map of every call site (about 250,000 entries) in the
// compiled code it stores in the cache folder, and reads it back eight
// bytes per read system call: half a million reads, 0.25-0.5 s of every
// process's first parse (docs/benchmarks.md, "The parser's first use").
// Without them the compiled code holds no source map, and a trap's stack
// trace has no C source lines. A module that does not split into
// sections is used whole.
var parserModule = sync.OnceValue(func() []byte { return stripCustomSections(libPGQuery) })

// stripCustomSections returns the WebAssembly binary wasm without its
// custom sections, or wasm itself when it is not a well-formed sequence
// of sections after the 8-byte preamble.
func stripCustomSections(wasm []byte) []byte {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return wasm
	}
	out := append(make([]byte, 0, len(wasm)), wasm[:8]...)
	for rest := wasm[8:]; len(rest) > 0; {
		size, n := binary.Uvarint(rest[1:]) // a section: id, LEB128 size, content
		if n <= 0 || n > 5 || size > uint64(len(rest)-1-n) {
			return wasm
		}
		end := 1 + n + int(size)
		if rest[0] != 0 {
			out = append(out, rest[:end]...)
		}
		rest = rest[end:]
	}
	return out
}
