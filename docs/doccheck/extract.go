package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Block is one shell block of a Markdown file: a fenced code block whose
// info string is sh, bash or shell, with the directives of the marker
// comment right above its fence.
type Block struct {
	File string // as given to Extract
	Line int    // of the opening fence, from 1
	Text string // the block's lines, dedented to the fence's indentation
	Directives
}

// Directives say how a block is run (see the package doc).
type Directives struct {
	Skip    string      // not run, for this reason
	Serve   bool        // starts servers; they are stopped when the block ends
	Live    bool        // starts the live server the later blocks use
	Stopped bool        // runs with the live server stopped
	Restart bool        // stops the live server itself, which then starts again
	Subs    [][2]string // text replaced before the block runs
	Status  []int       // HTTP error statuses curl may answer here
}

// markerPrefix opens a marker comment.
const markerPrefix = "<!-- doccheck:"

// Extract returns the shell blocks of a Markdown document, each with its
// directives. A marker that is malformed, names an unknown directive, or is
// not directly followed by a shell block (blank lines aside) is an error
// naming the file and line, so that markers cannot drift from the commands
// they describe; so is a fence left open.
func Extract(name string, md []byte) ([]Block, error) {
	var blocks []Block
	var pending *Directives // the directives of the last marker, until a fence takes them
	pendingLine := 0
	var cur *Block
	var body strings.Builder
	fence, indent := "", 0
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" { // inside a fenced block
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				if cur != nil {
					cur.Text = body.String()
					blocks = append(blocks, *cur)
					cur = nil
				}
				fence = ""
				continue
			}
			if cur != nil {
				body.WriteString(dedent(line, indent))
				body.WriteByte('\n')
			}
			continue
		}
		if f, info, ok := openingFence(trimmed); ok {
			fence, indent = f, len(line)-len(trimmed)
			if isShell(info) {
				cur = &Block{File: name, Line: n}
				if pending != nil {
					cur.Directives = *pending
				}
				body.Reset()
			} else if pending != nil {
				return nil, fmt.Errorf("%s:%d: the doccheck marker is followed by a %q block, not a shell block", name, pendingLine, info)
			}
			pending = nil
			continue
		}
		if strings.HasPrefix(trimmed, markerPrefix) {
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: two doccheck markers for one block: put every directive in one marker", name, n)
			}
			d, err := parseMarker(trimmed)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, n, err)
			}
			pending, pendingLine = &d, n
			continue
		}
		if pending != nil && strings.TrimSpace(line) != "" {
			return nil, fmt.Errorf("%s:%d: the doccheck marker is not followed by a shell block", name, pendingLine)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if fence != "" {
		return nil, fmt.Errorf("%s: a code fence is not closed", name)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: the doccheck marker is not followed by a shell block", name, pendingLine)
	}
	return blocks, nil
}

// openingFence reads a CommonMark fence opening (three or more backticks
// or tildes) and its info string's first word.
func openingFence(s string) (fence, info string, ok bool) {
	if !strings.HasPrefix(s, "```") && !strings.HasPrefix(s, "~~~") {
		return "", "", false
	}
	n := len(s) - len(strings.TrimLeft(s, s[:1]))
	fence = s[:n]
	rest := strings.TrimSpace(s[n:])
	if s[0] == '`' && strings.Contains(rest, "`") { // not a fence: an inline code span
		return "", "", false
	}
	info, _, _ = strings.Cut(rest, " ")
	return fence, info, true
}

func isShell(info string) bool { return info == "sh" || info == "bash" || info == "shell" }

// dedent removes up to n leading spaces: the indentation of a fence inside
// a list item.
func dedent(line string, n int) string {
	for i := 0; i < n && len(line) > 0 && line[0] == ' '; i++ {
		line = line[1:]
	}
	return line
}

// parseMarker reads "<!-- doccheck: DIRECTIVE; DIRECTIVE ... -->".
func parseMarker(s string) (Directives, error) {
	var d Directives
	inner, ok := strings.CutSuffix(strings.TrimSpace(s), "-->")
	if !ok {
		return d, fmt.Errorf("a doccheck marker must end on its line with -->")
	}
	inner = strings.TrimSpace(strings.TrimPrefix(inner, markerPrefix))
	if inner == "" {
		return d, fmt.Errorf("an empty doccheck marker")
	}
	// A skip's reason is the rest of the marker, semicolons and all: a
	// skipped block takes no other directive.
	if reason, ok := strings.CutPrefix(inner, "skip"); ok && (reason == "" || reason[0] == ' ') {
		if d.Skip = strings.TrimSpace(reason); d.Skip == "" {
			return d, fmt.Errorf("skip needs a reason: say why the block cannot run in CI")
		}
		return d, nil
	}
	for _, part := range strings.Split(inner, ";") {
		word, arg, _ := strings.Cut(strings.TrimSpace(part), " ")
		arg = strings.TrimSpace(arg)
		switch word {
		case "skip":
			return d, fmt.Errorf("skip comes first, alone: a skipped block takes no other directive")
		case "serve", "live", "stopped", "restart":
			if arg != "" {
				return d, fmt.Errorf("%s takes no argument (got %q)", word, arg)
			}
			d.Serve = d.Serve || word == "serve" || word == "live"
			d.Live = d.Live || word == "live"
			d.Stopped = d.Stopped || word == "stopped"
			d.Restart = d.Restart || word == "restart"
		case "sub":
			old, repl, ok := strings.Cut(arg, "=>")
			if !ok || strings.TrimSpace(old) == "" {
				return d, fmt.Errorf("sub wants OLD => NEW (got %q)", arg)
			}
			d.Subs = append(d.Subs, [2]string{strings.TrimSpace(old), strings.TrimSpace(repl)})
		case "status":
			for _, f := range strings.Fields(arg) {
				code, err := strconv.Atoi(f)
				if err != nil || code < 400 || code > 599 {
					return d, fmt.Errorf("status wants HTTP error statuses, 400 to 599 (got %q)", f)
				}
				d.Status = append(d.Status, code)
			}
			if len(d.Status) == 0 {
				return d, fmt.Errorf("status wants at least one HTTP status")
			}
		default:
			return d, fmt.Errorf("unknown doccheck directive %q (skip, live, serve, stopped, restart, sub, status)", word)
		}
	}
	if n := btoi(d.Serve) + btoi(d.Stopped) + btoi(d.Restart); n > 1 {
		return d, fmt.Errorf("serve (or live), stopped and restart exclude each other")
	}
	return d, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
