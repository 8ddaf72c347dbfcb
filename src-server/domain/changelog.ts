/**
 * Changelogs (R10): a JSON array is kept as sent (ReleaseChangelog items: message, author, email,
 * date); any other text is one entry per line, blank lines dropped, a leading "-" or "*" and spaces
 * stripped. `text_changelog` is each message prefixed with "- ", one per line.
 */
import { ValidationError } from './errors.ts';

export interface ChangelogEntry {
  message: string;
  author?: string;
  email?: string;
  date?: string;
  [key: string]: unknown;
}

function fromText(text: string): ChangelogEntry[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/^\s*[-*]?\s*/, '').trimEnd())
    .filter((line) => line !== '')
    .map((message) => ({ message }));
}

function fromItems(items: unknown[]): ChangelogEntry[] {
  return items.map((item, index) => {
    if (typeof item === 'string') return { message: item };
    if (item !== null && typeof item === 'object' && !Array.isArray(item) && typeof (item as { message?: unknown }).message === 'string') {
      return item as ChangelogEntry;
    }
    throw ValidationError.field('changelog', `item ${index + 1} must be a text or an object with a "message"`);
  });
}

/** Parses the `changelog` of an upload or release update: text, JSON array text, or an array. */
export function parseChangelog(input: string | unknown[] | undefined | null): ChangelogEntry[] {
  if (input === undefined || input === null) return [];
  if (Array.isArray(input)) return fromItems(input);
  const trimmed = input.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return fromItems(parsed);
    } catch {
      // not JSON after all: a text that starts with "["
    }
  }
  return fromText(input);
}

export function textChangelog(entries: ChangelogEntry[]): string {
  return entries.map((entry) => `- ${entry.message}`).join('\n');
}

/** `custom_fields`: JSON text stored and returned as sent (R10); it must be JSON. */
export function parseCustomFields(input: string | unknown[] | undefined | null): string {
  if (input === undefined || input === null || input === '') return '[]';
  if (typeof input !== 'string') return JSON.stringify(input);
  try {
    JSON.parse(input);
  } catch {
    throw ValidationError.field('custom_fields', 'is not valid JSON');
  }
  return input;
}

/** `branch`: a leading "origin/" is stripped (R10). */
export function cleanBranch(branch: string | undefined | null): string | null {
  if (!branch) return null;
  return branch.replace(/^origin\//, '');
}
