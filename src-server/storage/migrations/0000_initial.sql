CREATE TABLE `api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_user_id_idx` ON `api_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `apps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`owner_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `apps_created_at_idx` ON `apps` (`created_at`);--> statement-breakpoint
CREATE INDEX `apps_owner_id_idx` ON `apps` (`owner_id`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scheme_id` integer NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`key` text NOT NULL,
	`device_type` text NOT NULL,
	`bundle_id` text DEFAULT '*' NOT NULL,
	`git_url` text,
	`password_hash` text,
	`download_filename_type` text DEFAULT 'version_datetime' NOT NULL,
	`next_release_version` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`scheme_id`) REFERENCES `schemes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channels_slug_unique` ON `channels` (lower("slug"));--> statement-breakpoint
CREATE UNIQUE INDEX `channels_key_unique` ON `channels` (`key`);--> statement-breakpoint
CREATE INDEX `channels_scheme_id_idx` ON `channels` (`scheme_id`);--> statement-breakpoint
CREATE TABLE `collaborators` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collaborators_app_user_unique` ON `collaborators` (`app_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `collaborators_user_id_idx` ON `collaborators` (`user_id`);--> statement-breakpoint
CREATE TABLE `debug_files` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel_id` integer NOT NULL,
	`device_type` text NOT NULL,
	`release_version` text NOT NULL,
	`build_version` text NOT NULL,
	`file_path` text NOT NULL,
	`file_name` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `debug_files_channel_created_idx` ON `debug_files` (`channel_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `debug_files_channel_sha256_unique` ON `debug_files` (`channel_id`,`sha256`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`udid` text NOT NULL,
	`name` text NOT NULL,
	`model` text,
	`platform` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_udid_unique` ON `devices` (`udid`);--> statement-breakpoint
CREATE TABLE `file_deletions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`path` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `releases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel_id` integer NOT NULL,
	`version` integer NOT NULL,
	`app_name` text NOT NULL,
	`bundle_id` text NOT NULL,
	`release_version` text NOT NULL,
	`build_version` text NOT NULL,
	`release_type` text,
	`source` text DEFAULT 'api' NOT NULL,
	`branch` text,
	`git_commit` text,
	`ci_url` text,
	`platform` text,
	`device_type` text NOT NULL,
	`changelog` text DEFAULT '[]' NOT NULL,
	`custom_fields` text DEFAULT '[]' NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL,
	`file_path` text NOT NULL,
	`file_name` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`icon_path` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `releases_channel_version_unique` ON `releases` (`channel_id`,`version`);--> statement-breakpoint
CREATE INDEX `releases_channel_versions_idx` ON `releases` (`channel_id`,`release_version`,`build_version`);--> statement-breakpoint
CREATE INDEX `releases_channel_git_commit_idx` ON `releases` (`channel_id`,`git_commit`);--> statement-breakpoint
CREATE TABLE `schemes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` integer NOT NULL,
	`name` text NOT NULL,
	`new_build_callout` integer DEFAULT true NOT NULL,
	`retained_builds` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `schemes_app_id_idx` ON `schemes` (`app_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`email` text NOT NULL,
	`username_key` text NOT NULL,
	`email_key` text NOT NULL,
	`password_hash` text,
	`role` text DEFAULT 'member' NOT NULL,
	`locale` text,
	`appearance` text,
	`timezone` text,
	`locked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_key_unique` ON `users` (`username_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_key_unique` ON `users` (`email_key`);