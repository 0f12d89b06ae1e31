CREATE TABLE `import_records` (
	`source` text NOT NULL,
	`entity_type` text NOT NULL,
	`external_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`content_hash` text NOT NULL,
	`imported_at` text NOT NULL,
	PRIMARY KEY(`source`, `entity_type`, `external_id`)
);
--> statement-breakpoint
CREATE INDEX `import_records_entity_idx` ON `import_records` (`entity_type`,`entity_id`);--> statement-breakpoint
CREATE TABLE `issue_links` (
	`session_id` text NOT NULL,
	`tracker` text NOT NULL,
	`issue_id` text NOT NULL,
	`url` text,
	`title` text,
	`state` text,
	`source` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`session_id`, `tracker`, `issue_id`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `issue_links_issue_idx` ON `issue_links` (`tracker`,`issue_id`);--> statement-breakpoint
CREATE TABLE `memory_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`text` text NOT NULL,
	`fingerprint` text NOT NULL,
	`source_session_id` text,
	`source` text NOT NULL,
	`files_json` text NOT NULL,
	`confirmations` integer NOT NULL,
	`created_at` text NOT NULL,
	`last_confirmed_at` text NOT NULL,
	`stale_since` text,
	`stale_reason` text,
	`retired_at` text,
	FOREIGN KEY (`source_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memory_entries_fingerprint_idx` ON `memory_entries` (`kind`,`fingerprint`);--> statement-breakpoint
CREATE INDEX `memory_entries_session_idx` ON `memory_entries` (`source_session_id`);--> statement-breakpoint
CREATE TABLE `notification_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`event` text NOT NULL,
	`priority` text NOT NULL,
	`channel` text NOT NULL,
	`dedup_key` text NOT NULL,
	`session_id` text,
	`message_json` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` text NOT NULL,
	`lease_until` text,
	`last_error` text,
	`created_at` text NOT NULL,
	`sent_at` text
);
--> statement-breakpoint
CREATE INDEX `notification_outbox_due_idx` ON `notification_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `notification_outbox_dedup_idx` ON `notification_outbox` (`channel`,`dedup_key`,`created_at`);