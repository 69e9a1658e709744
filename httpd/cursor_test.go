package httpd_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"testing"

	"github.com/vspec/catalogue/httpd/publicid"
)

// page returns the data and links.next ("" when none) of a list page.
func (e *env) page(path, key string) ([]any, string) {
	e.t.Helper()
	m := e.ok(path, key)
	next, _ := m["links"].(map[string]any)["next"].(string)
	return m["data"].([]any), next
}

// firstField returns field of the first element of a page.
func firstField(t *testing.T, data []any, field string) string {
	t.Helper()
	if len(data) == 0 {
		t.Fatal("empty page")
	}
	return str(data[0].(map[string]any), field)
}

// TestCursorTier: a cursor is bound to its tier. A demo key's cursor does
// not open on a full-catalogue key's list of the same route, path
// parameter and locale, nor the other way round: the list restarts at its
// first page, as for any cursor that does not open.
func TestCursorTier(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	gen := e.codec.Token(publicid.Generation, c.GenID[c.VarGen[c.Demo[0]]])
	for _, tc := range []struct{ path, field string }{
		{"/v1/brands?limit=1", "slug"},
		{"/v1/generations/" + gen + "/variants?limit=1", "variant_id"},
	} {
		demoFirst, demoNext := e.page(tc.path, e.demo)
		fullFirst, fullNext := e.page(tc.path, e.free)
		if demoNext == "" || fullNext == "" {
			t.Fatalf("%s: no second page (demo %q, full %q)", tc.path, demoNext, fullNext)
		}
		if demoNext == fullNext {
			t.Errorf("%s: the demo and full lists give the same cursor", tc.path)
		}
		// Each cursor continues its own list.
		if d, _ := e.page(tc.path+"&cursor="+demoNext, e.demo); firstField(t, d, tc.field) == firstField(t, demoFirst, tc.field) {
			t.Errorf("%s: the demo cursor does not continue the demo list", tc.path)
		}
		if d, _ := e.page(tc.path+"&cursor="+fullNext, e.free); firstField(t, d, tc.field) == firstField(t, fullFirst, tc.field) {
			t.Errorf("%s: the full cursor does not continue the full list", tc.path)
		}
		// Across tiers: the first page again.
		if d, _ := e.page(tc.path+"&cursor="+demoNext, e.free); firstField(t, d, tc.field) != firstField(t, fullFirst, tc.field) {
			t.Errorf("%s: a demo key's cursor moved the full catalogue's list", tc.path)
		}
		if d, _ := e.page(tc.path+"&cursor="+fullNext, e.demo); firstField(t, d, tc.field) != firstField(t, demoFirst, tc.field) {
			t.Errorf("%s: a full key's cursor moved the demo list", tc.path)
		}
		// Tampered: the first page again.
		bad := []byte(fullNext)
		bad[len(bad)/2] ^= 'A' ^ 'B'
		if bad[len(bad)/2] == fullNext[len(bad)/2] {
			t.Fatal("BUG: tampering changed nothing")
		}
		if d, _ := e.page(tc.path+"&cursor="+string(bad), e.free); firstField(t, d, tc.field) != firstField(t, fullFirst, tc.field) {
			t.Errorf("%s: a tampered cursor did not restart the list", tc.path)
		}
	}
}

// TestCursorsHideIDsAndNames: the cursors the API hands out carry no stable
// id and no name. Before cursors were sealed, bytes 1-4 of a variant-list
// cursor were the last variant's stable id and a model-list cursor held the
// model's id and name in the clear.
func TestCursorsHideIDsAndNames(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	decode := func(cur string) []byte {
		t.Helper()
		if len(cur) < 3 || cur[:2] != "c_" {
			t.Fatalf("cursor %q", cur)
		}
		raw, err := base64.RawURLEncoding.DecodeString(cur[2:])
		if err != nil {
			t.Fatalf("cursor %q: %v", cur, err)
		}
		return raw
	}
	hidden := func(what string, raw []byte, secrets ...[]byte) {
		t.Helper()
		for _, s := range secrets {
			if bytes.Contains(raw, s) {
				t.Errorf("%s: the cursor's bytes %x contain %x (%q)", what, raw, s, s)
			}
		}
	}
	idBytes := func(id uint32) (le, be []byte) {
		return binary.LittleEndian.AppendUint32(nil, id), binary.BigEndian.AppendUint32(nil, id)
	}
	// A generation's variants, one per page: every cursor of the walk.
	gen := e.codec.Token(publicid.Generation, c.GenID[c.VarGen[c.Demo[0]]])
	path := "/v1/generations/" + gen + "/variants?limit=1"
	for i := 0; i < 50; i++ {
		data, next := e.page(path, e.free)
		if next == "" {
			if i < 2 {
				t.Fatalf("%s: a walk of %d pages", path, i+1)
			}
			break
		}
		id, ok := e.codec.ParseString(publicid.Variant, firstField(t, data, "variant_id"))
		if !ok {
			t.Fatalf("variant_id %q", firstField(t, data, "variant_id"))
		}
		le, be := idBytes(id)
		hidden("variant list", decode(next), le, be)
		path = "/v1/generations/" + gen + "/variants?limit=1&cursor=" + next
	}
	// A brand's models: the model's stable id and its name (a demo brand:
	// it has two models at any scale).
	brand := "skoda"
	data, next := e.page("/v1/brands/"+brand+"/models?limit=1", e.free)
	if next == "" {
		t.Fatalf("brand %s has a single model", brand)
	}
	id, ok := e.codec.ParseString(publicid.Model, firstField(t, data, "model_id"))
	if !ok {
		t.Fatalf("model_id %q", firstField(t, data, "model_id"))
	}
	name := firstField(t, data, "name")
	le, be := idBytes(id)
	raw := decode(next)
	hidden("model list", raw, le, be, []byte(name))
	if len(name) > 3 {
		hidden("model list", raw, []byte(name[:3]), []byte(name[len(name)-3:]))
	}
}
