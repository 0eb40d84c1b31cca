package hub

import "fmt"

// Kind classifies an error of the client for the edges, each of which
// turns it into its own form in one place (cmd/hubsnap's exit statuses).
// An error without a kind (the network, the Hub's other answers) is a
// plain error.
type Kind int

// Kinds of error.
const (
	// Invalid: a request that can never succeed as made: a Hub URL that
	// is not one, a name that cannot be sent in a request's path.
	Invalid Kind = iota + 1
	// NotFound: the Hub has no such project or release (404).
	NotFound
)

// Kinds lists every kind, so that each edge's table can be checked to
// map them all.
var Kinds = []Kind{Invalid, NotFound}

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Invalid:
		return "invalid"
	case NotFound:
		return "not found"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is an error of the client with a kind and a message safe to show
// the user.
type Error struct {
	Kind    Kind
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// errorf returns an *Error of the given kind with a formatted message.
func errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}
