CREATE TABLE `shared_events` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`session_id` text,
	`actor` text NOT NULL,
	`machine` text NOT NULL,
	`machine_name` text,
	`author` text,
	`at` text NOT NULL,
	`body_json` text NOT NULL,
	`source` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `shared_events_kind_subject_idx` ON `shared_events` (`kind`,`subject`);--> statement-breakpoint
CREATE INDEX `shared_events_session_idx` ON `shared_events` (`session_id`,`kind`);--> statement-breakpoint
CREATE INDEX `shared_events_source_idx` ON `shared_events` (`source`);