CREATE TABLE `debug_file_metadata` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`debug_file_id` integer NOT NULL,
	`uuid` text,
	`type` text NOT NULL,
	`object` text,
	`data` text DEFAULT '{}' NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`debug_file_id`) REFERENCES `debug_files`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `debug_file_metadata_debug_file_id_idx` ON `debug_file_metadata` (`debug_file_id`,`id`);--> statement-breakpoint
ALTER TABLE `debug_files` ADD `release_version_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `debug_files` ADD `build_version_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `debug_files_channel_version_keys_idx` ON `debug_files` (`channel_id`,`release_version_key`,`build_version_key`);