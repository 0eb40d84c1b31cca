-- Seed rows of the shop corpus. Timestamps are relative to now() so that
-- the logics' time windows keep finding the same rows. Some rows exist to
-- make outer joins miss: customers 5, 6 and 8 have no orders, 6 and 8 no
-- address; products 6 and 8 have no stock, 6 and 8 no category; category
-- 7 has no products; warehouse NYC1 holds nothing; orders 4 and 8 have no
-- payment, order 4 no shipping address.

INSERT INTO customers (id, email, full_name, phone, tier, marketing_opt_in, referred_by, created_at, deleted_at) VALUES
  (1, 'alice@example.com', 'Alice Martin', '+33 6 12 34 56 78', 'gold', true, NULL, now() - interval '400 days', NULL),
  (2, 'bob@example.com', 'Bob Stone', NULL, 'silver', false, 1, now() - interval '200 days', NULL),
  (3, 'carol@example.com', 'Carol Diaz', '+34 600 000 111', 'bronze', true, 1, now() - interval '90 days', NULL),
  (4, 'dave@example.com', 'Dave Kim', NULL, 'bronze', false, 2, now() - interval '30 days', now() - interval '5 days'),
  (5, 'erin@example.com', 'Erin Wu', '+1 555 0100', 'silver', false, NULL, now() - interval '10 days', NULL),
  (6, 'frank@example.com', 'Frank Ode', '', 'bronze', true, 3, now() - interval '2 days', NULL),
  (7, 'grace@example.com', 'Grace Hopper', '+1 555 0199', 'gold', false, NULL, now() - interval '700 days', NULL),
  (8, 'heidi@example.com', 'Heidi Lamar', NULL, 'bronze', true, NULL, now() - interval '1 day', NULL);

INSERT INTO addresses (id, customer_id, label, line1, line2, city, postal_code, country, is_default) VALUES
  (1, 1, 'Home', '1 Rue de Rivoli', NULL, 'Paris', '75001', 'FR', true),
  (2, 1, 'Office', '10 Avenue Foch', 'Floor 3', 'Paris', '75116', 'FR', false),
  (3, 2, NULL, '5 Main St', NULL, 'Springfield', '12345', 'US', true),
  (4, 3, 'Home', 'Calle Mayor 3', '2B', 'Madrid', '28013', 'ES', true),
  (5, 7, 'Home', '1 Navy Way', NULL, 'Arlington', '22202', 'US', true),
  (6, 4, 'Home', '8 Ocean Drive', NULL, 'Lisbon', '1100-148', 'PT', true),
  (7, 5, 'Work', '20 Gran Via', NULL, 'Madrid', '28013', 'ES', false);

INSERT INTO categories (id, parent_id, name, slug, position) VALUES
  (1, NULL, 'Apparel', 'apparel', 1),
  (2, 1, 'T-Shirts', 'tshirts', 1),
  (3, 1, 'Hoodies', 'hoodies', 2),
  (4, NULL, 'Home', 'home', 2),
  (5, 4, 'Mugs', 'mugs', 1),
  (6, 5, 'Travel mugs', 'travel-mugs', 1),
  (7, NULL, 'Gift cards', 'gift-cards', 3);

INSERT INTO products (id, sku, name, description, category_id, price_cents, currency, weight_grams, attributes, tags, active, created_at) VALUES
  (1, 'TEE-BLK-M', 'Black tee M', 'Organic cotton', 2, 1999, 'EUR', 180, '{"color": "black", "size": "M", "material": "cotton"}', '{organic,basics}', true, now() - interval '300 days'),
  (2, 'TEE-WHT-L', 'White tee L', NULL, 2, 1999, 'EUR', 190, '{"color": "white", "size": "L"}', '{basics}', true, now() - interval '300 days'),
  (3, 'HOOD-GRY-M', 'Grey hoodie M', 'Fleece lined', 3, 4999, 'EUR', 520, '{"color": "grey", "size": "M"}', '{winter}', true, now() - interval '200 days'),
  (4, 'MUG-CLS', 'Classic mug', 'Stoneware, 350 ml', 5, 1299, 'EUR', 350, '{"capacity_ml": 350, "dishwasher_safe": true}', '{kitchen,gift}', true, now() - interval '150 days'),
  (5, 'MUG-TRV', 'Travel mug', NULL, 6, 2499, 'EUR', NULL, '{"capacity_ml": 450}', '{gift}', true, now() - interval '100 days'),
  (6, 'POSTER-A2', 'Poster A2', 'Matte print', NULL, 1500, 'EUR', 200, '{}', '{}', true, now() - interval '20 days'),
  (7, 'TEE-OLD', 'Retired tee', NULL, 2, 999, 'EUR', 170, '{"color": "red"}', '{clearance}', false, now() - interval '900 days'),
  (8, 'GIFT-50', 'Gift card 50', NULL, NULL, 5000, 'USD', NULL, '{}', '{gift}', true, now() - interval '60 days');

INSERT INTO warehouses (code, name, city, country) VALUES
  ('PAR1', 'Paris North', 'Paris', 'FR'),
  ('MAD1', 'Madrid Centro', 'Madrid', 'ES'),
  ('NYC1', 'New York Harbor', 'New York', 'US');

INSERT INTO inventory (product_id, warehouse_code, quantity, reserved, updated_at) VALUES
  (1, 'PAR1', 120, 10, now() - interval '1 day'),
  (1, 'MAD1', 40, 0, now() - interval '3 days'),
  (2, 'PAR1', 5, 5, now() - interval '2 days'),
  (3, 'PAR1', 0, 0, now() - interval '10 days'),
  (3, 'MAD1', 12, 2, now() - interval '1 day'),
  (4, 'PAR1', 60, 0, now() - interval '4 days'),
  (5, 'MAD1', 8, 1, now() - interval '6 days'),
  (7, 'PAR1', 3, 0, now() - interval '90 days');

INSERT INTO coupons (code, percent_off, amount_off_cents, valid_from, valid_until, max_uses, used_count) VALUES
  ('WELCOME10', 10.00, NULL, now() - interval '365 days', NULL, NULL, 3),
  ('SPRING5', NULL, 500, now() - interval '60 days', now() + interval '30 days', 100, 40),
  ('EXPIRED20', 20.00, NULL, now() - interval '400 days', now() - interval '300 days', 50, 50);

INSERT INTO orders (id, customer_id, status, shipping_address_id, coupon_code, subtotal_cents, discount_cents, shipping_cents, currency, notes, metadata, placed_at, paid_at, shipped_at) VALUES
  (1, 1, 'delivered', 1, 'WELCOME10', 3998, 400, 490, 'EUR', NULL, '{"channel": "web", "gift": false}', now() - interval '120 days', now() - interval '120 days', now() - interval '118 days'),
  (2, 1, 'shipped', 2, NULL, 4999, 0, 0, 'EUR', 'Leave at reception', '{"channel": "app"}', now() - interval '20 days', now() - interval '20 days', now() - interval '18 days'),
  (3, 2, 'paid', 3, 'SPRING5', 2598, 500, 490, 'EUR', NULL, NULL, now() - interval '3 days', now() - interval '3 days', NULL),
  (4, 3, 'pending', NULL, NULL, 1299, 0, 490, 'EUR', NULL, '{"channel": "web", "utm": {"source": "newsletter", "campaign": "spring"}}', now() - interval '1 day', NULL, NULL),
  (5, 2, 'cancelled', 3, NULL, 1999, 0, 0, 'EUR', NULL, NULL, now() - interval '50 days', NULL, NULL),
  (6, 7, 'delivered', 5, NULL, 7498, 0, 990, 'EUR', 'Gift wrap please', '{"channel": "phone", "gift": true}', now() - interval '400 days', now() - interval '400 days', now() - interval '398 days'),
  (7, 4, 'refunded', 6, NULL, 2499, 0, 490, 'EUR', NULL, '{"channel": "web"}', now() - interval '40 days', now() - interval '40 days', now() - interval '38 days'),
  (8, 1, 'pending', 1, NULL, 1500, 0, 490, 'EUR', NULL, NULL, now() - interval '2 hours', NULL, NULL);

INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price_cents, discount_cents) VALUES
  (1, 1, 1, 2, 1999, 0),
  (2, 1, 3, 1, 4999, 0),
  (3, 1, 4, 2, 1299, 0),
  (4, 1, 4, 1, 1299, 0),
  (5, 1, 2, 1, 1999, 0),
  (6, 1, 3, 1, 4999, 0),
  (6, 2, 5, 1, 2499, 0),
  (7, 1, 5, 1, 2499, 0),
  (8, 1, 6, 1, 1500, 0);

INSERT INTO payments (id, order_id, method, status, amount_cents, provider_ref, created_at) VALUES
  ('11111111-1111-4111-8111-111111111111', 1, 'card', 'captured', 4088, 'ch_001', now() - interval '120 days'),
  ('22222222-2222-4222-8222-222222222222', 2, 'paypal', 'captured', 4999, 'pp_002', now() - interval '20 days'),
  ('33333333-3333-4333-8333-333333333333', 3, 'card', 'authorized', 2588, 'ch_003', now() - interval '3 days'),
  ('44444444-4444-4444-8444-444444444444', 5, 'card', 'failed', 1999, NULL, now() - interval '50 days'),
  ('55555555-5555-4555-8555-555555555555', 6, 'bank_transfer', 'captured', 8488, NULL, now() - interval '400 days'),
  ('66666666-6666-4666-8666-666666666666', 7, 'card', 'refunded', 2989, 'ch_007', now() - interval '40 days');

INSERT INTO reviews (id, product_id, customer_id, rating, title, body, created_at) VALUES
  (1, 1, 1, 5, 'Great tee', 'Fits well', now() - interval '100 days'),
  (2, 1, 2, 4, NULL, 'Nice fabric', now() - interval '50 days'),
  (3, 3, 1, 3, 'Warm', NULL, now() - interval '15 days'),
  (4, 4, 3, 5, NULL, NULL, now() - interval '1 day'),
  (5, 5, 7, 2, 'Leaks', 'The lid is loose', now() - interval '380 days');

INSERT INTO cart_items (customer_id, product_id, quantity, added_at) VALUES
  (1, 4, 2, now() - interval '1 day'),
  (1, 5, 1, now() - interval '3 hours'),
  (3, 1, 1, now() - interval '2 days'),
  (5, 3, 1, now() - interval '4 days'),
  (5, 7, 1, now() - interval '4 days'),
  (6, 8, 1, now() - interval '1 hour');
