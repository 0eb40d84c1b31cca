package diagram

import (
	_ "embed"
	"strings"
)

// page is the MCP App ui://hubsnap/diagram, built from web/ (npm run
// build): one self-contained HTML document, scripts and styles inline,
// that loads nothing from any origin.
//
//go:embed diagram.html
var page string

// Page returns the app's HTML document.
func Page() string { return page }

// dataMark is where Standalone puts the data: a comment of the page.
const dataMark = "<!--DATA-->"

// Standalone returns the page with a diagram inlined (answer is its JSON,
// as schema_diagram answers it): it draws that diagram without a host,
// for `hubsnap snapshot diagram --format html`. Every < of the JSON (only
// strings can hold one) is written \u003c, so no name can end the script
// element.
func Standalone(answer []byte) string {
	data := strings.ReplaceAll(string(answer), "<", `\u003c`)
	return strings.Replace(page, dataMark,
		`<script id="hubsnap-data" type="application/json">`+data+`</script>`, 1)
}
