package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vspec/catalogue/cmd/catalogue/export"
)

// smallSnapshot writes a catalogue of about 1,000 variants.
func smallSnapshot(t *testing.T, seed string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s"+seed+".snap")
	if err := runGen([]string{"-scale", "0.01", "-seed", seed, "-o", path}, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExportCommand(t *testing.T) {
	snap := smallSnapshot(t, "5")
	dir := filepath.Join(t.TempDir(), "acme-2026q4")
	var out bytes.Buffer
	if err := runExport([]string{"-modules", "equipment,images", "-languages", "de,fr", "-brands", "ford,skoda", "-o", dir, snap}, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"modules: catalogue, equipment, images", "languages: en, de, fr", "subset: skoda, ford", "csv/equipment.csv", "jsonl/images.jsonl", "README.txt"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	m, err := export.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Share <= 0 || m.Share >= 1 || len(m.Files) != 1+2*10 {
		t.Errorf("manifest: share %v, %d files", m.Share, len(m.Files))
	}
	for _, args := range [][]string{
		{snap},
		{"-o", filepath.Join(t.TempDir(), "x")},
		{"-modules", "gossip", "-o", filepath.Join(t.TempDir(), "x"), snap},
		{"-o", dir, snap}, // not empty
	} {
		if err := runExport(args, &bytes.Buffer{}); err == nil {
			t.Errorf("export %v succeeded", args)
		}
	}
}

func TestDiffCommand(t *testing.T) {
	oldSnap, newSnap := smallSnapshot(t, "6"), smallSnapshot(t, "7")
	tmp := t.TempDir()
	flags := []string{"-modules", "all", "-languages", "all"}
	oldDir, newDir := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	for _, c := range [][2]string{{oldSnap, oldDir}, {newSnap, newDir}} {
		if err := runExport(append(append([]string{}, flags...), "-o", c[1], c[0]), &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	changes := filepath.Join(tmp, "changes.jsonl")
	var out bytes.Buffer
	if err := runDiff(append(append([]string{}, flags...), "-o", changes, oldSnap, newSnap), &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"table", "added", "changed", "removed", "variants", "equipment", "total"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("diff output lacks %q:\n%s", s, out.String())
		}
	}
	applied := filepath.Join(tmp, "applied")
	out.Reset()
	if err := runDiff([]string{"-apply", changes, "-o", applied, oldDir}, &out); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(newDir, "manifest.json"))
	got, _ := os.ReadFile(filepath.Join(applied, "manifest.json"))
	if !bytes.Equal(got, want) {
		t.Errorf("the applied export's manifest differs from the new export's")
	}
	for _, args := range [][]string{
		{"-o", changes, oldSnap},
		{"-apply", changes, oldDir},
		{"-apply", changes, "-o", filepath.Join(tmp, "again"), newDir}, // wrong starting point
	} {
		if err := runDiff(args, &bytes.Buffer{}); err == nil {
			t.Errorf("diff %v succeeded", args)
		}
	}
}

func TestQuoteCommand(t *testing.T) {
	var out bytes.Buffer
	if err := runQuote([]string{"-modules", "all", "-languages", "de,fr", "-updates", "annual"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Modules total", "3,510", "All data modules (one-time)", "2,900", "de fr, 2 x 190", "380", "3,280", "131/month", "1,310/year", "4,590"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("quote lacks %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	if err := runQuote([]string{"-modules", "equipment", "-share", "0.1", "-display", "-updates", "quarterly", "-json"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"subset_price_eur": 324`, `"licence_price_eur": 648`, `"invoice_eur": 147`, `"minimum_applied": true`} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("quote -json lacks %s:\n%s", s, out.String())
		}
	}

	// The share measured in a snapshot, or read from an export's manifest.
	snap := smallSnapshot(t, "8")
	out.Reset()
	if err := runQuote([]string{"-snapshot", snap, "-brands", "volkswagen", "-json"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"subset_factor": 0.3`) {
		t.Errorf("quote -snapshot -brands volkswagen:\n%s", out.String())
	}
	dir := filepath.Join(t.TempDir(), "exp")
	if err := runExport([]string{"-modules", "list_prices", "-languages", "all", "-o", dir, snap}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runQuote([]string{"-export", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "List prices") || !strings.Contains(out.String(), "all 19") || !strings.Contains(out.String(), "1,870") {
		t.Errorf("quote -export:\n%s", out.String())
	}

	for _, args := range [][]string{
		{"-modules", "gossip"},
		{"-share", "2"},
		{"-updates", "monthly"},
		{"-brands", "bmw"},
		{"-export", dir, "-share", "0.5"},
		{"extra"},
	} {
		if err := runQuote(args, &bytes.Buffer{}); err == nil {
			t.Errorf("quote %v succeeded", args)
		}
	}
}
