package store

import (
	"errors"
	"fmt"
)

// Code classifies an error for the edges: MCP tool errors, exit codes.
// The values are the error codes of hubsnap's tools.
type Code string

// Error codes.
const (
	// NoRelease: no current release, for example because its file was removed.
	NoRelease Code = "NO_RELEASE"
	// NotFound: an unknown table, logic or release.
	NotFound Code = "NOT_FOUND"
	// Ambiguous: a bare table name present in several connections.
	Ambiguous Code = "AMBIGUOUS"
	// InvalidArgument: a request that can never succeed as made.
	InvalidArgument Code = "INVALID_ARGUMENT"
	// WrongEnvironment: a release named by id is cached, but for another
	// environment than the one the server serves or the command works on.
	WrongEnvironment Code = "WRONG_ENVIRONMENT"
	// Forbidden: the caller's token lacks the scope.
	Forbidden Code = "FORBIDDEN"
	// Internal: anything else. Details are logged, never shown to a client.
	Internal Code = "INTERNAL"
)

// Codes lists every code, so that each edge's table (tool errors, JSON-RPC
// errors, exit statuses) can be checked to map them all.
var Codes = []Code{NoRelease, NotFound, Ambiguous, InvalidArgument, WrongEnvironment, Forbidden, Internal}

// Error is a domain error with a code and a message safe to show the user.
type Error struct {
	Code    Code
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, Internal for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return Internal
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message for other errors, whose text may hold internal details.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "internal error"
}
