CREATE TABLE `session_scopes` (
	`scope_key` text PRIMARY KEY NOT NULL,
	`session_count` integer NOT NULL,
	`active_count` integer NOT NULL,
	`last_activity` text NOT NULL,
	`first_session` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `session_scopes_order_idx` ON `session_scopes` (`last_activity`,`first_session`);--> statement-breakpoint
INSERT INTO `session_scopes` (`scope_key`, `session_count`, `active_count`, `last_activity`, `first_session`)
	SELECT `scope_key`, count(*), sum(`status` = 'active'), max(`last_activity`), min(`started_at` || ' ' || `id`) FROM `sessions` GROUP BY `scope_key`;
--> statement-breakpoint
CREATE TRIGGER `sessions_scope_insert` AFTER INSERT ON `sessions` BEGIN
	INSERT INTO `session_scopes` (`scope_key`, `session_count`, `active_count`, `last_activity`, `first_session`)
		VALUES (new.`scope_key`, 1, new.`status` = 'active', new.`last_activity`, new.`started_at` || ' ' || new.`id`)
		ON CONFLICT (`scope_key`) DO UPDATE SET
			`session_count` = `session_count` + 1,
			`active_count` = `active_count` + excluded.`active_count`,
			`last_activity` = max(`last_activity`, excluded.`last_activity`),
			`first_session` = min(`first_session`, excluded.`first_session`);
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_scope_update` AFTER UPDATE OF `status`, `last_activity` ON `sessions`
	WHEN old.`scope_key` = new.`scope_key` AND old.`started_at` = new.`started_at` AND old.`id` = new.`id` AND new.`last_activity` >= old.`last_activity`
BEGIN
	UPDATE `session_scopes` SET
		`active_count` = `active_count` + (new.`status` = 'active') - (old.`status` = 'active'),
		`last_activity` = max(`last_activity`, new.`last_activity`)
		WHERE `scope_key` = new.`scope_key`;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_scope_move` AFTER UPDATE OF `scope_key`, `status`, `last_activity`, `started_at`, `id` ON `sessions`
	WHEN NOT (old.`scope_key` = new.`scope_key` AND old.`started_at` = new.`started_at` AND old.`id` = new.`id` AND new.`last_activity` >= old.`last_activity`)
BEGIN
	DELETE FROM `session_scopes` WHERE `scope_key` IN (old.`scope_key`, new.`scope_key`);
	INSERT INTO `session_scopes` (`scope_key`, `session_count`, `active_count`, `last_activity`, `first_session`)
		SELECT `scope_key`, count(*), sum(`status` = 'active'), max(`last_activity`), min(`started_at` || ' ' || `id`)
		FROM `sessions` WHERE `scope_key` IN (old.`scope_key`, new.`scope_key`) GROUP BY `scope_key`;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_scope_delete` AFTER DELETE ON `sessions` BEGIN
	UPDATE `session_scopes` SET `session_count` = `session_count` - 1, `active_count` = `active_count` - (old.`status` = 'active')
		WHERE `scope_key` = old.`scope_key`;
	DELETE FROM `session_scopes` WHERE `scope_key` = old.`scope_key`
		AND (`session_count` <= 0 OR `last_activity` = old.`last_activity` OR `first_session` = old.`started_at` || ' ' || old.`id`);
	INSERT INTO `session_scopes` (`scope_key`, `session_count`, `active_count`, `last_activity`, `first_session`)
		SELECT `scope_key`, count(*), sum(`status` = 'active'), max(`last_activity`), min(`started_at` || ' ' || `id`)
		FROM `sessions` WHERE `scope_key` = old.`scope_key` AND NOT EXISTS (SELECT 1 FROM `session_scopes` WHERE `scope_key` = old.`scope_key`)
		GROUP BY `scope_key`;
END;
