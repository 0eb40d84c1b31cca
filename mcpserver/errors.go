package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hubsnap/hubsnap/store"
)

// toolError is a tool failure as SPEC §9 shows it to clients: a result
// with isError set whose text is {"error":{"code":"...","message":"..."}}.
// go-sdk turns an error returned by a typed handler into exactly that
// result, with err.Error() as its text.
type toolError struct {
	Code    store.Code `json:"code"`
	Message string     `json:"message"`
}

func (e *toolError) Error() string {
	b, _ := json.Marshal(struct {
		Error *toolError `json:"error"`
	}{e})
	return string(b)
}

// fail maps err to a tool error. Domain errors keep their code and message;
// anything else is logged and reaches the client only as INTERNAL.
func (s *Server) fail(ctx context.Context, tool string, err error) error {
	if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
		return &toolError{Code: store.Internal, Message: "the call was cancelled"}
	}
	if code := store.ErrorCode(err); code != store.Internal {
		return &toolError{Code: code, Message: store.ErrorMessage(err)}
	}
	s.log.Error("tool failed", "tool", tool, "err", err)
	return &toolError{Code: store.Internal, Message: "internal error; the server log has the details"}
}

func invalid(format string, args ...any) error {
	return store.Errorf(store.InvalidArgument, format, args...)
}
