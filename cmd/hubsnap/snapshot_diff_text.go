package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/answer"
)

// writeDiff prints a diff for a person:
//
//	shop/dev: rel_41 (version 41) -> rel_42 (version 42)
//
//	Tables: 1 added, 1 removed, 3 changed
//	  + order_lines
//	  - carts
//	  ~ users
//	      + column display_name
//	      ~ column email: nullable true -> false
//
// Each table or logic is one line, marked + (added), - (removed) or ~
// (changed), in name order; what changed in it follows, indented, one
// line each. With color, the marks and names are green, red and yellow.
func writeDiff(w io.Writer, target string, d *answer.DiffOutput, color bool) error {
	p := &diffPrinter{w: bufio.NewWriter(w), color: color}
	p.line(0, "%s: %s (version %d) -> %s (version %d)", target, d.From.ID, d.From.Version, d.To.ID, d.To.Version)
	empty := true
	if t := d.Tables; t != nil && (t.Added != nil || t.Removed != nil || t.Changed != nil) {
		empty = false
		p.tables(t)
	}
	if l := d.Logics; l != nil && (l.Added != nil || l.Removed != nil || l.Changed != nil) {
		empty = false
		p.logics(l)
	}
	if empty {
		p.line(0, "no changes")
	}
	if d.Logics != nil {
		p.broken(d.Logics) // snapshot_diff_broken.go
	}
	if d.More {
		p.line(0, "(more changes were left out)")
	}
	return p.w.Flush()
}

type diffPrinter struct {
	w     *bufio.Writer
	color bool
}

// line prints one line, indented by depth steps of two spaces; text on
// further lines of it keeps the indentation.
func (p *diffPrinter) line(depth int, format string, args ...any) {
	indent := strings.Repeat("  ", depth)
	text := fmt.Sprintf(format, args...)
	p.w.WriteString(indent + strings.ReplaceAll(text, "\n", "\n"+indent+"  ") + "\n")
}

// mark is "+ name", "- name" or "~ name", coloured on a terminal.
func (p *diffPrinter) mark(m byte, name string) string {
	s := string(m) + " " + name
	if !p.color {
		return s
	}
	code := map[byte]string{'+': "32", '-': "31", '~': "33"}[m]
	return "\033[" + code + "m" + s + "\033[0m"
}

func (p *diffPrinter) tables(t *answer.TablesDiff) {
	type entry struct {
		mark       byte
		name, conn string
		change     *answer.TableChange
	}
	var es []entry
	for _, r := range t.Added {
		es = append(es, entry{'+', r.Name, r.Connection, nil})
	}
	for _, r := range t.Removed {
		es = append(es, entry{'-', r.Name, r.Connection, nil})
	}
	for i := range t.Changed {
		c := &t.Changed[i]
		es = append(es, entry{'~', c.Name, c.Connection, c})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.conn, b.conn), cmp.Compare(a.name, b.name)) })
	p.w.WriteString("\n")
	p.line(0, "Tables: %d added, %d removed, %d changed", len(t.Added), len(t.Removed), len(t.Changed))
	for _, e := range es {
		name := e.name
		if e.conn != snapshot.DefaultConnection {
			name = e.conn + "." + e.name
		}
		p.line(1, "%s", p.mark(e.mark, name))
		if e.change != nil {
			p.tableChange(e.change)
		}
	}
}

func (p *diffPrinter) tableChange(c *answer.TableChange) {
	if c.Comment != nil {
		p.line(3, "comment: %s -> %s", quoted(c.Comment.From), quoted(c.Comment.To))
	}
	if cols := c.Columns; cols != nil {
		for _, n := range cols.Added {
			p.line(3, "%s", p.mark('+', "column "+n))
		}
		for _, n := range cols.Removed {
			p.line(3, "%s", p.mark('-', "column "+n))
		}
		for _, ch := range cols.Changed {
			p.line(3, "%s: %s", p.mark('~', "column "+ch.Name), columnChanges(ch))
		}
	}
	if k := c.PrimaryKey; k != nil {
		p.line(3, "primary key: %s -> %s", names(k.From), names(k.To))
	}
	if fks := c.ForeignKeys; fks != nil {
		for _, fk := range fks.Added {
			p.line(3, "%s", p.mark('+', "foreign key "+foreignKey(fk)))
		}
		for _, fk := range fks.Removed {
			p.line(3, "%s", p.mark('-', "foreign key "+foreignKey(fk)))
		}
	}
	if ixs := c.Indexes; ixs != nil {
		for _, ix := range ixs.Added {
			p.line(3, "%s", p.mark('+', index(ix)))
		}
		for _, ix := range ixs.Removed {
			p.line(3, "%s", p.mark('-', index(ix)))
		}
	}
}

func (p *diffPrinter) logics(l *answer.LogicsDiff) {
	type entry struct {
		mark   byte
		name   string
		change *answer.LogicChange
	}
	var es []entry
	for _, n := range l.Added {
		es = append(es, entry{'+', n, nil})
	}
	for _, n := range l.Removed {
		es = append(es, entry{'-', n, nil})
	}
	for i := range l.Changed {
		es = append(es, entry{'~', l.Changed[i].Name, &l.Changed[i]})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.name, b.name) })
	p.w.WriteString("\n")
	p.line(0, "Logics: %d added, %d removed, %d changed", len(l.Added), len(l.Removed), len(l.Changed))
	for _, e := range es {
		if e.change == nil {
			p.line(1, "%s", p.mark(e.mark, e.name))
			continue
		}
		c := e.change
		p.line(1, "%s: %s", p.mark('~', e.name), strings.Join(c.Fields, ", "))
		if c.SQL != nil {
			p.line(3, "sql: %s", c.SQL.From)
			p.line(3, " -> %s", c.SQL.To)
		}
		if ps := c.Params; ps != nil {
			for _, n := range ps.Added {
				p.line(3, "%s", p.mark('+', "param "+n))
			}
			for _, n := range ps.Removed {
				p.line(3, "%s", p.mark('-', "param "+n))
			}
			for _, ch := range ps.Changed {
				var parts []string
				if ch.From.Type != nil {
					parts = append(parts, fmt.Sprintf("type %s -> %s", orNone(*ch.From.Type), orNone(*ch.To.Type)))
				}
				if ch.From.Required != nil {
					parts = append(parts, fmt.Sprintf("required %t -> %t", *ch.From.Required, *ch.To.Required))
				}
				p.line(3, "%s: %s", p.mark('~', "param "+ch.Name), strings.Join(parts, ", "))
			}
		}
		if a := c.Auth; a != nil {
			p.line(3, "auth: %s -> %s", authText(a.From), authText(a.To))
		}
		if c.Description != nil {
			p.line(3, "description: %s -> %s", quoted(c.Description.From), quoted(c.Description.To))
		}
	}
}

// columnChanges describes the attributes of a column that changed.
func columnChanges(ch answer.ColumnChange) string {
	var parts []string
	f, t := ch.From, ch.To
	if f.Type != nil {
		parts = append(parts, fmt.Sprintf("type %s -> %s", *f.Type, *t.Type))
	}
	if f.Nullable != nil {
		parts = append(parts, fmt.Sprintf("nullable %t -> %t", *f.Nullable, *t.Nullable))
	}
	if f.Default != nil {
		parts = append(parts, fmt.Sprintf("default %s -> %s", orNone(*f.Default), orNone(*t.Default)))
	}
	if f.Enum != nil {
		parts = append(parts, fmt.Sprintf("enum %s -> %s", values(*f.Enum), values(*t.Enum)))
	}
	if f.Comment != nil {
		parts = append(parts, fmt.Sprintf("comment %s -> %s", quoted(*f.Comment), quoted(*t.Comment)))
	}
	return strings.Join(parts, ", ")
}

func foreignKey(fk answer.ForeignKey) string {
	s := ""
	if fk.Name != "" {
		s = fk.Name + " "
	}
	target := fk.References.Table
	if fk.References.Connection != "" {
		target = fk.References.Connection + "." + target
	}
	s += names(fk.Columns) + " -> " + target + " " + names(fk.References.Columns)
	if fk.OnDelete != "" {
		s += " on delete " + fk.OnDelete
	}
	return s
}

func index(ix answer.Index) string {
	s := "index "
	if ix.Unique {
		s = "unique index "
	}
	if ix.Name != "" {
		s += ix.Name + " "
	}
	return s + names(ix.Columns)
}

func authText(a answer.Auth) string {
	s := "not required"
	if a.Required {
		s = "required"
	}
	return s + ", roles " + values(a.Roles)
}

func names(list []string) string { return "(" + strings.Join(list, ", ") + ")" }

func values(list []string) string {
	if len(list) == 0 {
		return "(none)"
	}
	return strings.Join(list, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func quoted(s string) string {
	if s == "" {
		return "(none)"
	}
	return strconv.Quote(s)
}
