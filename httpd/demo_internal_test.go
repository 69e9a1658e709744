package httpd

import (
	"reflect"
	"strings"
	"testing"
)

// TestDemoViewHoldsNoCatalogue proves that the demo tier cannot reach the
// full catalogue: its operations get only a demoView (operations.answer
// leaves rq.v nil for them), and nothing a demoView holds, however deep,
// is the catalogue, the serving view or any engine type.
func TestDemoViewHoldsNoCatalogue(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if strings.HasPrefix(typ.PkgPath(), "github.com/vspec/catalogue/engine") || typ == reflect.TypeFor[view]() {
			t.Errorf("%s is a %s: the demo tier would reach the full catalogue", path, typ)
			return
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(typ.Elem(), path+"[]")
		case reflect.Map:
			walk(typ.Key(), path+"{key}")
			walk(typ.Elem(), path+"{}")
		case reflect.Struct:
			for f := range typ.Fields() {
				walk(f.Type, path+"."+f.Name)
			}
		case reflect.Interface, reflect.Func, reflect.Chan:
			if !strings.HasPrefix(path, "demoView.codec") { // the token codec's cipher
				t.Errorf("%s is a %s, which could hide anything", path, typ)
			}
		}
	}
	walk(reflect.TypeFor[demoView](), "demoView")
	if !seen[reflect.TypeFor[demoList]()] {
		t.Fatal("the walk did not reach the demo lists")
	}
}
