package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, "rel_42")
	if p.enabled {
		t.Fatal("a buffer is not a terminal: progress must be off")
	}
	p.update(1, 2)
	p.done()
	if buf.Len() != 0 {
		t.Fatalf("progress off wrote %q", buf.String())
	}

	p.enabled = true
	p.update(1<<20, 4<<20) // too early: quick downloads show nothing
	if buf.Len() != 0 {
		t.Fatalf("progress wrote %q before its delay", buf.String())
	}
	p.start = time.Now().Add(-time.Second)
	p.update(1<<20, 4<<20)
	p.update(2<<20, 4<<20) // too soon after the last line
	if got, want := buf.String(), "\r\033[Khubsnap: downloading rel_42: 1.0 MiB of 4.0 MiB (25%)"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	buf.Reset()
	p.last = time.Time{}
	p.update(3<<20, -1)
	if got := buf.String(); !strings.HasSuffix(got, "downloading rel_42: 3.0 MiB") {
		t.Errorf("unknown total: %q", got)
	}
	buf.Reset()
	p.done()
	p.done()
	if got := buf.String(); got != "\r\033[K" {
		t.Errorf("done wrote %q, want one line clear", got)
	}
}
