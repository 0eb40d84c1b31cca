package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nullArguments takes an argument whose value is null as left out: "limit":
// null is the default limit, not an error; a required argument that is
// null is then reported missing.
func nullArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && bytes.Contains(p.Arguments, []byte("null")) {
			var args map[string]json.RawMessage
			if json.Unmarshal(p.Arguments, &args) == nil {
				n := len(args)
				for k, v := range args {
					if string(bytes.TrimSpace(v)) == "null" {
						delete(args, k)
					}
				}
				if len(args) < n {
					p.Arguments, _ = json.Marshal(args)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// argumentErrors gives the tool errors go-sdk makes itself, when arguments
// fail the input schema or cannot be decoded, the shape of every other
// hubsnap tool error: {"error":{"code":"INVALID_ARGUMENT",...}}.
func argumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		text, ok := r.Content[0].(*mcp.TextContent)
		if !ok || strings.HasPrefix(text.Text, `{"error":`) {
			return res, err
		}
		return invalidArguments(argumentMessage(text.Text)), nil
	}
}

// Patterns of go-sdk's argument errors (its JSON decoding and its schema
// validation, google/jsonschema-go), reworded for people.
var (
	notAnObject  = regexp.MustCompile(`cannot unmarshal .* into Go value of type map\[string\]interface \{\}`)
	unreadable   = regexp.MustCompile(`cannot unmarshal "(.*)" into Go struct field map\[string\]interface \{\}\.(\S+) of type`)
	validatingAt = regexp.MustCompile(`validating (?:root|/properties/\S+?): `)
	outOfRange   = regexp.MustCompile(`^(?:/properties/)?(\S*?)(?:/items)?: (minimum|maximum): (\S+) is (?:less|greater) than (\S+)$`)
	notInEnum    = regexp.MustCompile(`enum: (.*) does not equal any of: \[(.*)\]$`)
	lastProperty = regexp.MustCompile(`validating /properties/(\S+?): `)
	tooLong      = regexp.MustCompile(`(?s)^maxLength: .* contains \d+ Unicode code points, more than (\d+)$`)
	tooMany      = regexp.MustCompile(`^maxItems: array length \d+ is greater than (\d+)$`)
)

// argumentMessage rewords one of go-sdk's argument errors: it names the
// argument and what is wrong with it, and never a Go type.
func argumentMessage(text string) string {
	text = strings.TrimPrefix(text, `validating "arguments": `)
	text = strings.ReplaceAll(text, "<invalid reflect.Value>", "null") // go-sdk's wording for a JSON null
	if notAnObject.MatchString(text) {
		return "the arguments must be a JSON object"
	}
	if m := unreadable.FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("%s: %s is not a number hubsnap can read", m[2], m[1])
	}
	// "validating root: validating /properties/limit: minimum: 0/1 is
	// less than 1.000000": the innermost property and the complaint.
	field := ""
	if all := lastProperty.FindAllStringSubmatch(text, -1); len(all) > 0 {
		field = strings.TrimSuffix(all[len(all)-1][1], "/items")
	}
	text = validatingAt.ReplaceAllString(text, "")
	if m := outOfRange.FindStringSubmatch(field + ": " + text); m != nil && field != "" {
		bound := strings.TrimRight(strings.TrimRight(m[4], "0"), ".")
		if m[2] == "minimum" {
			return fmt.Sprintf("%s must be at least %s", field, bound)
		}
		return fmt.Sprintf("%s must be at most %s", field, bound)
	}
	// The bounds (bounds.go), as boundArguments words them; the validator
	// would quote the whole string.
	if m := tooLong.FindStringSubmatch(text); m != nil && field != "" {
		return fmt.Sprintf("%s: at most %s characters", field, m[1])
	}
	if m := tooMany.FindStringSubmatch(text); m != nil && field != "" {
		return fmt.Sprintf("%s: at most %s items", field, m[1])
	}
	if m := notInEnum.FindStringSubmatch(text); m != nil && field != "" {
		return fmt.Sprintf("%s: %q is not one of %s", field, m[1], strings.Join(strings.Fields(m[2]), ", "))
	}
	if field != "" {
		return field + ": " + text
	}
	return text
}
