// Command facilitator serves the built-in x402 facilitator over HTTP
// (POST /verify, POST /settle, GET /supported): it checks EIP-3009
// payments offline and records each settlement as a local receipt in a
// bbolt file. Nothing is settled on any chain. It exists to exercise the
// service's facilitator client end to end (catalogued -x402.facilitator
// http://127.0.0.1:8402) and for local development; production names a
// real facilitator instead.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/vspec/catalogue/httpd/buildinfo"
	"github.com/vspec/catalogue/httpd/x402"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8402", "TCP address to serve the facilitator API on")
	state := flag.String("db", "facilitator/receipts.db", "bbolt file of the receipts")
	token := flag.String("token", "", "when set, every call must send Authorization: Bearer <token>")
	receipts := flag.Bool("receipts", false, "print the recorded receipts as JSON Lines and exit")
	version := flag.Bool("version", false, "print the build (module version, VCS revision and time, Go version) and exit")
	flag.Parse()
	if *version {
		fmt.Println(buildinfo.Read().Line("facilitator"))
		return
	}
	store, err := x402.OpenStore(*state, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if *receipts {
		rs, err := store.Receipts()
		if err != nil {
			log.Fatal(err)
		}
		enc := json.NewEncoder(os.Stdout)
		for _, r := range rs {
			enc.Encode(r)
		}
		return
	}
	h := x402.FacilitatorHandler(&x402.Local{Store: store})
	if *token != "" {
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+*token {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"error":"unauthorized"}`))
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("x402 facilitator (local receipts in %s, nothing settled on a chain) on http://%s", *state, ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.Serve(ln))
}
