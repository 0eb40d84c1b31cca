package svg

import (
	_ "embed"
	"fmt"

	"github.com/dop251/goja"
)

// drawJS defines hubsnapDrawSVG(json, theme), returning the SVG text.
//
//go:embed draw.js
var drawJS string

// polyfill gives goja what the bundle uses and goja lacks: dagre copies
// its options with structuredClone, which is not part of ECMAScript. They
// are plain data, so a JSON round trip copies them.
const polyfill = `if (typeof globalThis.structuredClone !== "function") {
	globalThis.structuredClone = function (v) { return v === undefined ? undefined : JSON.parse(JSON.stringify(v)); };
}`

// Draw returns the SVG document of a diagram (answer is its JSON, as
// schema_diagram answers it) in theme "light" or "dark".
func Draw(answer []byte, theme string) (string, error) {
	vm := goja.New()
	if _, err := vm.RunString(polyfill); err != nil {
		return "", fmt.Errorf("load the drawing code: %w", err)
	}
	if _, err := vm.RunScript("draw.js", drawJS); err != nil {
		return "", fmt.Errorf("load the drawing code: %w", err)
	}
	draw, ok := goja.AssertFunction(vm.Get("hubsnapDrawSVG"))
	if !ok {
		return "", fmt.Errorf("load the drawing code: hubsnapDrawSVG is not a function")
	}
	v, err := draw(goja.Undefined(), vm.ToValue(string(answer)), vm.ToValue(theme))
	if err != nil {
		return "", fmt.Errorf("draw the diagram: %w", err)
	}
	return v.String(), nil
}
