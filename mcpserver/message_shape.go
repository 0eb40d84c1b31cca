package mcpserver

import "fmt"

// Bounds of a message's shape, which both transports check (ShapeProblem)
// before go-sdk decodes a message: a 1 MiB message of a few bytes per
// value ([{},{},...], or the same in a request's _meta) would decode into
// hundreds of thousands of Go values, 100 MiB and more. No message a
// client needs comes near them. The fuzzing of the tools' arguments
// (fuzz_test.go) leaves out what the transports refuse by the same rule.
const (
	// MaxJSONDepth is how deep go-sdk decodes a message (its
	// internal/json).
	MaxJSONDepth = 1000
	// MaxMessageValues bounds the values in a message or a batch.
	MaxMessageValues = 10000
)

// ShapeProblem says what is wrong with the shape of a message or batch,
// read once without decoding: nested deeper than MaxJSONDepth, or holding
// more than MaxMessageValues values; "" when nothing is.
func ShapeProblem(msg []byte) string {
	depth, values := messageShape(msg)
	switch {
	case depth > MaxJSONDepth:
		return fmt.Sprintf("message nested deeper than %d levels", MaxJSONDepth)
	case values > MaxMessageValues:
		return fmt.Sprintf("message holds more than %d values", MaxMessageValues)
	}
	return ""
}

// messageShape returns how deep msg's arrays and objects nest, and about
// how many values it holds: its arrays and objects and the members and
// elements after their first (a count of '[', '{' and ','), reading it
// once, strings skipped.
func messageShape(msg []byte) (deepest, values int) {
	depth := 0
	for i := 0; i < len(msg); i++ {
		switch msg[i] {
		case '"':
			for i++; i < len(msg) && msg[i] != '"'; i++ {
				if msg[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
			values++
		case ',':
			values++
		case ']', '}':
			depth--
		}
	}
	return deepest, values
}
