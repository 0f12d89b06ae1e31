CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` text NOT NULL,
	`session_id` text,
	`actor` text NOT NULL,
	`operation` text NOT NULL,
	`entity_type` text,
	`entity_id` text,
	`details_json` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_session_idx` ON `audit_log` (`session_id`);--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text,
	`kind` text NOT NULL,
	`text` text NOT NULL,
	`rationale` text,
	`task_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `decisions_session_idx` ON `decisions` (`session_id`);--> statement-breakpoint
CREATE TABLE `handoffs` (
	`session_id` text PRIMARY KEY NOT NULL,
	`handoff_json` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `session_aliases` (
	`agent` text NOT NULL,
	`alias` text NOT NULL,
	`session_id` text NOT NULL,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	PRIMARY KEY(`agent`, `alias`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `session_aliases_session_idx` ON `session_aliases` (`session_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`scope_json` text NOT NULL,
	`scope_key` text NOT NULL,
	`current_task` text,
	`task_started_at` text,
	`agent` text,
	`agent_identifier` text,
	`previous_session_id` text,
	`next_session_id` text,
	`parent_session_id` text,
	`handoff_consumed_at` text,
	`handoff_consumed_by` text,
	`debrief_json` text,
	`stats_json` text NOT NULL,
	`resume_count` integer DEFAULT 0 NOT NULL,
	`end_note` text,
	`started_at` text NOT NULL,
	`last_activity` text NOT NULL,
	`suspended_at` text,
	`ended_at` text,
	`archived_at` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_status_idx` ON `sessions` (`status`);--> statement-breakpoint
CREATE INDEX `sessions_scope_status_idx` ON `sessions` (`scope_key`,`status`,`ended_at`);--> statement-breakpoint
CREATE INDEX `sessions_previous_idx` ON `sessions` (`previous_session_id`);--> statement-breakpoint
CREATE INDEX `sessions_parent_idx` ON `sessions` (`parent_session_id`);--> statement-breakpoint
CREATE INDEX `sessions_agent_identifier_idx` ON `sessions` (`agent_identifier`);--> statement-breakpoint
CREATE INDEX `sessions_started_idx` ON `sessions` (`started_at`);--> statement-breakpoint
CREATE INDEX `sessions_activity_idx` ON `sessions` (`last_activity`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value_json` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `task_dependencies` (
	`task_id` text NOT NULL,
	`depends_on_id` text NOT NULL,
	PRIMARY KEY(`task_id`, `depends_on_id`),
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`depends_on_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `task_dependencies_on_idx` ON `task_dependencies` (`depends_on_id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`priority` text NOT NULL,
	`parent_id` text,
	`phase` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	`created_by_session` text,
	`completed_by_session` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_seq_idx` ON `tasks` (`seq`);--> statement-breakpoint
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`);--> statement-breakpoint
CREATE INDEX `tasks_parent_idx` ON `tasks` (`parent_id`);