package reference

import (
	"bytes"
	"strings"
	"testing"
)

func TestBundle(t *testing.T) {
	if !strings.Contains(notices, `Version: "`+Version+`"`) {
		t.Errorf("the bundle's notices do not name version %s: run update.sh", Version)
	}
	if !strings.Contains(license, "MIT License") || !strings.Contains(license, "Rebilly") {
		t.Error("LICENSE is not Redoc's MIT licence")
	}
	if strings.Contains(license, "*/") {
		t.Error("LICENSE would end the comment it is served in")
	}
	s := Script()
	if !bytes.HasPrefix(s, []byte("/*! Redoc "+Version)) || !bytes.HasSuffix(s, bundle) || len(bundle) < 500_000 {
		t.Errorf("the script is not the licence then the bundle (%d bytes)", len(s))
	}
	if Path != "/docs/redoc-"+Version+".js" {
		t.Error(Path)
	}
}
