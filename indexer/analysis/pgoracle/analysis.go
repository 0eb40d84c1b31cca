package pgoracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Analyser is the analysis under test: the §11 analysis JSON of one logic
// of the release a snapshot document holds. It may return the analysis
// object itself or an object holding it under "analysis" (logic_get's
// answer).
type Analyser func(snapshotJSON []byte, logicName string) (analysisJSON []byte, err error)

// Analysis is §11's analysis object, as the comparison reads it.
type Analysis struct {
	Statement string          `json:"statement"`
	Tables    []AnalysisTable `json:"tables"`
	// Result is nil when the analysis says the statement returns no
	// rows (null).
	Result   []AnalysisColumn `json:"result"`
	Bindings []Binding        `json:"bindings"`
	Problems []Problem        `json:"problems"`
}

// AnalysisTable is a table the analysis says the statement touches.
type AnalysisTable struct {
	Table      string `json:"table"`
	Connection string `json:"connection,omitempty"`
	Access     string `json:"access"`
}

// AnalysisColumn is a result column of the analysis. A missing nullable
// counts as true: false must be proven.
type AnalysisColumn struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Nullable *bool   `json:"nullable,omitempty"`
	Source   *Source `json:"source,omitempty"`
}

// Binding is a placeholder compared with or assigned to a column.
type Binding struct {
	Param  string `json:"param"`
	Table  string `json:"table"`
	Column string `json:"column"`
}

// Problem is a problem the analysis reports.
type Problem struct {
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
	Position int    `json:"position,omitempty"`
}

// ParseAnalysis reads an analysis, bare or under "analysis".
func ParseAnalysis(b []byte) (*Analysis, error) {
	var wrapped struct {
		Analysis json.RawMessage `json:"analysis"`
	}
	if err := json.Unmarshal(b, &wrapped); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	if len(wrapped.Analysis) > 0 && !bytes.Equal(wrapped.Analysis, []byte("null")) {
		b = wrapped.Analysis
	}
	var a Analysis
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return &a, nil
}

// TruthAnalyser answers with PostgreSQL's own truth, as a perfect
// analysis would: the result as Describe gave it (nullable exactly where
// a NULL was seen), the range table's tables, no bindings, and under a
// mutated release the problems the verdict expects. Comparing it must
// score full agreement: it is the comparison's self-test, and an example
// of an Analyser.
func TruthAnalyser(schemas []*Schema, truths []*Truth) Analyser {
	type key struct{ release, logic string }
	answers := map[key]*Analysis{}
	for i, sc := range schemas {
		tr := truths[i]
		for _, lt := range tr.Logics {
			a := &Analysis{Statement: lt.Statement, Bindings: []Binding{}, Problems: []Problem{}}
			for _, t := range lt.Tables {
				a.Tables = append(a.Tables, AnalysisTable{Table: t.Table, Connection: "main", Access: t.Access})
			}
			if lt.Result != nil {
				a.Result = []AnalysisColumn{}
			}
			for _, c := range lt.Result {
				nullable := c.NullSeen
				a.Result = append(a.Result, AnalysisColumn{Name: c.Name, Type: c.Type, Nullable: &nullable, Source: c.Source})
			}
			answers[key{sc.Snapshot.Release.ID, lt.Name}] = a
		}
		for j, mt := range tr.Mutations {
			id := sc.Snapshot.Release.ID + "-" + sc.Mutations[j].Name
			for _, v := range mt.Verdicts {
				a := &Analysis{Statement: "other", Problems: []Problem{}}
				for _, code := range append(slices.Clone(v.Expect), v.May...) {
					a.Problems = append(a.Problems, Problem{Code: code, Message: v.Message, Position: v.Position})
				}
				answers[key{id, v.Logic}] = a
			}
		}
	}
	return func(doc []byte, logic string) ([]byte, error) {
		id, err := releaseID(doc)
		if err != nil {
			return nil, err
		}
		a, ok := answers[key{id, logic}]
		if !ok {
			a = &Analysis{Statement: "other", Problems: []Problem{}}
		}
		return json.Marshal(a)
	}
}

// releaseID reads the release id of a snapshot document, without decoding
// the tables and logics that follow it.
func releaseID(doc []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("snapshot: not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("snapshot: %w", err)
		}
		if t == "release" {
			var r Release
			if err := dec.Decode(&r); err != nil {
				return "", fmt.Errorf("snapshot: release: %w", err)
			}
			return r.ID, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", fmt.Errorf("snapshot: %w", err)
		}
	}
	return "", fmt.Errorf("snapshot: no release")
}
