package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// ReadRSS returns the resident set size of this process, from VmRSS in
// /proc/self/status (Linux only).
func ReadRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	return parseVmRSS(b)
}

// parseVmRSS reads the VmRSS line ("VmRSS:    123456 kB") of a
// /proc/<pid>/status file and returns it in bytes.
func parseVmRSS(status []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("cannot parse VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cannot parse VmRSS line %q: %w", sc.Text(), err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no VmRSS line in the status file")
}

// Memory is the process's memory at one moment, after a full collection
// that returned freed pages to the OS.
type Memory struct {
	RSS       int64  // VmRSS, bytes
	HeapAlloc uint64 // runtime.MemStats.HeapAlloc, bytes
	HeapSys   uint64
	Objects   uint64 // live heap objects
}

// ReadMemory collects garbage, returns freed memory to the OS
// (debug.FreeOSMemory) and reads the heap and the RSS.
func ReadMemory() (Memory, error) {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, err := ReadRSS()
	return Memory{RSS: rss, HeapAlloc: ms.HeapAlloc, HeapSys: ms.HeapSys, Objects: ms.HeapObjects}, err
}

// LoadReport is the memory and timing of loading the catalogue into the
// in-process server.
type LoadReport struct {
	SnapshotBytes int
	Decode        time.Duration // loader.FromBytes of the snapshot bytes
	New           time.Duration // httpd.New: the first Install included
	ReloadDecode  time.Duration // loader.FromBytes again, on the same bytes
	ReloadInstall time.Duration // svc.Install of that catalogue: the swap
	Before        Memory        // before decoding (the snapshot bytes already held)
	AfterLoad     Memory        // serving the catalogue, before any request
	AfterReload   Memory        // after the swap, the old catalogue collected
	AfterRun      Memory        // after the load run (response caches filled)
}

// WriteLoadReport writes r as a Markdown table.
func WriteLoadReport(w io.Writer, r LoadReport) {
	mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	fmt.Fprintln(w, "| what | value |")
	fmt.Fprintln(w, "|---|---:|")
	fmt.Fprintf(w, "| snapshot | %s |\n", mib(int64(r.SnapshotBytes)))
	fmt.Fprintf(w, "| load: decode the snapshot bytes (loader.FromBytes) | %s |\n", fmtDur(r.Decode))
	fmt.Fprintf(w, "| load: httpd.New (first Install: token columns, spec fragments, demo set) | %s |\n", fmtDur(r.New))
	fmt.Fprintf(w, "| reload: decode again | %s |\n", fmtDur(r.ReloadDecode))
	fmt.Fprintf(w, "| reload: Install (the swap) | %s |\n", fmtDur(r.ReloadInstall))
	row := func(name string, m Memory) {
		if m.RSS == 0 && m.HeapAlloc == 0 {
			return
		}
		fmt.Fprintf(w, "| %s: RSS / Go heap (live objects) | %s / %s (%d) |\n", name, mib(m.RSS), mib(int64(m.HeapAlloc)), m.Objects)
	}
	row("before loading (harness, snapshot bytes held)", r.Before)
	row("after loading, before any request", r.AfterLoad)
	row("after a reload, the old catalogue collected", r.AfterReload)
	row("after the load run (response caches filled)", r.AfterRun)
}
