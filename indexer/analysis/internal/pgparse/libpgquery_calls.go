package pgparse

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
)

// Parse parses sql with PostgreSQL's grammar into its parse tree: an
// *Error for SQL PostgreSQL rejects, an error wrapping ErrTree for a tree
// the decoder cannot read, any other error when the parser failed (a
// trap, the end of ctx).
func (p *Parser) Parse(ctx context.Context, sql string) (*ParseResult, error) {
	tree, err := p.parseJSON(ctx, sql)
	if err != nil {
		return nil, err
	}
	return decodeTree(tree)
}

// Scan runs PostgreSQL's scanner over sql and returns its tokens, or an
// *Error for SQL the scanner rejects.
func (p *Parser) Scan(ctx context.Context, sql string) ([]Token, error) {
	pb, err := p.scanTokens(ctx, sql)
	if err != nil {
		return nil, err
	}
	return decodeScan(pb)
}

// parseJSON parses sql and returns libpg_query's JSON parse tree, or a
// *Error for SQL PostgreSQL rejects.
func (p *Parser) parseJSON(ctx context.Context, sql string) ([]byte, error) {
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
// ScanResult, or an *Error for SQL the scanner rejects.
func (p *Parser) scanTokens(ctx context.Context, sql string) ([]byte, error) {
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
