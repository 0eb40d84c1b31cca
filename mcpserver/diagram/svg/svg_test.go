package svg

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

const shopDiagram = `{"center":"posts","hops":1,"tables":[` +
	`{"table":"posts","connection":"main","distance":0,"columns":[{"name":"id","type":"string","key":"PK"},{"name":"author_id","type":"string","key":"FK"},{"name":"title","type":"string"}],"columnsTotal":4},` +
	`{"table":"users \"<&>\" 사용자","connection":"main","distance":1,"columns":[{"name":"id","type":"string","key":"PK"}]}],` +
	`"edges":[{"from":"posts","fromColumns":["author_id"],"to":"users \"<&>\" 사용자","toColumns":["id"],"name":"posts_author_fk","nullable":false,"unique":false},` +
	`{"from":"posts","fromColumns":["id"],"to":"posts","toColumns":["id"],"nullable":true,"unique":true}],"truncated":false,"tablesTotal":2}`

// The drawing code runs in goja and gives well-formed SVG: a box per
// table, a path per foreign key with its two ends, names escaped.
func TestDraw(t *testing.T) {
	for _, theme := range []string{"light", "dark"} {
		svg, err := Draw([]byte(shopDiagram), theme)
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(strings.NewReader(svg))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: not well-formed XML: %v\n%s", theme, err, svg)
			}
		}
		for what, want := range map[string]int{`class="table`: 2, `class="edge"`: 2, `data-end="||"`: 1, `data-end="o{"`: 1,
			`data-end="|o"`: 1, `data-end="o|"`: 1, `data-theme="` + theme + `"`: 1, `users &quot;&lt;&amp;&gt;&quot; 사용자`: 5} {
			if got := strings.Count(svg, what); got != want {
				t.Errorf("%s: %d × %s, want %d", theme, got, what, want)
			}
		}
		if !strings.Contains(svg, "1 more column") {
			t.Errorf("%s: no line for the column left out", theme)
		}
	}
}

func BenchmarkDraw(b *testing.B) {
	for b.Loop() {
		if _, err := Draw([]byte(shopDiagram), "light"); err != nil {
			b.Fatal(err)
		}
	}
}
