package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/vspec/catalogue/engine/jsonenc"
)

// ChangeFormat names the change-file format; it changes when the format
// does.
const ChangeFormat = "vspec-catalogue-changes/1"

// Change operations.
const (
	OpAdded   = "added"
	OpChanged = "changed"
	OpRemoved = "removed"
)

// ChangeHeader is the first line of a change file.
type ChangeHeader struct {
	Format  string        `json:"format"`
	From    Meta          `json:"from"`
	To      Meta          `json:"to"`
	Options Options       `json:"options"`
	Total   TableCounts   `json:"total"`
	Counts  []TableCounts `json:"counts"` // one per table of Tables, in that order
	Tables  []Schema      `json:"tables"` // the schema of every table of the new export
}

// TableCounts counts the records of one table in a change file.
type TableCounts struct {
	Table   string `json:"table,omitempty"`
	Added   int    `json:"added"`
	Changed int    `json:"changed"`
	Removed int    `json:"removed"`
}

// Change is one record line of a change file.
type Change struct {
	Table  string                     `json:"table"`
	Op     string                     `json:"op"`
	Key    map[string]json.RawMessage `json:"key"`
	Fields map[string]json.RawMessage `json:"fields,omitempty"`
}

// Diff compares the exports planned from two snapshots with the same
// options and writes the change file to w: a header line, then one line per
// added, changed or removed record, table by table in key order. The
// records are kept in memory until the counts of the header are known; use
// DiffFile for large differences.
func Diff(old, new *Plan, w io.Writer, wo WriteOptions) (*ChangeHeader, error) {
	var body bytes.Buffer
	h, err := diffBody(old, new, &body, wo)
	if err != nil {
		return nil, err
	}
	if err := writeHeader(w, h); err != nil {
		return nil, err
	}
	_, err = w.Write(body.Bytes())
	return h, err
}

// DiffFile is Diff into the file path, written atomically; the records go
// through a temporary file beside it rather than memory.
func DiffFile(old, new *Plan, path string, wo WriteOptions) (*ChangeHeader, error) {
	dir := filepath.Dir(path)
	body, err := os.CreateTemp(dir, ".changes-body-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(body.Name())
	defer body.Close()
	bw := bufio.NewWriterSize(body, 1<<20)
	h, err := diffBody(old, new, bw, wo)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return nil, err
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	out, err := os.CreateTemp(dir, ".changes-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(out.Name())
	ow := bufio.NewWriterSize(out, 1<<20)
	err = writeHeader(ow, h)
	if err == nil {
		_, err = io.Copy(ow, body)
	}
	if err == nil {
		err = ow.Flush()
	}
	if err == nil {
		err = out.Chmod(0o644)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(out.Name(), path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return h, nil
}

func writeHeader(w io.Writer, h *ChangeHeader) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func diffBody(old, new *Plan, w io.Writer, wo WriteOptions) (*ChangeHeader, error) {
	h := &ChangeHeader{Format: ChangeFormat, From: old.Meta, To: new.Meta, Options: new.Options}
	if !slices.Equal(old.Options.Modules, new.Options.Modules) || !slices.Equal(old.Options.Languages, new.Options.Languages) {
		return nil, fmt.Errorf("the two plans were made with different options")
	}
	total := 0
	for _, t := range new.Tables {
		total += t.Size
	}
	for _, t := range old.Tables {
		total += t.Size
	}
	prog := newProgress(nil, wo.Progress)
	if prog != nil {
		prog.total = total
	}
	for _, nt := range new.Tables {
		var ot *Table
		for _, t := range old.Tables {
			if t.Name == nt.Name {
				ot = t
			}
		}
		counts, err := diffTable(ot, nt, w, prog)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", nt.Name, err)
		}
		h.Tables = append(h.Tables, nt.Schema)
		h.Counts = append(h.Counts, counts)
		h.Total.Added += counts.Added
		h.Total.Changed += counts.Changed
		h.Total.Removed += counts.Removed
	}
	prog.finish()
	return h, nil
}

// emptyIter has no rows.
type emptyIter struct{}

func (emptyIter) next(*Row) (bool, error) { return false, nil }

// diffTable merges the rows of ot (nil when the old export has no such
// table) and nt by key and writes a record per difference. Old rows are
// compared column by column under the new schema: a column the old table
// lacks is null there.
func diffTable(ot, nt *Table, w io.Writer, prog *progress) (TableCounts, error) {
	counts := TableCounts{Table: nt.Name}
	s := &nt.Schema
	oldIt := rowIter(emptyIter{})
	colMap := make([]int, len(s.Cols))
	if ot != nil {
		for i := 0; i < s.Keys; i++ {
			if i >= ot.Keys || ot.Cols[i].Name != s.Cols[i].Name {
				return counts, fmt.Errorf("the key columns differ between the snapshots")
			}
		}
		for i, c := range s.Cols {
			colMap[i] = -1
			for j, oc := range ot.Cols {
				if oc.Name == c.Name {
					colMap[i] = j
				}
			}
		}
		var err error
		if oldIt, err = ot.Open(); err != nil {
			return counts, err
		}
	}
	newIt, err := nt.Open()
	if err != nil {
		return counts, err
	}
	var o, n Row
	var line []byte
	oldOK, err := oldIt.next(&o)
	if err != nil {
		return counts, err
	}
	newOK, err := newIt.next(&n)
	if err != nil {
		return counts, err
	}
	seen := 0
	for oldOK || newOK {
		cmp := 0
		switch {
		case !oldOK:
			cmp = 1
		case !newOK:
			cmp = -1
		default:
			cmp = compareKeys(s, &o, &n)
		}
		line = line[:0]
		switch {
		case cmp < 0: // only in the old export
			line = appendRecordStart(line, s, OpRemoved, &o)
			line = append(line, "}\n"...)
			counts.Removed++
		case cmp > 0: // only in the new export
			line = appendRecordStart(line, s, OpAdded, &n)
			line = append(line, `,"fields":{`...)
			first := true
			for i := s.Keys; i < len(s.Cols); i++ {
				if cell := n.Cell(i); len(cell) > 0 {
					line = appendField(line, &s.Cols[i], cell, first)
					first = false
				}
			}
			line = append(line, "}}\n"...)
			counts.Added++
		default:
			first := true
			for i := s.Keys; i < len(s.Cols); i++ {
				var oc []byte
				if colMap[i] >= 0 {
					oc = o.Cell(colMap[i])
				}
				nc := n.Cell(i)
				if bytes.Equal(oc, nc) {
					continue
				}
				if first {
					line = appendRecordStart(line, s, OpChanged, &n)
					line = append(line, `,"fields":{`...)
				}
				line = appendField(line, &s.Cols[i], nc, first)
				first = false
			}
			if !first {
				line = append(line, "}}\n"...)
				counts.Changed++
			}
		}
		if _, err := w.Write(line); err != nil {
			return counts, err
		}
		if cmp <= 0 {
			if oldOK, err = oldIt.next(&o); err != nil {
				return counts, err
			}
			seen++
		}
		if cmp >= 0 {
			if newOK, err = newIt.next(&n); err != nil {
				return counts, err
			}
			seen++
		}
		if seen >= 4096 {
			prog.add(seen)
			seen = 0
		}
	}
	prog.add(seen)
	return counts, nil
}

// appendRecordStart appends `{"table":...,"op":...,"key":{...}` for row r.
func appendRecordStart(dst []byte, s *Schema, op string, r *Row) []byte {
	dst = append(dst, `{"table":`...)
	dst = jsonenc.AppendString(dst, s.Name)
	dst = append(dst, `,"op":"`...)
	dst = append(dst, op...)
	dst = append(dst, `","key":{`...)
	for i := 0; i < s.Keys; i++ {
		dst = appendField(dst, &s.Cols[i], r.Cell(i), i == 0)
	}
	return append(dst, '}')
}

// appendField appends `"name":value`, null for an empty cell.
func appendField(dst []byte, c *Column, cell []byte, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = jsonenc.AppendString(dst, c.Name)
	dst = append(dst, ':')
	switch {
	case len(cell) == 0:
		return append(dst, "null"...)
	case c.Type.quoted():
		return jsonenc.AppendString(dst, string(cell))
	}
	return append(dst, cell...)
}
