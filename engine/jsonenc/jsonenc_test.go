package jsonenc

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestAppendString(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		got := string(AppendString(nil, in))
		if got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("AppendString(%q) is not JSON: %v", in, err)
		}
	}
	f("", `""`)
	f("Škoda Octavia", `"Škoda Octavia"`)
	f(`say "hi"\`, `"say \"hi\"\\"`)
	f("a\nb\tc\x01", `"a\nb\tc\u0001"`)
	f("<b>&", `"<b>&"`)
	f("\u2028", `"\u2028"`)
	f("bad\xffbyte", "\"bad\uFFFDbyte\"")
	f("Фолксваген", `"Фолксваген"`)
}

func TestAppendScaled(t *testing.T) {
	f := func(v int64, scale uint8, want string) {
		t.Helper()
		if got := string(AppendScaled(nil, v, scale)); got != want {
			t.Errorf("AppendScaled(%d, %d) = %s, want %s", v, scale, got, want)
		}
	}
	f(74, 1, "7.4")
	f(70, 1, "7")
	f(0, 2, "0")
	f(-5, 2, "-0.05")
	f(1019, 2, "10.19")
	f(1010, 2, "10.1")
	f(123456, 4, "12.3456")
	f(250, 0, "250")
}

func FuzzAppendString(f *testing.F) {
	f.Add("Citroën \"DS\" \\ \n")
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		// Byte for byte what log/slog's JSON handler writes (the access
		// log is rendered with it and must read as slog's).
		var out bytes.Buffer
		slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey {
				return slog.Attr{}
			}
			return a
		}})).Info("", "k", s)
		want := bytes.TrimSuffix(bytes.TrimPrefix(out.Bytes(), []byte(`{"k":`)), []byte("}\n"))
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, slog writes %s", s, got, want)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendString(buf[:0], "Golf 1.5 eTSI 150 DSG \"Style\"")
	}
	Sink = len(buf)
}

// Sink keeps benchmark results alive.
var Sink int
