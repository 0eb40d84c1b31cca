package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// releaseFile is a new release file being written beside its place, as the
// parts of its release arrive (snapshot.Encoder), hashing and counting the
// bytes it writes to the file. It starts plain ({id}.json); a document that
// grows past packAbove bytes turns it into a compressed one ({id}.json.zst,
// release_codec.go): what was written so far is read back from the plain
// temp file through a zstd writer into a new temp file, the plain one is
// removed, and the rest of the document goes through the zstd writer. So
// nothing but the encoder's own buffers is held, whatever the release's
// size.
type releaseFile struct {
	dir  string // the temp folder
	path string // the temp file being written
	f    *os.File
	out  io.Writer     // f, h and n
	zw   *zstd.Encoder // nil while the file is plain
	enc  *snapshot.Encoder
	h    hash.Hash
	n    int64 // bytes written to f
	doc  int64 // bytes of the document
	done bool
}

// newReleaseFile creates a release file in dir, a temp folder on the
// filesystem of the cache.
func newReleaseFile(dir string) (*releaseFile, error) {
	rf := &releaseFile{dir: dir}
	if err := rf.create(releaseExt); err != nil {
		return nil, err
	}
	rf.enc = snapshot.NewEncoder(rf)
	return rf, nil
}

// create starts the temp file of a release file of the form ext.
func (rf *releaseFile) create(ext string) error {
	f, err := atomicfile.CreateTemp(filepath.Join(rf.dir, "release"+ext))
	if err != nil {
		return err
	}
	rf.path, rf.f, rf.h, rf.n = f.Name(), f, sha256.New(), 0
	rf.out = io.MultiWriter(f, rf.h, (*counter)(&rf.n))
	return nil
}

// Write writes p, the next bytes of the document, to the file: as they are
// while the document is at most packAbove bytes, compressed once it is
// more.
func (rf *releaseFile) Write(p []byte) (int, error) {
	if rf.zw == nil && rf.doc+int64(len(p)) > packAbove {
		if err := rf.pack(); err != nil {
			return 0, err
		}
	}
	rf.doc += int64(len(p))
	if rf.zw != nil {
		return rf.zw.Write(p)
	}
	return rf.out.Write(p)
}

// pack turns the plain file into a compressed one: a new temp file, the
// plain file's bytes read back into it through the zstd writer, the plain
// file removed.
func (rf *releaseFile) pack() error {
	plain, plainPath := rf.f, rf.path
	defer func() {
		os.Remove(plainPath)
		plain.Close() // after the removal: the lock covers it
	}()
	if err := rf.create(packedExt); err != nil {
		rf.f, rf.path = nil, plainPath // discard removes nothing more
		return fmt.Errorf("compress release file: %w", err)
	}
	zw, err := newPacker(rf.out)
	if err != nil {
		return err
	}
	rf.zw = zw
	if _, err := plain.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("compress release file: %w", err)
	}
	if _, err := io.Copy(zw, plain); err != nil {
		return fmt.Errorf("compress release file: %w", err)
	}
	return nil
}

// ext is the form of the file: releaseExt or packedExt.
func (rf *releaseFile) ext() string {
	if rf.zw != nil {
		return packedExt
	}
	return releaseExt
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// finish ends the document with the origin o, and syncs and closes the
// file. It returns what the index records of the file: the size and
// digest of its bytes as stored (compressed, when it is).
func (rf *releaseFile) finish(o snapshot.Origin) (store.FileState, error) {
	err := rf.enc.Finish(o)
	if rf.zw != nil {
		if cerr := rf.zw.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = rf.f.Sync()
	}
	if cerr := rf.f.Close(); err == nil {
		err = cerr
	}
	rf.done = true
	if err != nil {
		return store.FileState{}, err
	}
	info, err := os.Stat(rf.path)
	if err != nil {
		return store.FileState{}, err
	}
	return store.FileState{Digest: "sha256:" + hex.EncodeToString(rf.h.Sum(nil)), Size: rf.n,
		MTime: info.ModTime().UnixNano()}, nil
}

// discard removes the file unless it was renamed into place.
func (rf *releaseFile) discard() {
	if !rf.done {
		if rf.zw != nil {
			rf.zw.Close()
		}
		if rf.f != nil {
			rf.f.Close()
		}
	}
	os.Remove(rf.path) // fails harmlessly once renamed
}
