CREATE TABLE `checkpoint_session_settings` (
	`session_id` text PRIMARY KEY NOT NULL,
	`cost_usd` real NOT NULL,
	`error_count` integer NOT NULL,
	`policy` text,
	`thresholds_json` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `checkpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`session_id` text,
	`trigger` text NOT NULL,
	`parent_checkpoint_id` text,
	`commit_sha` text NOT NULL,
	`tree_sha` text NOT NULL,
	`message` text,
	`tags_json` text NOT NULL,
	`annotations_json` text NOT NULL,
	`linked_issues_json` text NOT NULL,
	`file_stats_json` text NOT NULL,
	`environment_json` text,
	`metrics_json` text NOT NULL,
	`approval_status` text NOT NULL,
	`approval_user` text,
	`approval_at` text,
	`approval_reason` text,
	`approval_policy` text NOT NULL,
	`escalation_reasons_json` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `checkpoints_seq_idx` ON `checkpoints` (`seq`);--> statement-breakpoint
CREATE INDEX `checkpoints_session_idx` ON `checkpoints` (`session_id`,`seq`);--> statement-breakpoint
CREATE INDEX `checkpoints_parent_idx` ON `checkpoints` (`parent_checkpoint_id`);--> statement-breakpoint
CREATE INDEX `checkpoints_approval_idx` ON `checkpoints` (`approval_status`);--> statement-breakpoint
CREATE TABLE `rollbacks` (
	`id` text PRIMARY KEY NOT NULL,
	`target_checkpoint_id` text NOT NULL,
	`safety_checkpoint_id` text,
	`session_id` text,
	`status` text NOT NULL,
	`phases_json` text NOT NULL,
	`restored_paths_json` text NOT NULL,
	`removed_paths_json` text NOT NULL,
	`kept_paths_json` text NOT NULL,
	`preserved_paths_json` text NOT NULL,
	`preserved_dir` text,
	`error` text,
	`actor` text NOT NULL,
	`created_at` text NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `rollbacks_target_idx` ON `rollbacks` (`target_checkpoint_id`);--> statement-breakpoint
CREATE INDEX `rollbacks_created_idx` ON `rollbacks` (`created_at`);