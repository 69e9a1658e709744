package connguard

import "syscall"

// RaiseFileLimit raises the soft limit of open descriptors (RLIMIT_NOFILE)
// to the hard limit and returns the limit now in force. The Go runtime
// already does this at start on Linux; doing it here makes the limit the
// caps are derived from explicit, and holds on every platform.
func RaiseFileLimit() (uint64, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			return 0, err
		}
	}
	return rl.Cur, nil
}

// DefaultMaxConns returns the total connection cap for a descriptor limit:
// what is left after a reserve for the process's own files (snapshot,
// stores, mail, the facilitator's and the MCP's outgoing connections), a
// tenth of the limit and at least 64.
func DefaultMaxConns(fileLimit uint64) int {
	reserve := max(fileLimit/10, 64)
	if fileLimit <= reserve+16 {
		return 16
	}
	return int(min(fileLimit-reserve, 1<<30))
}
