CREATE TABLE `client_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`command` text NOT NULL,
	`exit_code` integer,
	`stdout` text,
	`stderr` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `client_requests_created_idx` ON `client_requests` (`created_at`);