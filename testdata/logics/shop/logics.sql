-- Logics of the shop corpus. Each starts with "-- name:", then its
-- description, params (NAME TYPE [optional]) and one or more argument
-- sets (JSON) that make it return rows on seed.sql's rows.

-- name: catalog/product_by_sku
-- description: One product by SKU with its category name.
-- param: sku string
-- args: {"sku": "TEE-BLK-M"}
-- args: {"sku": "POSTER-A2"}
SELECT p.id, p.sku, p.name, p.description, p.price_cents, p.currency, c.name AS category
FROM products p
LEFT JOIN categories c ON c.id = p.category_id
WHERE p.sku = :sku

-- name: catalog/list_active_products
-- description: A page of active products by name.
-- param: limit integer
-- param: offset integer
-- args: {"limit": 5, "offset": 0}
SELECT id, sku, name, price_cents, currency
FROM products
WHERE active
ORDER BY name, id
LIMIT :limit OFFSET :offset

-- name: catalog/search_products
-- description: Active products whose name or description contains the text.
-- param: q string
-- args: {"q": "tee"}
-- args: {"q": "mug"}
SELECT p.id, p.sku, p.name, p.description
FROM products p
WHERE p.active
  AND (p.name ILIKE '%' || :q || '%' OR p.description ILIKE '%' || :q || '%')
ORDER BY p.name

-- name: catalog/products_by_tag
-- description: Products carrying one tag.
-- param: tag string
-- args: {"tag": "gift"}
SELECT id, sku, name, tags
FROM products
WHERE :tag = ANY (tags)
ORDER BY id

-- name: catalog/products_with_any_tag
-- description: Products carrying at least one of the tags.
-- param: tags string[]
-- args: {"tags": ["winter", "kitchen"]}
SELECT id, sku, array_length(tags, 1) AS tag_count
FROM products
WHERE tags && :tags::text[]
ORDER BY id

-- name: catalog/products_by_ids
-- description: Products by id, for a cart or a wish list.
-- param: ids integer[]
-- args: {"ids": [1, 3, 6]}
SELECT id, sku, name, price_cents, weight_grams
FROM products
WHERE id = ANY (:ids)
ORDER BY array_position(:ids, id)

-- name: catalog/product_attributes
-- description: Products matching a JSON attribute filter, with a few attributes pulled out.
-- param: filter json
-- args: {"filter": {"size": "M"}}
-- args: {"filter": {}}
SELECT id,
       attributes ->> 'color' AS color,
       (attributes ->> 'capacity_ml')::int AS capacity_ml,
       attributes ? 'size' AS has_size,
       jsonb_typeof(attributes -> 'dishwasher_safe') AS dishwasher_type
FROM products
WHERE attributes @> :filter::jsonb
ORDER BY id

-- name: catalog/category_tree
-- description: The whole category tree, each category with its depth and path.
-- args: {}
WITH RECURSIVE tree AS (
  SELECT id, parent_id, name, 1 AS depth, name AS path
  FROM categories
  WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, c.parent_id, c.name, t.depth + 1, t.path || ' / ' || c.name
  FROM categories c
  JOIN tree t ON c.parent_id = t.id
)
SELECT id, parent_id, name, depth, path
FROM tree
ORDER BY path

-- name: catalog/subtree_products
-- description: Active products in a category and all its descendants.
-- param: category_id integer
-- args: {"category_id": 4}
-- args: {"category_id": 1}
WITH RECURSIVE sub AS (
  SELECT id FROM categories WHERE id = :category_id
  UNION
  SELECT c.id FROM categories c JOIN sub ON c.parent_id = sub.id
)
SELECT p.id, p.sku, p.name, p.category_id
FROM products p
WHERE p.category_id IN (SELECT id FROM sub) AND p.active
ORDER BY p.id

-- name: catalog/category_with_parent
-- description: Every category with its parent's name.
-- args: {}
SELECT c.id, c.name, c.slug, parent.name AS parent_name, parent.slug AS parent_slug
FROM categories c
LEFT JOIN categories parent ON parent.id = c.parent_id
ORDER BY c.id

-- name: catalog/category_product_counts
-- description: How many products each category has, empty ones included.
-- args: {}
SELECT c.id, c.name, count(p.id) AS products, count(*) FILTER (WHERE p.active) AS active_products
FROM categories c
LEFT JOIN products p ON p.category_id = c.id
GROUP BY c.id, c.name
ORDER BY c.id

-- name: catalog/price_stats_by_category
-- description: Price statistics of the categories with enough products.
-- param: min_products integer
-- args: {"min_products": 1}
SELECT c.name AS category,
       count(*) AS products,
       min(p.price_cents) AS min_price,
       max(p.price_cents) AS max_price,
       avg(p.price_cents) AS avg_price,
       sum(p.price_cents) AS total_price
FROM products p
JOIN categories c ON c.id = p.category_id
GROUP BY c.name
HAVING count(*) >= :min_products
ORDER BY c.name

-- name: catalog/most_expensive_per_category
-- description: The most expensive active product of each category.
-- args: {}
SELECT DISTINCT ON (p.category_id) p.category_id, p.id, p.name, p.price_cents
FROM products p
WHERE p.active
ORDER BY p.category_id, p.price_cents DESC, p.id

-- name: catalog/price_rank
-- description: Products ranked by price within their category.
-- args: {}
SELECT p.id, p.name, p.category_id,
       rank() OVER (PARTITION BY p.category_id ORDER BY p.price_cents DESC) AS price_rank,
       row_number() OVER (ORDER BY p.price_cents DESC, p.id) AS overall,
       dense_rank() OVER w AS dense,
       percent_rank() OVER w AS pct,
       first_value(p.name) OVER w AS cheapest_in_category
FROM products p
WINDOW w AS (PARTITION BY p.category_id ORDER BY p.price_cents)
ORDER BY p.category_id NULLS LAST, price_rank

-- name: catalog/products_without_stock_rows
-- description: Products no warehouse holds a row for.
-- args: {}
SELECT p.id, p.sku
FROM products p
WHERE NOT EXISTS (SELECT 1 FROM inventory i WHERE i.product_id = p.id)
ORDER BY p.id

-- name: catalog/products_in_stock
-- description: Active products with units available somewhere.
-- args: {}
SELECT p.id, p.sku, p.name
FROM products p
WHERE p.active
  AND EXISTS (SELECT 1 FROM inventory i WHERE i.product_id = p.id AND i.quantity - i.reserved > 0)
ORDER BY p.id

-- name: catalog/product_stock
-- description: A product's stock in every warehouse, zero where none is held.
-- param: product_id integer
-- args: {"product_id": 3}
SELECT p.sku, w.code AS warehouse, w.city, COALESCE(i.quantity, 0) AS quantity, i.reserved, i.updated_at
FROM products p
CROSS JOIN warehouses w
LEFT JOIN inventory i ON i.product_id = p.id AND i.warehouse_code = w.code
WHERE p.id = :product_id
ORDER BY w.code

-- name: catalog/stock_totals
-- description: Units on hand and available per product.
-- args: {}
SELECT product_id, sum(quantity) AS on_hand, sum(quantity - reserved) AS available, count(*) AS warehouses
FROM inventory
GROUP BY product_id
ORDER BY product_id

-- name: catalog/create_product
-- description: Add a product to the catalogue.
-- param: sku string
-- param: name string
-- param: description string optional
-- param: category_id integer optional
-- param: price_cents integer
-- param: tags string[]
-- args: {"sku": "CAP-BLU", "name": "Blue cap", "description": null, "category_id": 1, "price_cents": 1499, "tags": ["summer"]}
INSERT INTO products (sku, name, description, category_id, price_cents, tags)
VALUES (:sku, :name, :description, :category_id, :price_cents, :tags)
RETURNING id, created_at, currency, active

-- name: catalog/update_price
-- description: Set a product's price.
-- param: sku string
-- param: price_cents integer
-- args: {"sku": "MUG-CLS", "price_cents": 1399}
UPDATE products
SET price_cents = :price_cents
WHERE sku = :sku
RETURNING id, sku, price_cents

-- name: catalog/discount_category
-- description: Lower the prices of a category by a percentage.
-- param: category_slug string
-- param: percent integer
-- args: {"category_slug": "tshirts", "percent": 10}
UPDATE products p
SET price_cents = (p.price_cents * (100 - :percent) / 100)::int
FROM categories c
WHERE c.id = p.category_id AND c.slug = :category_slug
RETURNING p.id, p.sku, p.price_cents, c.name AS category

-- name: catalog/archive_product
-- description: Take a product off sale.
-- param: product_id integer
-- args: {"product_id": 2}
UPDATE products SET active = false WHERE id = :product_id

-- name: catalog/add_tag
-- description: Tag a product unless it already carries the tag.
-- param: product_id integer
-- param: tag string
-- args: {"product_id": 3, "tag": "sale"}
UPDATE products
SET tags = array_append(tags, :tag)
WHERE id = :product_id AND NOT (:tag = ANY (tags))
RETURNING id, tags

-- name: catalog/product_tags
-- description: One row per product and tag.
-- args: {}
SELECT p.sku, t.tag, t.n
FROM products p
CROSS JOIN LATERAL unnest(p.tags) WITH ORDINALITY AS t(tag, n)
ORDER BY p.sku, t.n

-- name: catalog/tag_counts
-- description: How many products carry each tag.
-- args: {}
SELECT tag, count(*) AS products
FROM products, unnest(tags) AS tag
GROUP BY tag
ORDER BY count(*) DESC, tag

-- name: catalog/set_attribute
-- description: Set one text attribute of a product.
-- param: product_id integer
-- param: key string
-- param: value string
-- args: {"product_id": 1, "key": "fit", "value": "slim"}
UPDATE products
SET attributes = jsonb_set(attributes, ARRAY[:key::text], to_jsonb(:value::text))
WHERE id = :product_id
RETURNING id, attributes

-- name: catalog/import_prices
-- description: Insert or reprice many products at once.
-- param: skus string[]
-- param: names string[]
-- param: prices integer[]
-- args: {"skus": ["TEE-BLK-M", "SOCKS-3"], "names": ["Black tee M", "Socks, three pairs"], "prices": [2199, 999]}
INSERT INTO products (sku, name, price_cents)
SELECT u.sku, u.name, u.price
FROM unnest(:skus::text[], :names::text[], :prices::int[]) AS u(sku, name, price)
ON CONFLICT (sku) DO UPDATE SET price_cents = EXCLUDED.price_cents, name = EXCLUDED.name
RETURNING id, sku, price_cents

-- name: catalog/restock_list
-- description: A fixed restock list matched against the catalogue.
-- args: {}
SELECT v.sku, v.qty, p.id AS product_id, p.name
FROM (VALUES ('TEE-BLK-M', 10), ('MUG-CLS', 5), ('HAT-NEW', 1)) AS v(sku, qty)
LEFT JOIN products p ON p.sku = v.sku
ORDER BY v.sku

-- name: catalog/sold_and_stocked
-- description: Products that have both sold and a stock row.
-- args: {}
SELECT product_id FROM order_items
INTERSECT
SELECT product_id FROM inventory
ORDER BY product_id

-- name: catalog/stocked_never_sold
-- description: Products with a stock row that never sold.
-- args: {}
SELECT product_id FROM inventory
EXCEPT
SELECT product_id FROM order_items

-- name: catalog/sales_with_stock
-- description: Units sold next to stock, for products that have both.
-- args: {}
SELECT *
FROM (SELECT id AS product_id, sku FROM products) p
NATURAL JOIN (SELECT product_id, sum(quantity) AS sold FROM order_items GROUP BY product_id) s
NATURAL JOIN (SELECT product_id, sum(quantity) AS in_stock FROM inventory GROUP BY product_id) st
ORDER BY product_id

-- name: customers/get
-- description: A customer who has not been deleted.
-- param: customer_id integer
-- args: {"customer_id": 2}
SELECT id, email, full_name, phone, tier, marketing_opt_in, created_at
FROM customers
WHERE id = :customer_id AND deleted_at IS NULL

-- name: customers/by_email
-- description: A customer by email, in any case.
-- param: email string
-- args: {"email": "Alice@Example.com"}
SELECT id, full_name, tier
FROM customers
WHERE email = lower(:email)

-- name: customers/register
-- description: Create a customer.
-- param: email string
-- param: full_name string
-- param: phone string optional
-- param: opt_in boolean optional
-- args: {"email": "ivan@example.com", "full_name": "Ivan Petrov", "phone": null, "opt_in": null}
INSERT INTO customers (email, full_name, phone, marketing_opt_in)
VALUES (lower(:email), :full_name, :phone, COALESCE(:opt_in, false))
RETURNING id, tier, marketing_opt_in, created_at

-- name: customers/upsert_by_email
-- description: Create a customer or refresh their name and phone.
-- param: email string
-- param: full_name string
-- param: phone string optional
-- args: {"email": "bob@example.com", "full_name": "Robert Stone", "phone": null}
INSERT INTO customers (email, full_name, phone)
VALUES (:email, :full_name, :phone)
ON CONFLICT (email) DO UPDATE
SET full_name = EXCLUDED.full_name,
    phone = COALESCE(EXCLUDED.phone, customers.phone)
RETURNING id, email, full_name, phone

-- name: customers/with_referrer
-- description: Customers with the name of who referred them.
-- args: {}
SELECT c.id, c.full_name, r.id AS referrer_id, r.full_name AS referrer_name
FROM customers c
LEFT JOIN customers r ON r.id = c.referred_by
ORDER BY c.id

-- name: customers/referral_chain
-- description: Who referred a customer, who referred them, and so on.
-- param: customer_id integer
-- args: {"customer_id": 6}
WITH RECURSIVE chain (id, full_name, referred_by, hops) AS (
  SELECT id, full_name, referred_by, 0
  FROM customers
  WHERE id = :customer_id
  UNION ALL
  SELECT c.id, c.full_name, c.referred_by, chain.hops + 1
  FROM customers c
  JOIN chain ON c.id = chain.referred_by
)
SELECT id, full_name, hops FROM chain ORDER BY hops

-- name: customers/top_referrers
-- description: Customers who referred at least a number of others.
-- param: min_referrals integer
-- args: {"min_referrals": 1}
SELECT r.id, r.full_name, count(c.id) AS referrals
FROM customers r
JOIN customers c ON c.referred_by = r.id
GROUP BY r.id
HAVING count(*) >= :min_referrals
ORDER BY referrals DESC, r.id

-- name: customers/without_orders
-- description: Customers who never ordered.
-- args: {}
SELECT c.id, c.email, c.created_at
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id
WHERE o.id IS NULL
ORDER BY c.id

-- name: customers/lifetime_value
-- description: Orders, spend and last order date of every customer.
-- args: {}
SELECT c.id, c.full_name,
       count(o.id) AS orders,
       COALESCE(sum(o.subtotal_cents - o.discount_cents), 0) AS spent_cents,
       max(o.placed_at) AS last_order_at
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id AND o.status IN ('paid', 'shipped', 'delivered')
GROUP BY c.id
ORDER BY spent_cents DESC, c.id

-- name: customers/tier_summary
-- description: Live customers per tier.
-- args: {}
SELECT tier, count(*) AS customers, count(phone) AS with_phone, bool_or(marketing_opt_in) AS any_opt_in
FROM customers
WHERE deleted_at IS NULL
GROUP BY tier
ORDER BY tier

-- name: customers/soft_delete
-- description: Delete a customer, keeping their orders.
-- param: customer_id integer
-- args: {"customer_id": 5}
UPDATE customers
SET deleted_at = now(), email = 'deleted+' || id || '@invalid'
WHERE id = :customer_id AND deleted_at IS NULL
RETURNING id, email, deleted_at

-- name: customers/set_tier
-- description: Move a customer to a tier.
-- param: customer_id integer
-- param: tier string
-- args: {"customer_id": 3, "tier": "silver"}
UPDATE customers SET tier = :tier WHERE id = :customer_id RETURNING id, tier

-- name: customers/addresses
-- description: A customer's addresses, the default first.
-- param: customer_id integer
-- args: {"customer_id": 1}
SELECT a.*
FROM addresses a
WHERE a.customer_id = :customer_id
ORDER BY a.is_default DESC, a.id

-- name: customers/default_address
-- description: A customer with their default address, if any.
-- param: customer_id integer
-- args: {"customer_id": 1}
-- args: {"customer_id": 8}
SELECT c.full_name, a.line1, a.line2, a.city, a.postal_code, a.country
FROM customers c
LEFT JOIN addresses a ON a.customer_id = c.id AND a.is_default
WHERE c.id = :customer_id

-- name: customers/set_default_address
-- description: Make one address the default of its customer.
-- param: customer_id integer
-- param: address_id integer
-- args: {"customer_id": 1, "address_id": 2}
UPDATE addresses
SET is_default = (id = :address_id)
WHERE customer_id = :customer_id
RETURNING id, is_default

-- name: customers/delete_address
-- description: Delete an address no open order ships to.
-- param: customer_id integer
-- param: address_id integer
-- args: {"customer_id": 1, "address_id": 2}
DELETE FROM addresses
WHERE id = :address_id
  AND customer_id = :customer_id
  AND NOT EXISTS (
    SELECT 1 FROM orders o
    WHERE o.shipping_address_id = addresses.id AND o.status IN ('pending', 'paid')
  )
RETURNING id

-- name: customers/contact_list
-- description: How to reach customers who opted in to marketing.
-- args: {}
SELECT full_name, COALESCE(NULLIF(phone, ''), email) AS contact, NULLIF(phone, '') AS phone
FROM customers
WHERE marketing_opt_in AND deleted_at IS NULL
ORDER BY full_name

-- name: customers/signup_cohorts
-- description: Sign-ups per month.
-- args: {}
SELECT date_trunc('month', created_at) AS month, count(*) AS signups
FROM customers
GROUP BY 1
ORDER BY 1

-- name: customers/activity
-- description: A customer's orders and reviews, newest first.
-- param: customer_id integer
-- args: {"customer_id": 1}
SELECT 'order' AS kind, o.id::text AS ref, o.placed_at AS at
FROM orders o
WHERE o.customer_id = :customer_id
UNION ALL
SELECT 'review', r.id::text, r.created_at
FROM reviews r
WHERE r.customer_id = :customer_id
ORDER BY at DESC

-- name: customers/nearby_warehouses
-- description: Warehouses in the country of each customer's default address.
-- args: {}
SELECT customer_id, country, code, city
FROM (SELECT customer_id, country FROM addresses WHERE is_default) a
NATURAL JOIN warehouses
ORDER BY customer_id, code

-- name: customers/same_city
-- description: Pairs of customers whose addresses share a city.
-- args: {}
SELECT DISTINCT a1.customer_id AS customer_a, a2.customer_id AS customer_b, city
FROM addresses a1
JOIN addresses a2 USING (city)
WHERE a1.customer_id < a2.customer_id
ORDER BY 1, 2

-- name: orders/get
-- description: One order with its customer and shipping city.
-- param: order_id integer
-- args: {"order_id": 4}
-- args: {"order_id": 1}
SELECT o.id, o.status, o.placed_at, c.full_name, c.email, a.city, a.country
FROM orders o
JOIN customers c ON c.id = o.customer_id
LEFT JOIN addresses a ON a.id = o.shipping_address_id
WHERE o.id = :order_id

-- name: orders/list_for_customer
-- description: A customer's orders, newest first, optionally of one status.
-- param: customer_id integer
-- param: status string optional
-- param: limit integer
-- args: {"customer_id": 1, "status": null, "limit": 10}
-- args: {"customer_id": 1, "status": "shipped", "limit": 10}
SELECT id, status, subtotal_cents - discount_cents + shipping_cents AS total_cents, placed_at
FROM orders
WHERE customer_id = :customer_id
  AND (:status::order_status IS NULL OR status = :status::order_status)
ORDER BY placed_at DESC
LIMIT :limit

-- name: orders/lines
-- description: The lines of an order with product names.
-- param: order_id integer
-- args: {"order_id": 6}
SELECT oi.line_no, p.sku, p.name, oi.quantity, oi.unit_price_cents,
       oi.quantity * oi.unit_price_cents - oi.discount_cents AS line_total_cents
FROM order_items oi
JOIN products p ON p.id = oi.product_id
WHERE oi.order_id = :order_id
ORDER BY oi.line_no

-- name: orders/totals
-- description: Item totals of the orders above an amount.
-- param: min_cents integer
-- args: {"min_cents": 2000}
SELECT o.id, sum(oi.quantity * oi.unit_price_cents) AS items_cents, count(*) AS lines
FROM orders o
JOIN order_items oi ON oi.order_id = o.id
GROUP BY o.id
HAVING sum(oi.quantity * oi.unit_price_cents) > :min_cents
ORDER BY o.id

-- name: orders/status_counts
-- description: Orders and their value per status.
-- args: {}
SELECT status, count(*) AS orders, sum(subtotal_cents) AS subtotal_cents
FROM orders
GROUP BY status
ORDER BY status

-- name: orders/daily_revenue
-- description: Revenue per day since a moment.
-- param: since timestamp
-- args: {"since": "2000-01-01T00:00:00Z"}
SELECT placed_at::date AS day,
       sum(subtotal_cents - discount_cents) AS revenue_cents,
       avg(subtotal_cents)::numeric(12,2) AS avg_basket_cents
FROM orders
WHERE status <> 'cancelled' AND placed_at >= :since
GROUP BY day
ORDER BY day

-- name: orders/running_totals
-- description: Each customer's orders with a running total and the gap since the previous one.
-- args: {}
SELECT customer_id, id, placed_at,
       sum(subtotal_cents) OVER (PARTITION BY customer_id ORDER BY placed_at
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_cents,
       lag(placed_at) OVER w AS previous_at,
       placed_at - lag(placed_at) OVER w AS gap,
       count(*) OVER (PARTITION BY customer_id) AS customer_orders
FROM orders
WINDOW w AS (PARTITION BY customer_id ORDER BY placed_at)
ORDER BY customer_id, placed_at

-- name: orders/latest_per_customer
-- description: The latest order of every customer who ordered.
-- args: {}
SELECT DISTINCT ON (customer_id) customer_id, id AS order_id, status, placed_at
FROM orders
ORDER BY customer_id, placed_at DESC

-- name: orders/customers_last_order
-- description: Every customer with their latest order, if any.
-- args: {}
SELECT c.id, c.full_name, lo.id AS last_order_id, lo.placed_at AS last_order_at
FROM customers c
LEFT JOIN LATERAL (
  SELECT o.id, o.placed_at
  FROM orders o
  WHERE o.customer_id = c.id
  ORDER BY o.placed_at DESC
  LIMIT 1
) lo ON true
ORDER BY c.id

-- name: orders/place_from_cart
-- description: Turn a customer's cart into a pending order.
-- param: customer_id integer
-- param: address_id integer optional
-- args: {"customer_id": 1, "address_id": 1}
WITH new_order AS (
  INSERT INTO orders (customer_id, shipping_address_id, subtotal_cents)
  SELECT ci.customer_id, :address_id, sum(ci.quantity * p.price_cents)
  FROM cart_items ci
  JOIN products p ON p.id = ci.product_id
  WHERE ci.customer_id = :customer_id
  GROUP BY ci.customer_id
  RETURNING id, subtotal_cents, status
)
SELECT id, subtotal_cents, status FROM new_order

-- name: orders/add_lines_from_cart
-- description: Append a customer's cart to an order, numbering the lines on.
-- param: order_id integer
-- param: customer_id integer
-- args: {"order_id": 8, "customer_id": 1}
INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price_cents)
SELECT :order_id,
       ((SELECT COALESCE(max(line_no), 0) FROM order_items WHERE order_id = :order_id)
         + row_number() OVER (ORDER BY ci.added_at))::smallint,
       ci.product_id, ci.quantity, p.price_cents
FROM cart_items ci
JOIN products p ON p.id = ci.product_id
WHERE ci.customer_id = :customer_id
RETURNING order_id, line_no, product_id

-- name: orders/mark_paid
-- description: Mark a pending order paid.
-- param: order_id integer
-- args: {"order_id": 4}
UPDATE orders
SET status = 'paid', paid_at = now()
WHERE id = :order_id AND status = 'pending'
RETURNING id, status, paid_at

-- name: orders/ship
-- description: Mark a paid order shipped, now or at a given time.
-- param: order_id integer
-- param: shipped_at timestamp optional
-- args: {"order_id": 3, "shipped_at": null}
UPDATE orders
SET status = 'shipped', shipped_at = COALESCE(:shipped_at, now())
WHERE id = :order_id AND status = 'paid'
RETURNING id, shipped_at

-- name: orders/cancel_stale
-- description: Cancel pending orders older than a number of hours.
-- param: hours integer
-- args: {"hours": 12}
UPDATE orders
SET status = 'cancelled'
WHERE status = 'pending' AND placed_at < now() - make_interval(hours => :hours)
RETURNING id, customer_id

-- name: orders/purge_cancelled_lines
-- description: Delete the lines of cancelled orders.
-- args: {}
DELETE FROM order_items oi
USING orders o
WHERE o.id = oi.order_id AND o.status = 'cancelled'
RETURNING oi.order_id, oi.line_no

-- name: orders/add_note
-- description: Append a line to an order's notes.
-- param: order_id integer
-- param: note string
-- args: {"order_id": 2, "note": "Customer called"}
-- args: {"order_id": 3, "note": "Fragile"}
UPDATE orders
SET notes = concat_ws(E'\n', notes, :note::text)
WHERE id = :order_id
RETURNING id, notes

-- name: orders/set_channel
-- description: Record the channel an order came from.
-- param: order_id integer
-- param: channel string
-- args: {"order_id": 3, "channel": "app"}
UPDATE orders
SET metadata = COALESCE(metadata, '{}'::jsonb) || jsonb_build_object('channel', :channel::text)
WHERE id = :order_id
RETURNING metadata ->> 'channel' AS channel, metadata

-- name: orders/by_channel
-- description: Orders per channel; orders without one count under NULL.
-- args: {}
SELECT metadata ->> 'channel' AS channel, count(*) AS orders
FROM orders
GROUP BY 1
ORDER BY 2 DESC, 1 NULLS LAST

-- name: orders/utm_sources
-- description: Orders that carry UTM data, with its source and campaign.
-- args: {}
SELECT id, metadata #>> '{utm,source}' AS utm_source, metadata -> 'utm' ->> 'campaign' AS campaign
FROM orders
WHERE metadata ? 'utm'

-- name: orders/with_coupon
-- description: Every order with the kind of discount its coupon gives.
-- args: {}
SELECT o.id, o.coupon_code, cp.percent_off, cp.amount_off_cents,
       CASE
         WHEN cp.percent_off IS NOT NULL THEN 'percent'
         WHEN cp.amount_off_cents IS NOT NULL THEN 'amount'
         ELSE 'none'
       END AS discount_kind
FROM orders o
LEFT JOIN coupons cp ON cp.code = o.coupon_code
ORDER BY o.id

-- name: orders/recent_with_payments
-- description: Recent orders and all payments side by side, unmatched ones too.
-- args: {}
SELECT o.id AS order_id, p.id AS payment_id, o.status, p.status AS payment_status
FROM (SELECT * FROM orders WHERE placed_at > now() - interval '60 days') o
FULL JOIN payments p ON p.order_id = o.id
ORDER BY o.id NULLS LAST, p.id

-- name: orders/unpaid_pending
-- description: Pending orders without an authorized or captured payment.
-- args: {}
SELECT o.id, o.customer_id, o.placed_at
FROM orders o
WHERE o.status = 'pending'
  AND o.id NOT IN (SELECT order_id FROM payments WHERE status IN ('authorized', 'captured'))
ORDER BY o.id

-- name: orders/customers_right_join
-- description: Live customers and their orders, customers without orders too.
-- args: {}
SELECT c.id AS customer_id, c.full_name, o.id AS order_id, o.status
FROM orders o
RIGHT JOIN customers c ON c.id = o.customer_id
WHERE c.deleted_at IS NULL
ORDER BY c.id, o.id

-- name: orders/share_of_revenue
-- description: Each order's share of all revenue, in percent.
-- args: {}
SELECT o.id,
       round(100.0 * o.subtotal_cents / (SELECT sum(subtotal_cents) FROM orders WHERE status <> 'cancelled'), 2) AS percent
FROM orders o
WHERE o.status <> 'cancelled'
ORDER BY percent DESC

-- name: orders/above_average
-- description: Orders bigger than the average order.
-- args: {}
SELECT id, subtotal_cents
FROM orders
WHERE subtotal_cents > (SELECT avg(subtotal_cents) FROM orders)
ORDER BY id

-- name: orders/timeline
-- description: The first and last event of each order of a customer.
-- param: customer_id integer
-- args: {"customer_id": 1}
SELECT id,
       GREATEST(placed_at, paid_at, shipped_at) AS last_event_at,
       LEAST(paid_at, shipped_at) AS first_follow_up_at,
       EXTRACT(day FROM now() - placed_at)::int AS age_days,
       to_char(placed_at, 'YYYY-MM-DD') AS placed_on,
       age(now(), placed_at) AS age
FROM orders
WHERE customer_id = :customer_id
ORDER BY placed_at

-- name: payments/record
-- description: Record a payment once per provider reference.
-- param: order_id integer
-- param: method string
-- param: amount_cents integer
-- param: provider_ref string
-- args: {"order_id": 4, "method": "card", "amount_cents": 1789, "provider_ref": "ch_010"}
INSERT INTO payments (order_id, method, amount_cents, provider_ref)
VALUES (:order_id, :method, :amount_cents, :provider_ref)
ON CONFLICT (provider_ref) DO NOTHING
RETURNING id, status, created_at

-- name: payments/capture
-- description: Capture an authorized payment.
-- param: payment_id uuid
-- args: {"payment_id": "33333333-3333-4333-8333-333333333333"}
UPDATE payments
SET status = 'captured'
WHERE id = :payment_id AND status = 'authorized'
RETURNING id, status

-- name: payments/for_order
-- description: The payments of an order.
-- param: order_id integer
-- args: {"order_id": 6}
SELECT id, method, status, amount_cents, provider_ref, created_at
FROM payments
WHERE order_id = :order_id
ORDER BY created_at

-- name: payments/method_share
-- description: Captured amounts per method and their share of the total.
-- args: {}
SELECT method,
       sum(amount_cents) AS total_cents,
       round(100.0 * sum(amount_cents) / sum(sum(amount_cents)) OVER (), 1) AS share
FROM payments
WHERE status = 'captured'
GROUP BY method
ORDER BY method

-- name: payments/refund_order
-- description: Refund the captured payments of an order and mark it refunded.
-- param: order_id integer
-- args: {"order_id": 2}
WITH refunded AS (
  UPDATE payments
  SET status = 'refunded'
  WHERE order_id = :order_id AND status = 'captured'
  RETURNING order_id, amount_cents
)
UPDATE orders o
SET status = 'refunded'
FROM refunded r
WHERE o.id = r.order_id
RETURNING o.id, o.status, r.amount_cents

-- name: reviews/for_product
-- description: A product's reviews with their authors, newest first.
-- param: product_id integer
-- args: {"product_id": 1}
SELECT r.rating, r.title, r.body, c.full_name AS author, r.created_at
FROM reviews r
JOIN customers c ON c.id = r.customer_id
WHERE r.product_id = :product_id
ORDER BY r.created_at DESC

-- name: reviews/upsert
-- description: Write or rewrite a customer's review of a product.
-- param: product_id integer
-- param: customer_id integer
-- param: rating integer
-- param: title string optional
-- param: body string optional
-- args: {"product_id": 1, "customer_id": 1, "rating": 4, "title": "Still great", "body": null}
INSERT INTO reviews (product_id, customer_id, rating, title, body)
VALUES (:product_id, :customer_id, :rating, :title, :body)
ON CONFLICT (product_id, customer_id) DO UPDATE
SET rating = EXCLUDED.rating, title = EXCLUDED.title, body = EXCLUDED.body, created_at = now()
RETURNING id, rating, title

-- name: reviews/rating_summary
-- description: Review count, average and positives of every product.
-- args: {}
SELECT p.id, p.name,
       count(r.id) AS reviews,
       avg(r.rating) AS avg_rating,
       round(avg(r.rating), 1) AS avg_rounded,
       count(*) FILTER (WHERE r.rating >= 4) AS positive
FROM products p
LEFT JOIN reviews r ON r.product_id = p.id
GROUP BY p.id, p.name
ORDER BY p.id

-- name: reviews/verified
-- description: Reviews written by customers who bought the product.
-- args: {}
SELECT r.id, r.product_id, r.customer_id, r.rating
FROM reviews r
WHERE EXISTS (
  SELECT 1
  FROM orders o
  JOIN order_items oi ON oi.order_id = o.id
  WHERE o.customer_id = r.customer_id AND oi.product_id = r.product_id
)
ORDER BY r.id

-- name: reviews/delete
-- description: Delete a customer's review of a product.
-- param: customer_id integer
-- param: product_id integer
-- args: {"customer_id": 1, "product_id": 3}
DELETE FROM reviews WHERE customer_id = :customer_id AND product_id = :product_id

-- name: cart/add_item
-- description: Put a product in the cart, adding to the quantity when it is there.
-- param: customer_id integer
-- param: product_id integer
-- param: quantity integer
-- args: {"customer_id": 1, "product_id": 4, "quantity": 1}
-- args: {"customer_id": 8, "product_id": 1, "quantity": 3}
INSERT INTO cart_items (customer_id, product_id, quantity)
VALUES (:customer_id, :product_id, :quantity)
ON CONFLICT (customer_id, product_id) DO UPDATE
SET quantity = cart_items.quantity + EXCLUDED.quantity, added_at = now()
RETURNING customer_id, product_id, quantity

-- name: cart/contents
-- description: A cart with line totals and the cart total.
-- param: customer_id integer
-- args: {"customer_id": 1}
SELECT p.sku, p.name, ci.quantity, p.price_cents,
       ci.quantity * p.price_cents AS line_cents,
       sum(ci.quantity * p.price_cents) OVER () AS cart_cents
FROM cart_items ci
JOIN products p ON p.id = ci.product_id
WHERE ci.customer_id = :customer_id
ORDER BY ci.added_at

-- name: cart/clear
-- description: Empty a cart.
-- param: customer_id integer
-- args: {"customer_id": 3}
DELETE FROM cart_items WHERE customer_id = :customer_id

-- name: cart/remove_inactive
-- description: Take products that are off sale out of every cart.
-- args: {}
DELETE FROM cart_items ci
USING products p
WHERE p.id = ci.product_id AND NOT p.active
RETURNING ci.customer_id, ci.product_id, p.sku

-- name: cart/abandoned
-- description: Carts untouched for longer than an interval.
-- param: older_than string
-- args: {"older_than": "12 hours"}
SELECT c.email, count(*) AS items, min(ci.added_at) AS oldest
FROM cart_items ci
JOIN customers c ON c.id = ci.customer_id
WHERE ci.added_at < now() - :older_than::interval
GROUP BY c.email
ORDER BY oldest

-- name: coupons/validate
-- description: A coupon that is valid now, with whether uses are left.
-- param: code string
-- args: {"code": "spring5"}
-- args: {"code": "welcome10"}
SELECT code, percent_off, amount_off_cents,
       (max_uses IS NULL OR used_count < max_uses) AS available
FROM coupons
WHERE code = upper(:code)
  AND valid_from <= now()
  AND (valid_until IS NULL OR valid_until > now())

-- name: coupons/redeem
-- description: Use a coupon once if uses are left.
-- param: code string
-- args: {"code": "WELCOME10"}
-- args: {"code": "SPRING5"}
UPDATE coupons
SET used_count = used_count + 1
WHERE code = :code AND (max_uses IS NULL OR used_count < max_uses)
RETURNING used_count, max_uses - used_count AS remaining

-- name: coupons/usage
-- description: Orders and discount given per coupon.
-- args: {}
SELECT cp.code, cp.used_count, count(o.id) AS orders, COALESCE(sum(o.discount_cents), 0) AS discount_cents
FROM coupons cp
LEFT JOIN orders o ON o.coupon_code = cp.code
GROUP BY cp.code
ORDER BY cp.code

-- name: coupons/create_pair
-- description: Create two coupons with the same percentage, valid for 30 days.
-- param: first_code string
-- param: second_code string
-- param: percent number
-- args: {"first_code": "SUMMER15", "second_code": "FRIENDS15", "percent": 15}
INSERT INTO coupons (code, percent_off, valid_from, valid_until)
VALUES (:first_code, :percent, now(), now() + interval '30 days'),
       (:second_code, :percent, now(), now() + interval '30 days')
RETURNING code, percent_off, valid_until

-- name: inventory/low_stock
-- description: Stock rows with fewer units available than a threshold.
-- param: threshold integer
-- args: {"threshold": 10}
SELECT p.sku, i.warehouse_code, i.quantity - i.reserved AS available
FROM inventory i
JOIN products p ON p.id = i.product_id
WHERE i.quantity - i.reserved < :threshold
ORDER BY available, p.sku

-- name: inventory/warehouse_report
-- description: Products and units per warehouse, empty ones included.
-- args: {}
SELECT w.code, w.city, count(i.product_id) AS products, COALESCE(sum(i.quantity), 0) AS units
FROM warehouses w
LEFT JOIN inventory i ON i.warehouse_code = w.code
GROUP BY w.code, w.city
ORDER BY w.code

-- name: inventory/move_stock
-- description: Move units of a product from one warehouse to another.
-- param: product_id integer
-- param: from_code string
-- param: to_code string
-- param: qty integer
-- args: {"product_id": 1, "from_code": "PAR1", "to_code": "NYC1", "qty": 20}
WITH taken AS (
  UPDATE inventory
  SET quantity = quantity - :qty, updated_at = now()
  WHERE product_id = :product_id AND warehouse_code = :from_code AND quantity - reserved >= :qty
  RETURNING product_id
)
INSERT INTO inventory (product_id, warehouse_code, quantity)
SELECT product_id, :to_code, :qty FROM taken
ON CONFLICT (product_id, warehouse_code) DO UPDATE
SET quantity = inventory.quantity + EXCLUDED.quantity, updated_at = now()
RETURNING product_id, warehouse_code, quantity

-- name: inventory/sold_per_warehouse_country
-- description: Units sold of the products each warehouse stocks.
-- args: {}
SELECT warehouse_code, product_id, sum(oi.quantity) AS sold
FROM inventory
JOIN order_items oi USING (product_id)
GROUP BY warehouse_code, product_id
ORDER BY warehouse_code, product_id
