package main

import (
	"log"
	"runtime"
	"runtime/debug"
	"strings"

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

// releaseAfter returns the memory of old, a catalogue just replaced, to
// the operating system once nothing holds it any more. Requests in flight
// finish on the catalogue they started with, so old may outlive the swap
// by a request's time. Without this the runtime keeps the freed heap: the
// next collection comes only when the heap doubles (GOGC) or after two
// idle minutes, and the scavenger returns only what lies above that goal,
// so a process that had reloaded stayed at about twice its catalogue.
//
// A collection started right away frees old if no request holds it (and the
// garbage of loading the new one); the cleanup attached to old runs once
// a collection has found it unreachable, then debug.FreeOSMemory hands the
// freed pages back.
func releaseAfter(old *engine.Catalogue) {
	if old == nil {
		return
	}
	runtime.AddCleanup(old, func(id string) {
		go func() { // not on the runtime's cleanup goroutine
			debug.FreeOSMemory()
			log.Printf("the replaced catalogue (identity %s) is released: its memory is back with the system", id)
		}()
	}, strings.Clone(old.Meta.Identity)) // a copy: nothing of old may stay reachable from the cleanup
	// Not on the installer's goroutine: a collection of a catalogue-sized
	// heap takes long enough on a busy machine that the fleet follower,
	// which marks the new catalogue current only once install returns,
	// reported the old one as current meanwhile.
	go runtime.GC()
}
