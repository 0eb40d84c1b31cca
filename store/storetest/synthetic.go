package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Size says how big a synthetic release is.
type Size struct {
	// Tables is the number of tables; each has 10 to 20 columns and, past
	// the first few, two foreign keys. Past len(Areas)*len(Entities)*len(Suffixes)
	// (10,000) names repeat in tiers: t1_billing_invoices, t2_..., as the
	// tenants of a multi-tenant schema do.
	Tables int
	// Logics is the number of logics.
	Logics int
}

// Large is the size hubsnap is designed for: 10,000 tables with 10-20
// columns (about 150,000), 20,000 foreign keys and 2,000 logics, about
// 11 MiB of snapshot JSON.
var Large = Size{Tables: 10_000, Logics: 2_000}

// Huge is ten times Large: 100,000 tables (about 1,600,000 columns and
// 200,000 foreign keys) and 20,000 logics, about 180 MB of JSON. Write it
// with WriteRelease rather than holding it whole.
var Huge = Size{Tables: 100_000, Logics: 20_000}

// Areas, Entities and Suffixes make the table names: area_entities_suffix,
// for example billing_invoices_lines. Every tenth area name is Korean, as
// in real schemas of Korean teams.
var (
	Areas = []string{
		"billing", "sales", "inventory", "shipping", "crm", "hr", "payroll", "auth", "analytics",
		"회계", "catalog", "marketing", "support", "finance", "procurement", "warehouse", "logistics",
		"content", "social", "고객", "messaging", "payments", "subscriptions", "reporting", "compliance",
	}
	Entities = []string{
		"customer", "order", "invoice", "product", "shipment", "payment", "account", "user", "address",
		"contract", "employee", "vendor", "ticket", "campaign", "coupon", "price", "stock", "carrier",
		"refund", "review", "session", "device", "message", "document", "project", "task", "team",
		"role", "permission", "event", "report", "budget", "ledger", "transaction", "subscription",
		"plan", "category", "tag", "comment", "attachment",
	}
	Suffixes = []string{"", "_lines", "_history", "_events", "_settings", "_snapshots", "_archive", "_notes",
		"_links", "_stats"}
)

// columnPool holds the optional columns a table picks from, after its key.
var columnPool = []struct{ name, typ, comment string }{
	{"name", "string", "Display name shown in the admin console"},
	{"title", "string", "Short title"},
	{"description", "string", ""},
	{"status", "string", "Lifecycle state"},
	{"amount", "decimal", "Amount in minor units of the currency"},
	{"currency", "string", "ISO 4217 currency code"},
	{"quantity", "integer", ""},
	{"email", "string", "Contact email address, unique per tenant"},
	{"phone", "string", ""},
	{"external_ref", "string", "Identifier in the upstream system"},
	{"tenantId", "string", "Owning tenant"},
	{"created_by", "string", "User who created the row"},
	{"updated_by", "string", ""},
	{"deleted_at", "timestamp", "Soft delete marker"},
	{"version", "integer", "Optimistic locking counter"},
	{"metadata", "json", "Free-form attributes"},
	{"priority", "integer", ""},
	{"starts_at", "timestamp", ""},
	{"ends_at", "timestamp", ""},
	{"is_active", "boolean", "Whether the row is in use"},
	{"sort_order", "integer", ""},
	{"notes", "string", "고객 상담 메모"},
	{"display_name", "string", "표시 이름"},
	{"country_code", "string", ""},
}

// statusEnum is the enum of every status column.
var statusEnum = []string{"draft", "active", "suspended", "closed"}

// Release returns a synthetic release of project "big", environment "dev",
// with the given size. The same size always gives the same release.
//
// Table i is area_entities_suffix, with the area, entity and suffix picked
// from i, so names are unique and realistic. Every table has id, created_at
// and updated_at; the first table of each area and entity ("base table",
// empty suffix) is what the others point at. "_lines" tables have a
// composite key (parent id, line_no) and "_notes" tables point at it with a
// composite foreign key.
func Release(size Size) *snapshot.Snapshot {
	rng := rand.New(rand.NewPCG(1, 2))
	snap := &snapshot.Snapshot{
		Release:     release,
		Origin:      origin,
		Connections: connections,
		Tables:      make([]snapshot.Table, 0, size.Tables),
		Logics:      make([]snapshot.Logic, 0, size.Logics),
	}
	for i := range size.Tables {
		snap.Tables = append(snap.Tables, table(rng, i))
	}
	for i := range size.Logics {
		snap.Logics = append(snap.Logics, logic(rng, i, size.Tables))
	}
	return snap
}

// The release, origin and connections of every synthetic release.
var (
	release = snapshot.Release{ID: "rel_big", Project: "big", Environment: "dev", Version: 1,
		CreatedAt: "2026-11-01T10:00:00Z"}
	origin = snapshot.Origin{Source: snapshot.SourceHub, Digest: "sha256:" + strings.Repeat("0", 64),
		SyncedAt: "2026-11-01T10:00:01Z"}
	connections = []snapshot.Connection{{Name: "main", Engine: "postgres"}, {Name: "warehouse", Engine: "clickhouse"}}
)

// names is how many tables have different names before they repeat in
// tiers.
var names = len(Areas) * len(Entities) * len(Suffixes)

// tableName names table i; see Release. The tier prefix is "" for the
// first 10,000 tables, then "t1_", "t2_", ...
func tableName(i int) (tier, area, entity, suffix string) {
	if t := i / names; t > 0 {
		tier = fmt.Sprintf("t%d_", t)
	}
	i %= names
	entity = Entities[i%len(Entities)]
	area = Areas[i/len(Entities)%len(Areas)]
	suffix = Suffixes[i/(len(Entities)*len(Areas))]
	return tier, area, entity, suffix
}

func plural(entity string) string {
	switch {
	case strings.HasSuffix(entity, "y") && !strings.HasSuffix(entity, "ey"):
		return entity[:len(entity)-1] + "ies"
	case strings.HasSuffix(entity, "s"):
		return entity + "es"
	}
	return entity + "s"
}

func table(rng *rand.Rand, i int) snapshot.Table {
	tier, area, entity, suffix := tableName(i)
	base := tier + area + "_" + plural(entity)
	t := snapshot.Table{Name: base + suffix, Connection: "main"}
	if area == "analytics" || area == "reporting" {
		t.Connection = "warehouse"
	}
	if area == "회계" || area == "고객" {
		t.Comment = fmt.Sprintf("%s %s 데이터", area, entity)
	} else if i%3 != 0 {
		t.Comment = fmt.Sprintf("%s %s records of the %s area", strings.TrimPrefix(suffix, "_"), entity, area)
	}
	add := func(c snapshot.Column) { t.Columns = append(t.Columns, c) }
	parent := entity + "_id"
	switch suffix {
	case "":
		add(snapshot.Column{Name: "id", Type: "string", Comment: "Primary key"})
		t.PrimaryKey = []string{"id"}
	case "_lines":
		add(snapshot.Column{Name: parent, Type: "string", Comment: "The " + entity + " this line belongs to"})
		add(snapshot.Column{Name: "line_no", Type: "integer"})
		t.PrimaryKey = []string{parent, "line_no"}
	default:
		add(snapshot.Column{Name: "id", Type: "string"})
		add(snapshot.Column{Name: parent, Type: "string"})
		t.PrimaryKey = []string{"id"}
	}
	if suffix == "_notes" {
		add(snapshot.Column{Name: "line_no", Type: "integer", Nullable: true})
	}
	add(snapshot.Column{Name: "created_at", Type: "timestamp", Default: "now()"})
	add(snapshot.Column{Name: "updated_at", Type: "timestamp", Nullable: true})
	want := 10 + rng.IntN(11)
	for _, k := range rng.Perm(len(columnPool)) {
		if len(t.Columns) >= want {
			break
		}
		p := columnPool[k]
		c := snapshot.Column{Name: p.name, Type: p.typ, Nullable: k%2 == 0, Comment: p.comment}
		if p.name == "status" {
			c.Enum, c.Default = statusEnum, "'draft'"
		}
		add(c)
	}
	if suffix == "" {
		// Base tables belong to a user and an account of their area.
		for _, owner := range []string{"user", "account"} {
			if owner == entity {
				continue
			}
			col := "owner_" + owner + "_id"
			add(snapshot.Column{Name: col, Type: "string", Nullable: true})
			t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{
				Name: t.Name + "_" + col + "_fkey", Columns: []string{col}, RefConnection: t.Connection,
				RefTable: tier + area + "_" + plural(owner), RefColumns: []string{"id"}, OnDelete: "restrict",
			})
		}
	} else {
		t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{
			Name: t.Name + "_" + parent + "_fkey", Columns: []string{parent}, RefConnection: t.Connection,
			RefTable: base, RefColumns: []string{"id"}, OnDelete: "cascade",
		})
		t.Indexes = append(t.Indexes, snapshot.Index{Name: t.Name + "_" + parent + "_idx", Columns: []string{parent}})
	}
	if suffix == "_notes" {
		t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{
			Name: t.Name + "_line_fkey", Columns: []string{parent, "line_no"}, RefConnection: t.Connection,
			RefTable: base + "_lines", RefColumns: []string{parent, "line_no"}, OnDelete: "set null",
		})
	} else if suffix != "" {
		// A second key to the base table of a neighbouring entity.
		other := Entities[(i/len(Entities)+i)%len(Entities)]
		col := "related_" + other + "_id"
		add(snapshot.Column{Name: col, Type: "string", Nullable: true})
		t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{
			Name: t.Name + "_" + col + "_fkey", Columns: []string{col}, RefConnection: t.Connection,
			RefTable: tier + area + "_" + plural(other), RefColumns: []string{"id"}, OnDelete: "restrict",
		})
	}
	return t
}

// romanize names an area in a logic name, which is ASCII only.
func romanize(area string) string {
	switch area {
	case "회계":
		return "hoegye"
	case "고객":
		return "gogaek"
	}
	return area
}

var verbs = []string{"get", "list", "create", "update", "archive", "count", "search", "export"}

func logic(rng *rand.Rand, i, tables int) snapshot.Logic {
	t := rng.IntN(max(tables, 1))
	tier, area, entity, suffix := tableName(t)
	verb := verbs[i%len(verbs)]
	name := fmt.Sprintf("%s/%s_%s%s_%d", romanize(area), verb, plural(entity), suffix, i)
	table := tier + area + "_" + plural(entity) + suffix
	l := snapshot.Logic{
		Name:        name,
		Description: fmt.Sprintf("%s %s%s of the %s area for the admin console", verb, plural(entity), strings.ReplaceAll(suffix, "_", " "), area),
		Params:      []snapshot.Param{{Name: "tenant_id", Type: "string", Required: true}},
		Auth:        snapshot.Auth{Required: true, Roles: []string{"admin"}},
	}
	switch verb {
	case "get", "update", "archive":
		l.Params = append(l.Params, snapshot.Param{Name: "id", Type: "string", Required: true})
		l.SQL = fmt.Sprintf("SELECT * FROM %s WHERE id = :id AND tenant_id = :tenant_id", table)
	default:
		l.Params = append(l.Params, snapshot.Param{Name: "since", Type: "timestamp"}, snapshot.Param{Name: "limit", Type: "integer"})
		l.SQL = fmt.Sprintf("SELECT id, created_at FROM %s WHERE tenant_id = :tenant_id AND created_at >= :since "+
			"ORDER BY created_at DESC LIMIT :limit", table)
	}
	if i%4 == 0 {
		l.Auth.Roles = append(l.Auth.Roles, "support")
	}
	return l
}
