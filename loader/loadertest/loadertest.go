// Package loadertest gives benchmarks and tests the full-size catalogue
// snapshot without regenerating it in every package: it uses the file named
// by $CATALOGUE_SNAPSHOT when set, else generates the default catalogue once
// per process.
package loadertest

import (
	"bytes"
	"os"
	"sync"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
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
		s, e := gen.Generate(vocab.Default(), gen.Options{})
		if e != nil {
			err = e
			return
		}
		var buf bytes.Buffer
		err = loader.Write(&buf, s)
		file = buf.Bytes()
	})
	return file, err
}
