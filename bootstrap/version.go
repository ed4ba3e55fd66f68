package bootstrap

import (
	"runtime/debug"
)

// version is set at link time for release builds:
//
//	go build -ldflags "-X engram/bootstrap.version=v1.2.3" .
//
// Empty: the version comes from the build information the Go toolchain records.
var version = ""

// BuildInfo is what the binary knows about its own build.
type BuildInfo struct {
	Version   string // the -ldflags version, the module version, or "devel"
	Revision  string // VCS revision, when the toolchain recorded it
	Time      string // VCS commit time, RFC 3339
	Modified  bool   // built from a working tree with uncommitted changes
	GoVersion string
}

// readBuildInfo reads the version from -ldflags first, then from
// runtime/debug.ReadBuildInfo: a `go install engram@v1.2.3` build carries its module
// version, a build from a clone its VCS revision and dirty flag (git worktrees and
// -buildvcs=false record none: those builds say "devel").
func readBuildInfo() BuildInfo {
	info := BuildInfo{Version: version}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		info.GoVersion = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
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
	}
	if info.Version == "" {
		info.Version = "devel"
		if info.Revision != "" {
			info.Version += "-" + shortRevision(info.Revision)
			if info.Modified {
				info.Version += "-dirty"
			}
		}
	}
	return info
}

func shortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// String is the one-line form `engram version` prints.
func (b BuildInfo) String() string {
	s := "engram " + b.Version
	if b.Revision != "" {
		s += " (commit " + shortRevision(b.Revision)
		if b.Modified {
			s += ", modified"
		}
		if b.Time != "" {
			s += ", " + b.Time
		}
		s += ")"
	}
	if b.GoVersion != "" {
		s += " " + b.GoVersion
	}
	return s
}
