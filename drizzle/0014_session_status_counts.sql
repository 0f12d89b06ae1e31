CREATE TABLE `session_status_counts` (
	`status` text PRIMARY KEY NOT NULL,
	`session_count` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `session_status_counts` (`status`, `session_count`) SELECT `status`, count(*) FROM `sessions` GROUP BY `status`;
--> statement-breakpoint
CREATE TRIGGER `sessions_status_count_insert` AFTER INSERT ON `sessions` BEGIN
	INSERT INTO `session_status_counts` (`status`, `session_count`) VALUES (new.`status`, 1)
		ON CONFLICT (`status`) DO UPDATE SET `session_count` = `session_count` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_status_count_update` AFTER UPDATE OF `status` ON `sessions` WHEN old.`status` IS NOT new.`status` BEGIN
	UPDATE `session_status_counts` SET `session_count` = `session_count` - 1 WHERE `status` = old.`status`;
	DELETE FROM `session_status_counts` WHERE `status` = old.`status` AND `session_count` <= 0;
	INSERT INTO `session_status_counts` (`status`, `session_count`) VALUES (new.`status`, 1)
		ON CONFLICT (`status`) DO UPDATE SET `session_count` = `session_count` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_status_count_delete` AFTER DELETE ON `sessions` BEGIN
	UPDATE `session_status_counts` SET `session_count` = `session_count` - 1 WHERE `status` = old.`status`;
	DELETE FROM `session_status_counts` WHERE `status` = old.`status` AND `session_count` <= 0;
END;
