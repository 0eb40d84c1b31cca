package main

import "testing"

// An environment variable that is empty, blank or a placeholder left
// unsubstituted counts as unset: the context's value shows through. This
// is how the MCP Bundle's optional settings reach hubsnap when the user
// leaves them empty (manifest.json maps each to a HUBSNAP_ variable, and
// Claude Desktop passes "${user_config.NAME}" unchanged when it has no
// value).
func TestUnsetLookingEnvDoesNotHideContext(t *testing.T) {
	t.Parallel()
	const tok = "hubtok-ctx-5e0c2a91"
	c := newCLI(t)
	c.secrets = []string{tok}
	c.okIn(tok, "context", "set", "work", "--hub", "http://ctx.example", "--project", "ctxproj",
		"--environment", "ctxenv", "--token-stdin")
	rows := []struct{ row, env, want string }{
		{"hub", "HUBSNAP_HUB", "http://ctx.example"},
		{"project", "HUBSNAP_PROJECT", "ctxproj"},
		{"environment", "HUBSNAP_ENVIRONMENT", "ctxenv"},
		{"token", "HUBSNAP_TOKEN", "set (hidden)"},
	}
	for _, v := range []string{"", " ", "\t\n", "${user_config.setting}", " ${user_config.hub_url} ", "${}"} {
		d := c.clone()
		for _, r := range rows {
			d.env[r.env] = v
		}
		got := d.show()
		for _, r := range rows {
			want := setting{r.want, "context work"}
			if r.row == "token" {
				want.Source = "context work token file"
			}
			if got[r.row] != want {
				t.Errorf("%s=%q: %s = %+v, want %+v", r.env, v, r.row, got[r.row], want)
			}
		}
	}

	// A value that only contains a placeholder, or is one with more around
	// it, is a value: it is refused or used as it is, never dropped.
	d := c.clone()
	d.env["HUBSNAP_PROJECT"] = "shop-${X}"
	if got, want := d.showRow("project"), (setting{"shop-${X}", "env HUBSNAP_PROJECT"}); got != want {
		t.Errorf("project = %+v, want %+v", got, want)
	}
	d.env["HUBSNAP_HUB"] = "http://env.example"
	if got, want := d.showRow("hub"), (setting{"http://env.example", "env HUBSNAP_HUB"}); got != want {
		t.Errorf("hub = %+v, want %+v", got, want)
	}

	// The cache and config folders follow the same rule: an empty one
	// leaves the default.
	e := c.clone()
	e.env["HUBSNAP_CACHE_DIR"] = "${user_config.cache_dir}"
	if got := e.showRow("cache dir"); got.Source != "default" {
		t.Errorf("cache dir with a placeholder = %+v, want the default", got)
	}
}
