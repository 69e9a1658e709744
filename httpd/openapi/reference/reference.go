// Package reference embeds the renderer of the reference page at /v1/docs:
// Redoc's standalone bundle (npm package redoc, file
// bundles/redoc.standalone.js, MIT licence in LICENSE, the notices of the
// libraries it bundles in redoc.standalone.js.LICENSE.txt), pinned at
// Version. The page loads it from the server itself, so it works offline
// and loads nothing from elsewhere.
//
// To move to another version, run
//
//	httpd/openapi/reference/update.sh VERSION
//
// which fetches the package with npm pack, checks it against the
// registry's integrity hash and rewrites Version.
package reference

import _ "embed"

// Version is the embedded Redoc version.
const Version = "2.5.4"

//go:embed redoc.standalone.js
var bundle []byte

//go:embed LICENSE
var license string

//go:embed redoc.standalone.js.LICENSE.txt
var notices string

// Script returns the JavaScript served to browsers: Redoc's licence and
// the bundled libraries' notices as comments, then the bundle as
// published. The result is built once per call; callers keep it.
func Script() []byte {
	out := make([]byte, 0, len(license)+len(notices)+len(bundle)+64)
	out = append(out, "/*! Redoc "+Version+" (npm package redoc), embedded in the catalogue server.\n\n"...)
	out = append(out, license...)
	out = append(out, "*/\n"...)
	out = append(out, notices...)
	out = append(out, '\n')
	return append(out, bundle...)
}

// Path is the route of the script under /v1. It names the version, so a
// browser may keep the script for good: another version is another path.
const Path = "/docs/redoc-" + Version + ".js"
