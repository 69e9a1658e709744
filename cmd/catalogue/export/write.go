package export

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"unsafe"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
)

// FormatName names the layout of an export; it changes when the layout
// does.
const FormatName = "vspec-catalogue-export/1"

// Manifest is the content of manifest.json.
type Manifest struct {
	Format   string      `json:"format"`
	Snapshot Meta        `json:"snapshot"`
	Options  Options     `json:"options"`
	Share    float64     `json:"variant_share"` // the subset's share of the snapshot's variants; 1 for the whole catalogue
	Tables   []TableInfo `json:"tables"`
	Files    []FileInfo  `json:"files"`
}

// TableInfo is a table's entry in the manifest.
type TableInfo struct {
	Name   string `json:"name"`
	Role   string `json:"role"`
	Module string `json:"module,omitempty"`
	Rows   int    `json:"rows"`
	Cols   int    `json:"columns"`
}

// FileInfo is a file's entry in the manifest.
type FileInfo struct {
	Path   string `json:"path"` // relative, with forward slashes
	Table  string `json:"table,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// WriteOptions tunes how an export is written; it never changes the bytes.
type WriteOptions struct {
	// Workers is the number of tables written at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called now and then with the rows written so
	// far and the expected total, from one goroutine at a time.
	Progress func(done, total int)
}

// Export writes the export of c with opts into dir, which must not exist
// or be empty. The files are written into a temporary directory beside dir
// and renamed at the end, so dir never holds a partial export.
func Export(c *engine.Catalogue, opts Options, dir string, wo WriteOptions) (*Manifest, error) {
	p, err := NewPlan(c, opts, false)
	if err != nil {
		return nil, err
	}
	return p.Write(dir, wo)
}

// Write writes the plan's export into dir (see Export).
func (p *Plan) Write(dir string, wo WriteOptions) (*Manifest, error) {
	return writeAll(dir, p.Meta, p.Options, p.Tables, wo)
}

// tableStats is what writing one table learnt.
type tableStats struct {
	rows     int
	nonEmpty []int           // per column
	perField map[string]*int // confidence table: rows per field
	files    [2]FileInfo
}

// writeAll writes tables, the coverage sheet, README.txt and manifest.json
// into dir.
func writeAll(dir string, meta Meta, opts Options, tables []*Table, wo WriteOptions) (*Manifest, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".partial-")
	if err != nil {
		return nil, fmt.Errorf("cannot create a temporary directory beside %s: %w", dir, err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	for _, sub := range []string{"csv", "jsonl"} {
		if err := os.Mkdir(filepath.Join(tmp, sub), 0o755); err != nil {
			return nil, err
		}
	}

	prog := newProgress(tables, wo.Progress)
	stats := make([]*tableStats, len(tables))
	errs := make([]error, len(tables))
	order := make([]int, len(tables))
	for i := range order {
		order[i] = i
	}
	// Largest tables first, so that the workers finish together.
	sort.SliceStable(order, func(a, b int) bool {
		return tables[order[a]].Size*len(tables[order[a]].Cols) > tables[order[b]].Size*len(tables[order[b]].Cols)
	})
	workers := wo.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(tables)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				stats[i], errs[i] = writeTable(tmp, tables[i], prog)
			}
		}()
	}
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	prog.finish()

	cov := coverageTable(opts, tables, stats)
	covStats, err := writeTable(tmp, cov, nil)
	if err != nil {
		return nil, err
	}

	m := &Manifest{Format: FormatName, Snapshot: meta, Options: opts, Share: 1}
	for i, t := range tables {
		if t.Name == "variants" && len(opts.Brands) > 0 && meta.Variants > 0 {
			m.Share = math.Round(1e6*float64(stats[i].rows)/float64(meta.Variants)) / 1e6
		}
	}
	all := append(append([]*Table(nil), tables...), cov)
	allStats := append(append([]*tableStats(nil), stats...), covStats)
	for i, t := range all {
		m.Tables = append(m.Tables, TableInfo{Name: t.Name, Role: t.Role, Module: t.Module, Rows: allStats[i].rows, Cols: len(t.Cols)})
	}
	readme := readmeText(m, all)
	rf, err := writeFile(filepath.Join(tmp, "README.txt"), []byte(readme))
	if err != nil {
		return nil, err
	}
	rf.Path = "README.txt"
	m.Files = append(m.Files, rf)
	for i, t := range all {
		for _, f := range allStats[i].files {
			f.Table = t.Name
			m.Files = append(m.Files, f)
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if _, err := writeFile(filepath.Join(tmp, "manifest.json"), append(b, '\n')); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("cannot move the export into %s: %w", dir, err)
	}
	ok = true
	return m, nil
}

// prepareDir refuses a dir that holds anything and removes an empty one,
// so that the finished export can be renamed into place.
func prepareDir(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot read %s: %w", dir, err)
	case len(ents) > 0:
		return fmt.Errorf("%s exists and is not empty; choose a new directory", dir)
	}
	return os.Remove(dir)
}

// hashWriter counts and hashes what it writes to a file.
type hashWriter struct {
	f *os.File
	h hash.Hash
	n int64
}

func (w *hashWriter) Write(b []byte) (int, error) {
	w.h.Write(b)
	w.n += int64(len(b))
	return w.f.Write(b)
}

// output is a file being written through a buffer and a hash.
type output struct {
	hw  hashWriter
	buf *bufio.Writer
	rel string
}

func create(root, rel string) (*output, error) {
	f, err := os.Create(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	o := &output{hw: hashWriter{f: f, h: sha256.New()}, rel: rel}
	o.buf = bufio.NewWriterSize(&o.hw, 1<<20)
	return o, nil
}

func (o *output) close(err error) (FileInfo, error) {
	if err == nil {
		err = o.buf.Flush()
	}
	if cerr := o.hw.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return FileInfo{}, fmt.Errorf("cannot write %s: %w", o.rel, err)
	}
	return FileInfo{Path: o.rel, Bytes: o.hw.n, SHA256: hex.EncodeToString(o.hw.h.Sum(nil))}, nil
}

func writeFile(path string, b []byte) (FileInfo, error) {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return FileInfo{}, err
	}
	sum := sha256.Sum256(b)
	return FileInfo{Path: filepath.Base(path), Bytes: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}, nil
}

// writeTable writes csv/NAME.csv and jsonl/NAME.jsonl in one pass over the
// rows, checking that keys ascend strictly.
func writeTable(root string, t *Table, prog *progress) (st *tableStats, err error) {
	st = &tableStats{nonEmpty: make([]int, len(t.Cols))}
	if t.Role == RoleConfidence {
		st.perField = map[string]*int{}
	}
	co, err := create(root, "csv/"+t.Name+".csv")
	if err != nil {
		return nil, err
	}
	jo, err := create(root, "jsonl/"+t.Name+".jsonl")
	if err != nil {
		co.close(err)
		return nil, err
	}
	defer func() {
		var e1, e2 error
		st.files[0], e1 = co.close(err)
		st.files[1], e2 = jo.close(err)
		if err == nil {
			err = errors.Join(e1, e2)
		}
		st.files[0].Rows, st.files[1].Rows = st.rows, st.rows
		if err != nil {
			st = nil
		}
	}()
	cw := csv.NewWriter(co.buf)
	cw.UseCRLF = true
	fields := make([]string, len(t.Cols))
	keys := make([][]byte, len(t.Cols))
	for i, cl := range t.Cols {
		fields[i] = cl.Name
		keys[i] = append(jsonenc.AppendString(nil, cl.Name), ':')
	}
	if err := cw.Write(fields); err != nil {
		return st, err
	}
	it, err := t.Open()
	if err != nil {
		return st, err
	}
	var row, prev Row
	var line []byte
	pending := 0
	for {
		more, err := it.next(&row)
		if err != nil {
			return st, fmt.Errorf("table %s: %w", t.Name, err)
		}
		if !more {
			break
		}
		if row.Len() != len(t.Cols) {
			return st, fmt.Errorf("table %s row %d: %d cells for %d columns", t.Name, st.rows+1, row.Len(), len(t.Cols))
		}
		if t.Keys > 0 && st.rows > 0 && compareKeys(&t.Schema, &prev, &row) >= 0 {
			return st, fmt.Errorf("table %s row %d: key not above the previous row's", t.Name, st.rows+1)
		}
		line = append(line[:0], '{')
		for i := range fields {
			cell := row.Cell(i)
			if len(cell) == 0 {
				fields[i] = ""
				continue
			}
			fields[i] = unsafe.String(&cell[0], len(cell))
			st.nonEmpty[i]++
			if len(line) > 1 {
				line = append(line, ',')
			}
			line = append(line, keys[i]...)
			if t.Cols[i].Type.quoted() {
				line = jsonenc.AppendString(line, fields[i])
			} else {
				line = append(line, cell...)
			}
		}
		line = append(line, '}', '\n')
		if err := cw.Write(fields); err != nil {
			return st, err
		}
		if _, err := jo.buf.Write(line); err != nil {
			return st, err
		}
		if st.perField != nil {
			// Look up without converting to a new string each row.
			if n, ok := st.perField[string(row.Cell(1))]; ok {
				*n++
			} else {
				one := 1
				st.perField[string(row.Cell(1))] = &one
			}
		}
		st.rows++
		if t.Keys > 0 {
			prev.copyFrom(&row)
		}
		if pending++; pending == 4096 {
			prog.add(pending)
			pending = 0
		}
	}
	prog.add(pending)
	cw.Flush()
	return st, cw.Error()
}

// progress sums the rows written by all workers.
type progress struct {
	mu       sync.Mutex
	n, total int
	fn       func(done, total int)
}

func newProgress(tables []*Table, fn func(done, total int)) *progress {
	if fn == nil {
		return nil
	}
	p := &progress{fn: fn}
	for _, t := range tables {
		p.total += t.Size
	}
	return p
}

func (p *progress) add(n int) {
	if p == nil || n == 0 {
		return
	}
	p.mu.Lock()
	p.n += n
	p.total = max(p.total, p.n)
	p.fn(p.n, p.total)
	p.mu.Unlock()
}

func (p *progress) finish() {
	if p != nil {
		p.mu.Lock()
		p.fn(p.n, p.n)
		p.mu.Unlock()
	}
}

// coverageTable derives the coverage sheet from what writing the data
// tables counted.
func coverageTable(opts Options, tables []*Table, stats []*tableStats) *Table {
	cols := []Column{
		{Name: "level", Type: TypeText}, {Name: "module", Type: TypeText}, {Name: "table", Type: TypeText}, {Name: "field", Type: TypeText},
		{Name: "records", Type: TypeInt}, {Name: "with_value", Type: TypeInt}, {Name: "share", Type: TypeNumber}, {Name: "uncertain_values", Type: TypeInt},
	}
	uncertain := map[string]int{}
	for i, t := range tables {
		if t.Role == RoleConfidence {
			for f, n := range stats[i].perField {
				uncertain[f] += *n
			}
		}
	}
	type sum struct{ records, with, unc int }
	perModule := map[string]*sum{}
	var all sum
	var rows []Row
	add := func(level, module, table, field string, s sum) {
		var r Row
		r.str(level)
		r.str(module)
		r.str(table)
		r.str(field)
		r.int(int64(s.records))
		r.int(int64(s.with))
		if s.records > 0 {
			r.str(strconv.FormatFloat(float64(s.with)/float64(s.records), 'f', 4, 64))
		} else {
			r.null()
		}
		r.int(int64(s.unc))
		rows = append(rows, r)
	}
	for i, t := range tables {
		if t.Role != RoleData {
			continue
		}
		for ci := t.Keys; ci < len(t.Cols); ci++ {
			cl := t.Cols[ci]
			s := sum{stats[i].rows, stats[i].nonEmpty[ci], uncertain[cl.Name]}
			add("field", cl.Module, t.Name, cl.Name, s)
			ms := perModule[cl.Module]
			if ms == nil {
				ms = &sum{}
				perModule[cl.Module] = ms
			}
			ms.records += s.records
			ms.with += s.with
			ms.unc += s.unc
			all.records += s.records
			all.with += s.with
			all.unc += s.unc
		}
	}
	for _, m := range opts.Modules {
		if s := perModule[m]; s != nil {
			add("module", m, "", "", *s)
		}
	}
	add("overall", "", "", "", all)
	return &Table{
		Schema: Schema{Name: "coverage", Role: "coverage", Title: "share of records with a value, per field, per module and overall", Cols: cols},
		Size:   len(rows),
		Open:   func() (rowIter, error) { return &sliceIter{rows: rows}, nil },
	}
}
