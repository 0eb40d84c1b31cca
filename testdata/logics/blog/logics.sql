-- Logics of the blog corpus. Each starts with "-- name:", then its
-- description, params (NAME TYPE [optional]) and one or more argument
-- sets (JSON) that make it return rows on seed.sql's rows.

-- name: posts/by_slug
-- description: A published post with its author.
-- param: slug string
-- args: {"slug": "go-channels"}
-- args: {"slug": "sql-joins"}
SELECT p.id, p.title, p.body, p.published_at, u.username,
       COALESCE(u.display_name, u.username) AS author_name
FROM posts p
JOIN users u ON u.id = p.author_id
WHERE p.slug = :slug AND p.status = 'published'

-- name: posts/feed
-- description: A page of published posts, newest first.
-- param: page integer
-- param: page_size integer
-- args: {"page": 1, "page_size": 3}
-- args: {"page": 2, "page_size": 3}
SELECT p.id, p.slug, p.title, p.excerpt, p.published_at, p.reading_minutes
FROM posts p
WHERE p.status = 'published' AND p.published_at <= now()
ORDER BY p.published_at DESC
LIMIT :page_size OFFSET (:page - 1) * :page_size

-- name: posts/feed_after
-- description: Published posts older than a cursor (published_at, id).
-- param: before_at timestamp
-- param: before_id integer
-- param: page_size integer
-- args: {"before_at": "2999-01-01T00:00:00Z", "before_id": 0, "page_size": 4}
SELECT p.id, p.slug, p.title, p.published_at
FROM posts p
WHERE p.status = 'published' AND (p.published_at, p.id) < (:before_at, :before_id)
ORDER BY p.published_at DESC, p.id DESC
FETCH FIRST :page_size ROWS ONLY

-- name: posts/with_tags
-- description: Published posts with the names of their tags.
-- args: {}
SELECT p.id, p.title, array_agg(t.name ORDER BY t.name) AS tags
FROM posts p
JOIN post_tags pt ON pt.post_id = p.id
JOIN tags t ON t.id = pt.tag_id
WHERE p.status = 'published'
GROUP BY p.id
ORDER BY p.id

-- name: posts/all_with_tag_slugs
-- description: Every post with its tag slugs; untagged posts get NULL.
-- args: {}
SELECT p.id, p.status, tg.slugs
FROM posts p
LEFT JOIN LATERAL (
  SELECT array_agg(t.slug ORDER BY t.slug) AS slugs
  FROM post_tags pt
  JOIN tags t ON t.id = pt.tag_id
  WHERE pt.post_id = p.id
) tg ON true
ORDER BY p.id

-- name: posts/by_tag
-- description: Published posts with a tag.
-- param: tag string
-- args: {"tag": "tutorial"}
SELECT p.id, p.slug, p.title
FROM posts p
WHERE p.status = 'published'
  AND p.id IN (SELECT pt.post_id FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE t.slug = :tag)
ORDER BY p.published_at DESC

-- name: posts/search
-- description: Full-text search over published posts.
-- param: q string
-- args: {"q": "goroutines channels"}
-- args: {"q": "index"}
SELECT p.id, p.title,
       ts_rank(to_tsvector('english', p.title || ' ' || p.body), plainto_tsquery('english', :q)) AS rank
FROM posts p
WHERE p.status = 'published'
  AND to_tsvector('english', p.title || ' ' || p.body) @@ plainto_tsquery('english', :q)
ORDER BY rank DESC

-- name: posts/create_draft
-- description: Start a draft.
-- param: author_id uuid
-- param: slug string
-- param: title string
-- param: body string
-- args: {"author_id": "aaaaaaaa-0000-4000-8000-000000000004", "slug": "window-functions", "title": "Window functions", "body": "OVER and out."}
INSERT INTO posts (author_id, slug, title, body)
VALUES (:author_id, :slug, :title, :body)
RETURNING id, status, updated_at, published_at

-- name: posts/publish
-- description: Publish a draft or scheduled post now, keeping an earlier date.
-- param: post_id integer
-- args: {"post_id": 5}
UPDATE posts
SET status = 'published', published_at = COALESCE(published_at, now()), updated_at = now()
WHERE id = :post_id AND status IN ('draft', 'scheduled')
RETURNING id, status, published_at

-- name: posts/schedule
-- description: Schedule a draft for a moment.
-- param: post_id integer
-- param: at timestamp
-- args: {"post_id": 5, "at": "2030-01-01T08:00:00Z"}
UPDATE posts
SET status = 'scheduled', published_at = :at
WHERE id = :post_id AND status = 'draft'
RETURNING id, published_at

-- name: posts/publish_due
-- description: Publish the scheduled posts due within a horizon.
-- param: horizon string
-- args: {"horizon": "8 days"}
UPDATE posts
SET status = 'published', updated_at = now()
WHERE status = 'scheduled' AND published_at <= now() + :horizon::interval
RETURNING id, slug

-- name: posts/edit_with_revision
-- description: Save the current version as a revision, then edit the post.
-- param: post_id integer
-- param: editor_id uuid
-- param: title string
-- param: body string
-- args: {"post_id": 2, "editor_id": "aaaaaaaa-0000-4000-8000-000000000002", "title": "Go channels, revisited", "body": "Buffered and not."}
WITH rev AS (
  INSERT INTO post_revisions (post_id, revision, editor_id, title, body)
  SELECT p.id,
         COALESCE((SELECT max(r.revision) FROM post_revisions r WHERE r.post_id = p.id), 0) + 1,
         :editor_id, p.title, p.body
  FROM posts p
  WHERE p.id = :post_id
  RETURNING post_id, revision
)
UPDATE posts
SET title = :title, body = :body, updated_at = now()
FROM rev
WHERE posts.id = rev.post_id
RETURNING posts.id, rev.revision, posts.updated_at

-- name: posts/count_view
-- description: Count a view of a post.
-- param: slug string
-- args: {"slug": "hello-world"}
UPDATE posts SET view_count = view_count + 1 WHERE slug = :slug RETURNING view_count

-- name: posts/count_daily_view
-- description: Count a view in today's row of a post.
-- param: post_id integer
-- args: {"post_id": 6}
INSERT INTO page_views (post_id, viewed_on, views)
VALUES (:post_id, current_date, 1)
ON CONFLICT (post_id, viewed_on) DO UPDATE SET views = page_views.views + 1
RETURNING viewed_on, views, avg_seconds

-- name: posts/archive_unpopular
-- description: Archive posts older than a year with fewer views than a number.
-- param: max_views integer
-- args: {"max_views": 2000}
UPDATE posts
SET status = 'archived'
WHERE status = 'published' AND published_at < now() - interval '1 year' AND view_count < :max_views
RETURNING id, slug

-- name: posts/delete_draft
-- description: Delete one of an author's drafts.
-- param: post_id integer
-- param: author_id uuid
-- args: {"post_id": 5, "author_id": "aaaaaaaa-0000-4000-8000-000000000004"}
DELETE FROM posts
WHERE id = :post_id AND status = 'draft' AND author_id = :author_id
RETURNING slug

-- name: posts/popularity
-- description: Published posts by views, with quartile and share of all views.
-- args: {}
SELECT id, title, view_count,
       ntile(4) OVER (ORDER BY view_count DESC) AS quartile,
       round(100.0 * view_count / sum(view_count) OVER (), 2) AS percent_of_views
FROM posts
WHERE status = 'published'
ORDER BY view_count DESC

-- name: posts/top_per_author
-- description: Each author's most viewed posts.
-- param: top integer
-- args: {"top": 2}
SELECT author_id, id, title, view_count, n
FROM (
  SELECT author_id, id, title, view_count,
         row_number() OVER (PARTITION BY author_id ORDER BY view_count DESC, id) AS n
  FROM posts
) ranked
WHERE n <= :top
ORDER BY author_id, n

-- name: posts/series_contents
-- description: The posts of a series in order.
-- param: series_slug string
-- args: {"series_slug": "learning-go"}
SELECT s.title AS series, p.series_position, p.title, p.slug, p.status
FROM series s
JOIN posts p ON p.series_id = s.id
WHERE s.slug = :series_slug
ORDER BY p.series_position

-- name: posts/series_navigation
-- description: The previous and next post of every post in a series.
-- args: {}
SELECT p.id, p.slug,
       lag(p.slug) OVER w AS previous_slug,
       lead(p.slug) OVER w AS next_slug
FROM posts p
WHERE p.series_id IS NOT NULL
WINDOW w AS (PARTITION BY p.series_id ORDER BY p.series_position)
ORDER BY p.series_id, p.series_position

-- name: posts/seo
-- description: The search-engine fields of posts that have them.
-- args: {}
SELECT id,
       seo ->> 'description' AS description,
       seo -> 'keywords' AS keywords,
       json_array_length(seo -> 'keywords') AS keyword_count
FROM posts
WHERE seo IS NOT NULL
ORDER BY id

-- name: posts/monthly_archive
-- description: Published posts per month.
-- args: {}
SELECT to_char(date_trunc('month', published_at), 'YYYY-MM') AS month, count(*) AS posts
FROM posts
WHERE status = 'published'
GROUP BY 1
ORDER BY 1 DESC

-- name: posts/by_ids
-- description: Posts by id, in the order given.
-- param: ids integer[]
-- args: {"ids": [8, 2, 99, 1]}
SELECT p.id, p.title, x.ord
FROM unnest(:ids::bigint[]) WITH ORDINALITY AS x(id, ord)
JOIN posts p ON p.id = x.id
ORDER BY x.ord

-- name: posts/related
-- description: Published posts sharing the most tags with a post.
-- param: post_id integer
-- args: {"post_id": 3}
SELECT p2.id, p2.title, count(*) AS shared_tags
FROM post_tags a
JOIN post_tags b ON b.tag_id = a.tag_id AND b.post_id <> a.post_id
JOIN posts p2 ON p2.id = b.post_id
WHERE a.post_id = :post_id AND p2.status = 'published'
GROUP BY p2.id, p2.title
ORDER BY shared_tags DESC, p2.id
LIMIT 5

-- name: posts/stats_by_status
-- description: Count, reading time and views per status.
-- args: {}
SELECT status, count(*) AS posts,
       avg(reading_minutes)::numeric(5,1) AS avg_minutes,
       max(view_count) AS max_views,
       sum(view_count) AS views
FROM posts
GROUP BY status
ORDER BY status

-- name: posts/stale_drafts
-- description: Drafts untouched for a number of days, with their author's email.
-- param: days integer
-- args: {"days": 30}
SELECT p.id, p.title, u.email, now() - p.updated_at AS idle_for
FROM posts p
JOIN users u ON u.id = p.author_id
WHERE p.status = 'draft' AND p.updated_at < now() - make_interval(days => :days)

-- name: users/profile
-- description: A user's public profile with follower, following and post counts.
-- param: username string
-- args: {"username": "grace"}
SELECT u.username, u.display_name, u.bio, u.role,
       (SELECT count(*) FROM follows f WHERE f.followee_id = u.id) AS followers,
       (SELECT count(*) FROM follows f WHERE f.follower_id = u.id) AS following,
       (SELECT count(*) FROM posts p WHERE p.author_id = u.id AND p.status = 'published') AS posts
FROM users u
WHERE u.username = :username

-- name: users/sign_up
-- description: Create a reader account.
-- param: username string
-- param: email string
-- param: display_name string optional
-- args: {"username": "eve", "email": "Eve@Example.org", "display_name": "  "}
INSERT INTO users (username, email, display_name)
VALUES (:username, lower(:email), NULLIF(trim(:display_name), ''))
RETURNING id, role, display_name, created_at

-- name: users/log_in
-- description: Record a login of an active user.
-- param: email string
-- args: {"email": "GRACE@blog.dev"}
UPDATE users
SET last_login_at = now()
WHERE lower(email) = lower(:email) AND is_active
RETURNING id, username, role

-- name: users/set_role
-- description: Change a user's role.
-- param: user_id uuid
-- param: role string
-- args: {"user_id": "aaaaaaaa-0000-4000-8000-000000000006", "role": "author"}
UPDATE users SET role = :role::user_role WHERE id = :user_id RETURNING id, role

-- name: users/merge_settings
-- description: Merge keys into a user's settings.
-- param: user_id uuid
-- param: patch json
-- args: {"user_id": "aaaaaaaa-0000-4000-8000-000000000003", "patch": {"theme": "dark", "font": "mono"}}
UPDATE users SET settings = settings || :patch::jsonb WHERE id = :user_id RETURNING settings

-- name: users/preferences
-- description: Theme and newsletter preference of every user.
-- args: {}
SELECT username,
       settings ->> 'theme' AS theme,
       COALESCE((settings ->> 'newsletter')::boolean, false) AS newsletter
FROM users
ORDER BY username

-- name: users/remove_setting
-- description: Remove one key from a user's settings.
-- param: user_id uuid
-- param: key string
-- args: {"user_id": "aaaaaaaa-0000-4000-8000-000000000001", "key": "theme"}
UPDATE users SET settings = settings - :key::text WHERE id = :user_id RETURNING settings

-- name: users/followers
-- description: Who follows a user, newest first.
-- param: user_id uuid
-- args: {"user_id": "aaaaaaaa-0000-4000-8000-000000000001"}
SELECT u.username, u.display_name, f.created_at
FROM follows f
JOIN users u ON u.id = f.follower_id
WHERE f.followee_id = :user_id
ORDER BY f.created_at DESC

-- name: users/mutual_follows
-- description: Pairs of users who follow each other.
-- args: {}
SELECT a.follower_id AS user_a, a.followee_id AS user_b
FROM follows a
JOIN follows b ON b.follower_id = a.followee_id AND b.followee_id = a.follower_id
WHERE a.follower_id < a.followee_id

-- name: users/follow
-- description: Follow a user; following twice changes nothing.
-- param: follower_id uuid
-- param: followee_id uuid
-- args: {"follower_id": "aaaaaaaa-0000-4000-8000-000000000006", "followee_id": "aaaaaaaa-0000-4000-8000-000000000004"}
INSERT INTO follows (follower_id, followee_id)
VALUES (:follower_id, :followee_id)
ON CONFLICT DO NOTHING
RETURNING created_at

-- name: users/unfollow
-- description: Stop following a user.
-- param: follower_id uuid
-- param: followee_id uuid
-- args: {"follower_id": "aaaaaaaa-0000-4000-8000-000000000006", "followee_id": "aaaaaaaa-0000-4000-8000-000000000001"}
DELETE FROM follows WHERE follower_id = :follower_id AND followee_id = :followee_id

-- name: users/suggestions
-- description: People followed by those a user follows, not yet followed.
-- param: user_id uuid
-- args: {"user_id": "aaaaaaaa-0000-4000-8000-000000000004"}
SELECT DISTINCT f2.followee_id AS suggested_id
FROM follows f1
JOIN follows f2 ON f2.follower_id = f1.followee_id
WHERE f1.follower_id = :user_id
  AND f2.followee_id <> :user_id
  AND NOT EXISTS (SELECT 1 FROM follows x WHERE x.follower_id = :user_id AND x.followee_id = f2.followee_id)

-- name: users/quiet_authors
-- description: Authors with no post published in the last 90 days.
-- args: {}
SELECT u.id, u.username, max(p.published_at) AS last_published_at
FROM users u
LEFT JOIN posts p ON p.author_id = u.id AND p.status = 'published'
WHERE u.role IN ('author', 'editor')
GROUP BY u.id, u.username
HAVING max(p.published_at) IS NULL OR max(p.published_at) < now() - interval '90 days'
ORDER BY u.username

-- name: users/deactivate
-- description: Deactivate an account.
-- param: user_id uuid
-- args: {"user_id": "aaaaaaaa-0000-4000-8000-000000000006"}
UPDATE users SET is_active = false WHERE id = :user_id AND is_active RETURNING id, is_active

-- name: users/everyone_named
-- description: Usernames and guest names, once each.
-- args: {}
SELECT username AS name, 'user' AS kind FROM users
UNION
SELECT guest_name, 'guest' FROM comments WHERE guest_name IS NOT NULL
ORDER BY name

-- name: users/with_roles
-- description: Users having one of the roles.
-- param: roles string[]
-- args: {"roles": ["author", "editor"]}
SELECT id, username, role
FROM users
WHERE role = ANY (:roles::user_role[])
ORDER BY username

-- name: comments/thread
-- description: The approved comments of a post as a thread, depth first.
-- param: post_id integer
-- args: {"post_id": 2}
WITH RECURSIVE thread AS (
  SELECT c.id, c.parent_id, c.body, c.author_id, c.guest_name, c.created_at, 0 AS depth, ARRAY[c.id] AS path
  FROM comments c
  WHERE c.post_id = :post_id AND c.parent_id IS NULL AND c.status = 'approved'
  UNION ALL
  SELECT c.id, c.parent_id, c.body, c.author_id, c.guest_name, c.created_at, t.depth + 1, t.path || c.id
  FROM comments c
  JOIN thread t ON c.parent_id = t.id
  WHERE c.status = 'approved'
)
SELECT t.id, t.parent_id, t.depth, t.body,
       COALESCE(u.username, t.guest_name, 'anonymous') AS author,
       t.created_at
FROM thread t
LEFT JOIN users u ON u.id = t.author_id
ORDER BY t.path

-- name: comments/add
-- description: A signed-in user comments, maybe in reply to another comment.
-- param: post_id integer
-- param: author_id uuid
-- param: parent_id integer optional
-- param: body string
-- param: ip string
-- args: {"post_id": 3, "author_id": "aaaaaaaa-0000-4000-8000-000000000003", "parent_id": 4, "body": "Good question.", "ip": "192.0.2.44"}
INSERT INTO comments (post_id, author_id, parent_id, body, ip)
VALUES (:post_id, :author_id, :parent_id, :body, :ip::inet)
RETURNING id, status, created_at

-- name: comments/add_guest
-- description: A guest comments on a published post.
-- param: post_id integer
-- param: guest_name string
-- param: body string
-- args: {"post_id": 8, "guest_name": "Visitor", "body": "Thanks for this."}
INSERT INTO comments (post_id, guest_name, body)
SELECT :post_id, :guest_name, :body
WHERE EXISTS (SELECT 1 FROM posts WHERE id = :post_id AND status = 'published')
RETURNING id, author_id, status

-- name: comments/moderate
-- description: Set the status of some comments.
-- param: ids integer[]
-- param: status string
-- args: {"ids": [4, 5], "status": "deleted"}
UPDATE comments
SET status = :status::comment_status
WHERE id = ANY (:ids::bigint[])
RETURNING id, status

-- name: comments/pending
-- description: The moderation queue.
-- args: {}
SELECT c.id, p.title AS post, c.body, c.ip, host(c.ip) AS ip_text, c.created_at
FROM comments c
JOIN posts p ON p.id = c.post_id
WHERE c.status = 'pending'
ORDER BY c.created_at

-- name: comments/counts_per_post
-- description: Approved and pending comments of every post.
-- args: {}
SELECT p.id, p.title,
       count(c.id) FILTER (WHERE c.status = 'approved') AS approved,
       count(c.id) FILTER (WHERE c.status = 'pending') AS pending
FROM posts p
LEFT JOIN comments c ON c.post_id = p.id
GROUP BY p.id
ORDER BY p.id

-- name: comments/purge_spam
-- description: Delete the spam on an author's posts.
-- param: author_id uuid
-- args: {"author_id": "aaaaaaaa-0000-4000-8000-000000000001"}
DELETE FROM comments c
USING posts p
WHERE p.id = c.post_id AND c.status = 'spam' AND p.author_id = :author_id
RETURNING c.id, c.ip

-- name: comments/from_network
-- description: Comments sent from a network.
-- param: network string
-- args: {"network": "203.0.113.0/24"}
SELECT id, post_id, ip, status
FROM comments
WHERE ip << :network::inet
ORDER BY id

-- name: comments/latest_per_post
-- description: The latest approved comment of every post that has one.
-- args: {}
SELECT DISTINCT ON (c.post_id) c.post_id, c.id, c.body, c.created_at
FROM comments c
WHERE c.status = 'approved'
ORDER BY c.post_id, c.created_at DESC

-- name: comments/edit
-- description: Edit one's own comment.
-- param: comment_id integer
-- param: author_id uuid
-- param: body string
-- args: {"comment_id": 7, "author_id": "aaaaaaaa-0000-4000-8000-000000000001", "body": "Nice diagrams!"}
UPDATE comments
SET body = :body, edited_at = now()
WHERE id = :comment_id AND author_id = :author_id
RETURNING id, body, edited_at

-- name: comments/reply_counts
-- description: Direct replies of every comment.
-- args: {}
SELECT parent.id, parent.post_id, count(child.id) AS replies
FROM comments parent
LEFT JOIN comments child ON child.parent_id = parent.id
GROUP BY parent.id
ORDER BY parent.id

-- name: tags/cloud
-- description: Tags by the number of posts carrying them.
-- args: {}
SELECT t.name, t.slug, count(pt.post_id) AS posts
FROM tags t
LEFT JOIN post_tags pt ON pt.tag_id = t.id
GROUP BY t.id
ORDER BY posts DESC, t.name

-- name: tags/set_for_post
-- description: Make a post's tags exactly the given ones.
-- param: post_id integer
-- param: slugs string[]
-- args: {"post_id": 8, "slugs": ["databases", "news"]}
WITH wanted AS (
  SELECT id FROM tags WHERE slug = ANY (:slugs::text[])
), removed AS (
  DELETE FROM post_tags
  WHERE post_id = :post_id AND tag_id NOT IN (SELECT id FROM wanted)
  RETURNING tag_id
)
INSERT INTO post_tags (post_id, tag_id)
SELECT :post_id, id FROM wanted
ON CONFLICT DO NOTHING
RETURNING post_id, tag_id

-- name: tags/create
-- description: Create a tag from a name, or rename the tag with that slug.
-- param: name string
-- args: {"name": "Go Tips"}
-- args: {"name": "GO"}
INSERT INTO tags (name, slug)
VALUES (:name::text, lower(regexp_replace(:name::text, '[^a-zA-Z0-9]+', '-', 'g')))
ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name
RETURNING id, name, slug

-- name: tags/unused
-- description: Tags no post carries.
-- args: {}
SELECT t.id, t.name
FROM tags t
WHERE NOT EXISTS (SELECT FROM post_tags pt WHERE pt.tag_id = t.id)

-- name: tags/posts_with_all
-- description: Posts carrying every one of the tags.
-- param: slugs string[]
-- args: {"slugs": ["go", "tutorial"]}
SELECT pt.post_id
FROM post_tags pt
JOIN tags t ON t.id = pt.tag_id
WHERE t.slug = ANY (:slugs::text[])
GROUP BY pt.post_id
HAVING count(DISTINCT t.id) = cardinality(:slugs::text[])
ORDER BY pt.post_id

-- name: likes/like
-- description: Like a post once.
-- param: post_id integer
-- param: user_id uuid
-- args: {"post_id": 8, "user_id": "aaaaaaaa-0000-4000-8000-000000000006"}
INSERT INTO post_likes (post_id, user_id)
VALUES (:post_id, :user_id)
ON CONFLICT (post_id, user_id) DO NOTHING
RETURNING post_id, user_id, created_at

-- name: likes/who_liked
-- description: The users who liked a post.
-- param: post_id integer
-- args: {"post_id": 6}
SELECT u.username, u.display_name, l.created_at
FROM post_likes l
JOIN users u ON u.id = l.user_id
WHERE l.post_id = :post_id
ORDER BY l.created_at

-- name: likes/most_liked
-- description: Posts with at least some likes, with who liked them.
-- param: min_likes integer
-- args: {"min_likes": 2}
SELECT p.title, count(*) AS likes, string_agg(u.username, ', ' ORDER BY u.username) AS liked_by
FROM post_likes l
JOIN posts p ON p.id = l.post_id
JOIN users u ON u.id = l.user_id
GROUP BY p.title
HAVING count(*) >= :min_likes
ORDER BY likes DESC, p.title

-- name: analytics/daily_views
-- description: Views per post and day since a date, with a running total.
-- param: since date
-- args: {"since": "2000-01-01"}
SELECT pv.viewed_on, p.slug, pv.views, pv.avg_seconds,
       sum(pv.views) OVER (PARTITION BY pv.post_id ORDER BY pv.viewed_on) AS cumulative
FROM page_views pv
JOIN posts p ON p.id = pv.post_id
WHERE pv.viewed_on >= :since
ORDER BY 1, 2

-- name: analytics/engagement
-- description: Likes and comments per view of every published post.
-- args: {}
WITH likes AS (
  SELECT post_id, count(*) AS n FROM post_likes GROUP BY post_id
), approved AS (
  SELECT post_id, count(*) AS n FROM comments WHERE status = 'approved' GROUP BY post_id
)
SELECT p.id, p.title,
       COALESCE(l.n, 0) AS likes,
       COALESCE(c.n, 0) AS comments,
       p.view_count,
       (COALESCE(l.n, 0) + COALESCE(c.n, 0))::float8 / NULLIF(p.view_count, 0) AS engagement
FROM posts p
LEFT JOIN likes l ON l.post_id = p.id
LEFT JOIN approved c ON c.post_id = p.id
WHERE p.status = 'published'
ORDER BY engagement DESC NULLS LAST

-- name: analytics/recent_views
-- description: Views of yesterday and of the last week per post.
-- args: {}
SELECT p.slug,
       sum(pv.views) FILTER (WHERE pv.viewed_on = current_date - 1) AS yesterday,
       sum(pv.views) FILTER (WHERE pv.viewed_on >= current_date - 7) AS last_week
FROM posts p
JOIN page_views pv ON pv.post_id = p.id
GROUP BY p.slug
ORDER BY p.slug

-- name: media/for_post
-- description: A post's files with aspect ratio and readable size.
-- param: post_id integer
-- args: {"post_id": 6}
SELECT m.id, m.url, m.mime_type, m.width, m.height,
       m.width::float8 / NULLIF(m.height, 0) AS aspect,
       pg_size_pretty(m.bytes) AS size
FROM media m
WHERE m.post_id = :post_id
ORDER BY m.created_at

-- name: media/orphans
-- description: Files attached to no post, with their uploader.
-- args: {}
SELECT m.id, m.url, u.username AS uploader
FROM media m
JOIN users u ON u.id = m.uploader_id
WHERE m.post_id IS NULL

-- name: media/usage_by_kind
-- description: Files and bytes per kind of file.
-- args: {}
SELECT split_part(mime_type, '/', 1) AS kind, count(*) AS files, sum(bytes) AS bytes, avg(bytes)::bigint AS avg_bytes
FROM media
GROUP BY 1
ORDER BY 1

-- name: newsletter/subscribe
-- description: Subscribe an email to topics, adding to earlier topics.
-- param: email string
-- param: user_id uuid optional
-- param: topics string[]
-- args: {"email": "Reader@Example.org", "user_id": null, "topics": ["databases"]}
-- args: {"email": "new@example.org", "user_id": null, "topics": ["go"]}
INSERT INTO subscriptions (email, user_id, topics)
VALUES (lower(:email), :user_id, :topics)
ON CONFLICT (email) DO UPDATE
SET topics = (SELECT array_agg(DISTINCT t ORDER BY t) FROM unnest(subscriptions.topics || EXCLUDED.topics) AS t),
    unsubscribed_at = NULL
RETURNING email, topics, confirmed_at

-- name: newsletter/confirm
-- description: Confirm a subscription.
-- param: email string
-- args: {"email": "reader@example.org"}
UPDATE subscriptions SET confirmed_at = now() WHERE email = :email AND confirmed_at IS NULL RETURNING email, confirmed_at

-- name: newsletter/recipients
-- description: Confirmed, subscribed recipients of a topic with a name to greet.
-- param: topic string
-- args: {"topic": "go"}
SELECT s.email, COALESCE(u.display_name, u.username, s.email) AS name
FROM subscriptions s
LEFT JOIN users u ON u.id = s.user_id
WHERE s.confirmed_at IS NOT NULL AND s.unsubscribed_at IS NULL AND :topic = ANY (s.topics)
ORDER BY s.email

-- name: newsletter/unsubscribe
-- description: Unsubscribe an email.
-- param: email string
-- args: {"email": "Fan@Example.org"}
UPDATE subscriptions SET unsubscribed_at = now() WHERE email = lower(:email) RETURNING email, unsubscribed_at

-- name: newsletter/topic_counts
-- description: Live subscriptions per topic.
-- args: {}
SELECT topic, count(*) AS subscribers
FROM subscriptions, LATERAL unnest(topics) AS topic
WHERE unsubscribed_at IS NULL
GROUP BY topic
ORDER BY topic
