package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress draws one self-updating line on stderr while a snapshot
// downloads, only when stderr is a terminal and only once the download has
// taken a moment, so quick syncs and scripts see nothing.
type progress struct {
	w       io.Writer
	label   string
	enabled bool
	mu      sync.Mutex
	start   time.Time
	last    time.Time
	drawn   bool
}

const (
	progressDelay = 500 * time.Millisecond
	progressEvery = 200 * time.Millisecond
)

func newProgress(w io.Writer, release string) *progress {
	label := "snapshot"
	if release != "" {
		label = release
	}
	return &progress{w: w, label: label, enabled: isTerminal(w), start: time.Now()}
}

func (p *progress) update(done, total int64) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < progressDelay || now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	p.drawn = true
	if total > 0 {
		fmt.Fprintf(p.w, "\r\033[Khubsnap: downloading %s: %s of %s (%d%%)", p.label, mib(done), mib(total), done*100/total)
	} else {
		fmt.Fprintf(p.w, "\r\033[Khubsnap: downloading %s: %s", p.label, mib(done))
	}
}

// done clears the line, if one was drawn.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// isTerminal reports whether a stream is a terminal (a character device).
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
