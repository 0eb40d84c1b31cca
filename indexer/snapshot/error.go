package snapshot

import "fmt"

// maxProblems caps how many validation problems one error reports.
const maxProblems = 50

// Error reports a snapshot document that cannot be used. Each
// problem starts with the path of the offending value, such as
// `tables[3].columns[2].name: duplicate "email"`.
type Error struct {
	Problems []string
	More     bool // more problems than Problems holds
}

// Error returns the first problem and how many others there are.
func (e *Error) Error() string {
	msg := "invalid snapshot: " + e.Problems[0]
	switch n := len(e.Problems) - 1; {
	case e.More:
		msg += fmt.Sprintf(" (and %d+ more problems)", n)
	case n == 1:
		msg += " (and 1 more problem)"
	case n > 1:
		msg += fmt.Sprintf(" (and %d more problems)", n)
	}
	return msg
}

func problem(format string, args ...any) *Error {
	return &Error{Problems: []string{fmt.Sprintf(format, args...)}}
}
