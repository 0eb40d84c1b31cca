package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store/answer"
)

// ReleaseInfoInput is the (empty) input of release_info.
type ReleaseInfoInput struct{}

// ReleaseInfo is the output of release_info.
type ReleaseInfo struct {
	ID          string `json:"id" jsonschema:"the release id"`
	Project     string `json:"project"`
	Environment string `json:"environment"`
	Version     int64  `json:"version"`
	CreatedAt   string `json:"createdAt" jsonschema:"when the Hub created the release"`
	SyncedAt    string `json:"syncedAt" jsonschema:"when it entered this machine's cache"`
	Tables      int    `json:"tables" jsonschema:"how many tables it has"`
	Logics      int    `json:"logics" jsonschema:"how many logics it has"`
	// SchemaProblems counts release_check's findings of the default rules.
	SchemaProblems int `json:"schemaProblems" jsonschema:"how many schema findings release_check lists by default"`
	// LogicProblems is set when the release's logics are analysed.
	LogicProblems *int `json:"logicProblems,omitempty" jsonschema:"how many logics have problems (postgres releases); release_check lists them"`
	// AnalysisPending is set while they are being analysed.
	AnalysisPending bool `json:"analysisPending,omitempty" jsonschema:"the logics are still being analysed: logicProblems comes shortly"`
	// OtherReleases are the releases schema_diff can compare it with.
	OtherReleases []answer.ReleaseRef `json:"otherReleases" jsonschema:"the other cached releases of the project and environment, newest first; at most 100"`
	// OtherReleasesTotal counts them all when there are more than 100.
	OtherReleasesTotal int `json:"otherReleasesTotal,omitempty" jsonschema:"how many other releases are cached, when there are more than otherReleases lists"`
}

func (s *Server) addReleaseTools() {
	addTool[ReleaseInfoInput, ReleaseInfo](s, &mcp.Tool{
		Name: "release_info",
		Description: `Describe the release the other tools answer from: id, project, environment,
version, when it was created and synced, how many tables and logics (and with problems), the other
cached releases (those schema_diff can compare it with). Use it to tell the user which
release the schema comes from.`,
		Annotations: readOnly("Release info"),
	}, []access.Scope{access.ReleaseRead}, s.releaseInfo)
}

func (s *Server) releaseInfo(ctx context.Context, _ *mcp.CallToolRequest, _ ReleaseInfoInput) ([]byte, error) {
	return s.store.ReleaseJSON(ctx, s.target)
}
