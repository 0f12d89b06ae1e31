CREATE TABLE `task_done_children` (
	`parent_id` text PRIMARY KEY NOT NULL,
	`done_count` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `task_status_counts` (
	`status` text PRIMARY KEY NOT NULL,
	`task_count` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `task_status_counts` (`status`, `task_count`) SELECT `status`, count(*) FROM `tasks` GROUP BY `status`;
--> statement-breakpoint
INSERT INTO `task_done_children` (`parent_id`, `done_count`) SELECT `parent_id`, count(*) FROM `tasks` WHERE `status` = 'done' AND `parent_id` IS NOT NULL GROUP BY `parent_id`;
--> statement-breakpoint
CREATE TRIGGER `tasks_counts_insert` AFTER INSERT ON `tasks` BEGIN
	INSERT INTO `task_status_counts` (`status`, `task_count`) VALUES (new.`status`, 1)
		ON CONFLICT (`status`) DO UPDATE SET `task_count` = `task_count` + 1;
	INSERT INTO `task_done_children` (`parent_id`, `done_count`) SELECT new.`parent_id`, 1 WHERE new.`status` = 'done' AND new.`parent_id` IS NOT NULL
		ON CONFLICT (`parent_id`) DO UPDATE SET `done_count` = `done_count` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `tasks_counts_update` AFTER UPDATE OF `status`, `parent_id` ON `tasks`
	WHEN old.`status` IS NOT new.`status` OR old.`parent_id` IS NOT new.`parent_id` BEGIN
	UPDATE `task_status_counts` SET `task_count` = `task_count` - 1 WHERE `status` = old.`status` AND old.`status` IS NOT new.`status`;
	DELETE FROM `task_status_counts` WHERE `status` = old.`status` AND `task_count` <= 0;
	INSERT INTO `task_status_counts` (`status`, `task_count`) SELECT new.`status`, 1 WHERE old.`status` IS NOT new.`status`
		ON CONFLICT (`status`) DO UPDATE SET `task_count` = `task_count` + 1;
	UPDATE `task_done_children` SET `done_count` = `done_count` - 1 WHERE `parent_id` = old.`parent_id` AND old.`status` = 'done';
	DELETE FROM `task_done_children` WHERE `parent_id` = old.`parent_id` AND `done_count` <= 0;
	INSERT INTO `task_done_children` (`parent_id`, `done_count`) SELECT new.`parent_id`, 1 WHERE new.`status` = 'done' AND new.`parent_id` IS NOT NULL
		ON CONFLICT (`parent_id`) DO UPDATE SET `done_count` = `done_count` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `tasks_counts_delete` AFTER DELETE ON `tasks` BEGIN
	UPDATE `task_status_counts` SET `task_count` = `task_count` - 1 WHERE `status` = old.`status`;
	DELETE FROM `task_status_counts` WHERE `status` = old.`status` AND `task_count` <= 0;
	UPDATE `task_done_children` SET `done_count` = `done_count` - 1 WHERE `parent_id` = old.`parent_id` AND old.`status` = 'done';
	DELETE FROM `task_done_children` WHERE `parent_id` = old.`parent_id` AND `done_count` <= 0;
END;
