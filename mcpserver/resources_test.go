package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

func readResource(tb testing.TB, cs *mcp.ClientSession, uri string) (string, error) {
	tb.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		tb.Fatalf("%s: contents %+v", uri, res.Contents)
	}
	return res.Contents[0].Text, nil
}

// TestResourcesAnswerAsTheTools reads every resource kind and compares it
// with the tool's answer.
func TestResourcesAnswerAsTheTools(t *testing.T) {
	cs := shopSession(t)
	for _, tc := range []struct {
		uri, tool string
		args      map[string]any
	}{
		{"hubsnap://release", "release_info", map[string]any{}},
		{"hubsnap://tables/main/posts", "schema_get_table", map[string]any{"table": "posts"}},
		{"hubsnap://tables/analytics/users", "schema_get_table", map[string]any{"table": "analytics.users"}},
		{"hubsnap://logics/purchase_item", "logic_get", map[string]any{"name": "purchase_item"}},
		{"hubsnap://logics/admin%2Fusers", "logic_get", map[string]any{"name": "admin/users"}},
		{"hubsnap://logics/admin/users", "logic_get", map[string]any{"name": "admin/users"}},
	} {
		got, err := readResource(t, cs, tc.uri)
		if err != nil {
			t.Errorf("read %s: %v", tc.uri, err)
			continue
		}
		if want := text(t, call(t, cs, tc.tool, tc.args)); got != want {
			t.Errorf("%s = %s\nwant the tool's %s", tc.uri, got, want)
		}
	}
}

func TestUnknownResourcesAre32602(t *testing.T) {
	cs := shopSession(t)
	for _, uri := range []string{
		"hubsnap://tables/main/invoices", "hubsnap://tables/nope/users", "hubsnap://logics/nope",
		"hubsnap://logics/..%2Fetc", "hubsnap://nothing", "file:///etc/passwd", "hubsnap://tables/main",
	} {
		_, err := readResource(t, cs, uri)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s: %v, want -32602", uri, err)
		}
	}
}

func TestResourceListsAndTemplates(t *testing.T) {
	cs := shopSession(t)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 2 || list.Resources[0].URI != "hubsnap://release" ||
		list.Resources[1].URI != "ui://hubsnap/diagram" {
		t.Fatalf("resources/list = %+v, %v", list, err)
	}
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tm := range tmpls.ResourceTemplates {
		got = append(got, tm.URITemplate)
	}
	for _, want := range []string{"hubsnap://tables/{connection}/{table}", "hubsnap://logics/{name}"} {
		if !slices.Contains(got, want) {
			t.Errorf("templates %q lack %q", got, want)
		}
	}
}

func TestCompletions(t *testing.T) {
	cs := shopSession(t)
	complete := func(uri, arg, value string, context map[string]string) []string {
		t.Helper()
		p := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: uri},
			Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
		if context != nil {
			p.Context = &mcp.CompleteContext{Arguments: context}
		}
		res, err := cs.Complete(t.Context(), p)
		if err != nil {
			t.Fatalf("complete %s %s=%q: %v", uri, arg, value, err)
		}
		return res.Completion.Values
	}
	for _, tc := range []struct {
		uri, arg, value string
		context         map[string]string
		want            string
	}{
		{"hubsnap://tables/{connection}/{table}", "connection", "", nil, "analytics main"},
		{"hubsnap://tables/{connection}/{table}", "table", "p", nil, "posts purchases"},
		{"hubsnap://tables/{connection}/{table}", "table", "u", map[string]string{"connection": "analytics"}, "users"},
		{"hubsnap://tables/{connection}/{table}", "table", "zz", nil, ""},
		{"hubsnap://logics/{name}", "name", "a", nil, "admin/users"},
		{"hubsnap://logics/{name}", "name", "", nil, "admin/users items/search posts/publish purchase_item"},
	} {
		if got := strings.Join(complete(tc.uri, tc.arg, tc.value, tc.context), " "); got != tc.want {
			t.Errorf("complete %s %s=%q = %q, want %q", tc.uri, tc.arg, tc.value, got, tc.want)
		}
	}
}

// TestReleaseChangeNotifies checks that a change of the served release
// reaches clients as list_changed, and subscribers as updated.
func TestReleaseChangeNotifies(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	listChanged := make(chan struct{}, 10)
	updated := make(chan string, 10)
	ct, stt := mcp.NewInMemoryTransports()
	if _, err := srv.mcp.Connect(ctx, stt, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			updated <- r.Params.URI
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "hubsnap://tables/main/posts"}); err != nil {
		t.Fatal(err)
	}

	srv.CheckRelease(ctx) // nothing changed: no notification
	next := shopSnapshot(t)
	next.Release.ID = "rel_43"
	putCurrent(t, st, next)
	srv.CheckRelease(ctx)
	select {
	case <-listChanged:
	case <-time.After(patience):
		t.Fatal("no resources/list_changed after the release changed")
	}
	select {
	case uri := <-updated:
		if uri != "hubsnap://tables/main/posts" {
			t.Errorf("updated %s, want the subscribed table", uri)
		}
	case <-time.After(patience):
		t.Fatal("no resources/updated for the subscriber")
	}
	// Gone: NO_RELEASE is a change too.
	if err := st.DeleteRelease(ctx, store.ReleaseKey{Project: "shop", ID: "rel_43"}); err != nil {
		t.Fatal(err)
	}
	srv.CheckRelease(ctx)
	select {
	case <-listChanged:
	case <-time.After(patience):
		t.Fatal("no list_changed when the release went away")
	}
	var out struct{ Error struct{ Code string } }
	json.Unmarshal([]byte(text(t, call(t, cs, "release_info", map[string]any{}))), &out)
	if out.Error.Code != "NO_RELEASE" {
		t.Errorf("release_info after removal: %+v", out)
	}
}
