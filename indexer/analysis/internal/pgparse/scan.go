package pgparse

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
)

// Tokens of PostgreSQL's scanner that placeholders care about (the values
// of pg_query's Token enum for PostgreSQL 17).
const (
	TokColon    = 58  // ':'
	TokLBracket = 91  // '['
	TokRBracket = 93  // ']'
	TokIdent    = 258 // IDENT
	TokParam    = 267 // PARAM ($n)
)

// Token is one token of PostgreSQL's scanner: byte offsets into the SQL,
// the token kind (one of the Tok values, or another of pg_query's Token
// enum), and whether it is a keyword.
type Token struct {
	Start, End int
	Kind       int
	Keyword    bool
}

var errScanDecode = errors.New("scan result: malformed protobuf")

// decodeScan decodes pg_query's ScanResult {version = 1; repeated
// ScanToken tokens = 2} with ScanToken {start = 1; end = 2; token = 4;
// keyword_kind = 5}.
func decodeScan(b []byte) ([]Token, error) {
	var toks []Token
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, errScanDecode
		}
		b = b[n:]
		if num == 2 && typ == protowire.BytesType {
			msg, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, errScanDecode
			}
			b = b[n:]
			t, err := decodeToken(msg)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return nil, errScanDecode
		}
		b = b[n:]
	}
	return toks, nil
}

func decodeToken(b []byte) (Token, error) {
	var t Token
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return t, errScanDecode
		}
		b = b[n:]
		if typ != protowire.VarintType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return t, errScanDecode
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return t, errScanDecode
		}
		b = b[n:]
		switch num {
		case 1:
			t.Start = int(int32(v))
		case 2:
			t.End = int(int32(v))
		case 4:
			t.Kind = int(int32(v))
		case 5:
			t.Keyword = v != 0
		}
	}
	return t, nil
}
