package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
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
}

func (s *Server) addReleaseTools() {
	addTool(s, &mcp.Tool{
		Name:  "release_info",
		Title: "Release info",
		Description: `Describe the release the other tools answer from: id, project, environment,
version, when it was created and synced, and how many tables and logics it has. Use it to
tell the user which release the schema comes from, or to check it is the expected one.`,
		Annotations: readOnly("Release info"),
	}, s.releaseInfo)
}

func (s *Server) releaseInfo(ctx context.Context, _ *mcp.CallToolRequest, _ ReleaseInfoInput) (*mcp.CallToolResult, ReleaseInfo, error) {
	ri, err := s.store.Current(ctx, s.target)
	if err != nil {
		return nil, ReleaseInfo{}, s.fail(ctx, "release_info", err)
	}
	return answer(releaseOut(ri))
}

func releaseOut(ri store.ReleaseInfo) ReleaseInfo {
	return ReleaseInfo{ID: ri.ID, Project: ri.Project, Environment: ri.Environment, Version: ri.Version,
		CreatedAt: ri.CreatedAt, SyncedAt: ri.SyncedAt, Tables: ri.Tables, Logics: ri.Logics}
}
