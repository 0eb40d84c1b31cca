package pgparse

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// sections splits a WebAssembly binary after its preamble into its
// sections, whole (id, size and content).
func sections(tb testing.TB, wasm []byte) [][]byte {
	tb.Helper()
	var out [][]byte
	for rest := wasm[8:]; len(rest) > 0; {
		size, n := binary.Uvarint(rest[1:])
		if n <= 0 {
			tb.Fatalf("bad section size at %d", len(wasm)-len(rest))
		}
		end := 1 + n + int(size)
		out = append(out, rest[:end])
		rest = rest[end:]
	}
	return out
}

// The parser's module is libpg_query's with exactly its custom sections
// left out (it has eight: DWARF, producers, target_features), every
// other section byte for byte in its order.
func TestParserModuleStripped(t *testing.T) {
	var want [][]byte
	custom := 0
	for _, s := range sections(t, libPGQuery) {
		if s[0] == 0 {
			custom++
			continue
		}
		want = append(want, s)
	}
	if custom == 0 {
		t.Fatal("libpg_query has no custom section: nothing is tested")
	}
	got := parserModule()
	if !bytes.Equal(got[:8], libPGQuery[:8]) {
		t.Errorf("preamble % x, want % x", got[:8], libPGQuery[:8])
	}
	if !bytes.Equal(bytes.Join(sections(t, got), nil), bytes.Join(want, nil)) {
		t.Errorf("stripped module: %d sections, want libpg_query's %d without its %d custom ones",
			len(sections(t, got)), len(want), custom)
	}
}

// A module that does not split into sections is compiled as it is, for
// wazero to judge.
func TestStripCustomSectionsMalformed(t *testing.T) {
	for _, wasm := range [][]byte{
		nil,
		[]byte("\x00asm"),
		[]byte("not wasm at all"),
		[]byte("\x00asm\x01\x00\x00\x00\x00\x10short"),                    // a section longer than the rest
		[]byte("\x00asm\x01\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff\x01"), // a size of more than 5 bytes
	} {
		if got := stripCustomSections(wasm); !bytes.Equal(got, wasm) {
			t.Errorf("stripCustomSections(%q) = %q, want it unchanged", wasm, got)
		}
	}
	ok := []byte("\x00asm\x01\x00\x00\x00\x00\x03\x01a\x00\x01\x01\x07")
	if got, want := stripCustomSections(ok), []byte("\x00asm\x01\x00\x00\x00\x01\x01\x07"); !bytes.Equal(got, want) {
		t.Errorf("stripCustomSections(%q) = %q, want %q", ok, got, want)
	}
}
