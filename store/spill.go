package store

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
)

// How a release writer keeps what it must write in an order other than
// the snapshot's (foreign keys, search words and names; see writer.go)
// without holding all of it: an external sort. Records gather in a
// buffer of at most spillBytes; a full buffer is sorted and appended to a
// temporary file as one run; at the end the runs and what the buffer
// still holds are merged. A release small enough never touches the disk.
//
// Records are byte strings ordered by bytes.Compare: each kind encodes
// its sort key first, with appendKey, so that plain byte order is the
// order of the SQL table's primary key.
//
// The file lies beside the index (the cache's folder, which the writer
// can write) and is removed as soon as it is made, so a process killed
// midway leaves nothing behind on Unix; elsewhere it goes when closed.

// spillBytes is how many bytes of records a spill holds before it writes
// a run: three spills (keys, words, names) hold at most about 24 MiB.
const spillBytes = 8 << 20

// spillChunk is the size of a chunk of a spill's buffer.
const spillChunk = 1 << 20

// spill sorts records; see above.
type spill struct {
	what   string // for errors: "foreign keys"
	dir    string // where the file of runs is made
	limit  int
	chunks [][]byte   // the buffer: records, each a uvarint length and its bytes
	used   int        // chunks[:used] hold records; the rest are spare
	refs   []spillRef // where each buffered record starts
	size   int        // bytes buffered, refs included
	file   *os.File   // the runs, once one is written
	end    int64      // the file's length
	runs   []spillRun
}

// A spillRef locates a buffered record: chunk and offset.
type spillRef struct{ chunk, off uint32 }

// A spillRun is a sorted run in the file.
type spillRun struct{ off, n int64 }

func newSpill(what, dir string, limit int) *spill {
	return &spill{what: what, dir: dir, limit: limit}
}

// add copies rec into the spill, writing a run first when the buffer is
// full.
func (s *spill) add(rec []byte) error {
	need := binary.MaxVarintLen32 + len(rec)
	if len(s.refs) > 0 && s.size+need+8 > s.limit {
		if err := s.writeRun(); err != nil {
			return err
		}
	}
	if s.used == 0 || len(s.chunks[s.used-1])+need > cap(s.chunks[s.used-1]) {
		if s.used < len(s.chunks) && cap(s.chunks[s.used]) >= need {
			s.chunks[s.used] = s.chunks[s.used][:0]
		} else {
			c := make([]byte, 0, max(spillChunk, need))
			if s.used < len(s.chunks) {
				s.chunks[s.used] = c
			} else {
				s.chunks = append(s.chunks, c)
			}
		}
		s.used++
	}
	c := &s.chunks[s.used-1]
	s.refs = append(s.refs, spillRef{uint32(s.used - 1), uint32(len(*c))})
	*c = binary.AppendUvarint(*c, uint64(len(rec)))
	*c = append(*c, rec...)
	s.size += need + 8
	return nil
}

// record returns the buffered record at ref.
func (s *spill) record(ref spillRef) []byte {
	b := s.chunks[ref.chunk][ref.off:]
	n, w := binary.Uvarint(b)
	return b[w : w+int(n)]
}

// sortBuffer sorts the buffered records.
func (s *spill) sortBuffer() {
	slices.SortFunc(s.refs, func(a, b spillRef) int { return bytes.Compare(s.record(a), s.record(b)) })
}

// reset empties the buffer, keeping its chunks for the next records.
func (s *spill) reset() {
	s.used, s.refs, s.size = 0, s.refs[:0], 0
}

// flush writes what the buffer holds as a run: a caller that gathers
// records of its own first (the words, see wordSet) empties them into
// the spill and flushes, so that it and the spill never both hold a
// buffer's worth.
func (s *spill) flush() error {
	if len(s.refs) == 0 {
		return nil
	}
	return s.writeRun()
}

// writeRun sorts the buffer and appends it to the file as a run.
func (s *spill) writeRun() error {
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, ".hubsnap-sort-*")
		if err != nil {
			return s.fail(err)
		}
		os.Remove(f.Name()) // Unix: the file lives on, unnamed, until closed
		s.file = f
	}
	s.sortBuffer()
	bw := bufio.NewWriterSize(io.NewOffsetWriter(s.file, s.end), 64<<10)
	var n int64
	var lenBuf [binary.MaxVarintLen64]byte
	for _, ref := range s.refs {
		rec := s.record(ref)
		w := binary.PutUvarint(lenBuf[:], uint64(len(rec)))
		bw.Write(lenBuf[:w])
		bw.Write(rec)
		n += int64(w + len(rec))
	}
	if err := bw.Flush(); err != nil {
		return s.fail(err)
	}
	s.runs = append(s.runs, spillRun{s.end, n})
	s.end += n
	s.reset()
	return nil
}

// fail wraps an error of the spill's file.
func (s *spill) fail(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		err = ErrDiskFull
	}
	return fmt.Errorf("sort %s: %w", s.what, err)
}

// each calls fn with every record added, in order, and empties the
// spill. rec is valid only during the call.
func (s *spill) each(fn func(rec []byte) error) error {
	s.sortBuffer()
	defer s.reset()
	if len(s.runs) == 0 {
		for _, ref := range s.refs {
			if err := fn(s.record(ref)); err != nil {
				return err
			}
		}
		return nil
	}
	m := &spillMerge{}
	for _, r := range s.runs {
		src := &runSource{r: bufio.NewReaderSize(io.NewSectionReader(s.file, r.off, r.n), 32<<10)}
		if err := m.push(src); err != nil {
			return s.fail(err)
		}
	}
	if err := m.push(&memSource{s: s}); err != nil {
		return s.fail(err)
	}
	s.runs = nil
	s.end = 0
	for m.Len() > 0 {
		src := m.srcs[0]
		if err := fn(src.rec()); err != nil {
			return err
		}
		ok, err := src.next()
		if err != nil {
			return s.fail(err)
		}
		if ok {
			heap.Fix(m, 0)
		} else {
			heap.Pop(m)
		}
	}
	return nil
}

// close removes the spill's file.
func (s *spill) close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name()) // already gone on Unix
		s.file = nil
	}
	s.chunks, s.refs = nil, nil
}

// A spillSource is a sorted sequence of records being merged.
type spillSource interface {
	next() (bool, error) // moves to the next record; false at the end
	rec() []byte         // the current record
}

// runSource reads a run of the file.
type runSource struct {
	r   *bufio.Reader
	buf []byte
}

func (r *runSource) next() (bool, error) {
	n, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if uint64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	_, err = io.ReadFull(r.r, r.buf)
	return err == nil, err
}

func (r *runSource) rec() []byte { return r.buf }

// memSource reads the sorted buffer.
type memSource struct {
	s *spill
	i int // 1 + the current record's index
}

func (m *memSource) next() (bool, error) {
	m.i++
	return m.i <= len(m.s.refs), nil
}

func (m *memSource) rec() []byte { return m.s.record(m.s.refs[m.i-1]) }

// spillMerge is a heap of sources by their current record.
type spillMerge struct{ srcs []spillSource }

// push adds a source, if it has a record.
func (m *spillMerge) push(src spillSource) error {
	ok, err := src.next()
	if ok {
		heap.Push(m, src)
	}
	return err
}

func (m *spillMerge) Len() int           { return len(m.srcs) }
func (m *spillMerge) Less(i, j int) bool { return bytes.Compare(m.srcs[i].rec(), m.srcs[j].rec()) < 0 }
func (m *spillMerge) Swap(i, j int)      { m.srcs[i], m.srcs[j] = m.srcs[j], m.srcs[i] }
func (m *spillMerge) Push(x any)         { m.srcs = append(m.srcs, x.(spillSource)) }
func (m *spillMerge) Pop() any {
	x := m.srcs[len(m.srcs)-1]
	m.srcs = m.srcs[:len(m.srcs)-1]
	return x
}
