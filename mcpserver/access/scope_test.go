package access

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseScopesValid(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"table read", []string{"table:read"}, []string{"table:read"}},
		{"logic read", []string{"logic:read"}, []string{"logic:read"}},
		{"release read", []string{"release:read"}, []string{"release:read"}},
		{"all three", []string{"table:read", "logic:read", "release:read"}, []string{"table:read", "logic:read", "release:read"}},
		{"table wildcard", []string{"table:*"}, []string{"table:*"}},
		{"logic wildcard", []string{"logic:*"}, []string{"logic:*"}},
		{"release wildcard", []string{"release:*"}, []string{"release:*"}},
		{"any read", []string{"*:read"}, []string{"*:read"}},
		{"star", []string{"*"}, []string{"*"}},
		{"star star", []string{"*:*"}, []string{"*:*"}},
		{"comma separated", []string{"table:read,logic:read"}, []string{"table:read", "logic:read"}},
		{"comma separated with spaces", []string{" table:read , logic:read ,release:read "}, []string{"table:read", "logic:read", "release:read"}},
		{"repeated items", []string{"table:read", "logic:read"}, []string{"table:read", "logic:read"}},
		{"repeated and comma separated", []string{"release:read,table:*", "*:read", "logic:read"}, []string{"release:read", "table:*", "*:read", "logic:read"}},
		{"trimming", []string{"  table:read\t", "\nlogic:read\n"}, []string{"table:read", "logic:read"}},
		{"empty parts skipped", []string{",table:read,,", "", " , ", "logic:read,"}, []string{"table:read", "logic:read"}},
		{"dedup in one item", []string{"table:read,table:read"}, []string{"table:read"}},
		{"dedup across items keeps first position", []string{"logic:read", "table:read", "logic:read", " table:read "}, []string{"logic:read", "table:read"}},
		{"dedup keeps order of first appearance", []string{"*", "release:read,*", "table:*", "release:read"}, []string{"*", "release:read", "table:*"}},
		{"wildcards are not merged with scopes they cover", []string{"table:*", "table:read"}, []string{"table:*", "table:read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseScopes(tt.in)
			if err != nil {
				t.Fatalf("ParseScopes(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseScopes(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseScopesDoesNotModifyInput(t *testing.T) {
	in := []string{" table:read ", "logic:read,release:read"}
	orig := append([]string(nil), in...)
	if _, err := ParseScopes(in); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(orig, in); diff != "" {
		t.Errorf("ParseScopes modified its input (-before +after):\n%s", diff)
	}
}

func TestParseScopesEmpty(t *testing.T) {
	tests := []struct {
		name string
		in   []string
	}{
		{"nil", nil},
		{"empty slice", []string{}},
		{"empty string", []string{""}},
		{"only commas", []string{","}},
		{"many commas", []string{",,,", ","}},
		{"only spaces and commas", []string{" , ", "\t", " ,\n, "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseScopes(tt.in)
			if err == nil {
				t.Fatalf("ParseScopes(%q) = %q, want an error", tt.in, got)
			}
			if got != nil {
				t.Errorf("ParseScopes(%q) returned %q with its error, want nil", tt.in, got)
			}
			if !strings.Contains(err.Error(), "no scopes") {
				t.Errorf("ParseScopes(%q) error = %q, want it to say there are no scopes", tt.in, err)
			}
			// The message tells the user what is valid.
			for _, s := range Scopes {
				if !strings.Contains(err.Error(), string(s)) {
					t.Errorf("ParseScopes(%q) error = %q, want it to list %s", tt.in, err, s)
				}
			}
		})
	}
}

func TestParseScopesUnknown(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		bad  string // the scope the error must name
	}{
		{"table write", []string{"table:write"}, "table:write"},
		{"no action", []string{"table"}, "table"},
		{"empty resource", []string{":read"}, ":read"},
		{"empty action", []string{"table:"}, "table:"},
		{"colon only", []string{":"}, ":"},
		{"three parts", []string{"a:b:c"}, "a:b:c"},
		{"three parts with known prefix", []string{"table:read:x"}, "table:read:x"},
		{"unknown resource wildcard", []string{"foo:*"}, "foo:*"},
		{"any write", []string{"*:write"}, "*:write"},
		{"double star", []string{"**"}, "**"},
		{"star colon", []string{"*:"}, "*:"},
		{"colon star", []string{":*"}, ":*"},
		{"upper case", []string{"TABLE:READ"}, "TABLE:READ"},
		{"plural", []string{"tables:read"}, "tables:read"},
		{"inner space", []string{"table: read"}, "table: read"},
		{"unknown among good", []string{"table:read", "logic:write", "release:read"}, "logic:write"},
		{"unknown inside comma list", []string{"table:read, bogus ,logic:read"}, "bogus"},
		{"trimmed in message", []string{"  table:write  "}, "table:write"},
		{"first unknown named", []string{"x:read,y:read"}, "x:read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseScopes(tt.in)
			if err == nil {
				t.Fatalf("ParseScopes(%q) = %q, want an error", tt.in, got)
			}
			if got != nil {
				t.Errorf("ParseScopes(%q) returned %q with its error, want nil", tt.in, got)
			}
			if want := fmt.Sprintf("%q", tt.bad); !strings.Contains(err.Error(), want) {
				t.Errorf("ParseScopes(%q) error = %q, want it to name %s", tt.in, err, want)
			}
		})
	}
}

func TestAllows(t *testing.T) {
	const (
		T = TableRead
		L = LogicRead
		R = ReleaseRead
	)
	tests := []struct {
		granted []string
		want    []Scope // the scopes granted; all others are refused
	}{
		{nil, nil},
		{[]string{}, nil},
		{[]string{""}, nil},
		{[]string{"table:read"}, []Scope{T}},
		{[]string{"logic:read"}, []Scope{L}},
		{[]string{"release:read"}, []Scope{R}},
		{[]string{"table:*"}, []Scope{T}},
		{[]string{"logic:*"}, []Scope{L}},
		{[]string{"release:*"}, []Scope{R}},
		{[]string{"*:read"}, []Scope{T, L, R}},
		{[]string{"*"}, []Scope{T, L, R}},
		{[]string{"*:*"}, []Scope{T, L, R}},
		{[]string{"table:read", "release:read"}, []Scope{T, R}},
		{[]string{"logic:*", "release:read"}, []Scope{L, R}},
		{[]string{"table:read", "logic:read", "release:read"}, []Scope{T, L, R}},
		{[]string{"table:write"}, nil},
		{[]string{"*:write"}, nil},
		{[]string{"foo:*"}, nil},
		{[]string{"table"}, nil},
		{[]string{"read"}, nil},
		{[]string{":read"}, nil},
		{[]string{"table:"}, nil},
		{[]string{"table:read:x"}, nil},
		{[]string{"TABLE:READ"}, nil},
		{[]string{" table:read"}, nil}, // Allows sees patterns as stored, already trimmed
		{[]string{"table:write", "logic:read"}, []Scope{L}},
	}
	for _, tt := range tests {
		for _, need := range Scopes {
			want := false
			for _, s := range tt.want {
				if s == need {
					want = true
				}
			}
			if got := Allows(tt.granted, need); got != want {
				t.Errorf("Allows(%q, %s) = %v, want %v", tt.granted, need, got, want)
			}
		}
	}
}

// TestAllowsEveryPattern checks each single pattern ParseScopes accepts
// against each scope, so that the two agree: every valid pattern grants at
// least one scope.
func TestAllowsEveryPattern(t *testing.T) {
	grants := map[string][]Scope{
		"table:read":   {TableRead},
		"logic:read":   {LogicRead},
		"release:read": {ReleaseRead},
		"table:*":      {TableRead},
		"logic:*":      {LogicRead},
		"release:*":    {ReleaseRead},
		"*:read":       {TableRead, LogicRead, ReleaseRead},
		"*":            {TableRead, LogicRead, ReleaseRead},
		"*:*":          {TableRead, LogicRead, ReleaseRead},
	}
	for pattern, want := range grants {
		if _, err := ParseScopes([]string{pattern}); err != nil {
			t.Errorf("ParseScopes(%q): %v", pattern, err)
		}
		var got []Scope
		for _, need := range Scopes {
			if Allows([]string{pattern}, need) {
				got = append(got, need)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("scopes granted by %q (-want +got):\n%s", pattern, diff)
		}
	}
}

func TestScopesList(t *testing.T) {
	want := []Scope{"table:read", "logic:read", "release:read"}
	if diff := cmp.Diff(want, Scopes); diff != "" {
		t.Errorf("Scopes (-want +got):\n%s", diff)
	}
}
