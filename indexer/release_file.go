package indexer

import (
	"crypto/sha256"
	"encoding/hex"
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
// parts of its release arrive (snapshot.Encoder), compressed with zstd
// (release_codec.go), hashing the bytes it writes to the file.
type releaseFile struct {
	path string
	f    *os.File
	zw   *zstd.Encoder
	enc  *snapshot.Encoder
	h    hash.Hash
	n    int64
	done bool
}

// newReleaseFile creates a release file in dir, a temp folder on the
// filesystem of the cache.
func newReleaseFile(dir string) (*releaseFile, error) {
	f, err := atomicfile.CreateTemp(filepath.Join(dir, "release"+packedExt))
	if err != nil {
		return nil, err
	}
	rf := &releaseFile{path: f.Name(), f: f, h: sha256.New()}
	if rf.zw, err = newPacker(io.MultiWriter(f, rf.h, (*counter)(&rf.n))); err != nil {
		f.Close()
		os.Remove(rf.path)
		return nil, err
	}
	rf.enc = snapshot.NewEncoder(rf.zw)
	return rf, nil
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// finish ends the document with the origin o, and syncs and closes the
// file. It returns what the index records of the file: the size and
// digest of its bytes as stored, compressed.
func (rf *releaseFile) finish(o store.Origin) (store.FileState, error) {
	err := rf.enc.Finish(o)
	if cerr := rf.zw.Close(); err == nil {
		err = cerr
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
		rf.zw.Close()
		rf.f.Close()
	}
	os.Remove(rf.path) // fails harmlessly once renamed
}
