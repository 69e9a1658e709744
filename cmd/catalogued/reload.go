package main

import (
	"log"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/vspec/catalogue/engine"
)

// coalesce runs do in a goroutine of its own for each call of the
// returned function, one at a time, folding calls that arrive while do
// runs into one more run after it: fifty SIGHUPs during a reload cause
// one more reload, not fifty (each a whole snapshot load, which ran
// concurrently and took the process from 438 MB to 1.2 GB). The returned
// function never blocks.
func coalesce(do func()) func() {
	pending := make(chan struct{}, 1)
	go func() {
		for range pending {
			do()
		}
	}()
	return func() {
		select {
		case pending <- struct{}{}:
		default: // a run is pending already: it will see this request's file too
		}
	}
}

// installer returns the function that installs a new catalogue with
// install and gives the memory of the one it replaces back to the
// operating system (releaseAfter).
func installer(current func() *engine.Catalogue, install func(*engine.Catalogue)) func(*engine.Catalogue) {
	return func(c *engine.Catalogue) {
		old := current()
		install(c)
		releaseAfter(old)
	}
}

// releaseAfter gives the memory of old, a catalogue just replaced, back
// to the system once nothing holds it any more. A collection is started
// beside the installer: it frees old if no request in flight still holds
// it (they finish on the catalogue they started with) and the garbage of
// loading the new one. The cleanup attached to old runs once a collection
// has found it unreachable, and hands the freed pages back (returnFreed).
// Without this the runtime kept them: the scavenger returns only what lies
// above its goal, about twice the live heap, so a process that had
// reloaded stayed at twice its catalogue (bench/RESULTS.md, "Memory after
// reloads").
func releaseAfter(old *engine.Catalogue) {
	if old == nil {
		return
	}
	runtime.AddCleanup(old, func(id string) {
		log.Printf("the replaced catalogue (identity %s) is released: its memory is going back to the system", id)
		go returnFreed(time.Minute) // not on the runtime's cleanup goroutine
	}, strings.Clone(old.Meta.Identity)) // a copy: nothing of old may stay reachable from the cleanup
	go runtime.GC()
}

// returnFreed has the runtime's background scavenger return the heap's
// free pages to the system: the soft memory limit is set just above what
// the process holds besides those pages, and set back as soon as they are
// returned, the heap grows (a reload or a rollback has started loading
// the next catalogue: the limit must not make the collector work against
// it), or d has passed. The scavenger works toward a memory limit paced,
// a few pages at a time beside the requests. debug.FreeOSMemory would
// return them at once, but it forces another full collection and takes a
// core until every page is returned: on a busy machine replicas of the
// fleet harness then missed their 1 s metering deadline and answered 503
// during a rollout (3 runs of 3).
func returnFreed(d time.Duration) {
	sample := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	read := func() (total, released, free, objects uint64) {
		metrics.Read(sample)
		return sample[0].Value.Uint64(), sample[1].Value.Uint64(), sample[2].Value.Uint64(), sample[3].Value.Uint64()
	}
	total, released, free, objects0 := read()
	held := total - released - free
	limit := int64(held + held/4 + 64<<20)
	previous := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(previous)
	if previous < limit { // an operator's GOMEMLIMIT is lower: it stands
		return
	}
	for end := time.Now().Add(d); time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond)
		if _, _, free, objects := read(); free < 16<<20 || objects > objects0+32<<20 {
			return
		}
	}
}
