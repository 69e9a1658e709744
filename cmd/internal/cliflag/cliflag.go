// Package cliflag holds what the commands under cmd share in reading
// their flags: today the comma-separated list (catalogue's -modules,
// -languages and -brands, catalogued's -mcp.allowedHosts,
// -mcp.allowedOrigins, -admin.allowedHosts and -origin.redirectHosts).
// Only the commands import it.
package cliflag

import "strings"

// List splits a comma-separated flag value into its items, trimmed of
// white space, dropping empty ones: nil for "" or " , ".
func List(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
