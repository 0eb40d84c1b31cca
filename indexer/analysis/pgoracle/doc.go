// Package pgoracle measures hubsnap's logic analysis (SPEC §11) against a
// real PostgreSQL. Tests use it; the binary never does.
//
// It holds three things:
//
//   - the corpus under testdata/logics: realistic schemas as snapshot
//     documents, their logics (written in logics.sql and built into the
//     document), seed rows, sample arguments and mutated releases;
//   - a harness that runs a private PostgreSQL cluster (as the postgres
//     user when the test runs as root, unix socket only), creates each
//     release's schema from its snapshot document, and reads PostgreSQL's
//     own answer for every logic: result names and types from
//     Parse/Describe, parameter types, the NULLs seen on the seeded rows,
//     the tables the statement touches, and the error (SQLSTATE, message,
//     position) under every mutated release;
//   - a comparison that scores an analyser's JSON against that truth and
//     lists the disagreements.
//
// The truth is committed (truth.json per schema), so the comparison needs
// no PostgreSQL; TestTruth re-derives it when PostgreSQL is present and
// fails on drift (-update rewrites it). See docs/analysis-oracle.md.
package pgoracle
