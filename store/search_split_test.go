package store

import (
	"context"
	"database/sql"
	"slices"
	"testing"
)

func TestSplitCounted(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"0:", []string{""}, true},
		{"5:email2:id", []string{"email", "id"}, true},
		{"3:a:b0:4:x:y:", []string{"a:b", "", "x:y:"}, true},
		{"6:고객", []string{"고객"}, true},
		{"5:email2:i", nil, false},
		{"x:email", nil, false},
		{"-1:", nil, false},
		{"email", nil, false},
		{"99999999999999999999:a", nil, false},
	} {
		got, ok := splitCounted(tc.in)
		if ok != tc.ok || (ok && !slices.Equal(got, tc.want)) {
			t.Errorf("splitCounted(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// The lists qSearchColumns writes split back into the columns as stored,
// whatever the names and comments hold.
func TestSearchColumnListsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	names := []string{"a:b", "고객:정보", "3:x", "plain"}
	comments := []string{"", "has: colons", "줄\n바꿈", "0:"}
	if _, err := db.ExecContext(ctx, `CREATE TABLE columns (table_id INTEGER, position INTEGER, name TEXT, comment TEXT)`); err != nil {
		t.Fatal(err)
	}
	for i := range names {
		var c any = comments[i]
		if comments[i] == "" {
			c = nil
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO columns VALUES (1, ?, ?, ?)`, i, names[i], c); err != nil {
			t.Fatal(err)
		}
	}
	var gotNames, gotComments string
	err = db.QueryRowContext(ctx, qSearchColumns.text, 1).Scan(&gotNames, &gotComments)
	if err != nil {
		t.Fatal(err)
	}
	if list, ok := splitCounted(gotNames); !ok || !slices.Equal(list, names) {
		t.Errorf("names: %q, %v", list, ok)
	}
	if list, ok := splitCounted(gotComments); !ok || !slices.Equal(list, comments) {
		t.Errorf("comments: %q, %v", list, ok)
	}
}
