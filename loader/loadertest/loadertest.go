// Package loadertest gives benchmarks and tests the full-size catalogue
// snapshot without regenerating it in every package: it uses the file named
// by $CATALOGUE_SNAPSHOT when set, else generates the default catalogue once
// per process.
package loadertest

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader"
)

var (
	once sync.Once
	file []byte
	err  error
)

// FullSnapshot returns the bytes of the full default snapshot.
func FullSnapshot() ([]byte, error) {
	once.Do(func() {
		if p := os.Getenv("CATALOGUE_SNAPSHOT"); p != "" {
			file, err = os.ReadFile(p)
			return
		}
		file, err = Snapshot(gen.Options{})
	})
	return file, err
}

// Full decodes a fresh catalogue from FullSnapshot, failing tb when either
// step fails.
func Full(tb testing.TB) *engine.Catalogue {
	tb.Helper()
	file, err := FullSnapshot()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := loader.FromBytes(file)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// Snapshot generates the catalogue of opts and returns it as snapshot
// bytes.
func Snapshot(opts gen.Options) ([]byte, error) {
	s, err := gen.Generate(vocab.Default(), opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = loader.Write(&buf, s)
	return buf.Bytes(), err
}
