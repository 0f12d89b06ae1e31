DROP INDEX `tasks_status_idx`;--> statement-breakpoint
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`,`parent_id`);