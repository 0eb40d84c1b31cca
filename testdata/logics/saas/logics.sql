-- Logics of the multi-tenant SaaS corpus. Each starts with "-- name:",
-- then its description, params (NAME TYPE [optional]) and one or more
-- argument sets (JSON) that make it return rows on seed.sql's rows. Every
-- tenant-scoped logic takes the tenant as a param.

-- name: tenants/by_slug
-- description: A tenant by slug with its timezone.
-- param: slug string
-- args: {"slug": "acme"}
-- args: {"slug": "initech"}
SELECT t.id, t.name, t.plan,
       t.settings ->> 'timezone' AS timezone,
       t.suspended_at IS NOT NULL AS suspended
FROM tenants t
WHERE t.slug = :slug

-- name: tenants/create
-- description: Create a tenant, on the free plan unless told otherwise.
-- param: slug string
-- param: name string
-- param: plan string optional
-- args: {"slug": "Hooli", "name": "Hooli", "plan": null}
-- args: {"slug": "pied-piper", "name": "Pied Piper", "plan": "team"}
INSERT INTO tenants (slug, name, plan)
VALUES (lower(:slug), :name, COALESCE(:plan::plan_tier, 'free'))
RETURNING id, slug, plan, created_at

-- name: tenants/overview
-- description: Every tenant with its subscription, members and live projects.
-- args: {}
SELECT t.slug, t.plan, s.status AS subscription_status, s.seats,
       (SELECT count(*) FROM memberships m WHERE m.tenant_id = t.id AND m.joined_at IS NOT NULL) AS members,
       (SELECT count(*) FROM projects p WHERE p.tenant_id = t.id AND NOT p.archived) AS projects
FROM tenants t
LEFT JOIN subscriptions s ON s.tenant_id = t.id
ORDER BY t.slug

-- name: tenants/set_project_limit
-- description: Set the project limit in a tenant's settings.
-- param: tenant_id uuid
-- param: max_projects integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "max_projects": 20}
UPDATE tenants
SET settings = jsonb_set(settings, '{limits,projects}', to_jsonb(:max_projects::int), true)
WHERE id = :tenant_id
RETURNING settings #> '{limits,projects}' AS max_projects

-- name: tenants/suspend
-- description: Suspend a tenant.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002"}
UPDATE tenants SET suspended_at = now() WHERE id = :tenant_id AND suspended_at IS NULL RETURNING id, suspended_at

-- name: tenants/count_by_plan
-- description: Tenants per plan, with a total row.
-- args: {}
SELECT plan, count(*) AS tenants
FROM tenants
GROUP BY ROLLUP (plan)
ORDER BY plan NULLS LAST

-- name: tenants/settings_entries
-- description: Every top-level settings key of every tenant.
-- args: {}
SELECT t.slug, s.key, s.value, jsonb_typeof(s.value) AS value_type
FROM tenants t, jsonb_each(t.settings) AS s
ORDER BY t.slug, s.key

-- name: tenants/set_flag
-- description: Turn a feature flag on or off for a tenant, creating it if needed.
-- param: tenant_id uuid
-- param: flag string
-- param: enabled boolean
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "flag": "ai_summary", "enabled": true}
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000004", "flag": "new_editor", "enabled": false}
MERGE INTO feature_flags f
USING (SELECT :tenant_id::uuid AS tenant_id, :flag::text AS flag, :enabled::boolean AS enabled) src
ON f.tenant_id = src.tenant_id AND f.flag = src.flag
WHEN MATCHED THEN
  UPDATE SET enabled = src.enabled, updated_at = now()
WHEN NOT MATCHED THEN
  INSERT (tenant_id, flag, enabled) VALUES (src.tenant_id, src.flag, src.enabled)

-- name: members/list
-- description: A tenant's members and invitations with who invited them.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT u.id, u.name, u.email, m.role, m.joined_at, inviter.name AS invited_by
FROM memberships m
JOIN users u ON u.id = m.user_id
LEFT JOIN users inviter ON inviter.id = m.invited_by
WHERE m.tenant_id = :tenant_id
ORDER BY m.role, u.name

-- name: members/directory
-- description: Names, emails and roles of a tenant's joined members.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT name, email, role, joined_at
FROM memberships
JOIN users ON users.id = memberships.user_id
WHERE tenant_id = :tenant_id AND joined_at IS NOT NULL
ORDER BY name

-- name: members/invite
-- description: Invite a known user by email; inviting twice changes nothing.
-- param: tenant_id uuid
-- param: email string
-- param: role string
-- param: invited_by uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "email": "Bob@Acme.test", "role": "member", "invited_by": "dddddddd-0000-4000-8000-000000000003"}
INSERT INTO memberships (tenant_id, user_id, role, invited_by)
SELECT :tenant_id, u.id, :role::member_role, :invited_by
FROM users u
WHERE u.email = lower(:email)
ON CONFLICT (tenant_id, user_id) DO NOTHING
RETURNING user_id, role, invited_at

-- name: members/accept
-- description: Accept a pending invitation.
-- param: tenant_id uuid
-- param: user_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "user_id": "dddddddd-0000-4000-8000-000000000006"}
UPDATE memberships
SET joined_at = now()
WHERE tenant_id = :tenant_id AND user_id = :user_id AND joined_at IS NULL
RETURNING tenant_id, user_id, joined_at

-- name: members/set_role
-- description: Change a member's role; owners keep theirs.
-- param: tenant_id uuid
-- param: user_id uuid
-- param: role string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "user_id": "dddddddd-0000-4000-8000-000000000004", "role": "admin"}
UPDATE memberships
SET role = :role::member_role
WHERE tenant_id = :tenant_id AND user_id = :user_id AND role <> 'owner'
RETURNING role

-- name: members/remove
-- description: Remove a member who is not an owner.
-- param: tenant_id uuid
-- param: user_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "user_id": "dddddddd-0000-4000-8000-000000000006"}
DELETE FROM memberships
WHERE tenant_id = :tenant_id AND user_id = :user_id AND role <> 'owner'
RETURNING user_id, role

-- name: members/role_counts
-- description: Members per tenant and role, with a subtotal per tenant.
-- args: {}
SELECT tenant_id, role, count(*) AS members
FROM memberships
GROUP BY GROUPING SETS ((tenant_id, role), (tenant_id))
ORDER BY tenant_id, role NULLS LAST

-- name: members/pending_invitations
-- description: Invitations not accepted yet, oldest first.
-- args: {}
SELECT t.slug, u.email, m.invited_at, now() - m.invited_at AS waiting
FROM memberships m
JOIN tenants t ON t.id = m.tenant_id
JOIN users u ON u.id = m.user_id
WHERE m.joined_at IS NULL
ORDER BY m.invited_at

-- name: members/tenants_of_user
-- description: The live tenants a user has joined.
-- param: user_id uuid
-- args: {"user_id": "dddddddd-0000-4000-8000-000000000001"}
SELECT t.id, t.slug, t.name, m.role
FROM memberships m
JOIN tenants t ON t.id = m.tenant_id
WHERE m.user_id = :user_id AND m.joined_at IS NOT NULL AND t.suspended_at IS NULL
ORDER BY t.name

-- name: members/can_access
-- description: Whether a user may use a tenant.
-- param: tenant_id uuid
-- param: user_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "user_id": "dddddddd-0000-4000-8000-000000000004"}
SELECT EXISTS (
  SELECT 1
  FROM memberships m
  JOIN tenants t ON t.id = m.tenant_id
  WHERE m.tenant_id = :tenant_id AND m.user_id = :user_id
    AND m.joined_at IS NOT NULL AND t.suspended_at IS NULL
) AS allowed

-- name: members/seat_usage
-- description: Paid seats used and free per tenant.
-- args: {}
SELECT t.slug, s.seats,
       count(m.user_id) FILTER (WHERE m.role <> 'guest' AND m.joined_at IS NOT NULL) AS used,
       s.seats - count(m.user_id) FILTER (WHERE m.role <> 'guest' AND m.joined_at IS NOT NULL) AS free
FROM tenants t
JOIN subscriptions s ON s.tenant_id = t.id
LEFT JOIN memberships m ON m.tenant_id = t.id
GROUP BY t.slug, s.seats
ORDER BY t.slug

-- name: users/touch
-- description: Record that a user was seen.
-- param: user_id uuid
-- args: {"user_id": "dddddddd-0000-4000-8000-000000000003"}
UPDATE users SET last_seen_at = now() WHERE id = :user_id RETURNING last_seen_at

-- name: users/idle
-- description: Users not seen for longer than an interval, or never.
-- param: idle string
-- args: {"idle": "30 days"}
SELECT id, email, last_seen_at
FROM users
WHERE last_seen_at IS NULL OR last_seen_at < now() - :idle::interval
ORDER BY email

-- name: users/staff_and_owners
-- description: Staff and tenant owners, once each.
-- args: {}
SELECT id, email FROM users WHERE is_staff
UNION
SELECT u.id, u.email FROM users u JOIN memberships m ON m.user_id = u.id WHERE m.role = 'owner'
ORDER BY email

-- name: projects/list
-- description: A tenant's projects with task counts.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT p.id, p.key, p.name, p.archived, u.name AS created_by,
       count(tk.id) AS tasks,
       count(tk.id) FILTER (WHERE tk.status NOT IN ('done', 'canceled')) AS open_tasks
FROM projects p
JOIN users u ON u.id = p.created_by
LEFT JOIN tasks tk ON tk.tenant_id = p.tenant_id AND tk.project_id = p.id
WHERE p.tenant_id = :tenant_id
GROUP BY p.tenant_id, p.id, u.name
ORDER BY p.key

-- name: projects/create
-- description: Create a project with the tenant's next project number.
-- param: tenant_id uuid
-- param: key string
-- param: name string
-- param: description string optional
-- param: created_by uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "key": "sec", "name": "Security", "description": null, "created_by": "dddddddd-0000-4000-8000-000000000003"}
INSERT INTO projects (tenant_id, id, key, name, description, created_by)
SELECT :tenant_id, COALESCE(max(id), 0) + 1, upper(:key), :name, :description, :created_by
FROM projects
WHERE tenant_id = :tenant_id
RETURNING id, key, archived, created_at

-- name: projects/archive
-- description: Archive a project.
-- param: tenant_id uuid
-- param: project_id integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "project_id": 2}
UPDATE projects SET archived = true WHERE tenant_id = :tenant_id AND id = :project_id RETURNING id, archived

-- name: projects/by_key
-- description: A project by its key.
-- param: tenant_id uuid
-- param: key string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "key": "web"}
SELECT p.*
FROM projects p
WHERE p.tenant_id = :tenant_id AND p.key = upper(:key)

-- name: projects/progress
-- description: Share of done tasks per project of a tenant.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
WITH counts AS (
  SELECT project_id, count(*) AS total, count(*) FILTER (WHERE status = 'done') AS done
  FROM tasks
  WHERE tenant_id = :tenant_id
  GROUP BY project_id
)
SELECT p.key, c.total, c.done, round(100.0 * c.done / NULLIF(c.total, 0), 1) AS percent_done
FROM projects p
JOIN counts c ON c.project_id = p.id
WHERE p.tenant_id = :tenant_id
ORDER BY p.key

-- name: projects/delete_archived_empty
-- description: Delete archived projects whose tasks are all canceled.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
DELETE FROM projects p
WHERE p.tenant_id = :tenant_id
  AND p.archived
  AND NOT EXISTS (
    SELECT 1 FROM tasks t
    WHERE t.tenant_id = p.tenant_id AND t.project_id = p.id AND t.status <> 'canceled'
  )
RETURNING p.key

-- name: tasks/get
-- description: One task with its reference, project, assignee and reporter.
-- param: tenant_id uuid
-- param: task_id integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 3}
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 1}
SELECT tk.id, p.key || '-' || tk.number AS ref, tk.title, tk.description, tk.status, tk.priority,
       a.name AS assignee, r.name AS reporter, tk.due_on, tk.estimate_hours, tk.labels
FROM tasks tk
JOIN projects p ON p.tenant_id = tk.tenant_id AND p.id = tk.project_id
LEFT JOIN users a ON a.id = tk.assignee_id
JOIN users r ON r.id = tk.reporter_id
WHERE tk.tenant_id = :tenant_id AND tk.id = :task_id

-- name: tasks/board
-- description: A project's tasks grouped by status, most urgent first.
-- param: tenant_id uuid
-- param: project_id integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "project_id": 1}
SELECT status, count(*) AS tasks, array_agg(id ORDER BY priority DESC, id) AS task_ids
FROM tasks
WHERE tenant_id = :tenant_id AND project_id = :project_id
GROUP BY status
ORDER BY status

-- name: tasks/create
-- description: Create a task with the next task id of the tenant and number of the project.
-- param: tenant_id uuid
-- param: project_id integer
-- param: title string
-- param: priority string
-- param: assignee_id uuid optional
-- param: reporter_id uuid
-- param: due_on date optional
-- param: labels string[]
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "project_id": 2, "title": "Dark mode", "priority": "low", "assignee_id": null, "reporter_id": "dddddddd-0000-4000-8000-000000000004", "due_on": "2030-06-01", "labels": ["mobile", "ui"]}
WITH next AS (
  SELECT COALESCE(max(t.id), 0) + 1 AS id,
         COALESCE(max(t.number) FILTER (WHERE t.project_id = :project_id), 0) + 1 AS number
  FROM tasks t
  WHERE t.tenant_id = :tenant_id
)
INSERT INTO tasks (tenant_id, id, project_id, number, title, priority, assignee_id, reporter_id, due_on, labels)
SELECT :tenant_id, next.id, :project_id, next.number, :title, :priority::task_priority, :assignee_id, :reporter_id, :due_on, :labels
FROM next
RETURNING id, number, status, created_at

-- name: tasks/assign
-- description: Assign a task to a member of its tenant.
-- param: tenant_id uuid
-- param: task_id integer
-- param: assignee_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 3, "assignee_id": "dddddddd-0000-4000-8000-000000000004"}
UPDATE tasks
SET assignee_id = :assignee_id
WHERE tenant_id = :tenant_id AND id = :task_id
  AND EXISTS (
    SELECT 1 FROM memberships m
    WHERE m.tenant_id = tasks.tenant_id AND m.user_id = :assignee_id AND m.joined_at IS NOT NULL
  )
RETURNING id, assignee_id

-- name: tasks/transition
-- description: Move a task to a status, stamping completion when done.
-- param: tenant_id uuid
-- param: task_id integer
-- param: status string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 2, "status": "done"}
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 5, "status": "blocked"}
UPDATE tasks
SET status = :status::task_status,
    completed_at = CASE WHEN :status::task_status = 'done' THEN now() END
WHERE tenant_id = :tenant_id AND id = :task_id
RETURNING id, status, completed_at

-- name: tasks/overdue
-- description: Open tasks past their due date, latest first.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT tk.id, tk.title, tk.due_on, current_date - tk.due_on AS days_late, a.email AS assignee_email
FROM tasks tk
LEFT JOIN users a ON a.id = tk.assignee_id
WHERE tk.tenant_id = :tenant_id AND tk.due_on < current_date AND tk.status NOT IN ('done', 'canceled')
ORDER BY days_late DESC

-- name: tasks/assigned_to_user
-- description: A user's open tasks in every tenant.
-- param: user_id uuid
-- args: {"user_id": "dddddddd-0000-4000-8000-000000000004"}
SELECT t.slug AS tenant, tk.id, tk.title, tk.priority, tk.due_on
FROM tasks tk
JOIN tenants t ON t.id = tk.tenant_id
WHERE tk.assignee_id = :user_id AND tk.status IN ('todo', 'in_progress', 'blocked')
ORDER BY tk.priority DESC, tk.due_on NULLS LAST

-- name: tasks/search
-- description: Tasks whose title or description matches a LIKE pattern.
-- param: tenant_id uuid
-- param: pattern string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "pattern": "%pricing%"}
SELECT tk.id, tk.title, tk.description
FROM tasks tk
WHERE tk.tenant_id = :tenant_id AND (tk.title ILIKE :pattern OR tk.description ILIKE :pattern)
ORDER BY tk.id

-- name: tasks/with_label
-- description: Tasks carrying a label.
-- param: tenant_id uuid
-- param: label string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "label": "frontend"}
SELECT id, title, labels
FROM tasks
WHERE tenant_id = :tenant_id AND labels @> ARRAY[:label::text]
ORDER BY id

-- name: tasks/label_stats
-- description: Tasks and done tasks per label.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT label, count(*) AS tasks, count(*) FILTER (WHERE status = 'done') AS done
FROM tasks, unnest(labels) AS label
WHERE tenant_id = :tenant_id
GROUP BY label
ORDER BY label

-- name: tasks/subtree
-- description: A task and all its subtasks, depth first.
-- param: tenant_id uuid
-- param: task_id integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 1}
WITH RECURSIVE tree AS (
  SELECT tenant_id, id, parent_task_id, title, 0 AS level
  FROM tasks
  WHERE tenant_id = :tenant_id AND id = :task_id
  UNION ALL
  SELECT c.tenant_id, c.id, c.parent_task_id, c.title, tree.level + 1
  FROM tasks c
  JOIN tree ON c.tenant_id = tree.tenant_id AND c.parent_task_id = tree.id
) SEARCH DEPTH FIRST BY id SET ordering
SELECT id, parent_task_id, title, level
FROM tree
ORDER BY ordering

-- name: tasks/with_parent
-- description: Subtasks with their parent task.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT c.id, c.title, p.id AS parent_id, p.title AS parent_title
FROM tasks c
JOIN tasks p ON p.tenant_id = c.tenant_id AND p.id = c.parent_task_id
WHERE c.tenant_id = :tenant_id
ORDER BY c.id

-- name: tasks/estimate_vs_actual
-- description: Estimated against logged hours per task.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
WITH spent AS (
  SELECT tenant_id, task_id, sum(duration) AS spent
  FROM time_entries
  GROUP BY tenant_id, task_id
)
SELECT tk.id, tk.title, tk.estimate_hours,
       EXTRACT(epoch FROM s.spent) / 3600 AS spent_hours,
       tk.estimate_hours - EXTRACT(epoch FROM s.spent) / 3600 AS remaining_hours
FROM tasks tk
LEFT JOIN spent s ON s.tenant_id = tk.tenant_id AND s.task_id = tk.id
WHERE tk.tenant_id = :tenant_id
ORDER BY tk.id

-- name: tasks/priority_matrix
-- description: Open tasks per project and priority.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT project_id,
       count(*) FILTER (WHERE priority = 'urgent') AS urgent,
       sum(CASE WHEN priority = 'high' THEN 1 ELSE 0 END) AS high,
       sum(CASE WHEN priority IN ('medium', 'low') THEN 1 ELSE 0 END) AS other
FROM tasks
WHERE tenant_id = :tenant_id AND status NOT IN ('done', 'canceled')
GROUP BY project_id
ORDER BY project_id

-- name: tasks/cancel_many
-- description: Cancel several tasks that are not done.
-- param: tenant_id uuid
-- param: task_ids integer[]
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_ids": [3, 5, 1]}
UPDATE tasks
SET status = 'canceled'
WHERE tenant_id = :tenant_id AND id = ANY (:task_ids) AND status <> 'done'
RETURNING id, status

-- name: tasks/due_calendar
-- description: Tasks due on each of the next days, zero where none.
-- param: tenant_id uuid
-- param: days integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "days": 7}
SELECT d::date AS day, count(tk.id) AS due
FROM generate_series(current_date, current_date + :days::int, interval '1 day') AS d
LEFT JOIN tasks tk ON tk.due_on = d::date AND tk.tenant_id = :tenant_id
GROUP BY d
ORDER BY d

-- name: tasks/completion_trend
-- description: Completed tasks and average cycle time per week.
-- args: {}
SELECT date_trunc('week', completed_at)::date AS week,
       count(*) AS completed,
       avg(completed_at - created_at) AS avg_cycle_time
FROM tasks
WHERE completed_at IS NOT NULL
GROUP BY 1
ORDER BY 1

-- name: tasks/move_to_project
-- description: Move a task to another project of its tenant, by key.
-- param: tenant_id uuid
-- param: task_id integer
-- param: project_key string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 3, "project_key": "app"}
UPDATE tasks t
SET project_id = p.id
FROM projects p
WHERE p.tenant_id = t.tenant_id AND p.key = upper(:project_key)
  AND t.tenant_id = :tenant_id AND t.id = :task_id
RETURNING t.id, p.key AS project_key

-- name: tasks/purge_canceled
-- description: Delete canceled tasks older than a year.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
DELETE FROM tasks
WHERE tenant_id = :tenant_id AND status = 'canceled' AND created_at < now() - interval '1 year'

-- name: comments/for_task
-- description: The comments of a task, oldest first.
-- param: tenant_id uuid
-- param: task_id integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 4}
SELECT c.id, u.name AS author, c.body, c.created_at
FROM task_comments c
JOIN users u ON u.id = c.author_id
WHERE c.tenant_id = :tenant_id AND c.task_id = :task_id
ORDER BY c.created_at

-- name: comments/add
-- description: Comment on a task.
-- param: tenant_id uuid
-- param: task_id integer
-- param: author_id uuid
-- param: body string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "task_id": 2, "author_id": "dddddddd-0000-4000-8000-000000000006", "body": "Done with the handover"}
INSERT INTO task_comments (tenant_id, task_id, author_id, body)
VALUES (:tenant_id, :task_id, :author_id, :body)
RETURNING id, created_at

-- name: comments/last_per_task
-- description: Every task of a tenant with its latest comment, if any.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT tk.id, tk.title, lc.body AS last_comment, lc.created_at AS last_comment_at
FROM tasks tk
LEFT JOIN LATERAL (
  SELECT c.body, c.created_at
  FROM task_comments c
  WHERE c.tenant_id = tk.tenant_id AND c.task_id = tk.id
  ORDER BY c.created_at DESC
  LIMIT 1
) lc ON true
WHERE tk.tenant_id = :tenant_id
ORDER BY tk.id

-- name: time/log
-- description: Log minutes of work on a task.
-- param: tenant_id uuid
-- param: task_id integer
-- param: user_id uuid
-- param: started_at timestamp
-- param: minutes integer
-- param: billable boolean optional
-- param: note string optional
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "task_id": 5, "user_id": "dddddddd-0000-4000-8000-000000000004", "started_at": "2026-09-30T09:00:00Z", "minutes": 90, "billable": null, "note": null}
INSERT INTO time_entries (tenant_id, task_id, user_id, started_at, duration, billable, note)
VALUES (:tenant_id, :task_id, :user_id, :started_at, make_interval(mins => :minutes), COALESCE(:billable, true), :note)
RETURNING id, duration, billable

-- name: time/weekly_by_user
-- description: Logged and billable time per user and week.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT u.name, date_trunc('week', te.started_at) AS week,
       sum(te.duration) AS total,
       sum(te.duration) FILTER (WHERE te.billable) AS billable
FROM time_entries te
JOIN users u ON u.id = te.user_id
WHERE te.tenant_id = :tenant_id
GROUP BY u.name, week
ORDER BY week, u.name

-- name: time/billable_by_project
-- description: Billable hours per project, ranked.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT p.key,
       sum(EXTRACT(epoch FROM te.duration)) / 3600 AS hours,
       rank() OVER (ORDER BY sum(te.duration) DESC) AS rank
FROM time_entries te
JOIN tasks tk ON tk.tenant_id = te.tenant_id AND tk.id = te.task_id
JOIN projects p ON p.tenant_id = tk.tenant_id AND p.id = tk.project_id
WHERE te.tenant_id = :tenant_id AND te.billable
GROUP BY p.key
ORDER BY rank

-- name: time/delete_entry
-- description: Delete one's own time entry.
-- param: entry_id integer
-- param: user_id uuid
-- args: {"entry_id": 4, "user_id": "dddddddd-0000-4000-8000-000000000002"}
DELETE FROM time_entries WHERE id = :entry_id AND user_id = :user_id RETURNING task_id, duration

-- name: billing/subscription
-- description: A tenant's subscription with its monthly price.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000004"}
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT s.plan, s.status, s.seats,
       s.seats * s.price_per_seat_cents AS monthly_cents,
       s.current_period_end, s.trial_ends_at,
       s.trial_ends_at > now() AS in_trial
FROM subscriptions s
WHERE s.tenant_id = :tenant_id

-- name: billing/change_seats
-- description: Change the seats of a subscription, never below the paid members.
-- param: tenant_id uuid
-- param: seats integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "seats": 3}
UPDATE subscriptions
SET seats = :seats
WHERE tenant_id = :tenant_id
  AND :seats >= (SELECT count(*) FROM memberships m WHERE m.tenant_id = :tenant_id AND m.role <> 'guest')
RETURNING seats, seats * price_per_seat_cents AS monthly_cents

-- name: billing/subscribe
-- description: Start or change a tenant's paid subscription.
-- param: tenant_id uuid
-- param: plan string
-- param: seats integer
-- param: price integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000003", "plan": "team", "seats": 3, "price": 1200}
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000004", "plan": "business", "seats": 12, "price": 1800}
INSERT INTO subscriptions (tenant_id, plan, status, seats, price_per_seat_cents, current_period_start, current_period_end)
VALUES (:tenant_id, :plan::plan_tier, 'active', :seats, :price, now(), now() + interval '1 month')
ON CONFLICT (tenant_id) DO UPDATE
SET plan = EXCLUDED.plan, seats = EXCLUDED.seats, price_per_seat_cents = EXCLUDED.price_per_seat_cents, status = 'active'
RETURNING tenant_id, plan, status, seats

-- name: billing/open_invoices
-- description: Open invoices with their balance, oldest due first.
-- args: {}
SELECT i.number, t.slug, i.amount_due_cents - i.amount_paid_cents AS balance_cents, i.due_on,
       i.due_on < current_date AS overdue
FROM invoices i
JOIN tenants t ON t.id = i.tenant_id
WHERE i.status = 'open'
ORDER BY i.due_on

-- name: billing/invoice_lines
-- description: The lines of a tenant's invoices.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002"}
SELECT i.number,
       l.line ->> 'description' AS description,
       (l.line ->> 'quantity')::int AS quantity,
       (l.line ->> 'unit_cents')::bigint AS unit_cents,
       l.ord
FROM invoices i
CROSS JOIN LATERAL jsonb_array_elements(i.lines) WITH ORDINALITY AS l(line, ord)
WHERE i.tenant_id = :tenant_id
ORDER BY i.number, l.ord

-- name: billing/record_payment
-- description: Record a payment on an open invoice, closing it when paid in full.
-- param: number string
-- param: amount_cents integer
-- args: {"number": "INV-2026-0003", "amount_cents": 5000}
-- args: {"number": "INV-2026-0002", "amount_cents": 1000}
UPDATE invoices
SET amount_paid_cents = amount_paid_cents + :amount_cents,
    status = CASE WHEN amount_paid_cents + :amount_cents >= amount_due_cents THEN 'paid'::invoice_status ELSE status END,
    paid_at = CASE WHEN amount_paid_cents + :amount_cents >= amount_due_cents THEN now() ELSE paid_at END
WHERE number = :number AND status = 'open'
RETURNING number, status, paid_at, amount_due_cents - amount_paid_cents AS balance_cents

-- name: billing/revenue_by_month
-- description: Paid amounts per month.
-- args: {}
SELECT to_char(paid_at, 'YYYY-MM') AS month, sum(amount_paid_cents) AS paid_cents, count(*) AS invoices
FROM invoices
WHERE status = 'paid'
GROUP BY 1
ORDER BY 1

-- name: billing/issue_invoice
-- description: Issue an invoice for a tenant's current subscription.
-- param: tenant_id uuid
-- param: number string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000004", "number": "INV-2026-0006"}
INSERT INTO invoices (tenant_id, number, status, amount_due_cents, issued_at, due_on, lines)
SELECT s.tenant_id, :number, 'open', s.seats * s.price_per_seat_cents, now(), current_date + 30,
       jsonb_build_array(jsonb_build_object(
         'description', initcap(s.plan::text) || ' seats',
         'quantity', s.seats,
         'unit_cents', s.price_per_seat_cents))
FROM subscriptions s
WHERE s.tenant_id = :tenant_id
RETURNING id, number, amount_due_cents, due_on, lines

-- name: billing/dunning
-- description: Tenants owing money on overdue invoices.
-- args: {}
WITH overdue AS (
  SELECT tenant_id, sum(amount_due_cents - amount_paid_cents) AS owed, min(due_on) AS oldest_due
  FROM invoices
  WHERE status = 'open' AND due_on < current_date
  GROUP BY tenant_id
)
SELECT t.slug, o.owed, current_date - o.oldest_due AS days_overdue, s.status AS subscription_status
FROM overdue o
JOIN tenants t ON t.id = o.tenant_id
LEFT JOIN subscriptions s ON s.tenant_id = t.id
ORDER BY o.owed DESC

-- name: billing/void_drafts
-- description: Void a tenant's draft invoices.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002"}
UPDATE invoices SET status = 'void' WHERE status = 'draft' AND tenant_id = :tenant_id RETURNING number, status

-- name: keys/authenticate
-- description: Check an API key and record its use; returns its tenant and scopes.
-- param: prefix string
-- param: secret string
-- args: {"prefix": "ak_live_01", "secret": "s3cret-ci"}
UPDATE api_keys
SET last_used_at = now()
WHERE prefix = :prefix
  AND secret_hash = sha256(convert_to(:secret, 'UTF8'))
  AND revoked_at IS NULL
  AND (expires_at IS NULL OR expires_at > now())
RETURNING tenant_id, scopes

-- name: keys/list
-- description: A tenant's API keys with their state and creator.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002"}
SELECT k.name, k.prefix, k.scopes, k.created_at, k.last_used_at, creator.name AS created_by,
       CASE
         WHEN k.revoked_at IS NOT NULL THEN 'revoked'
         WHEN k.expires_at < now() THEN 'expired'
         ELSE 'active'
       END AS state
FROM api_keys k
LEFT JOIN users creator ON creator.id = k.created_by
WHERE k.tenant_id = :tenant_id
ORDER BY k.created_at

-- name: keys/create
-- description: Create an API key valid for a number of days.
-- param: tenant_id uuid
-- param: name string
-- param: prefix string
-- param: secret string
-- param: scopes string[]
-- param: created_by uuid
-- param: valid_days integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "name": "Backups", "prefix": "ak_live_04", "secret": "b4ckup", "scopes": ["read"], "created_by": "dddddddd-0000-4000-8000-000000000003", "valid_days": 90}
INSERT INTO api_keys (tenant_id, name, prefix, secret_hash, scopes, created_by, expires_at)
VALUES (:tenant_id, :name, :prefix, sha256(convert_to(:secret, 'UTF8')), :scopes, :created_by, now() + make_interval(days => :valid_days))
RETURNING id, prefix, expires_at

-- name: keys/revoke
-- description: Revoke an API key.
-- param: tenant_id uuid
-- param: prefix string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "prefix": "ak_live_01"}
UPDATE api_keys
SET revoked_at = now()
WHERE tenant_id = :tenant_id AND prefix = :prefix AND revoked_at IS NULL
RETURNING prefix, revoked_at

-- name: keys/with_scope
-- description: Live keys of a tenant that carry a scope.
-- param: tenant_id uuid
-- param: scope string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "scope": "metrics"}
SELECT prefix, name
FROM api_keys
WHERE tenant_id = :tenant_id AND :scope = ANY (scopes) AND revoked_at IS NULL

-- name: usage/record
-- description: Add to today's usage of a metric.
-- param: tenant_id uuid
-- param: metric string
-- param: quantity integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "metric": "api_calls", "quantity": 250}
INSERT INTO usage_daily (tenant_id, metric, day, quantity)
VALUES (:tenant_id, :metric, current_date, :quantity)
ON CONFLICT (tenant_id, metric, day) DO UPDATE SET quantity = usage_daily.quantity + EXCLUDED.quantity
RETURNING day, quantity

-- name: usage/last_30_days
-- description: Total, peak and average daily usage per metric over 30 days.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT metric, sum(quantity) AS total, max(quantity) AS peak_day, avg(quantity)::numeric(14,1) AS daily_avg
FROM usage_daily
WHERE tenant_id = :tenant_id AND day >= current_date - 30
GROUP BY metric
ORDER BY metric

-- name: usage/over_plan
-- description: Days on which a tenant used more than a share of its plan's daily API limit.
-- param: factor number
-- args: {"factor": 0.01}
WITH limits (plan, metric, max_daily) AS (
  VALUES ('free'::plan_tier, 'api_calls', 1000),
         ('team', 'api_calls', 10000),
         ('business', 'api_calls', 100000),
         ('enterprise', 'api_calls', 1000000)
)
SELECT t.slug, u.day, u.quantity, l.max_daily
FROM usage_daily u
JOIN tenants t ON t.id = u.tenant_id
JOIN limits l ON l.plan = t.plan AND l.metric = u.metric
WHERE u.quantity > l.max_daily * :factor::numeric
ORDER BY t.slug, u.day

-- name: usage/last_week_series
-- description: One row per day of the last week, zero where nothing was recorded.
-- param: tenant_id uuid
-- param: metric string
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "metric": "api_calls"}
SELECT d::date AS day, COALESCE(u.quantity, 0) AS quantity
FROM generate_series(current_date - 6, current_date, interval '1 day') AS d
LEFT JOIN usage_daily u ON u.day = d::date AND u.tenant_id = :tenant_id AND u.metric = :metric
ORDER BY d

-- name: usage/moving_average
-- description: Daily API calls with their seven-day moving average.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002"}
SELECT day, quantity,
       avg(quantity) OVER (ORDER BY day RANGE BETWEEN interval '6 days' PRECEDING AND CURRENT ROW) AS avg_7d
FROM usage_daily
WHERE tenant_id = :tenant_id AND metric = 'api_calls'
ORDER BY day

-- name: flags/for_tenant
-- description: A tenant's feature flags and their effective rollout.
-- param: tenant_id uuid
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001"}
SELECT flag, enabled, rollout_percent,
       COALESCE(rollout_percent, CASE WHEN enabled THEN 100 ELSE 0 END) AS effective_percent
FROM feature_flags
WHERE tenant_id = :tenant_id
ORDER BY flag

-- name: flags/enabled_everywhere
-- description: Flags enabled in every tenant that has them.
-- args: {}
SELECT flag, count(*) AS tenants
FROM feature_flags
GROUP BY flag
HAVING bool_and(enabled)
ORDER BY flag

-- name: audit/recent
-- description: A tenant's audit entries since a moment, newest first.
-- param: tenant_id uuid
-- param: since timestamp
-- param: limit integer
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000001", "since": "2000-01-01T00:00:00Z", "limit": 10}
SELECT a.created_at, COALESCE(u.email, 'system') AS actor, a.action, a.target_type, a.target_id, a.details
FROM audit_log a
LEFT JOIN users u ON u.id = a.actor_id
WHERE a.tenant_id = :tenant_id AND a.created_at > :since
ORDER BY a.created_at DESC
LIMIT :limit

-- name: audit/record
-- description: Write an audit entry.
-- param: tenant_id uuid
-- param: actor_id uuid optional
-- param: action string
-- param: target_type string optional
-- param: target_id string optional
-- param: ip string optional
-- param: details json optional
-- args: {"tenant_id": "cccccccc-0000-4000-8000-000000000002", "actor_id": "dddddddd-0000-4000-8000-000000000003", "action": "project.archive", "target_type": "project", "target_id": "1", "ip": "192.0.2.20", "details": {"reason": "done"}}
INSERT INTO audit_log (tenant_id, actor_id, action, target_type, target_id, ip, details)
VALUES (:tenant_id, :actor_id, :action, :target_type, :target_id, :ip::inet, :details::jsonb)
RETURNING id, created_at

-- name: audit/by_actor
-- description: Entries by an actor, or by the system when the actor is NULL.
-- param: actor_id uuid optional
-- args: {"actor_id": null}
-- args: {"actor_id": "dddddddd-0000-4000-8000-000000000002"}
SELECT id, tenant_id, action, created_at
FROM audit_log
WHERE actor_id IS NOT DISTINCT FROM :actor_id
ORDER BY id

-- name: audit/purge
-- description: Delete audit entries older than a number of days.
-- param: keep_days integer
-- args: {"keep_days": 365}
DELETE FROM audit_log
WHERE created_at < now() - make_interval(days => :keep_days)
RETURNING id, action

-- name: audit/actions_between
-- description: Actions in a time window, with the IP's network when known.
-- param: from timestamp
-- param: to timestamp
-- args: {"from": "2000-01-01T00:00:00Z", "to": "2999-01-01T00:00:00Z"}
SELECT action, created_at, ip, network(set_masklen(ip, 24)) AS network
FROM audit_log
WHERE created_at BETWEEN :from AND :to
ORDER BY created_at
