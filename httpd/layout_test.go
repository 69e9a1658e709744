package httpd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxServiceMethods is issue 15's bound on the server type: the work of
// the API lives in the operations and the packages beside httpd, and the
// Service only wires them to the transports.
const maxServiceMethods = 45

// TestServiceMethods holds the httpd root package's server type to
// maxServiceMethods methods, counted in the package's source.
func TestServiceMethods(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Service" {
					names = append(names, fn.Name.Name)
				}
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("no methods of *Service found: the test reads the wrong package")
	}
	if len(names) > maxServiceMethods {
		t.Errorf("*Service has %d methods, more than %d: give the new work its own type or package (%s)", len(names), maxServiceMethods, strings.Join(names, ", "))
	}
	t.Logf("*Service has %d methods", len(names))
}
