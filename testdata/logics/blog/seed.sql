-- Seed rows of the blog corpus, timestamps relative to now(). Rows that
-- make outer joins miss: posts 5 and 7 have no tags, tag 5 no posts,
-- users 2, 4, 5 and 6 have no series; guest comments have no author;
-- media 3 belongs to no post; some subscriptions have no user.

INSERT INTO users (id, username, email, display_name, bio, role, is_active, created_at, last_login_at, settings) VALUES
  ('aaaaaaaa-0000-4000-8000-000000000001', 'ada', 'ada@blog.dev', 'Ada L.', 'Writes about math', 'admin', true, now() - interval '800 days', now() - interval '1 day', '{"theme": "dark", "newsletter": true}'),
  ('aaaaaaaa-0000-4000-8000-000000000002', 'linus', 'linus@blog.dev', 'Linus', NULL, 'editor', true, now() - interval '500 days', NULL, '{}'),
  ('aaaaaaaa-0000-4000-8000-000000000003', 'grace', 'grace@blog.dev', 'Grace', 'Compilers and Go', 'author', true, now() - interval '300 days', now() - interval '3 days', '{"theme": "light"}'),
  ('aaaaaaaa-0000-4000-8000-000000000004', 'ken', 'ken@blog.dev', NULL, NULL, 'author', true, now() - interval '100 days', NULL, '{}'),
  ('aaaaaaaa-0000-4000-8000-000000000005', 'mallory', 'mallory@example.org', NULL, NULL, 'reader', false, now() - interval '50 days', NULL, '{"banned": true}'),
  ('aaaaaaaa-0000-4000-8000-000000000006', 'bob', 'bob@example.org', 'Bobby', NULL, 'reader', true, now() - interval '5 days', now() - interval '5 days', '{}');

INSERT INTO series (id, title, slug, owner_id) VALUES
  (1, 'Learning Go', 'learning-go', 'aaaaaaaa-0000-4000-8000-000000000003'),
  (2, 'Databases 101', 'databases-101', 'aaaaaaaa-0000-4000-8000-000000000001');

INSERT INTO posts (id, author_id, slug, title, excerpt, body, status, published_at, updated_at, view_count, reading_minutes, seo, series_id, series_position) VALUES
  (1, 'aaaaaaaa-0000-4000-8000-000000000001', 'hello-world', 'Hello, world', 'First post', 'Welcome to the blog.', 'published', now() - interval '700 days', now() - interval '700 days', 1500, 3, '{"description": "First post"}', NULL, NULL),
  (2, 'aaaaaaaa-0000-4000-8000-000000000003', 'go-channels', 'Go channels', NULL, 'Channels connect goroutines.', 'published', now() - interval '200 days', now() - interval '150 days', 900, 8, NULL, 1, 1),
  (3, 'aaaaaaaa-0000-4000-8000-000000000003', 'go-generics', 'Go generics', 'Type parameters', 'Generics arrived in Go 1.18.', 'published', now() - interval '100 days', now() - interval '100 days', 420, 12, '{"description": "Generics", "keywords": ["go", "generics"]}', 1, 2),
  (4, 'aaaaaaaa-0000-4000-8000-000000000003', 'go-iterators', 'Go iterators', NULL, 'Range over functions.', 'scheduled', now() + interval '7 days', now() - interval '1 day', 0, NULL, NULL, 1, 3),
  (5, 'aaaaaaaa-0000-4000-8000-000000000004', 'draft-notes', 'Draft notes', NULL, 'Half an idea.', 'draft', NULL, now() - interval '40 days', 0, NULL, NULL, NULL, NULL),
  (6, 'aaaaaaaa-0000-4000-8000-000000000001', 'postgres-indexes', 'PostgreSQL indexes', 'B-trees and more', 'An index is a sorted copy.', 'published', now() - interval '30 days', now() - interval '30 days', 2500, 15, '{"description": "Indexes", "keywords": ["postgres", "indexes", "btree"]}', 2, 1),
  (7, 'aaaaaaaa-0000-4000-8000-000000000002', 'old-news', 'Old news', NULL, 'Nothing to see.', 'archived', now() - interval '1000 days', now() - interval '900 days', 50, 2, NULL, NULL, NULL),
  (8, 'aaaaaaaa-0000-4000-8000-000000000004', 'sql-joins', 'SQL joins explained', 'All of them', 'Inner, outer, cross, lateral.', 'published', now() - interval '5 days', now() - interval '5 days', 120, 9, NULL, NULL, NULL);

INSERT INTO tags (id, name, slug) VALUES
  (1, 'Go', 'go'),
  (2, 'Databases', 'databases'),
  (3, 'Tutorial', 'tutorial'),
  (4, 'News', 'news'),
  (5, 'Unused', 'unused');

INSERT INTO post_tags (post_id, tag_id) VALUES
  (1, 4), (2, 1), (2, 3), (3, 1), (3, 3), (4, 1), (6, 2), (6, 3), (8, 2), (8, 3);

INSERT INTO comments (id, post_id, author_id, parent_id, guest_name, body, status, ip, created_at, edited_at) VALUES
  (1, 2, 'aaaaaaaa-0000-4000-8000-000000000001', NULL, NULL, 'Great intro', 'approved', '192.0.2.1', now() - interval '190 days', NULL),
  (2, 2, 'aaaaaaaa-0000-4000-8000-000000000003', 1, NULL, 'Thanks!', 'approved', NULL, now() - interval '189 days', now() - interval '188 days'),
  (3, 2, NULL, 2, 'Anon', 'Me too', 'approved', '198.51.100.7', now() - interval '180 days', NULL),
  (4, 3, 'aaaaaaaa-0000-4000-8000-000000000006', NULL, NULL, 'What about constraints?', 'pending', '203.0.113.9', now() - interval '2 days', NULL),
  (5, 6, NULL, NULL, 'spammer', 'Buy now', 'spam', '203.0.113.66', now() - interval '10 days', NULL),
  (6, 6, 'aaaaaaaa-0000-4000-8000-000000000002', NULL, NULL, 'Very useful', 'approved', NULL, now() - interval '20 days', NULL),
  (7, 8, 'aaaaaaaa-0000-4000-8000-000000000001', NULL, NULL, 'Nice diagrams', 'approved', NULL, now() - interval '1 day', NULL);

INSERT INTO post_revisions (post_id, revision, editor_id, title, body, created_at) VALUES
  (2, 1, 'aaaaaaaa-0000-4000-8000-000000000003', 'Go channels (draft)', 'Channels...', now() - interval '210 days'),
  (2, 2, 'aaaaaaaa-0000-4000-8000-000000000002', 'Go channels', 'Channels connect goroutines.', now() - interval '150 days'),
  (3, 1, 'aaaaaaaa-0000-4000-8000-000000000003', 'Generics', 'Generics arrived.', now() - interval '110 days'),
  (6, 1, 'aaaaaaaa-0000-4000-8000-000000000001', 'Indexes', 'An index...', now() - interval '31 days');

INSERT INTO follows (follower_id, followee_id, created_at) VALUES
  ('aaaaaaaa-0000-4000-8000-000000000006', 'aaaaaaaa-0000-4000-8000-000000000001', now() - interval '4 days'),
  ('aaaaaaaa-0000-4000-8000-000000000006', 'aaaaaaaa-0000-4000-8000-000000000003', now() - interval '4 days'),
  ('aaaaaaaa-0000-4000-8000-000000000004', 'aaaaaaaa-0000-4000-8000-000000000003', now() - interval '90 days'),
  ('aaaaaaaa-0000-4000-8000-000000000003', 'aaaaaaaa-0000-4000-8000-000000000001', now() - interval '250 days'),
  ('aaaaaaaa-0000-4000-8000-000000000001', 'aaaaaaaa-0000-4000-8000-000000000003', now() - interval '240 days'),
  ('aaaaaaaa-0000-4000-8000-000000000002', 'aaaaaaaa-0000-4000-8000-000000000001', now() - interval '400 days');

INSERT INTO post_likes (post_id, user_id, created_at) VALUES
  (1, 'aaaaaaaa-0000-4000-8000-000000000002', now() - interval '600 days'),
  (1, 'aaaaaaaa-0000-4000-8000-000000000003', now() - interval '290 days'),
  (2, 'aaaaaaaa-0000-4000-8000-000000000001', now() - interval '190 days'),
  (2, 'aaaaaaaa-0000-4000-8000-000000000006', now() - interval '4 days'),
  (3, 'aaaaaaaa-0000-4000-8000-000000000006', now() - interval '3 days'),
  (6, 'aaaaaaaa-0000-4000-8000-000000000002', now() - interval '25 days'),
  (6, 'aaaaaaaa-0000-4000-8000-000000000003', now() - interval '20 days'),
  (6, 'aaaaaaaa-0000-4000-8000-000000000004', now() - interval '15 days'),
  (6, 'aaaaaaaa-0000-4000-8000-000000000006', now() - interval '2 days');

INSERT INTO media (id, post_id, uploader_id, url, mime_type, bytes, width, height, alt_text, created_at) VALUES
  ('bbbbbbbb-0000-4000-8000-000000000001', 2, 'aaaaaaaa-0000-4000-8000-000000000003', '/m/channels.png', 'image/png', 120000, 800, 600, 'A channel diagram', now() - interval '200 days'),
  ('bbbbbbbb-0000-4000-8000-000000000002', 6, 'aaaaaaaa-0000-4000-8000-000000000001', '/m/btree.svg', 'image/svg+xml', 4000, NULL, NULL, NULL, now() - interval '30 days'),
  ('bbbbbbbb-0000-4000-8000-000000000003', NULL, 'aaaaaaaa-0000-4000-8000-000000000004', '/m/avatar.jpg', 'image/jpeg', 30000, 200, 200, 'Ken', now() - interval '60 days'),
  ('bbbbbbbb-0000-4000-8000-000000000004', 6, 'aaaaaaaa-0000-4000-8000-000000000001', '/m/slides.pdf', 'application/pdf', 2500000, NULL, NULL, 'Slides', now() - interval '29 days');

INSERT INTO subscriptions (email, user_id, topics, confirmed_at, unsubscribed_at, created_at) VALUES
  ('ada@blog.dev', 'aaaaaaaa-0000-4000-8000-000000000001', '{go,databases}', now() - interval '700 days', NULL, now() - interval '700 days'),
  ('reader@example.org', NULL, '{go}', NULL, NULL, now() - interval '1 day'),
  ('gone@example.org', NULL, '{}', now() - interval '300 days', now() - interval '10 days', now() - interval '300 days'),
  ('grace@blog.dev', 'aaaaaaaa-0000-4000-8000-000000000003', '{go}', now() - interval '200 days', NULL, now() - interval '200 days'),
  ('fan@example.org', NULL, '{go,news}', now() - interval '50 days', NULL, now() - interval '50 days');

INSERT INTO page_views (id, post_id, viewed_on, views, avg_seconds) VALUES
  (1, 6, current_date - 2, 300, 95.5),
  (2, 6, current_date - 1, 280, NULL),
  (3, 8, current_date - 1, 60, 120.0),
  (4, 2, current_date - 40, 12, 30.0);
