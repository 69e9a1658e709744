package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	md := "# Title\n\n```sh\necho one\n```\n\ntext\n\n" +
		"<!-- doccheck: skip needs a real Redis; .ci/redis_test.sh has one -->\n```bash\nredis-cli ping\n```\n\n" +
		"```\nnot a shell block\n```\n\n" +
		"- a list item:\n\n  <!-- doccheck: sub <pid> => $DOCCHECK_PID; status 409 -->\n\n  ```sh\n  kill -HUP <pid>\n    indented more\n  ```\n\n" +
		"````sh\n```\nfour backticks hold three\n````\n" +
		"Inline ```sh``` is no fence.\n"
	blocks, err := Extract("x.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{File: "x.md", Line: 3, Text: "echo one\n"},
		{File: "x.md", Line: 10, Text: "redis-cli ping\n", Directives: Directives{Skip: "needs a real Redis; .ci/redis_test.sh has one"}},
		{File: "x.md", Line: 22, Text: "kill -HUP <pid>\n  indented more\n", Directives: Directives{Subs: [][2]string{{"<pid>", "$DOCCHECK_PID"}}, Status: []int{409}}},
		{File: "x.md", Line: 27, Text: "```\nfour backticks hold three\n"},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("got  %+v\nwant %+v", blocks, want)
	}
}

func TestExtractRefuses(t *testing.T) {
	f := func(md, want string) {
		t.Helper()
		_, err := Extract("x.md", []byte(md))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", md, err, want)
		}
	}
	f("<!-- doccheck: skip -->\n```sh\nx\n```\n", "x.md:1: skip needs a reason")
	f("<!-- doccheck: skipp reason -->\n```sh\nx\n```\n", `unknown doccheck directive "skipp"`)
	f("<!-- doccheck: live\n-->\n```sh\nx\n```\n", "must end on its line with -->")
	f("<!-- doccheck: serve -->\n\nA paragraph.\n```sh\nx\n```\n", "x.md:1: the doccheck marker is not followed by a shell block")
	f("<!-- doccheck: serve -->\n```yaml\nx: 1\n```\n", `followed by a "yaml" block`)
	f("<!-- doccheck: serve -->\n", "not followed by a shell block")
	f("<!-- doccheck: serve -->\n<!-- doccheck: live -->\n```sh\nx\n```\n", "two doccheck markers")
	f("<!-- doccheck: sub a => b; skip why -->\n```sh\nx\n```\n", "skip comes first, alone")
	f("<!-- doccheck: serve; stopped -->\n```sh\nx\n```\n", "exclude each other")
	f("<!-- doccheck: sub a = b -->\n```sh\nx\n```\n", "sub wants OLD => NEW")
	f("<!-- doccheck: status 200 -->\n```sh\nx\n```\n", "status wants HTTP error statuses")
	f("<!-- doccheck: restart now -->\n```sh\nx\n```\n", "restart takes no argument")
	f("```sh\nx\n", "a code fence is not closed")
}

func TestCommands(t *testing.T) {
	script := "# a comment\nexport A=1   # set it\n\ncurl -s 'http://x/#frag' \\\n    -H \"X: #1\"   # the call\nkill -HUP \"$PID\"\n"
	want := []string{"export A=1", "curl -s 'http://x/#frag'     -H \"X: #1\"", `kill -HUP "$PID"`}
	if got := commands(script); !reflect.DeepEqual(got, want) {
		t.Errorf("commands:\n%q\nwant\n%q", got, want)
	}
}

func TestHTTPStatuses(t *testing.T) {
	got, rest := httpStatuses("warning: x\ndoccheck-http-status 200\ndoccheck-http-status 000\nlast line")
	if !reflect.DeepEqual(got, []int{200, 0}) || rest != "warning: x\nlast line" {
		t.Errorf("%v %q", got, rest)
	}
}

// TestRepositoryMarkers reads the repository's README.md and docs/*.md as
// the runner does: every marker is well formed and precedes a shell block,
// exactly one block starts the live server, and it comes before every
// block that needs it.
func TestRepositoryMarkers(t *testing.T) {
	files, _ := filepath.Glob("../*.md")
	files = append([]string{"../../README.md"}, files...)
	live := 0
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Extract(f, md)
		if err != nil {
			t.Error(err)
		}
		for _, b := range blocks {
			switch {
			case b.Live:
				live++
			case live == 0 && b.Skip == "":
				t.Errorf("%s:%d runs before the live server is started", b.File, b.Line)
			}
		}
	}
	if live != 1 {
		t.Errorf("%d blocks start the live server, want 1", live)
	}
}

// FuzzExtract: any text is read without a panic, and what is extracted
// is consistent: lines in order and inside the text, skips with a reason.
func FuzzExtract(f *testing.F) {
	f.Add("```sh\necho\n```\n")
	f.Add("<!-- doccheck: skip why -->\n```sh\nx\n```\n")
	f.Add("<!-- doccheck: sub a => b; status 409 402 -->\n  ```bash\n  x \\\n  y # c\n  ```\n")
	f.Add("~~~shell\n~~~\n````\n```sh\n````\n")
	f.Add("<!-- doccheck: live; serve -->\n```sh\n")
	f.Fuzz(func(t *testing.T, md string) {
		blocks, err := Extract("f.md", []byte(md))
		if err != nil {
			return
		}
		lines := strings.Count(md, "\n") + 1
		last := 0
		for _, b := range blocks {
			if b.Line <= last || b.Line > lines {
				t.Fatalf("block at line %d after %d, of %d", b.Line, last, lines)
			}
			last = b.Line
			if b.Serve && b.Stopped || b.Skip != "" && (b.Serve || len(b.Subs) > 0) {
				t.Fatalf("contradictory directives %+v", b.Directives)
			}
			for _, c := range commands(b.Text) {
				if strings.Contains(c, "\n") {
					t.Fatalf("a command spans lines: %q", c)
				}
			}
		}
	})
}
