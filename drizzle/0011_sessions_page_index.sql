DROP INDEX `sessions_started_idx`;--> statement-breakpoint
CREATE INDEX `sessions_started_idx` ON `sessions` (`started_at`,`id`);