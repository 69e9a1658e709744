package export

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/loader/loadertest"
)

// BenchmarkExportFull exports the whole catalogue with every module in all
// 20 languages: the issue asks for under a minute on 2 cores.
func BenchmarkExportFull(b *testing.B) {
	c := loadertest.Full(b)
	root := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(root, "export")
		m, err := Export(c, everything, dir, WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for _, f := range m.Files {
			n += f.Bytes
		}
		b.SetBytes(n)
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

// BenchmarkDiffFull writes the change file between the full catalogue and
// its next quarter (everything, all languages).
func BenchmarkDiffFull(b *testing.B) {
	s, err := gen.Generate(vocab.Default(), gen.Options{})
	if err != nil {
		b.Fatal(err)
	}
	old := catalogueOf(b, s)
	nextQuarter(s)
	new := catalogueOf(b, s)
	op, _ := NewPlan(old, everything, true)
	np, _ := NewPlan(new, everything, false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		h, err := Diff(op, np, &buf, WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
		b.ReportMetric(float64(h.Total.Added+h.Total.Changed+h.Total.Removed), "records")
	}
}
