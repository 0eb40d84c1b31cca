package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/mcpserver/diagram/browsertest"
)

// TestDiagramAppInBrowser is the real-browser test of the MCP App: a host
// page built on ext-apps' AppBridge (mcpserver/diagram/web/test/host.js),
// in headless Chromium, renders ui://hubsnap/diagram, read from a real
// hubsnap serve --http, in a sandboxed iframe whose Content-Security-
// Policy blocks every network origin, and the test checks what the app
// draws: a box per table, the edges with their ends, both themes, a
// click that re-centres through a tools/call, no console errors and no
// request from the app. Screenshots go to $HUBSNAP_SCREENSHOTS when set
// (docs/ holds the ones of the README).
func TestDiagramAppInBrowser(t *testing.T) {
	browsertest.Ready(t)
	c, _ := servedCLI(t)
	s := startHTTPServe(t, c, "127.0.0.1:0")
	shots := os.Getenv("HUBSNAP_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	out := browsertest.Node(t, "app.mjs", nil, 3*time.Minute, "HUBSNAP_MCP_URL="+s.url, "DIAGRAM_TABLE=users",
		"DIAGRAM_CONNECTION=main", "DIAGRAM_HOPS=2", "SCREENSHOT_DIR="+shots)
	type view struct {
		Center, Theme, SVGTheme, Background, BoxFill string
		Tables                                       []string
		Edges                                        [][3]string
		CentreBoxes                                  int
	}
	var r struct {
		ToolCalls     []map[string]any
		ConsoleErrors []string
		PageErrors    []string
		AppRequests   []string
		HostError     string
		Size          struct{ Height float64 }
		FirstResult   struct {
			Tables []struct{ Table string }
			Edges  []struct {
				From, To         string
				Nullable, Unique bool
			}
		}
		RecentreCalls []struct {
			Name      string
			Arguments map[string]any
		}
		Steps struct {
			Light, Dark, Recentred view
			Clicked                string
			Zoom                   struct{ Before, After string }
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.HostError != "" || len(r.ConsoleErrors) > 0 || len(r.PageErrors) > 0 {
		t.Errorf("errors: host %q, console %q, page %q", r.HostError, r.ConsoleErrors, r.PageErrors)
	}
	if r.Size.Height < 420 || r.Size.Height > 720 {
		t.Errorf("the app asked the host for a height of %v, want 420 to 720", r.Size.Height)
	}
	if len(r.AppRequests) > 0 {
		t.Errorf("the app made network requests: %q", r.AppRequests)
	}

	// One box per table of the answer, one edge per foreign key, with the
	// ends the data gives.
	var want []string
	for _, tb := range r.FirstResult.Tables {
		want = append(want, tb.Table)
	}
	light := r.Steps.Light
	if len(want) < 3 || !slices.Equal(light.Tables, want) || light.Center != "users" || light.CentreBoxes != 1 {
		t.Errorf("light: boxes %q (centre %q, %d centre boxes), want %q", light.Tables, light.Center, light.CentreBoxes, want)
	}
	var wantEdges [][3]string
	for _, e := range r.FirstResult.Edges {
		ends := "|| "
		if e.Nullable {
			ends = "|o "
		}
		if e.Unique {
			ends += "o|"
		} else {
			ends += "o{"
		}
		wantEdges = append(wantEdges, [3]string{e.From, e.To, ends})
	}
	if len(wantEdges) == 0 || !slices.Equal(light.Edges, wantEdges) {
		t.Errorf("light: edges %q, want %q", light.Edges, wantEdges)
	}

	// Both themes: the host's theme reaches the app, which redraws.
	dark := r.Steps.Dark
	if light.Theme != "light" || light.SVGTheme != "light" || dark.Theme != "dark" || dark.SVGTheme != "dark" ||
		light.Background == dark.Background || light.BoxFill == dark.BoxFill {
		t.Errorf("themes: light %+v, dark %+v", light, dark)
	}
	if r.Steps.Zoom.Before == r.Steps.Zoom.After {
		t.Errorf("zoom in left the scale at %s", r.Steps.Zoom.Before)
	}

	// A click on a neighbour re-centres through a tools/call.
	clicked := r.Steps.Clicked
	if r.Steps.Recentred.Center != clicked || len(r.Steps.Recentred.Tables) == 0 || r.Steps.Recentred.Tables[0] != clicked {
		t.Errorf("after a click on %q the app shows %q centred on %q", clicked, r.Steps.Recentred.Tables, r.Steps.Recentred.Center)
	}
	if len(r.RecentreCalls) != 1 || r.RecentreCalls[0].Name != "schema_diagram" || r.RecentreCalls[0].Arguments["table"] != clicked {
		t.Errorf("the click made the calls %+v, want one schema_diagram of %q", r.RecentreCalls, clicked)
	}
	for _, name := range []string{"diagram-light.png", "diagram-dark.png"} {
		if fi, err := os.Stat(shots + "/" + name); err != nil || fi.Size() < 1000 {
			t.Errorf("screenshot %s: %v", name, err)
		}
	}
	if strings.Contains(string(out), "PLANTED_") {
		t.Error("a secret reached the browser")
	}
}
