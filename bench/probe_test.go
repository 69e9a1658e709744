package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestKeyedLoop: the loop sends the paths in turn with the key, stops at
// Max, and fails what Accept refuses, keeping the version either way.
func TestKeyedLoop(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k" {
			w.WriteHeader(401)
			return
		}
		w.Header().Set("X-Catalogue-Version", "v1")
		if r.URL.Path == "/broken" {
			w.WriteHeader(500)
		}
		w.Write([]byte("body"))
	}))
	defer srv.Close()
	loop := KeyedLoop{Client: srv.Client(), Addr: strings.TrimPrefix(srv.URL, "http://"), Key: "k",
		Paths: []string{"/a?x=1", "/broken"}, Max: 5, For: time.Minute,
		Accept: func(status int, version string) bool { return status == 200 && version == "v1" }}
	var got []Answer
	loop.Run(make(chan struct{}), func(a Answer) { got = append(got, a) })
	if len(got) != 5 {
		t.Fatalf("%d answers, want 5", len(got))
	}
	for i, a := range got {
		wantURI, wantFail := "/a?x=1", ""
		if i%2 == 1 {
			wantURI, wantFail = "/broken", `500, version "v1"`
		}
		if a.URI != wantURI || a.Fail != wantFail || a.Version != "v1" || a.Header == nil {
			t.Errorf("answer %d: %+v, want %s failing %q", i, a, wantURI, wantFail)
		}
	}

	stop := make(chan struct{})
	close(stop)
	loop.Run(stop, func(a Answer) { t.Errorf("answer after stop: %+v", a) })
	loop.Addr = "127.0.0.1:1"
	loop.Max = 1
	got = nil
	loop.Run(make(chan struct{}), func(a Answer) { got = append(got, a) })
	if len(got) != 1 || got[0].Fail == "" || got[0].Header != nil || got[0].Version != "" {
		t.Errorf("no server: answers %+v, want one failed", got)
	}
}
