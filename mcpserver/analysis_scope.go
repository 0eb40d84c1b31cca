package mcpserver

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// schema_get_table's usedBy names logics: like schema_diff's logics, it
// is given only to a caller that may read logics. A token with
// table:read but not logic:read gets the table without it.

// withoutUsedBy returns answer for the caller of req: whole, or without
// usedBy and usedByTotal when the caller's token lacks logic:read.
func withoutUsedBy(req mcp.Request, answer []byte) []byte {
	if granted, limited := grantedScopes(req); !limited || access.Allows(granted, access.LogicRead) {
		return answer
	}
	return stripUsedBy(answer)
}

// stripUsedBy removes the members usedBy and usedByTotal from a
// schema_get_table answer. `,"usedBy":[` cannot occur inside a JSON string
// (its quotes would be escaped), so its first occurrence is the member.
func stripUsedBy(answer []byte) []byte {
	key := []byte(`,"usedBy":`)
	i := bytes.Index(answer, key)
	if i < 0 {
		return answer
	}
	dec := json.NewDecoder(bytes.NewReader(answer[i+len(key):]))
	var list json.RawMessage
	if dec.Decode(&list) != nil {
		return answer
	}
	end := i + len(key) + int(dec.InputOffset())
	total := []byte(`,"usedByTotal":`)
	if bytes.HasPrefix(answer[end:], total) {
		end += len(total)
		for end < len(answer) && answer[end] >= '0' && answer[end] <= '9' {
			end++
		}
	}
	return append(answer[:i:i], answer[end:]...)
}
