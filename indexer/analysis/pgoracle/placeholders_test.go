package pgoracle

import (
	"slices"
	"testing"
)

func TestRewrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql, want string
		names     []string
	}{
		{"SELECT * FROM t WHERE a = :a AND b = :b OR a = :a", "SELECT * FROM t WHERE a = $1 AND b = $2 OR a = $1", []string{"a", "b"}},
		{"SELECT :x::int, ':y', \":z\", $$ :w $$, $q$ :v $q$ -- :u\n, /* :s /* :r */ */ :t",
			"SELECT $1::int, ':y', \":z\", $$ :w $$, $q$ :v $q$ -- :u\n, /* :s /* :r */ */ $2", []string{"x", "t"}},
		{"SELECT E'it\\'s :no', 'a''b :no', :yes", "SELECT E'it\\'s :no', 'a''b :no', $1", []string{"yes"}},
		{"SELECT 'é' || :name", "SELECT 'é' || $1", []string{"name"}},
		{"SELECT $1", "SELECT $1", nil},
	} {
		r := Rewrite(tc.sql)
		if r.SQL != tc.want || !slices.Equal(r.Names, tc.names) {
			t.Errorf("Rewrite(%q) = %q %q, want %q %q", tc.sql, r.SQL, r.Names, tc.want, tc.names)
		}
	}
}

func TestRewritePositions(t *testing.T) {
	t.Parallel()
	sql := "SELECT 'é', :first_name, nme FROM t"
	r := Rewrite(sql)
	// "SELECT 'é', $1, nme FROM t": nme is at character 17 there, 26 in sql.
	if got, want := r.OriginalPos(17), 26; got != want {
		t.Errorf("OriginalPos(17) = %d, want %d", got, want)
	}
	// Inside $1 is the :first_name.
	if got, want := r.OriginalPos(14), 13; got != want {
		t.Errorf("OriginalPos(14) = %d, want %d", got, want)
	}
	if p, ok := r.PlaceholderAt(13); !ok || p.Name != "first_name" || p.N != 1 {
		t.Errorf("PlaceholderAt(13) = %+v %v", p, ok)
	}
	if got := r.OriginalPos(0); got != 0 {
		t.Errorf("OriginalPos(0) = %d, want 0", got)
	}
}
