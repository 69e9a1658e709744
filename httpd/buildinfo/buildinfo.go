// Package buildinfo says which build of the service is running: the
// module's version, the VCS revision and time it was built from, and the Go
// version, as the toolchain recorded them in the binary. The binaries print
// it for -version; the metrics expose it.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Set by the linker where the toolchain cannot record them: a build from a
// tree without its .git (the container build's context leaves it out)
// passes -ldflags "-X github.com/vspec/catalogue/httpd/buildinfo.version=V
// -X github.com/vspec/catalogue/httpd/buildinfo.revision=R".
var version, revision string

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
	return info.stamped(version, revision)
}

// stamped is i with the linker's version and revision where the
// toolchain recorded none.
func (i Info) stamped(version, revision string) Info {
	if version != "" && (i.Module == "" || i.Module == "(devel)" || i.Module == "(unknown)") {
		i.Module = version
	}
	if revision != "" && i.Revision == "" {
		i.Revision = revision
	}
	return i
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
	if i.Revision == "" && (i.Module == "(devel)" || i.Module == "(unknown)") {
		s += " (no revision recorded: built outside a git checkout without -ldflags -X …/buildinfo.revision)"
	}
	return fmt.Sprintf("%s, %s", s, i.Go)
}
