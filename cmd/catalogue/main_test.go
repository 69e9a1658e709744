package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenInspectFull runs the acceptance check: the default
// catalogue generated and inspected through the CLI has exactly the
// contract's sizes and the 40-car demo set over all 10 fuels.
func TestGenInspectFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalogue.snap")
	if err := runGen([]string{"-o", path}, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runInspect([]string{"-json", path}, &out); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("inspect -json printed no JSON object: %v\n%s", err, out.String())
	}
	want := map[string]float64{"models": 1357, "generations": 3585, "variants": 103372, "spec_types": 232, "locales": 20, "demo_variants": 40}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if b, _ := got["brands"].(float64); b < 100 {
		t.Errorf("brands = %v, want at least 100", got["brands"])
	}
	fuels, _ := got["demo_fuels"].([]any)
	if len(fuels) != 10 {
		t.Errorf("demo_fuels = %v, want the 10 fuel types", got["demo_fuels"])
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() > 60<<20 {
		t.Errorf("snapshot size %v (%v), want at most 60 MB", st.Size(), err)
	}
}

func TestInspectTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.snap")
	if err := runGen([]string{"-scale", "0.01", "-seed", "4", "-o", path}, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runInspect([]string{path}, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"variants per fuel:", "labels per locale:", "demo set: 40 variants, 10 fuels", "Kuga"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("inspect output lacks %q:\n%s", s, out.String())
		}
	}
}

func TestErrors(t *testing.T) {
	if err := runGen([]string{}, nil); err == nil || !strings.Contains(err.Error(), "-o FILE is required") {
		t.Errorf("gen without -o: %v", err)
	}
	if err := runGen([]string{"-scale", "2", "-o", filepath.Join(t.TempDir(), "x")}, nil); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("gen -scale 2: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.snap")
	os.WriteFile(bad, []byte("VCATSNAP but not really"), 0o644)
	if err := runInspect([]string{bad}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "corrupt snapshot") {
		t.Errorf("inspect of a damaged file: %v", err)
	}
	if err := runInspect([]string{filepath.Join(t.TempDir(), "missing.snap")}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("inspect of a missing file: %v", err)
	}
}

func TestKeysCommands(t *testing.T) {
	state := t.TempDir()
	var out bytes.Buffer
	if err := runKeys([]string{"create", "-state", state, "-plan", "apify", "-email", "a@example.org"}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	key := lines[len(lines)-1]
	if !strings.HasPrefix(key, "vsc_apify_") || len(key) != len("vsc_apify_")+48 {
		t.Fatalf("the last line is not the key: %q", key)
	}
	out.Reset()
	if err := runKeys([]string{"list", "-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "apify") || !strings.Contains(out.String(), "active") || strings.Contains(out.String(), key) {
		t.Errorf("list:\n%s", out.String())
	}
	out.Reset()
	if err := runKeys([]string{"revoke", "-state", state, key}, &out); err != nil || !strings.Contains(out.String(), "revoked") {
		t.Errorf("revoke: %v %s", err, out.String())
	}
	// The free plan is deprecated: refused unless migrating on purpose.
	if err := runKeys([]string{"create", "-state", state, "-plan", "free"}, &out); err == nil || !strings.Contains(err.Error(), "-allow-deprecated") {
		t.Errorf("a free key without -allow-deprecated: %v", err)
	}
	if err := runKeys([]string{"create", "-state", state, "-plan", "free", "-allow-deprecated"}, &out); err != nil {
		t.Errorf("a free key with -allow-deprecated: %v", err)
	}
	if err := runKeys([]string{"create", "-state", state, "-plan", "gold"}, &out); err == nil {
		t.Error("an unknown plan was accepted")
	}
	if err := runKeys([]string{"revoke", "-state", state, "deadbeefdeadbeef"}, &out); err == nil {
		t.Error("revoking an unknown key succeeded")
	}
}
