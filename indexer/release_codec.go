package indexer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Release files on disk (docs/index.md, "Release files"; docs/design.md,
// "Compressed release files"). A release file is written plain, as
// {id}.json (SPEC §6), unless its JSON is over packThreshold: then it is
// written compressed with zstd, as {id}.json.zst (release_file.go). Both
// forms are read, whatever their size: a person may drop either into the
// cache by hand. `zstd -dc FILE` prints a compressed one.
//
// When both forms of one release are there, the one modified last is the
// release file (a plain file on a tie): it is the one someone wrote last.
// hubsnap removes the other form of a release when it writes one.

// packThreshold is the largest release document written plain: 16 MiB.
// Releases up to it (about 9,000 tables of storetest's shape) stay
// {id}.json, readable and editable as SPEC §6 names them; a larger one is
// written as {id}.json.zst, 18 times smaller (188 MB to 10 MB at 100,000
// tables).
const packThreshold = 16 << 20

// packAbove is packThreshold; tests lower it (setPackThreshold) so that a
// small release is written compressed.
var packAbove int64 = packThreshold

// packerLevel is the zstd level release files are written with: zstd's
// fastest, about level 1 of the reference tool (docs/design.md,
// "Compressed release files").
const packerLevel = zstd.SpeedFastest

// maxPackedWindow bounds the window a compressed release file may ask of
// its reader: 8 MiB, what the reference tool uses up to level 19, and what
// bounds the memory of reading one. A file compressed with a larger window
// (zstd --long, --ultra) is skipped as one that cannot be read.
const maxPackedWindow = 8 << 20

// packerWindow is the window release files are written with: 1 MiB keeps
// the writer's memory small (the import's bound, docs/design.md "Memory of
// an import"), and made the 100,000-table file 0.4% larger than 8 MiB.
const packerWindow = 1 << 20

// newPacker returns a zstd writer of a release file to w.
func newPacker(w io.Writer) (*zstd.Encoder, error) {
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(packerLevel), zstd.WithWindowSize(packerWindow))
	if err != nil {
		return nil, fmt.Errorf("compress release file: %w", err)
	}
	return zw, nil
}

// packed reports whether the release file name is compressed.
func packed(name string) bool { return strings.HasSuffix(name, packedExt) }

// releaseID returns the release id of a release file's name, plain or
// compressed, and whether name is one.
func releaseID(name string) (string, bool) {
	if id, ok := splitName(name, packedExt); ok {
		return id, true
	}
	return splitName(name, releaseExt)
}

// releaseEntries picks the release file of each release among the entries
// of a project folder, by release id: regular files only, and of a release
// with both forms, the one modified last (the plain one on a tie).
func releaseEntries(entries []os.DirEntry) map[string]os.FileInfo {
	files := map[string]os.FileInfo{}
	for _, e := range entries {
		id, ok := releaseID(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		if was, ok := files[id]; ok && !newer(info, was) {
			continue
		}
		files[id] = info
	}
	return files
}

// newer reports whether the release file a is the one to read rather than
// b, the other form of the same release.
func newer(a, b os.FileInfo) bool {
	ta, tb := a.ModTime().UnixNano(), b.ModTime().UnixNano()
	return ta > tb || ta == tb && !packed(a.Name())
}

// unpackError is the error of reading a compressed release file that is
// not a whole zstd stream (cut short, damaged: zstd checks every frame
// against its checksum), or whose content passes maxReleaseFile. The
// reconcile skips such a file, as it skips an invalid one.
type unpackError struct{ err error }

func (e *unpackError) Error() string { return "decompress release file: " + e.err.Error() }
func (e *unpackError) Unwrap() error { return e.err }

// unreadable reports whether err is an unpackError.
func unreadable(err error) bool {
	_, ok := errors.AsType[*unpackError](err)
	return ok
}

// unpacker reads a compressed release file, its errors as unpackError.
type unpacker struct {
	zr *zstd.Decoder
	n  int64 // bytes left before maxReleaseFile is passed
}

func (u *unpacker) Read(p []byte) (int, error) {
	if int64(len(p)) > u.n+1 {
		p = p[:u.n+1] // one byte over tells the limit was passed
	}
	n, err := u.zr.Read(p)
	if u.n -= int64(n); u.n < 0 {
		return 0, &unpackError{fmt.Errorf("over %s once decompressed", size(maxReleaseFile))}
	}
	if err != nil && err != io.EOF {
		err = &unpackError{zstdProblem(err)}
	}
	return n, err
}

// newUnpacker returns a decoder of a zstd stream as release files hold
// them: decoded on the caller's goroutine, with a window of at most
// maxPackedWindow.
func newUnpacker(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxPackedWindow))
}

// zstdProblem says what a decoder's error means for the stream it read.
func zstdProblem(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		// Not wrapped: the snapshot decoder would take it for JSON cut short.
		return errors.New("the zstd stream ends early (cut short?)")
	case errors.Is(err, zstd.ErrDecoderSizeExceeded), errors.Is(err, zstd.ErrWindowSizeExceeded):
		// What the streaming decoder says of a window over maxPackedWindow.
		return fmt.Errorf("the zstd stream asks for a window over %s (made with zstd --long?): %w",
			size(maxPackedWindow), err)
	}
	return err
}

// unpack returns the release document read from r, the bytes of the
// release file name: as they are for a plain file, decompressed for a
// compressed one (whose errors are unpackError). close releases the
// decompressor.
func unpack(name string, r io.Reader) (doc io.Reader, close func(), err error) {
	if !packed(name) {
		return r, func() {}, nil
	}
	zr, err := newUnpacker(r)
	if err != nil {
		return nil, nil, fmt.Errorf("decompress release file: %w", err)
	}
	return &unpacker{zr: zr, n: maxReleaseFile}, zr.Close, nil
}
