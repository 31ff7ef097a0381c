import { z } from 'zod';

/** A required text field whose absence and blankness both read as the spec's message. */
export function requiredText(message: string, max = 255) {
  return z.string({ error: message }).trim().min(1, message).max(max, `Must be ${max} characters or less`);
}
