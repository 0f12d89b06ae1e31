CREATE TABLE `agent_signals` (
	`agent` text NOT NULL,
	`alias` text NOT NULL,
	`session_id` text NOT NULL,
	`state` text NOT NULL,
	`reason` text NOT NULL,
	`event` text NOT NULL,
	`since` text NOT NULL,
	PRIMARY KEY(`agent`, `alias`)
);
--> statement-breakpoint
CREATE INDEX `agent_signals_session_idx` ON `agent_signals` (`session_id`);