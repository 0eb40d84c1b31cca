package pgparse

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewCompilesNothing: New only records its folder; the parser is
// compiled at the first Parse, Scan, Ready or Prepare, so a process that
// never parses pays nothing for it.
func TestNewCompilesNothing(t *testing.T) {
	p := New(filepath.Join(t.TempDir(), "wazero"))
	defer p.Close()
	if p.fast.rt != nil || p.guarded.rt != nil || p.cache != nil {
		t.Error("New compiled the parser or opened its cache")
	}
	if _, err := os.Stat(p.cacheDir); !os.IsNotExist(err) {
		t.Errorf("New created the cache folder (%v)", err)
	}
}

// TestPoolDropsGrownInstances keeps no instance whose memory grew past
// keepBelow after a huge statement.
func TestPoolDropsGrownInstances(t *testing.T) {
	p := testParser(t)
	var in strings.Builder
	in.WriteString("SELECT id FROM orders WHERE id IN (")
	for i := 0; in.Len() < 48<<10-16; i++ {
		if i > 0 {
			in.WriteString(",")
		}
		fmt.Fprintf(&in, "%d", i)
	}
	in.WriteString(")")
	if _, err := p.Parse(context.Background(), in.String()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*engine{&p.fast, &p.guarded} {
		e.mu.Lock()
		for _, in := range e.idle {
			if in.mem.Size() > keepBelow {
				t.Errorf("an idle instance holds %d bytes", in.mem.Size())
			}
		}
		e.mu.Unlock()
	}
}
