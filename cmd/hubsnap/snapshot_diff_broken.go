package main

import (
	"strconv"

	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/store/answer"
)

// broken prints logics.broken (SPEC §11), after the changes: what the
// newer release breaks, one logic a line, marked !, its new problems
// below it as `snapshot check` writes them:
//
//	Broken logics: 1
//	  ! posts/publish
//	      posts/publish:42: UNKNOWN_COLUMN column "published_at" does not exist
//
// While the analysis is pending it says so instead.
func (p *diffPrinter) broken(l *answer.LogicsDiff) {
	if l.AnalysisPending {
		p.line(0, "")
		p.line(0, "Broken logics: not known yet (the logics are still being analysed)")
		return
	}
	if len(l.Broken) == 0 {
		return
	}
	p.line(0, "")
	total := max(l.BrokenTotal, len(l.Broken))
	p.line(0, "Broken logics: %d", total)
	for _, b := range l.Broken {
		name := "! " + b.Name
		if p.color {
			name = "\033[31m" + name + "\033[0m"
		}
		p.line(1, "%s", name)
		for _, pr := range b.Problems {
			p.line(3, "%s", findingLine(mcpserver.Finding{Code: pr.Code, Message: pr.Message, Logic: b.Name, Position: pr.Position}))
		}
		if b.ProblemsTotal > len(b.Problems) {
			p.line(3, "(%s more problems)", strconv.Itoa(b.ProblemsTotal-len(b.Problems)))
		}
	}
	if total > len(l.Broken) {
		p.line(1, "(%d more broken logics)", total-len(l.Broken))
	}
}
