-- Seed rows of the multi-tenant SaaS corpus, timestamps relative to now().
-- Rows that make outer joins miss: tenant umbrella has no projects, some
-- tasks have no assignee, invitations are pending (joined_at NULL), an
-- API key has no creator, audit entries have no actor.

INSERT INTO tenants (id, slug, name, plan, settings, created_at, suspended_at) VALUES
  ('cccccccc-0000-4000-8000-000000000001', 'acme', 'Acme Corp', 'enterprise', '{"sso": true, "timezone": "Europe/Paris", "limits": {"projects": 100}}', now() - interval '600 days', NULL),
  ('cccccccc-0000-4000-8000-000000000002', 'globex', 'Globex', 'team', '{"timezone": "America/New_York"}', now() - interval '200 days', NULL),
  ('cccccccc-0000-4000-8000-000000000003', 'initech', 'Initech', 'free', '{}', now() - interval '30 days', now() - interval '2 days'),
  ('cccccccc-0000-4000-8000-000000000004', 'umbrella', 'Umbrella', 'business', '{}', now() - interval '10 days', NULL);

INSERT INTO users (id, email, name, avatar_url, is_staff, created_at, last_seen_at) VALUES
  ('dddddddd-0000-4000-8000-000000000001', 'alice@acme.test', 'Alice', '/a/alice.png', false, now() - interval '600 days', now() - interval '1 hour'),
  ('dddddddd-0000-4000-8000-000000000002', 'bob@acme.test', 'Bob', NULL, false, now() - interval '500 days', now() - interval '2 days'),
  ('dddddddd-0000-4000-8000-000000000003', 'carol@globex.test', 'Carol', NULL, false, now() - interval '200 days', NULL),
  ('dddddddd-0000-4000-8000-000000000004', 'dan@acme.test', 'Dan', '/a/dan.png', false, now() - interval '100 days', now() - interval '40 days'),
  ('dddddddd-0000-4000-8000-000000000005', 'eve@initech.test', 'Eve', NULL, false, now() - interval '30 days', NULL),
  ('dddddddd-0000-4000-8000-000000000006', 'frank@contractor.test', 'Frank', NULL, false, now() - interval '20 days', now() - interval '3 days'),
  ('dddddddd-0000-4000-8000-000000000007', 'support@saas.test', 'Support', NULL, true, now() - interval '900 days', now() - interval '10 minutes');

INSERT INTO memberships (tenant_id, user_id, role, invited_by, invited_at, joined_at) VALUES
  ('cccccccc-0000-4000-8000-000000000001', 'dddddddd-0000-4000-8000-000000000001', 'owner', NULL, now() - interval '600 days', now() - interval '600 days'),
  ('cccccccc-0000-4000-8000-000000000001', 'dddddddd-0000-4000-8000-000000000002', 'admin', 'dddddddd-0000-4000-8000-000000000001', now() - interval '500 days', now() - interval '499 days'),
  ('cccccccc-0000-4000-8000-000000000001', 'dddddddd-0000-4000-8000-000000000004', 'member', 'dddddddd-0000-4000-8000-000000000002', now() - interval '100 days', now() - interval '99 days'),
  ('cccccccc-0000-4000-8000-000000000001', 'dddddddd-0000-4000-8000-000000000006', 'guest', 'dddddddd-0000-4000-8000-000000000001', now() - interval '20 days', NULL),
  ('cccccccc-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000003', 'owner', NULL, now() - interval '200 days', now() - interval '200 days'),
  ('cccccccc-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000006', 'member', 'dddddddd-0000-4000-8000-000000000003', now() - interval '15 days', now() - interval '14 days'),
  ('cccccccc-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000001', 'guest', 'dddddddd-0000-4000-8000-000000000003', now() - interval '5 days', NULL),
  ('cccccccc-0000-4000-8000-000000000003', 'dddddddd-0000-4000-8000-000000000005', 'owner', NULL, now() - interval '30 days', now() - interval '30 days'),
  ('cccccccc-0000-4000-8000-000000000004', 'dddddddd-0000-4000-8000-000000000005', 'owner', NULL, now() - interval '10 days', now() - interval '10 days');

INSERT INTO projects (tenant_id, id, key, name, description, archived, created_by, created_at) VALUES
  ('cccccccc-0000-4000-8000-000000000001', 1, 'WEB', 'Website', 'Public site', false, 'dddddddd-0000-4000-8000-000000000001', now() - interval '590 days'),
  ('cccccccc-0000-4000-8000-000000000001', 2, 'APP', 'Mobile app', NULL, false, 'dddddddd-0000-4000-8000-000000000002', now() - interval '300 days'),
  ('cccccccc-0000-4000-8000-000000000001', 3, 'OLD', 'Legacy', NULL, true, 'dddddddd-0000-4000-8000-000000000001', now() - interval '580 days'),
  ('cccccccc-0000-4000-8000-000000000002', 1, 'OPS', 'Operations', 'Runbooks', false, 'dddddddd-0000-4000-8000-000000000003', now() - interval '190 days'),
  ('cccccccc-0000-4000-8000-000000000003', 1, 'MVP', 'MVP', NULL, false, 'dddddddd-0000-4000-8000-000000000005', now() - interval '29 days');

INSERT INTO tasks (tenant_id, id, project_id, number, title, description, status, priority, assignee_id, reporter_id, due_on, estimate_hours, labels, parent_task_id, created_at, completed_at) VALUES
  ('cccccccc-0000-4000-8000-000000000001', 1, 1, 1, 'Landing page', 'Hero and pricing', 'done', 'high', 'dddddddd-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000001', current_date - 30, 8.00, '{frontend}', NULL, now() - interval '100 days', now() - interval '60 days'),
  ('cccccccc-0000-4000-8000-000000000001', 2, 1, 2, 'Pricing table', NULL, 'in_progress', 'medium', 'dddddddd-0000-4000-8000-000000000004', 'dddddddd-0000-4000-8000-000000000001', current_date + 5, 5.50, '{frontend,billing}', 1, now() - interval '50 days', NULL),
  ('cccccccc-0000-4000-8000-000000000001', 3, 1, 3, 'Fix footer links', NULL, 'todo', 'low', NULL, 'dddddddd-0000-4000-8000-000000000002', NULL, NULL, '{}', NULL, now() - interval '10 days', NULL),
  ('cccccccc-0000-4000-8000-000000000001', 4, 2, 1, 'Login screen', 'OAuth', 'blocked', 'urgent', 'dddddddd-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000001', current_date - 2, 13.00, '{mobile,auth}', NULL, now() - interval '40 days', NULL),
  ('cccccccc-0000-4000-8000-000000000001', 5, 2, 2, 'Push notifications', NULL, 'todo', 'high', 'dddddddd-0000-4000-8000-000000000004', 'dddddddd-0000-4000-8000-000000000002', current_date + 20, NULL, '{mobile}', NULL, now() - interval '5 days', NULL),
  ('cccccccc-0000-4000-8000-000000000001', 6, 3, 1, 'Old task', NULL, 'canceled', 'low', NULL, 'dddddddd-0000-4000-8000-000000000001', NULL, NULL, '{}', NULL, now() - interval '570 days', NULL),
  ('cccccccc-0000-4000-8000-000000000001', 7, 1, 4, 'Pricing copy', NULL, 'done', 'medium', 'dddddddd-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000004', NULL, 1.00, '{frontend}', 2, now() - interval '20 days', now() - interval '12 days'),
  ('cccccccc-0000-4000-8000-000000000002', 1, 1, 1, 'Backup runbook', NULL, 'done', 'medium', 'dddddddd-0000-4000-8000-000000000003', 'dddddddd-0000-4000-8000-000000000003', current_date - 100, 3.00, '{docs}', NULL, now() - interval '180 days', now() - interval '150 days'),
  ('cccccccc-0000-4000-8000-000000000002', 2, 1, 2, 'Pager rotation', 'Weekly', 'in_progress', 'high', 'dddddddd-0000-4000-8000-000000000006', 'dddddddd-0000-4000-8000-000000000003', current_date + 1, 2.00, '{oncall}', NULL, now() - interval '14 days', NULL),
  ('cccccccc-0000-4000-8000-000000000003', 1, 1, 1, 'Prototype', NULL, 'todo', 'medium', 'dddddddd-0000-4000-8000-000000000005', 'dddddddd-0000-4000-8000-000000000005', NULL, NULL, '{}', NULL, now() - interval '20 days', NULL);

INSERT INTO task_comments (id, tenant_id, task_id, author_id, body, created_at) VALUES
  (1, 'cccccccc-0000-4000-8000-000000000001', 4, 'dddddddd-0000-4000-8000-000000000001', 'Blocked on OAuth credentials', now() - interval '3 days'),
  (2, 'cccccccc-0000-4000-8000-000000000001', 4, 'dddddddd-0000-4000-8000-000000000002', 'Asked IT for them', now() - interval '2 days'),
  (3, 'cccccccc-0000-4000-8000-000000000001', 1, 'dddddddd-0000-4000-8000-000000000004', 'Looks great', now() - interval '61 days'),
  (4, 'cccccccc-0000-4000-8000-000000000002', 2, 'dddddddd-0000-4000-8000-000000000003', 'Starts Monday', now() - interval '13 days');

INSERT INTO time_entries (id, tenant_id, task_id, user_id, started_at, duration, billable, note) VALUES
  (1, 'cccccccc-0000-4000-8000-000000000001', 1, 'dddddddd-0000-4000-8000-000000000002', now() - interval '70 days', '3 hours', true, 'design'),
  (2, 'cccccccc-0000-4000-8000-000000000001', 1, 'dddddddd-0000-4000-8000-000000000002', now() - interval '65 days', '4 hours 30 minutes', true, NULL),
  (3, 'cccccccc-0000-4000-8000-000000000001', 2, 'dddddddd-0000-4000-8000-000000000004', now() - interval '10 days', '2 hours', true, NULL),
  (4, 'cccccccc-0000-4000-8000-000000000001', 4, 'dddddddd-0000-4000-8000-000000000002', now() - interval '5 days', '1 hour', false, 'investigation'),
  (5, 'cccccccc-0000-4000-8000-000000000002', 1, 'dddddddd-0000-4000-8000-000000000003', now() - interval '160 days', '3 hours', true, NULL),
  (6, 'cccccccc-0000-4000-8000-000000000002', 2, 'dddddddd-0000-4000-8000-000000000006', now() - interval '2 days', '45 minutes', true, 'handover');

INSERT INTO subscriptions (tenant_id, plan, status, seats, price_per_seat_cents, current_period_start, current_period_end, trial_ends_at, canceled_at) VALUES
  ('cccccccc-0000-4000-8000-000000000001', 'enterprise', 'active', 50, 2500, now() - interval '10 days', now() + interval '20 days', NULL, NULL),
  ('cccccccc-0000-4000-8000-000000000002', 'team', 'past_due', 5, 1200, now() - interval '35 days', now() - interval '5 days', NULL, NULL),
  ('cccccccc-0000-4000-8000-000000000003', 'free', 'canceled', 1, 0, now() - interval '30 days', now(), NULL, now() - interval '2 days'),
  ('cccccccc-0000-4000-8000-000000000004', 'business', 'trialing', 10, 1800, now() - interval '10 days', now() + interval '20 days', now() + interval '14 days', NULL);

INSERT INTO invoices (id, tenant_id, number, status, currency, amount_due_cents, amount_paid_cents, issued_at, due_on, paid_at, lines) VALUES
  ('eeeeeeee-0000-4000-8000-000000000001', 'cccccccc-0000-4000-8000-000000000001', 'INV-2026-0001', 'paid', 'USD', 125000, 125000, now() - interval '60 days', current_date - 45, now() - interval '50 days', '[{"description": "Enterprise seats", "quantity": 50, "unit_cents": 2500}]'),
  ('eeeeeeee-0000-4000-8000-000000000002', 'cccccccc-0000-4000-8000-000000000001', 'INV-2026-0002', 'open', 'USD', 125000, 0, now() - interval '20 days', current_date - 5, NULL, '[{"description": "Enterprise seats", "quantity": 50, "unit_cents": 2500}]'),
  ('eeeeeeee-0000-4000-8000-000000000003', 'cccccccc-0000-4000-8000-000000000002', 'INV-2026-0003', 'open', 'USD', 6000, 1000, now() - interval '40 days', current_date - 25, NULL, '[{"description": "Team seats", "quantity": 5, "unit_cents": 1200}]'),
  ('eeeeeeee-0000-4000-8000-000000000004', 'cccccccc-0000-4000-8000-000000000002', 'INV-2026-0004', 'draft', 'USD', 6000, 0, NULL, NULL, NULL, '[]'),
  ('eeeeeeee-0000-4000-8000-000000000005', 'cccccccc-0000-4000-8000-000000000003', 'INV-2026-0005', 'void', 'EUR', 0, 0, now() - interval '25 days', current_date - 10, NULL, '[]');

INSERT INTO api_keys (id, tenant_id, name, prefix, secret_hash, scopes, created_by, created_at, last_used_at, expires_at, revoked_at) VALUES
  ('ffffffff-0000-4000-8000-000000000001', 'cccccccc-0000-4000-8000-000000000001', 'CI deploy', 'ak_live_01', sha256(convert_to('s3cret-ci', 'UTF8')), '{deploy,read}', 'dddddddd-0000-4000-8000-000000000001', now() - interval '300 days', now() - interval '1 day', NULL, NULL),
  ('ffffffff-0000-4000-8000-000000000002', 'cccccccc-0000-4000-8000-000000000001', 'Old key', 'ak_live_02', sha256(convert_to('old', 'UTF8')), '{read}', 'dddddddd-0000-4000-8000-000000000002', now() - interval '400 days', now() - interval '200 days', now() - interval '100 days', now() - interval '100 days'),
  ('ffffffff-0000-4000-8000-000000000003', 'cccccccc-0000-4000-8000-000000000002', 'Metrics', 'ak_live_03', sha256(convert_to('metrics', 'UTF8')), '{read,metrics}', NULL, now() - interval '50 days', NULL, now() + interval '300 days', NULL);

INSERT INTO usage_daily (tenant_id, metric, day, quantity) VALUES
  ('cccccccc-0000-4000-8000-000000000001', 'api_calls', current_date - 2, 15000),
  ('cccccccc-0000-4000-8000-000000000001', 'api_calls', current_date - 1, 17000),
  ('cccccccc-0000-4000-8000-000000000001', 'storage_gb', current_date - 1, 120),
  ('cccccccc-0000-4000-8000-000000000002', 'api_calls', current_date - 1, 900),
  ('cccccccc-0000-4000-8000-000000000002', 'api_calls', current_date - 40, 700),
  ('cccccccc-0000-4000-8000-000000000003', 'api_calls', current_date - 3, 10);

INSERT INTO feature_flags (tenant_id, flag, enabled, rollout_percent, updated_at, updated_by) VALUES
  ('cccccccc-0000-4000-8000-000000000001', 'new_editor', true, 100, now() - interval '10 days', 'dddddddd-0000-4000-8000-000000000007'),
  ('cccccccc-0000-4000-8000-000000000001', 'ai_summary', false, NULL, now() - interval '5 days', NULL),
  ('cccccccc-0000-4000-8000-000000000002', 'new_editor', true, 25, now() - interval '3 days', 'dddddddd-0000-4000-8000-000000000007'),
  ('cccccccc-0000-4000-8000-000000000003', 'ai_summary', true, NULL, now() - interval '1 day', NULL);

INSERT INTO audit_log (id, tenant_id, actor_id, action, target_type, target_id, ip, details, created_at) VALUES
  (1, 'cccccccc-0000-4000-8000-000000000001', 'dddddddd-0000-4000-8000-000000000001', 'project.create', 'project', '1', '192.0.2.10', '{"key": "WEB"}', now() - interval '590 days'),
  (2, 'cccccccc-0000-4000-8000-000000000001', 'dddddddd-0000-4000-8000-000000000002', 'member.invite', 'user', 'dddddddd-0000-4000-8000-000000000004', '192.0.2.11', '{"role": "member"}', now() - interval '100 days'),
  (3, 'cccccccc-0000-4000-8000-000000000001', NULL, 'api_key.revoke', 'api_key', 'ffffffff-0000-4000-8000-000000000002', NULL, NULL, now() - interval '100 days'),
  (4, 'cccccccc-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000003', 'task.update', 'task', '2', NULL, '{"status": ["todo", "in_progress"]}', now() - interval '14 days'),
  (5, 'cccccccc-0000-4000-8000-000000000003', 'dddddddd-0000-4000-8000-000000000007', 'tenant.suspend', 'tenant', 'cccccccc-0000-4000-8000-000000000003', '198.51.100.1', '{"reason": "payment"}', now() - interval '2 days');
