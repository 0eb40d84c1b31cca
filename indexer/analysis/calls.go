package analysis

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
)

// parseJSON parses sql and returns libpg_query's JSON parse tree, or a
// *pgError for SQL PostgreSQL rejects.
func (p *pgParser) parseJSON(ctx context.Context, sql string) ([]byte, error) {
	var out []byte
	err := p.with(ctx, len(sql), func(ctx context.Context, in *instance) error {
		input, err := in.cString(ctx, sql)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, uint64(input))
		// PgQueryParseResult {char *parse_tree; char *stderr_buffer; PgQueryError *error}
		res, err := in.call(ctx, in.malloc, 12)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, res)
		if _, err := in.call(ctx, in.parse, res, uint64(input)); err != nil {
			return err
		}
		defer in.call(ctx, in.freeParse, res)
		buf, ok := in.mem.Read(uint32(res), 12)
		if !ok {
			return errors.New("parser memory read failed")
		}
		if errPtr := binary.LittleEndian.Uint32(buf[8:]); errPtr != 0 {
			return in.readError(errPtr)
		}
		tree, err := in.readCString(uint32(res))
		out = []byte(tree)
		return err
	})
	return out, err
}

// scanTokens runs PostgreSQL's scanner over sql and returns the protobuf
// ScanResult, or a *pgError for SQL the scanner rejects.
func (p *pgParser) scanTokens(ctx context.Context, sql string) ([]byte, error) {
	var out []byte
	err := p.with(ctx, len(sql), func(ctx context.Context, in *instance) error {
		input, err := in.cString(ctx, sql)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, uint64(input))
		// PgQueryScanResult {PgQueryProtobuf {size_t len; char *data}; char *stderr_buffer; PgQueryError *error}
		res, err := in.call(ctx, in.malloc, 16)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, res)
		if _, err := in.call(ctx, in.scan, res, uint64(input)); err != nil {
			return err
		}
		defer in.call(ctx, in.freeScan, res)
		buf, ok := in.mem.Read(uint32(res), 16)
		if !ok {
			return errors.New("parser memory read failed")
		}
		if errPtr := binary.LittleEndian.Uint32(buf[12:]); errPtr != 0 {
			return in.readError(errPtr)
		}
		n, data := binary.LittleEndian.Uint32(buf), binary.LittleEndian.Uint32(buf[4:])
		pb, ok := in.mem.Read(data, n)
		if !ok {
			return errors.New("parser memory read failed")
		}
		out = bytes.Clone(pb)
		return nil
	})
	return out, err
}
