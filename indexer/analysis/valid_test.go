package analysis

import (
	"context"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// validSQL is valid SQL over shopSchema with tricky resolution: each one
// PostgreSQL accepts (TestAgainstPostgres checks it when a PostgreSQL is
// reachable), so each must get no problem at all.
var validSQL = []string{
	`SELECT u.id FROM users u WHERE u.id IN (SELECT o.user_id FROM orders o WHERE o.total > (SELECT avg(total) FROM orders WHERE user_id = u.id))`,
	`SELECT ORDER_TOTAL FROM (SELECT total AS order_total FROM orders) s`,
	`WITH users AS (SELECT 1 AS uid) SELECT uid FROM users`,
	`SELECT count(*) FROM pg_tables`,
	`SELECT table_name FROM information_schema.tables`,
	`SELECT id FROM users ORDER BY email`,
	`SELECT id AS email FROM users ORDER BY email`,
	`SELECT user_id AS uid FROM orders GROUP BY uid`,
	`SELECT user_id FROM orders GROUP BY 1 HAVING count(*) > 1`,
	`SELECT u FROM users u`,
	`SELECT users FROM users`,
	`SELECT ctid, tableoid FROM orders`,
	`SELECT u.id FROM users u JOIN LATERAL (SELECT * FROM orders o WHERE o.user_id = u.id) x ON true`,
	`SELECT * FROM users u, generate_series(1, u.id) g`,
	`SELECT e.key, e.value FROM users u, jsonb_each(u.settings) e`,
	`SELECT x.a, x.b FROM users u, jsonb_to_record(u.settings) AS x(a int, b text)`,
	`SELECT generate_subscripts(tags, 1) FROM orders`,
	`SELECT id FROM users WHERE email ~* '^a'`,
	`SELECT id FROM users WHERE settings @> '{"a":1}'::jsonb`,
	`SELECT * FROM orders WHERE tags && ARRAY['a','b']`,
	`SELECT DISTINCT ON (user_id) user_id, total FROM orders ORDER BY user_id, placed_at DESC`,
	`SELECT id FROM users FOR UPDATE SKIP LOCKED`,
	`SELECT * FROM orders o WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.order_id = o.id)`,
	`UPDATE orders SET total = total * 1.1, note = DEFAULT WHERE user_id = :uid RETURNING total`,
	`INSERT INTO items (order_id, sku, qty) VALUES (1, 'a', 1), (2, 'b', 2) ON CONFLICT (order_id, sku) DO UPDATE SET qty = items.qty + EXCLUDED.qty`,
	`INSERT INTO items SELECT order_id, sku, qty, price FROM items WHERE qty > 5 ON CONFLICT DO NOTHING`,
	`WITH moved AS (DELETE FROM orders WHERE id = :id RETURNING *) INSERT INTO orders SELECT * FROM moved`,
	`DELETE FROM items WHERE (order_id, sku) IN (SELECT order_id, sku FROM items WHERE qty = 0)`,
	`SELECT * FROM (SELECT 1) AS t(x) WHERE x = 1`,
	`VALUES (1, 'a'), (2, 'b') ORDER BY column1`,
	`SELECT column1 FROM (VALUES (1)) v`,
	`TABLE users`,
	`SELECT $$:notaparam$$, ':also_not', "weird:name" FROM (SELECT 1 AS "weird:name") s`,
	`SELECT id::text FROM users WHERE email = :email::text`,
	`SELECT 1 WHERE :flag::boolean`,
	`SELECT a.id, b.id FROM users a JOIN users b ON a.id <> b.id`,
	`SELECT * FROM users u1 JOIN users u2 USING (id, email)`,
	`WITH a AS (SELECT 1 AS x) SELECT * FROM (WITH b AS (SELECT x FROM a) SELECT * FROM b) s`,
	`WITH RECURSIVE tree AS (SELECT id, user_id FROM orders WHERE user_id = 1 UNION SELECT o.id, o.user_id FROM orders o JOIN tree t ON o.user_id = t.id) SELECT * FROM tree`,
	`SELECT sum(total) OVER w FROM orders WINDOW w AS (PARTITION BY user_id)`,
	`SELECT count(*) FILTER (WHERE qty > 1), percentile_cont(0.5) WITHIN GROUP (ORDER BY price) FROM items`,
	`SELECT GROUPING(user_id), user_id, sum(total) FROM orders GROUP BY CUBE (user_id)`,
	`SELECT date_trunc('month', placed_at) AS m, count(*) FROM orders GROUP BY m`,
	`SELECT CASE WHEN EXISTS (SELECT 1 FROM items WHERE items.order_id = orders.id) THEN 'y' END FROM orders`,
	`SELECT * FROM users WHERE id = ANY (SELECT user_id FROM orders)`,
	`SELECT (SELECT u2.email FROM users u2 WHERE u2.id = o.user_id) FROM orders o`,
	`SELECT o.*, i.* FROM orders o LEFT JOIN items i ON i.order_id = o.id AND i.qty > 0`,
	`SELECT * FROM orders JOIN items ON items.order_id = orders.id JOIN users ON users.id = orders.user_id`,
	`/* header :x */ SELECT -- :y
 id FROM users`,
	`SELECT id FROM public.users`,
	`SELECT id FROM users WHERE email ILIKE '%' || :q || '%'`,
	`SELECT id FROM users WHERE created_at > now() - make_interval(days => :days)`,
	`SELECT settings #>> '{a,b}' FROM users WHERE settings @? '$.a'`,
	`SELECT jsonb_agg(u ORDER BY u.id) FROM users u`,
	`SELECT row_to_json(u.*) FROM users u`,
	`SELECT array_agg(DISTINCT user_id ORDER BY user_id) FROM orders`,
	`SELECT string_agg(sku, ', ') FROM items GROUP BY order_id`,
	`SELECT x.* FROM (SELECT id, email FROM users) x`,
	`SELECT * FROM users WHERE (id, email) = (1, 'a')`,
	`SELECT * FROM users WHERE id BETWEEN SYMMETRIC 1 AND 10`,
	`SELECT * FROM users WHERE name IS DISTINCT FROM 'x'`,
	`SELECT coalesce(max(total), 0) FROM orders`,
	`SELECT * FROM orders ORDER BY placed_at DESC NULLS LAST LIMIT 10 OFFSET 5`,
	`SELECT * FROM orders ORDER BY id FETCH FIRST 3 ROWS WITH TIES`,
	`SELECT u.id FROM users AS u WHERE u.status::text = 'active'`,
	`SELECT 'active'::user_status`,
	`INSERT INTO users (email) VALUES (:email) RETURNING *`,
	`UPDATE users u SET name = sub.n FROM (SELECT id, 'x' AS n FROM users) sub WHERE sub.id = u.id`,
	`SELECT user_id FROM orders o GROUP BY user_id HAVING count(*) > (SELECT count(*) FROM users u WHERE u.id = o.user_id)`,
	`SELECT * FROM orders o, LATERAL unnest(o.tags) WITH ORDINALITY AS t(tag, n)`,
	`SELECT t.tag FROM orders o CROSS JOIN LATERAL unnest(o.tags) t(tag)`,
	`SELECT "U".id FROM users "U"`,
	`SELECT email AS id, id AS email FROM users ORDER BY id`,
	`SELECT * FROM users NATURAL JOIN (SELECT id, email FROM users) s`,
	`SELECT id FROM users INTERSECT SELECT user_id FROM orders EXCEPT SELECT 1 ORDER BY 1`,
	`(SELECT id FROM users ORDER BY id LIMIT 1) UNION ALL (SELECT id FROM orders LIMIT 1)`,
	`SELECT * FROM users WHERE id = :id OR :id IS NULL`,
	`DELETE FROM orders WHERE id = :id RETURNING id, total`,
	`UPDATE orders SET tags = array_append(tags, :tag) WHERE id = :id`,
	`UPDATE orders SET tags[1] = 'x' WHERE id = 1`,
	`SELECT tags[array_length(tags, 1)] FROM orders`,
	`SELECT EXTRACT(EPOCH FROM now() - placed_at)::int AS age FROM orders`,
	`SELECT id FROM users WHERE lower(email) = lower(:email)`,
	`SELECT id FROM users u WHERE EXISTS (SELECT FROM orders WHERE user_id = u.id)`,
	`SELECT FROM users`,
	`SELECT 'it''s', E'\\n:x', U&'d\0061t\+000061'`,
	`SELECT * FROM users WHERE email = any(:emails::text[])`,
	`SELECT a.* FROM (users a JOIN orders b ON a.id = b.user_id)`,
	`SELECT * FROM (users JOIN orders ON users.id = orders.user_id) JOIN items ON items.order_id = orders.id`,
	`SELECT u.id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE o.id IS NULL`,
	`SELECT id FROM users WHERE id = :id LIMIT 1`,
	`INSERT INTO orders (user_id, total) VALUES (:uid, :total) ON CONFLICT (id) DO UPDATE SET total = orders.total + EXCLUDED.total RETURNING id`,
	`SELECT sum(qty * price) AS revenue FROM items JOIN orders ON orders.id = items.order_id WHERE orders.placed_at >= :since`,
	`SELECT o.user_id, rank() OVER (ORDER BY sum(o.total) DESC) FROM orders o GROUP BY o.user_id`,
	`SELECT user_id, total, total - avg(total) OVER (PARTITION BY user_id) AS diff FROM orders`,
	`SELECT * FROM users WHERE status IN ('active', 'banned')`,
	`SELECT * FROM users WHERE settings->>'theme' = :theme`,
	`SELECT i.sku, o.placed_at::date AS day FROM items i JOIN orders o ON o.id = i.order_id ORDER BY day`,
	`SELECT id, email FROM users WHERE id > :after ORDER BY id LIMIT :limit`,
	`SELECT count(DISTINCT (user_id, total)) FROM orders`,
	`SELECT users.* FROM users`,
	`SELECT orders.id, users.id FROM orders, users WHERE orders.user_id = users.id`,
	`WITH x(a, b) AS (SELECT id, email FROM users) SELECT a, b FROM x`,
	`SELECT * FROM users u WHERE u.id = (SELECT user_id FROM orders WHERE id = :id)`,
	`SELECT nextval('orders_id_seq')`,
	`SELECT id FROM users WHERE xmin::text::bigint > 0`,
	`SELECT 1 FROM users JOIN orders ON email = note`,
	`SELECT d::date AS day, count(i.qty) FROM generate_series(current_date, current_date + 6, interval '1 day') AS d LEFT JOIN items i ON i.qty = extract(day FROM d) GROUP BY d ORDER BY d`,
}

// TestNoFalseProblems: a logic PostgreSQL accepts never gets a problem.
func TestNoFalseProblems(t *testing.T) {
	a := testAnalyzer(t)
	c := NewTables(shopSchema())
	for _, sql := range validSQL {
		// Declare exactly the placeholders the SQL uses, of no known kind.
		rw, err := a.Rewrite(context.Background(), sql, nil)
		if err != nil {
			t.Fatal(err)
		}
		var params []snapshot.Param
		for i, name := range rw.Names {
			if i >= rw.Positional {
				params = append(params, snapshot.Param{Name: name})
			}
		}
		got := a.Analyze(context.Background(), c, snapshot.Logic{SQL: sql, Params: params})
		if len(got.Problems) > 0 {
			t.Errorf("Analyze(%q) problems = %v, want none", sql, got.Problems)
		}
	}
}
