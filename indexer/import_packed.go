package indexer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// zstdMagic opens every zstd frame (RFC 8878, section 3.1.1).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// importInput returns the snapshot document read from r, the bytes of the
// file named what: r's own bytes, or, when they are a zstd stream (a
// release file over 16 MiB copied from a cache, or `zstd FILE`'s output),
// their decompressed content, within maxImportSize once decompressed and
// with the window of a release file (maxPackedWindow). The document is
// told by its content, not its name, so standard input may be compressed
// too. close releases the decompressor.
func importInput(r io.Reader, what string) (doc io.Reader, packed bool, close func(), err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(len(zstdMagic))
	if err != nil && err != io.EOF {
		return nil, false, nil, err
	}
	if !bytes.Equal(head, zstdMagic) {
		return br, false, func() {}, nil
	}
	zr, err := newUnpacker(br)
	if err != nil {
		return nil, false, nil, fmt.Errorf("%s: decompress: %w", what, err)
	}
	in := &limitedReader{r: &inflateErrors{zr, what}, n: maxImportSize,
		err: &tooLargeError{what + " once decompressed"}}
	return in, true, zr.Close, nil
}

// inflateErrors reads a zstd stream, naming the file in its errors: a
// stream cut short or damaged (every frame is checked against its
// checksum) is the file's fault, not the snapshot's.
type inflateErrors struct {
	zr   *zstd.Decoder
	what string
}

func (d *inflateErrors) Read(p []byte) (int, error) {
	n, err := d.zr.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: decompress: %w", d.what, zstdProblem(err))
	}
	return n, err
}
