// This go.mod keeps the npm tree (node_modules) out of hubsnap's module:
// go build, vet and test ./... never walk into it, whatever its packages
// ship.
module github.com/hubsnap/hubsnap/mcpserver/diagram/web

go 1.26.0
