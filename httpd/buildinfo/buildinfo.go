// Package buildinfo says which build of the service is running: the
// module's version, the VCS revision and time it was built from, and the Go
// version, as the toolchain recorded them in the binary. The binaries print
// it for -version; the metrics expose it.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Info is what the toolchain recorded about a build.
type Info struct {
	Module   string // the main module's version: (devel) for a build from a checkout
	Revision string // VCS commit, "" when not built from a repository
	Time     string // commit time, RFC 3339
	Modified bool   // the working tree had uncommitted changes
	Go       string
}

// Read returns the running binary's build information.
func Read() Info {
	info := Info{Module: "(unknown)", Go: "(unknown)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.Module, info.Go = bi.Main.Version, bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// Line is the one line -version prints: "catalogued (devel) 0123abcd
// 2026-11-24T00:00:00Z (modified), go1.26.8".
func (i Info) Line(program string) string {
	s := program + " " + i.Module
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " " + rev
		if i.Time != "" {
			s += " " + i.Time
		}
		if i.Modified {
			s += " (modified)"
		}
	}
	return fmt.Sprintf("%s, %s", s, i.Go)
}
