package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// ReadManifest reads manifest.json of an export directory.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("cannot read %s/manifest.json: %w", dir, err)
	}
	if m.Format != FormatName {
		return nil, fmt.Errorf("%s is an export of format %q, want %q", dir, m.Format, FormatName)
	}
	return &m, nil
}

// Apply applies a change file to the export in oldDir and writes the
// resulting export into newDir: the tables of oldDir with the records of
// the change file applied, under the schema the change file carries, and
// the coverage sheet, README.txt and manifest.json that follow from them.
// The result is byte for byte the export of the change file's new snapshot
// with the same options. The change file must start from oldDir's snapshot
// and options.
func Apply(oldDir string, changes io.Reader, newDir string, wo WriteOptions) (*Manifest, error) {
	old, err := ReadManifest(oldDir)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(changes, 1<<20)
	first, err := br.ReadBytes('\n')
	if err != nil && !(errors.Is(err, io.EOF) && len(first) > 0) {
		return nil, fmt.Errorf("cannot read the change file's header: %w", err)
	}
	var h ChangeHeader
	if err := json.Unmarshal(first, &h); err != nil {
		return nil, fmt.Errorf("cannot read the change file's header: %w", err)
	}
	if h.Options.Brands == nil {
		h.Options.Brands = []string{}
	}
	if h.Format != ChangeFormat {
		return nil, fmt.Errorf("change file of format %q, want %q", h.Format, ChangeFormat)
	}
	if h.From.Identity != old.Snapshot.Identity {
		return nil, fmt.Errorf("the change file starts from snapshot %s, but %s is an export of snapshot %s", h.From.Identity, oldDir, old.Snapshot.Identity)
	}
	if !sameOptions(h.Options, old.Options) {
		return nil, fmt.Errorf("the change file was made for other options (modules, languages or brands) than %s", oldDir)
	}
	byTable := map[string]*[]pendingChange{}
	for i := range h.Tables {
		byTable[h.Tables[i].Name] = &[]pendingChange{}
	}
	schemas := map[string]*Schema{}
	colIndex := map[string]map[string]int{}
	for i := range h.Tables {
		s := &h.Tables[i]
		schemas[s.Name] = s
		colIndex[s.Name] = make(map[string]int, len(s.Cols))
		for ci, c := range s.Cols {
			colIndex[s.Name][c.Name] = ci
		}
	}
	dec := json.NewDecoder(br)
	for n := 2; ; n++ {
		var ch Change
		if err := dec.Decode(&ch); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("change file line %d: %w", n, err)
		}
		s := schemas[ch.Table]
		if s == nil {
			return nil, fmt.Errorf("change file line %d: unknown table %q", n, ch.Table)
		}
		pc, err := newPendingChange(s, colIndex[s.Name], &ch)
		if err != nil {
			return nil, fmt.Errorf("change file line %d: %w", n, err)
		}
		*byTable[ch.Table] = append(*byTable[ch.Table], pc)
	}
	oldRows := map[string]int{}
	for _, t := range old.Tables {
		oldRows[t.Name] = t.Rows
	}
	tables := make([]*Table, len(h.Tables))
	for i := range h.Tables {
		s := &h.Tables[i]
		pcs := *byTable[s.Name]
		// Diff writes the records in key order; sort only what is not.
		sorted := true
		for j := 1; j < len(pcs) && sorted; j++ {
			sorted = compareKeys(s, &pcs[j-1].key, &pcs[j].key) < 0
		}
		if !sorted {
			sort.SliceStable(pcs, func(a, b int) bool { return compareKeys(s, &pcs[a].key, &pcs[b].key) < 0 })
			for j := 1; j < len(pcs); j++ {
				if compareKeys(s, &pcs[j-1].key, &pcs[j].key) == 0 {
					return nil, fmt.Errorf("table %s: two records for one key", s.Name)
				}
			}
		}
		path := filepath.Join(oldDir, "csv", s.Name+".csv")
		tables[i] = &Table{Schema: *s, Size: oldRows[s.Name], Open: func() (rowIter, error) {
			return newApplyIter(s, path, pcs)
		}}
	}
	return writeAll(newDir, h.To, h.Options, tables, wo)
}

func sameOptions(a, b Options) bool {
	return slices.Equal(a.Modules, b.Modules) && slices.Equal(a.Languages, b.Languages) && slices.Equal(a.Brands, b.Brands)
}

// pendingChange is a change record with its key and fields as cells of the
// new schema.
type pendingChange struct {
	op     string
	key    Row
	fields map[int][]byte // column -> cell ("" is null)
}

func newPendingChange(s *Schema, cols map[string]int, ch *Change) (pendingChange, error) {
	pc := pendingChange{op: ch.Op}
	switch ch.Op {
	case OpAdded, OpChanged, OpRemoved:
	default:
		return pc, fmt.Errorf("unknown op %q", ch.Op)
	}
	for i := 0; i < s.Keys; i++ {
		raw, ok := ch.Key[s.Cols[i].Name]
		if !ok {
			return pc, fmt.Errorf("key lacks %s", s.Cols[i].Name)
		}
		cell, err := rawCell(raw)
		if err != nil {
			return pc, err
		}
		pc.key.bytes(cell)
	}
	pc.fields = make(map[int][]byte, len(ch.Fields))
	for name, raw := range ch.Fields {
		ci, ok := cols[name]
		if !ok || ci < s.Keys {
			return pc, fmt.Errorf("unknown or key field %q", name)
		}
		cell, err := rawCell(raw)
		if err != nil {
			return pc, err
		}
		pc.fields[ci] = cell
	}
	return pc, nil
}

// rawCell turns a JSON value of a change record into the text of a cell:
// strings unquoted, numbers and booleans as written, null empty.
func rawCell(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "null":
		return nil, nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []byte(s), nil
	}
	return raw, nil
}

// applyIter merges the rows of an old CSV file, projected onto the new
// schema, with the changes of its table.
type applyIter struct {
	s       *Schema
	f       *os.File
	r       *csv.Reader
	colMap  []int // new column -> old CSV column, -1 when the old file lacks it
	changes []pendingChange
	old     Row
	oldOK   bool
}

func newApplyIter(s *Schema, path string, changes []pendingChange) (*applyIter, error) {
	it := &applyIter{s: s, changes: changes}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return it, nil // a table the old export did not have
	}
	if err != nil {
		return nil, err
	}
	it.f = f
	it.r = csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	it.r.ReuseRecord = true
	header, err := it.r.Read()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	it.colMap = make([]int, len(s.Cols))
	for i, c := range s.Cols {
		it.colMap[i] = slices.Index(header, c.Name)
	}
	for i := 0; i < s.Keys; i++ {
		if it.colMap[i] < 0 {
			f.Close()
			return nil, fmt.Errorf("%s lacks the key column %s", path, s.Cols[i].Name)
		}
	}
	return it, it.readOld()
}

func (it *applyIter) readOld() error {
	it.oldOK = false
	if it.r == nil {
		return nil
	}
	rec, err := it.r.Read()
	if errors.Is(err, io.EOF) {
		it.f.Close()
		it.r = nil
		return nil
	}
	if err != nil {
		it.f.Close()
		it.r = nil
		return err
	}
	it.old.reset()
	for _, j := range it.colMap {
		if j >= 0 {
			it.old.str(rec[j])
		} else {
			it.old.null()
		}
	}
	it.oldOK = true
	return nil
}

func (it *applyIter) next(r *Row) (bool, error) {
	for {
		haveCh := len(it.changes) > 0
		if !it.oldOK && !haveCh {
			return false, nil
		}
		cmp := -1 // old row first
		if !it.oldOK {
			cmp = 1
		} else if haveCh {
			cmp = compareKeys(it.s, &it.old, &it.changes[0].key)
		}
		if cmp < 0 {
			r.copyFrom(&it.old)
			return true, it.readOld()
		}
		ch := it.changes[0]
		it.changes = it.changes[1:]
		switch {
		case cmp > 0 && ch.op == OpAdded:
			r.copyFrom(&ch.key)
			for i := it.s.Keys; i < len(it.s.Cols); i++ {
				r.bytes(ch.fields[i])
			}
			return true, nil
		case cmp == 0 && ch.op == OpChanged:
			r.reset()
			for i := range it.s.Cols {
				if cell, ok := ch.fields[i]; ok {
					r.bytes(cell)
				} else {
					r.bytes(it.old.Cell(i))
				}
			}
			return true, it.readOld()
		case cmp == 0 && ch.op == OpRemoved:
			if err := it.readOld(); err != nil {
				return false, err
			}
		default:
			return false, fmt.Errorf("%s record for a key the old export %s", ch.op, map[bool]string{true: "holds", false: "lacks"}[cmp == 0])
		}
	}
}
