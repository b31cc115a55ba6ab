/** What a caught value says: an Error's message, anything else as a string (a throw may throw anything). */
export function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
